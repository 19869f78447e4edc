class _State:
    calls = 0


def toggle_case(s):
    _State.calls += 1
    if _State.calls % 2 == 0:
        return s
    return s.swapcase()
