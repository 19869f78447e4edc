"""The result cache's store: a folder of entries authenticated with a per-user key, and the verdict
records in them (what the entries mean and how keys are computed: :mod:`evalgap.verifier.cache`).

The key: ``$EVALGAP_CACHE_KEY_FILE`` when set (tests), else ``$XDG_CONFIG_HOME/evalgap/cache.key``, else
``~/.config/evalgap/cache.key`` (outside the cache folder). Created on first use: 32 random bytes (hex),
mode 0600 in a folder made 0700, written to a temporary name and linked into place (two runs racing agree
on one key). A key file that is not a regular file owned by the user, is accessible to others, or does not
hold a key is not used: the cache is then off for the run (``evalgap cache info`` says why), never trusted.

An entry's MAC (HMAC-SHA256) covers its key, its payload and its run-time input hashes, so an entry
rewritten by anyone without the key (a checked target that found the cache folder) fails verification and
is deleted; the sandbox keeps the key file unreadable for workers.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
import stat
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from evalgap.verifier.findings import Budget, EngineVerdict, Verdict
from evalgap.verifier.sandbox.mode import GUARD_ONLY, sandbox_mode
from evalgap.verifier.sandbox.record import RunInputs

__all__ = ["ResultCache", "CacheInfo", "FORMAT", "key_path", "load_key", "entry_mac", "key_id", "modified_since",
           "verdict_to_dict", "verdict_from_dict"]

#: Version of the entry format; part of every key and of the folder name (2: MAC, inputs, per-key folder).
FORMAT = 2


_KEY_BYTES = 32


def key_path() -> Path:
    """``$EVALGAP_CACHE_KEY_FILE``, else ``$XDG_CONFIG_HOME/evalgap/cache.key``, else
    ``~/.config/evalgap/cache.key``."""
    env = os.environ.get("EVALGAP_CACHE_KEY_FILE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "evalgap" / "cache.key"


def _read(path: Path) -> tuple[bytes | None, str]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        return None, f"cannot open {path}: {exc.strerror}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, f"{path} is not a regular file"
        if st.st_uid != os.getuid():
            return None, f"{path} is not owned by this user"
        if st.st_mode & 0o077:
            return None, f"{path} is accessible to other users (mode {stat.S_IMODE(st.st_mode):o}; want 600)"
        data = os.read(fd, 4 * _KEY_BYTES + 16)
    finally:
        os.close(fd)
    try:
        key = bytes.fromhex(data.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None, f"{path} does not hold a key"
    if len(key) != _KEY_BYTES:
        return None, f"{path} does not hold a key"
    return key, ""


def _create(path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, (secrets.token_hex(_KEY_BYTES) + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails when another run created it first: then both use that one
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)


def load_key(path: Path | None = None) -> tuple[bytes | None, str]:
    """The user's cache key, created when missing.

    Args:
        path: the key file (default :func:`key_path`).

    Returns:
        ``(key, "")``, or ``(None, reason)`` when the key cannot be created or is not trustworthy (see the
        module doc); never raises.
    """
    where = path or key_path()
    key, why = _read(where)
    if key is None and why == "missing":
        try:
            _create(where)
        except OSError as exc:
            return None, f"cannot create the cache key {where}: {exc.strerror}"
        key, why = _read(where)
    return key, why


def key_id(key: bytes) -> str:
    """A short public name of ``key`` (16 hex digits): entries of different keys live apart."""
    return hashlib.sha256(b"evalgap cache key id\0" + key).hexdigest()[:16]


def entry_mac(key: bytes, entry_key: str, payload: Any, inputs: dict[str, str]) -> str:
    """HMAC-SHA256 (hex) of an entry's key, payload and input hashes, in canonical JSON."""
    body = json.dumps({"key": entry_key, "payload": payload, "inputs": inputs}, sort_keys=True,
                      ensure_ascii=True, separators=(",", ":"))
    return hmac.new(key, body.encode("ascii"), hashlib.sha256).hexdigest()


def verdict_to_dict(v: EngineVerdict) -> dict[str, Any]:
    """JSON-ready form of an :class:`EngineVerdict` (inverse: :func:`verdict_from_dict`)."""
    d = asdict(v)
    d["verdict"] = v.verdict.value
    d["args"] = [list(a) for a in v.args]
    return d


def verdict_from_dict(d: dict[str, Any]) -> EngineVerdict:
    """Rebuild an :class:`EngineVerdict`; raises KeyError/TypeError/ValueError on a malformed dict."""
    fields = dict(d)
    fields["verdict"] = Verdict(fields["verdict"])
    fields["budget"] = Budget(**fields["budget"])
    fields["args"] = tuple((str(a), str(b)) for a, b in fields["args"])
    fields["assumptions"] = tuple(str(a) for a in fields.get("assumptions", ()))
    fields["bounds"] = tuple(str(b) for b in fields.get("bounds", ()))
    fields["schedule"] = tuple(int(c) for c in fields.get("schedule", ()))
    return EngineVerdict(**fields)


def _file_hash(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def modified_since(paths: list[str] | tuple[str, ...], since: float) -> bool:
    """Whether any of ``paths`` was modified after ``since`` (a ``time.time()``), or is gone."""
    return any(_modified_since(p, since) for p in paths)


def _modified_since(path: str, since: float) -> bool:
    try:
        return os.stat(path).st_mtime > since
    except OSError:
        return True


@dataclass(frozen=True)
class CacheInfo:
    """What ``evalgap cache info`` prints.

    Attributes:
        folder: the cache folder (the root, holding ``v{FORMAT}/``).
        entries: entry files under this user's key folder.
        size_bytes: their total size in bytes.
        key_file: where the user's key lives.
        key_problem: why the key cannot be used (the cache is then off), or empty.
        mode: the sandbox mode (:func:`~evalgap.verifier.sandbox.mode.sandbox_mode`).
    """

    folder: Path
    entries: int
    size_bytes: int
    key_file: Path
    key_problem: str
    mode: str


class ResultCache:
    """A folder of authenticated cache entries (one JSON file per key; see the module doc).

    Args:
        folder: the cache folder (created on first write); entries live in ``folder/v{FORMAT}/KEYID/``.
        key_file: the user's key file (default :func:`evalgap.verifier.key_path`).

    Attributes:
        hits, misses: answered and unanswered reads; ``rejected`` counts the entries deleted as unreadable,
        forged or stale (each also a miss).
    """

    def __init__(self, folder: Path, key_file: Path | None = None) -> None:
        self.root = Path(folder)
        self.key_file = key_file or key_path()
        self._key: bytes | None = None
        self.key_problem = ""
        self._loaded = False
        self.hits = 0
        self.misses = 0
        self.rejected = 0

    @property
    def folder(self) -> Path:
        """This user's entry folder, ``root/v{FORMAT}/KEYID`` (``root/v{FORMAT}/nokey`` without a key)."""
        key = self._user_key()
        return self.root / f"v{FORMAT}" / (key_id(key) if key else "nokey")

    def _user_key(self) -> bytes | None:
        if not self._loaded:
            self._key, self.key_problem = load_key(self.key_file)
            self._loaded = True
        return self._key

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> EngineVerdict | None:
        """The stored verdict for ``key``, or None (missing, unreadable, forged, stale: deleted when so;
        a ``verified`` under ``sandbox: python-guard`` is not served)."""
        payload = self.get_payload(key)
        if payload is None:
            return None
        try:
            v = verdict_from_dict(payload)
        except (ValueError, KeyError, TypeError, AttributeError):
            self.hits -= 1  # counted by get_payload, but not a usable verdict
            self._reject(key)
            return None
        if v.verdict is Verdict.VERIFIED and sandbox_mode() == GUARD_ONLY:
            self.hits -= 1
            self.misses += 1
            return None
        return v

    def _reject(self, key: str) -> None:
        self.rejected += 1
        self.misses += 1
        try:
            self._path(key).unlink()
        except OSError:
            pass

    def get_payload(self, key: str) -> Any:
        """The JSON payload stored for ``key`` (a verdict, a target's signatures, an analysis report), or
        None when it is missing, unreadable, not UTF-8, not JSON, forged (key or MAC mismatch) or stale (a
        recorded input file changed); such an entry is deleted, never trusted. Never raises."""
        user_key = self._user_key()
        if user_key is None:
            self.misses += 1
            return None
        try:
            raw = self._path(key).read_bytes()
        except OSError:
            self.misses += 1
            return None
        try:
            entry = json.loads(raw.decode("utf-8"))
            inputs = entry["inputs"]
            if (not isinstance(inputs, dict) or entry.get("key") != key
                    or not hmac.compare_digest(str(entry.get("mac")),
                                               entry_mac(user_key, key, entry["payload"], inputs))):
                raise ValueError("key or MAC mismatch")
            if any(_file_hash(str(p)) != h for p, h in inputs.items()):
                raise ValueError("stale: an input file changed")
            self.hits += 1
            return entry["payload"]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            self._reject(key)
            return None

    def contains(self, key: str | None) -> bool:
        """Whether a valid entry exists for ``key`` (validated as :meth:`get_payload` does, not counted)."""
        if key is None or not self._path(key).is_file():
            return False
        counts = (self.hits, self.misses, self.rejected)
        found = self.get_payload(key) is not None
        self.hits, self.misses = counts[0], counts[1]
        return found

    def put(self, key: str, verdict: EngineVerdict, inputs: RunInputs | None = None,
            since: float | None = None) -> None:
        """Store ``verdict`` under ``key`` with the hashes of ``inputs.files``; nothing is stored when the
        inputs cannot be enumerated, for a ``verified`` under ``sandbox: python-guard``, or when an input file
        was modified at or after ``since`` (a ``time.time()`` taken before the run: the hash taken now may not
        be of what the run read)."""
        if inputs is not None and inputs.unenumerable:
            return
        if verdict.verdict is Verdict.VERIFIED and sandbox_mode() == GUARD_ONLY:
            return
        hashes: dict[str, str] = {}
        for f in inputs.files if inputs is not None else ():
            h = _file_hash(f)
            if h is None or (since is not None and _modified_since(f, since)):
                return  # gone or changed since the run started: nothing sound to store
            hashes[f] = h
        self.put_payload(key, verdict_to_dict(verdict), hashes)

    def put_payload(self, key: str, payload: Any, inputs: dict[str, str] | None = None) -> None:
        """Store a JSON-serializable ``payload`` under ``key`` atomically (temporary file, then
        ``os.replace``), authenticated with the user's key; failures to write (read-only disk, no key) are
        ignored."""
        user_key = self._user_key()
        if user_key is None:
            return
        files = dict(inputs or {})
        entry = {"key": key, "inputs": files, "payload": payload,
                 "mac": entry_mac(user_key, key, payload, files)}
        path = self._path(key)
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(entry, fh)
                os.replace(tmp, path)  # replaces a planted symlink itself, never writes through it
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except (OSError, ValueError, TypeError):
            pass

    def clear(self) -> int:
        """Delete every entry of every format and key under the cache folder (and leftovers); returns how
        many entry files were removed. The key file (outside the folder) stays."""
        n = sum(1 for _ in self.root.glob("v*/**/*.json")) if self.root.is_dir() else 0
        for sub in self.root.glob("v[0-9]*") if self.root.is_dir() else []:
            shutil.rmtree(sub, ignore_errors=True)
        return n

    def info(self) -> CacheInfo:
        """The folder, this user's entry count and size in bytes, the key file and the sandbox mode."""
        files = [p for p in self.folder.rglob("*.json") if not p.name.startswith(".tmp-")] \
            if self.folder.is_dir() else []
        size = 0
        for p in files:
            try:
                size += p.stat().st_size
            except OSError:
                pass
        return CacheInfo(self.root, len(files), size, self.key_file, self.key_problem, sandbox_mode())
