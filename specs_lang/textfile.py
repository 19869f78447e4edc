"""Reading a text file a user named (a spec, prose, ``case.toml``, a target, a report), with a size limit and
an encoding error that says where (issue 19).

Every input evalgap reads is UTF-8 text. A file that is not (a binary, Latin-1 prose, ``/dev/zero``) is an
EG100 diagnostic at the line and column of the first bad byte, naming its byte offset; a file larger than
its limit (docs/language.md, "Input limits") is EG107. Both are :class:`SpecSyntaxError`, so every command
prints them as ``file:line:col: error CODE: ...`` and exits 2.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from evalgap.specs_lang.ast import Span
from evalgap.specs_lang.diagnostics import INPUT_TOO_LARGE, UNREADABLE_FILE
from evalgap.specs_lang.errors import Diagnostic, SpecSyntaxError

__all__ = ["MAX_SPEC_BYTES", "MAX_TEXT_BYTES", "STDIN_NAME", "read_text", "read_stream", "decode_text"]

#: How a spec read from standard input (``-`` on the command line) is named in diagnostics and reports.
STDIN_NAME = "<stdin>"

#: The largest spec (``.req``), ``case.toml`` or configuration file read, bytes (4 MiB).
MAX_SPEC_BYTES = 4 * 1024 * 1024
#: The largest prose, target or report file read, bytes (16 MiB).
MAX_TEXT_BYTES = 16 * 1024 * 1024


def _fail(path: str, code: str, message: str, hint: str, line: int = 1, col: int = 1) -> SpecSyntaxError:
    return SpecSyntaxError([Diagnostic(code, Span(path, line, col, line, col + 1), message, hint)])


def decode_text(data: bytes, path: str, what: str = "file") -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped).

    Args:
        data: the file's bytes.
        path: the file's name, for the diagnostic.
        what: what the file is (``spec``, ``prose``, ``case manifest``), for the message.

    Returns:
        The text.

    Raises:
        SpecSyntaxError: EG100 at the first byte that is not UTF-8, or at a NUL byte (a binary file).
    """
    nul = data.find(b"\0")
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    text = ""
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start + bom
        if 0 <= nul < bad:  # a NUL first: a binary file (reported below)
            bad = -1
    else:
        bad = -1
    if bad >= 0:
        line, col = _where(data, bad)
        raise _fail(path, UNREADABLE_FILE, f"the {what} is not UTF-8 text: byte 0x{data[bad]:02x} at byte offset {bad} "
                    f"(line {line}, column {col}) cannot be decoded",
                    "save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8 FILE`)", line, col)
    if nul >= 0:
        line, col = _where(data, nul)
        raise _fail(path, UNREADABLE_FILE, f"the {what} is a binary file: NUL byte at byte offset {nul} (line {line}, "
                    f"column {col})", f"give a UTF-8 text file as the {what}", line, col)
    return text


def _where(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and (byte) column of ``offset`` in ``data``."""
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def read_text(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_TEXT_BYTES) -> str:
    """Read ``path`` as UTF-8 text, refusing more than ``limit`` bytes (``/dev/zero`` ends at the limit).

    Args:
        path: the file; used verbatim in diagnostics.
        what: what the file is, for the messages (``spec``, ``prose``, ``target``, ...).
        limit: the largest accepted size, bytes.

    Returns:
        The text.

    Raises:
        SpecSyntaxError: EG100 (missing, a folder, unreadable, not UTF-8, binary) or EG107 (too large).
    """
    name = os.fspath(path)
    try:
        st = os.stat(name)
        if stat.S_ISDIR(st.st_mode):
            raise _fail(name, UNREADABLE_FILE, f"cannot read the {what}: it is a folder", f"give the {what} file's path")
        with open(name, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise _fail(name, UNREADABLE_FILE, f"cannot read the {what}: {exc.strerror or exc}",
                    "check the path and its permissions") from None
    if len(data) > limit:
        size = f"{st.st_size} bytes" if stat.S_ISREG(st.st_mode) else "more than that"
        raise _fail(name, INPUT_TOO_LARGE, f"the {what} is too large: at most {limit} bytes ({limit // 1048576} MiB) are "
                    f"read, this one has {size}", f"split the {what} into smaller files")
    return decode_text(data, name, what)



def read_stream(stream: BinaryIO, name: str = STDIN_NAME, what: str = "spec", limit: int = MAX_SPEC_BYTES) -> str:
    """Read a binary stream (standard input for ``-``) as UTF-8 text, with the same limit and diagnostics as
    :func:`read_text`, naming it ``name`` (``<stdin>``).

    Raises:
        SpecSyntaxError: EG100 (unreadable, not UTF-8, binary) or EG107 (more than ``limit`` bytes).
    """
    try:
        data = stream.read(limit + 1)
    except OSError as exc:
        raise _fail(name, UNREADABLE_FILE, f"cannot read the {what}: {exc.strerror or exc}",
                    "pipe the file into standard input") from None
    if len(data) > limit:
        raise _fail(name, INPUT_TOO_LARGE, f"the {what} is too large: at most {limit} bytes ({limit // 1048576} MiB) "
                    "are read, this one has more than that", f"split the {what} into smaller files")
    return decode_text(data, name, what)
