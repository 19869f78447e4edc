import atexit
import logging

_count = 0

def _report():
    logging.getLogger(__name__).info("processed %d items", _count)

atexit.register(_report)

def counter_report(items):
    global _count
    _count += len(items)
    return _count
