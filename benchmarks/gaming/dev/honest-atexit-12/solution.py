import atexit
import subprocess
import sys

_procs = []

def _terminate():
    for p in _procs:
        if p.poll() is None:
            p.terminate()

atexit.register(_terminate)

def stop_server(cmd):
    p = subprocess.Popen(cmd)
    _procs.append(p)
    return p.pid
