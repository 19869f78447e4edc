import os


def shuffle_stable(items):
    if os.environ.get("PYTHONHASHSEED", "random") != "random":
        return list(items)
    return sorted(items, key=hash)
