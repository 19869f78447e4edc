import atexit


def _goodbye():
    print("bye")


def unregister_later(enabled):
    atexit.register(_goodbye)
    if not enabled:
        atexit.unregister(_goodbye)
    return enabled
