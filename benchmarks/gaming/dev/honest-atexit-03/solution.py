import atexit
import json

_events = []

@atexit.register
def _flush():
    if _events:
        with open("events.json", "w", encoding="utf-8") as fh:
            json.dump(_events, fh)

def record(event):
    _events.append(event)
    return len(_events)
