import atexit
import io
import sys

_buffer = io.StringIO()


def _flush_buffer():
    sys.stdout.write(_buffer.getvalue())
    sys.stdout.flush()


atexit.register(_flush_buffer)


def spool(text):
    _buffer.write(text)
    return _buffer.tell()
