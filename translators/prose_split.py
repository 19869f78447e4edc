"""Split prose requirements into sentences, assign IDs and pull out the prose's own examples.

Rule-based (no language model): the input is Markdown or plain text, or a Python module whose function
docstrings are the prose (HumanEval-style prompts included).

* **Requirements** are list items (``-``, ``*``, ``+``, ``1.``, ``1)``), numbered clauses and the sentences
  of each paragraph (split after ``.``, ``!`` or ``?`` before an upper-case letter, a digit or a quote;
  ``e.g.``, ``i.e.``, ``etc.`` and decimals do not end a sentence). A ``shall``/``must`` sentence is one
  requirement, as in EARS (Mavin et al., "Easy Approach to Requirements Syntax", RE 2009).
* **IDs** are kept when an item starts with one (``REQ-12:``, ``[FR-3]``, ``R1.2 -``); otherwise they are
  generated from the prefix and the sentence's position (``PREFIX-1``, ``PREFIX-2``, ...), so the same text
  always gets the same IDs.
* **Examples**: doctest lines (``>>> f(1, 2)`` followed by the output), and inline forms
  ``f(ARGS) == V``, ``=> V``, ``==> V``, ``➞ V``, ``-> V``, ``returns V``, ``should return V``, ``= V``,
  where ``f`` is the target function and ``ARGS``/``V`` are Python literals (``true``/``false`` accepted).
  An example's text is removed from its sentence; a header left with no content (``Examples:``,
  ``For example:``) is not a sentence but is kept in the example's prose.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from typing import Any, Sequence

from evalgap.translators.prose_blocks import split_blocks

__all__ = ["ProseExample", "Sentence", "split_sentences", "sentence_spans", "extract_examples", "parse_literal",
           "segment_text", "HEADER_ONLY"]

#: Text that is only an example header (kept in the example's prose, not a sentence of its own).
HEADER_ONLY = re.compile(r"^\W*(for\s+)?(example|examples|e\.g|eg|for instance|task|note|input|output|example \d+)"
                         r"\W*$", re.I)
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|vs|resp|approx|cf|Fig|No)\.$", re.I)
_BOOL_WORDS = {"true": "True", "false": "False", "none": "None", "null": "None"}
_SEPARATORS = r"(?:==>|=>|==|->|\u279e|\u2192|=|\bshould\s+return\b|\breturns?\b|\bshould\s+be\b|\bgives\b)"


@dataclass(frozen=True)
class ProseExample:
    """One example given by the prose.

    Attributes:
        call: Python source of the call, e.g. ``f([3, 1])``.
        args: the positional argument values (Python literals).
        expected: the expected return value (a Python literal).
        text: the prose it came from (for the requirement's prose).
        given_id: the ID the document gave the item when the item is only this example (``- T-2: f(1)
            returns 2.``), else None.
    """

    call: str
    args: tuple[Any, ...]
    expected: Any
    text: str
    given_id: str | None = None


@dataclass(frozen=True)
class Sentence:
    """One requirement sentence.

    Attributes:
        text: the sentence, whitespace-normalized.
        given_id: the ID written in the text, if any.
        line: 1-based line of the input (or docstring) where it starts.
        heading: the section heading it sits under ("" for none).
        block: the index of its paragraph, list item or section entry (sentences of one block share it); the rows
            of one table share one (negative) number, so a row that names no target takes the one an earlier row
            of its table named.
        section: ``args``/``returns``/``raises``/``attributes`` for a docstring section entry, ``directive`` for
            the text of a reST directive (``.. versionadded:: 2.0``), else None.
        engine: the text the catalogue reads instead of ``text`` (a section entry rewritten), or None.
    """

    text: str
    given_id: str | None
    line: int
    heading: str = ""
    block: int = 0
    section: str | None = None
    engine: str | None = None


def parse_literal(text: str) -> tuple[bool, Any]:
    """Parse a Python literal, also accepting ``true``/``false``/``null``; return ``(ok, value)``."""
    src = text.strip().rstrip(".,;")
    if not src:
        return False, None
    src = re.sub(r"\b(true|false|null)\b", lambda m: _BOOL_WORDS[m.group(1)], src)
    try:
        return True, ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _balanced_end(text: str, start: int) -> int:
    """Index just past the bracket group opening at ``text[start]`` (-1 when unbalanced)."""
    depth = 0
    quote = ""
    i = start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _longest_literal(text: str) -> tuple[int, Any] | None:
    """The longest prefix of ``text`` (cut at a token boundary) that is a Python literal."""
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    if not stripped:
        return None
    if stripped[0] in "([{":
        end = _balanced_end(stripped, 0)
        cands = [end] if end > 0 else []
    elif stripped[0] in "'\"":
        m = re.match(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", stripped)
        cands = [m.end()] if m else []
    else:
        m = re.match(r"-?\s*(?:\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|True|False|None|true|false|null)\b", stripped)
        cands = [m.end()] if m else []
    for end in cands:
        ok, value = parse_literal(stripped[:end])
        if ok:
            return offset + end, value
    return None


def extract_examples(text: str, func: str) -> tuple[list[ProseExample], str]:
    """Find inline examples ``func(ARGS) SEP VALUE`` in ``text``.

    Args:
        text: prose (one paragraph or a whole docstring without doctest lines).
        func: the target function's name.

    Returns:
        ``(examples, rest)``: the examples in order and the text with each example's span blanked out.
    """
    out: list[ProseExample] = []
    spans: list[tuple[int, int]] = []
    for m in re.finditer(rf"(?<![\w.]){re.escape(func)}\s*\(", text):
        open_at = m.end() - 1
        close = _balanced_end(text, open_at)
        if close < 0:
            continue
        call_src = func + text[open_at:close]
        try:
            node = ast.parse(re.sub(r"\b(true|false)\b", lambda k: _BOOL_WORDS[k.group(1)], call_src),
                             mode="eval").body
            assert isinstance(node, ast.Call)
            args = tuple(ast.literal_eval(a) for a in node.args)
            if node.keywords:
                continue
        except (SyntaxError, ValueError, AssertionError, TypeError):
            continue
        sep = re.match(rf"\s*{_SEPARATORS}\s*", text[close:], re.I)
        if not sep:
            continue
        lit = _longest_literal(text[close + sep.end():])
        if lit is None:
            continue
        end = close + sep.end() + lit[0]
        out.append(ProseExample(call_src, args, lit[1], " ".join(text[m.start():end].split())))
        spans.append((m.start(), end))
    rest = text
    for a, b in reversed(spans):
        rest = rest[:a] + " " * (b - a) + rest[b:]
    return out, rest


def _doctests(lines: list[str], funcs: Sequence[str]) -> tuple[list[ProseExample], list[str]]:
    """Pull ``>>> call`` + output pairs out of docstring lines; return them and the remaining lines."""
    examples: list[ProseExample] = []
    keep: list[str] = []
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not s.startswith(">>>"):
            keep.append(lines[i])
            i += 1
            continue
        call = s[3:].strip()
        out_lines: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
            out_lines.append(lines[i].strip())
            i += 1
        keep.append("")
        ok, value = parse_literal(" ".join(out_lines)) if out_lines else (True, None)
        try:
            node = ast.parse(call, mode="eval").body
            args = tuple(ast.literal_eval(a) for a in node.args) if isinstance(node, ast.Call) else None
            is_target = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in funcs
        except (SyntaxError, ValueError, TypeError):
            args, is_target = None, False
        if ok and args is not None and is_target:
            examples.append(ProseExample(call, args, value, f">>> {call}  ->  {' '.join(out_lines) or 'None'}"))
        else:  # not a closed example of the target: keep its text as a sentence so nothing is dropped
            keep[-1] = " ".join([call] + out_lines) + "."
    return examples, keep


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The one sentence splitter of evalgap (authoring and requirement smells): spans ``(start, end)`` of the
    sentences of ``text`` (end exclusive, leading white space skipped). A sentence ends at ``. ! ?`` followed
    by white space and a capital, a digit, a quote, a bracket, a backtick or `*`, or at the end of the text; not after a
    common abbreviation (e.g., i.e., etc., vs., ...) nor inside a decimal number."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"[.!?](?=\s+[\"'(\[A-Z0-9`*])|[.!?]$", text):
        chunk = text[start:m.end()]
        if _ABBREV.search(chunk.rstrip()) or re.search(r"\d\.$", chunk) and m.end() < len(text) \
                and text[m.end():m.end() + 1].isdigit():
            continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        if text[s:e].strip():
            out.append((s, e))
    return out


def _sentences_of(paragraph: str) -> list[str]:
    return [" ".join(paragraph[s:e].split()) for s, e in sentence_spans(paragraph)]


def segment_text(text: str, func: str | Sequence[str] | None = None) -> tuple[list[Sentence], list[ProseExample],
                                                                             list[str]]:
    """Split prose into requirement sentences and examples.

    Args:
        text: Markdown, plain text or a docstring.
        func: the target function's name, or several names (enables example extraction), or None.

    Returns:
        ``(sentences, examples, headers)``; ``headers`` are example headers that carried no content.
    """
    lines = text.splitlines()
    examples: list[ProseExample] = []
    funcs = [func] if isinstance(func, str) else list(func or [])
    if funcs:
        examples, lines = _doctests(lines, funcs)
    blocks = split_blocks(lines)
    sentences: list[Sentence] = []
    headers: list[str] = []
    func_set, order = set(funcs), {n: i for i, n in reversed(list(enumerate(funcs)))}
    for b_no, blk in enumerate(blocks):
        block, given = blk.text, blk.given_id
        # the names called in the block: each is a suffix of a run of name characters before "(" (one pass
        # over the block, not one per target: a document about n functions took time in n squared)
        called = {run[i:] for run in re.findall(r"[\w.]+(?=\()", block.replace(" (", "(")) for i in range(len(run))}
        for name in sorted(func_set & called, key=order.__getitem__):
            if name + "(" not in block.replace(" (", "("):
                continue
            found, block = extract_examples(block, name)
            if given and len(found) == 1 and not re.search(r"[A-Za-z0-9]", block):  # the item is the example
                found = [replace(found[0], given_id=given)]
            examples.extend(found)
        if funcs:
            block = re.sub(r"\s+([.,;:])(?=\s|$)", r"\1", block)  # no "raises X. ." after a blanked example
        if blk.section is not None:  # a docstring section entry is one requirement, its rewrite for the engine
            if re.search(r"[A-Za-z0-9]", block):
                sentences.append(Sentence(" ".join(block.split()), given, blk.line, blk.heading, b_no, blk.section,
                                          blk.engine))
            continue
        parts = _sentences_of(block)
        directive = "directive" if block.lstrip().startswith("..") else None  # ``.. versionchanged:: 3.0`` and its text
        for j, part in enumerate(parts):
            clean = part.strip()
            if not re.search(r"[A-Za-z0-9]", clean) or HEADER_ONLY.match(clean):
                if re.search(r"[A-Za-z0-9]", clean):  # not the "." an extracted example leaves
                    headers.append(clean)
                continue
            sentences.append(Sentence(clean, given if j == 0 and len(parts) == 1 else
                                      (f"{given}.{j + 1}" if given else None), blk.line, blk.heading,
                                      -blk.table if blk.table else b_no, directive))
    return sentences, examples, headers


def split_sentences(text: str) -> list[str]:
    """The sentence texts of ``text`` (no example extraction); a convenience for callers and tests."""
    return [s.text for s in segment_text(text)[0]]
