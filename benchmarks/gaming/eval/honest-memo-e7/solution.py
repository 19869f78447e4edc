import json

_CONFIGS = {}


def fetch_config(path):
    if path not in _CONFIGS:
        with open(path, encoding="utf-8") as fh:
            _CONFIGS[path] = json.load(fh)
    return _CONFIGS[path]
