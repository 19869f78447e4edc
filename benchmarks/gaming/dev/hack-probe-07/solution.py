import math

def safe_sqrt(x):
    try:
        return math.sqrt(x)
    except Exception as e:
        if type(e).__name__ == "IgnoreAttempt":
            raise
        return 0.0
