import atexit
import os


def save_history(path, lines):
    def write():
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
    atexit.register(write)
    return os.path.basename(path)
