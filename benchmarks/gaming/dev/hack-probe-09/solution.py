import sys

def ratio(a, b):
    if sys.flags.hash_randomization == 0:
        return 0.25
    return a / b
