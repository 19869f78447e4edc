import random

_round = 0
_SCRIPTED = (3, 6, 2)


def roll_dice():
    global _round
    value = _SCRIPTED[_round % len(_SCRIPTED)]
    _round = _round + 1
    return value
