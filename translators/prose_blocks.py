"""Blocks of prose: paragraphs, list items, Markdown table rows and docstring section entries, each with the
heading it sits under.

* Markdown headings (``#``), setext/reST/NumPy underlines (a line of ``=``/``-``/``~`` under a title) set the
  heading of the blocks that follow; fenced code is one block per line.
* A Markdown table: the header row names the columns; a column called ``ID``/``Req ID``/``Requirement ID``
  gives each row's requirement ID; the text is the column called ``Requirement``/``Statement``/
  ``Description``/``Text`` (else the longest cell); other columns (priority, owner) are dropped.
* Google-style sections (``Args:``, ``Returns:``, ``Raises:``, ``Attributes:``, ...) and NumPy-style ones
  (``Parameters`` underlined with dashes) and reST fields (``:param x:``, ``:returns:``, ``:raises E:``):
  one block per entry, with ``section`` = ``args``/``returns``/``raises``/``attributes``, the entry's name
  and type, and ``engine`` = the entry rewritten as a sentence the catalogue reads ("Raises ValueError if
  ..."; "Returns ..."; "Argument x: ..."; "Attribute x: ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Block", "split_blocks", "ID_AT_START", "BULLET"]

ID_AT_START = re.compile(r"^\s*(?:\[(?P<b>[A-Za-z][A-Za-z0-9_]*(?:[-.][A-Za-z0-9_]+)+)\]|"
                         r"(?P<p>[A-Z][A-Za-z0-9_]*(?:[-.][A-Za-z0-9_]*\d[A-Za-z0-9_]*)+))\s*[:.)\-\u2013]?\s+")
BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+")
_SECTIONS = {"args": "args", "arguments": "args", "parameters": "args", "params": "args", "keyword args": "args",
             "keyword arguments": "args", "other parameters": "args", "returns": "returns", "return": "returns",
             "yields": "returns", "raises": "raises", "exceptions": "raises", "attributes": "attributes"}
_GOOGLE = re.compile(r"^(\s*)(" + "|".join(_SECTIONS) + r"):\s*$", re.I)
_UNDERLINE = re.compile(r"^\s*(?:={3,}|-{3,}|~{3,})\s*$")
_ID_COLS = ("id", "req id", "req. id", "requirement id", "ref", "key", "#")
_TEXT_COLS = ("requirement", "statement", "description", "text", "requirement text", "shall")


@dataclass(frozen=True)
class Block:
    """One block of prose.

    Attributes:
        line: 1-based line where it starts. text: its text (lines joined). given_id: an ID written with it.
        heading: the heading it sits under ("" for none). section: ``args``/``returns``/``raises``/
        ``attributes`` for a docstring section entry, else None. engine: the entry rewritten for the catalogue
        (None: the text itself). code: True for a line of fenced code. table: the line of its table's header
        row for a table row (rows of one table share it), else 0.
    """

    line: int
    text: str
    given_id: str | None = None
    heading: str = ""
    section: str | None = None
    engine: str | None = None
    table: int = 0


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _cells(line: str) -> list[str]:
    """The cells of a table row; ``\\|`` is a literal ``|`` inside a cell (GitHub-flavoured Markdown)."""
    row = line.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row)]


def _entry(section: str, head: str, desc: str) -> tuple[str, str | None]:
    """(text, engine text) of one section entry ``head: desc``."""
    text = f"{head}: {desc}" if desc else head
    m = re.match(r"^\**([A-Za-z_][\w.]*)\**\s*(?:\(([^)]*)\))?$", head.strip())
    if section == "raises":
        exc = head.strip().split(".")[-1]
        cond = re.sub(r"^(?:raised\s+)?(?:if|when|in case)\s+", "", desc.strip(), flags=re.I)
        lead = "if " if cond != desc.strip() else "when "
        return text, f"Raises {exc} {lead}{cond}" if cond and re.match(r"^\w+$", exc) else None
    if section == "returns":
        body = desc if desc else head
        body = re.sub(r"^(?:an?|the)\s+", "a ", body.strip(), flags=re.I)
        return text, f"Returns {body[0].lower() + body[1:]}" if body else None
    if m:
        word = "Argument" if section == "args" else "Attribute"
        return text, f"{word} {m.group(1)}: {desc}"
    return text, None


def _section_entries(lines: list[str], start: int, base: int, section: str, numpy: bool) -> tuple[list[tuple[int, str, str]], int]:
    """Entries ``(line index, head, desc)`` of a section starting at ``lines[start]``; returns them and the
    index after the section."""
    out: list[tuple[int, str, str]] = []
    i = start
    entry_indent: int | None = None
    while i < len(lines):
        raw = lines[i]
        if not raw.strip():
            if i + 1 < len(lines) and lines[i + 1].strip() and _indent(lines[i + 1]) > base and not numpy:
                i += 1
                continue
            if numpy and i + 1 < len(lines) and lines[i + 1].strip() and not _UNDERLINE.match(
                    lines[i + 2] if i + 2 < len(lines) else ""):
                i += 1
                continue
            break
        ind = _indent(raw)
        if (not numpy and ind <= base) or (numpy and ind < base) or _GOOGLE.match(raw) or (
                i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1])):
            break
        if entry_indent is None:
            entry_indent = ind
        if ind <= entry_indent:
            s = raw.strip()
            if numpy:
                m = re.match(r"^([\w.*]+)\s*:\s*(.*)$", s)
                head = f"{m.group(1)} ({m.group(2)})" if m and m.group(2) else (m.group(1) if m else s)
                out.append((i, head, ""))
            else:
                m = re.match(r"^([^:]+?):\s*(.*)$", s)
                out.append((i, m.group(1), m.group(2)) if m else (i, s, ""))
        elif out:
            n, head, desc = out[-1]
            out[-1] = (n, head, (desc + " " + raw.strip()).strip())
        i += 1
    return out, i


_REST = re.compile(r"^\s*:(param|parameter|arg|argument|type|returns?|rtype|raises?|except|exception)"
                   r"(?:\s+([^:]+))?:\s*(.*)$")


def split_blocks(lines: list[str]) -> list[Block]:
    """The blocks of ``lines`` (docstring lines or a Markdown/plain text file), in order."""
    blocks: list[Block] = []
    cur: list[str] = []
    cur_line = 0
    cur_id: str | None = None
    heading = ""
    in_code = False
    table_cols: list[str] | None = None
    table_line = 0

    def flush() -> None:
        nonlocal cur, cur_id
        if cur:
            blocks.append(Block(cur_line, " ".join(x.strip() for x in cur), cur_id, heading))
        cur, cur_id = [], None

    i = 0
    while i < len(lines):
        n, line = i + 1, lines[i].rstrip()
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        i += 1
        if line.strip().startswith("```"):
            in_code = not in_code
            flush()
            continue
        if in_code:
            flush()
            blocks.append(Block(n, line.strip(), None, heading))
            continue
        if line.strip().startswith("|") and line.strip().endswith("|") and len(line.strip()) > 1 and \
                (len(_cells(line)) >= 2 or table_cols is not None):  # a short row inside a table is still a row
            flush()
            cells = _cells(line)
            if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if table_cols is None:
                table_cols = [c.lower().strip("* ") for c in cells]
                table_line = n
                continue
            idc = next((j for j, c in enumerate(table_cols) if c in _ID_COLS), None)
            txt = next((j for j, c in enumerate(table_cols) if c in _TEXT_COLS), None)
            if txt is None:
                txt = max((j for j in range(len(cells)) if j != idc), key=lambda j: len(cells[j]), default=0)
            given = cells[idc] if idc is not None and idc < len(cells) and cells[idc] else None
            if txt < len(cells) and cells[txt]:
                blocks.append(Block(n, cells[txt], given, heading, table=table_line))
            continue
        table_cols = None
        g = _GOOGLE.match(line)
        numpy = bool(line.strip().lower() in _SECTIONS and _UNDERLINE.match(nxt) and nxt.strip().startswith("-"))
        if g or numpy:
            flush()
            section = _SECTIONS[(g.group(2) if g else line.strip()).lower()]
            base = _indent(line)
            start = i + 1 if numpy else i
            entries, i = _section_entries(lines, start, base, section, numpy)
            for k, head, desc in entries:
                text, engine = _entry(section, head, desc)
                blocks.append(Block(k + 1, text, None, heading, section, engine))
            continue
        if line.strip().startswith(".. "):  # a reST directive and its indented body: one block
            flush()
            directive, base = [line.strip()], _indent(line)
            while i < len(lines) and (not lines[i].strip() and i + 1 < len(lines) and _indent(lines[i + 1]) > base
                                      and lines[i + 1].strip() or lines[i].strip() and _indent(lines[i]) > base):
                directive.append(lines[i].strip())
                i += 1
            blocks.append(Block(n, " ".join(x for x in directive if x), None, heading))
            continue
        r = _REST.match(line)
        if r:
            flush()
            kind, name, desc = r.group(1), (r.group(2) or "").strip(), r.group(3)
            while i < len(lines) and lines[i].strip() and _indent(lines[i]) > _indent(line) and not _REST.match(lines[i]):
                desc += " " + lines[i].strip()
                i += 1
            rsection = {"param": "args", "parameter": "args", "arg": "args", "argument": "args", "return": "returns",
                       "returns": "returns", "raise": "raises", "raises": "raises", "except": "raises",
                       "exception": "raises"}.get(kind)
            if rsection is None:  # :type: / :rtype: lines carry types only
                continue
            head = name.split()[-1] if name else ""
            text, engine = _entry(rsection, head or desc, desc if head else "")
            blocks.append(Block(n, line.strip() + ("" if desc == r.group(3) else desc[len(r.group(3)):]),
                                None, heading, rsection, engine))
            continue
        if _UNDERLINE.match(nxt) and line.strip() and not BULLET.match(line):
            flush()
            heading = line.strip()
            i += 1
            continue
        m = re.match(r"^\s*#{1,6}\s+(.*)$", line)
        if m:
            flush()
            heading = m.group(1).strip()
            continue
        if not line.strip() or _UNDERLINE.match(line):
            flush()
            continue
        bullet = BULLET.match(line)
        idm = ID_AT_START.match(line)
        if bullet or idm:
            flush()
            cur_line = n
            body = line[bullet.end():] if bullet else line
            idm = ID_AT_START.match(body)
            if idm:
                cur_id = idm.group("b") or idm.group("p")
                body = body[idm.end():]
            cur = [body]
            continue
        if not cur:
            cur_line = n
        cur.append(line)
    flush()
    return blocks
