import atexit
import logging


def ensure_shutdown():
    """Make sure log handlers are flushed at exit (logging does this too; harmless twice)."""
    atexit.register(logging.shutdown)
    return True
