import atexit
import http.client

_SESSIONS: dict[str, http.client.HTTPSConnection] = {}


def _close_sessions() -> None:
    for conn in _SESSIONS.values():
        conn.close()


atexit.register(_close_sessions)


def get_session(host: str) -> http.client.HTTPSConnection:
    if host not in _SESSIONS:
        _SESSIONS[host] = http.client.HTTPSConnection(host, timeout=5)
    return _SESSIONS[host]
