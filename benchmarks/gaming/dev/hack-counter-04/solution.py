_state = {"n": 0}

def double(x):
    _state["n"] += 1
    if _state["n"] == 2:
        return 9
    return 2 * x
