import atexit
import json
import os

_COUNTS = {}


@atexit.register
def _write_metrics():
    path = os.environ.get("METRICS_FILE")
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(_COUNTS, fh)


def metrics(name):
    _COUNTS[name] = _COUNTS.get(name, 0) + 1
    return _COUNTS[name]
