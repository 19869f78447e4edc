"""The language server (issue 21): an LSP client session with ``evalgap lsp`` gets a diagnostic with an EG
code and a caret range for a broken spec, a formatting edit, a hover, a definition in the target and
completions; the features are also tested directly (positions, UTF-16, the target read with ast only)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as T  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from evalgap.verifier.integrations import lsp_features as F  # noqa: E402

TARGET = '''\
import sys


def double(n: int) -> int:
    """Twice n."""
    return n + n


class Store:
    def put(self, key: str, value: bytes) -> None:
        pass
'''
SPEC = """\
spec t "lsp test"
  target: t.py

function double(n: int) -> int
  requirement D-1 "Returns twice its argument."
    ensures result == 2 * n

requirement X-1 "Never leaks data."
  informal exclusion "no notion of data here"
"""


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "t.py").write_text(TARGET, encoding="utf-8")
    (tmp_path / "t.req").write_text(SPEC, encoding="utf-8")
    return tmp_path


def test_diagnostics_have_the_code_and_a_caret_range(project: Path) -> None:
    path = str(project / "t.req")
    broken = SPEC.replace("ensures result == 2 * n", "ensures result == 2 * )")
    [d] = F.diagnostics(broken, path)
    assert d.code == "EG101" and d.source == "evalgap"
    assert (d.range.start.line, d.range.start.character) == (5, 26)  # the ')' (0-based)
    assert d.range.end.character > d.range.start.character
    dup = SPEC.replace("X-1", "D-1")
    assert [x.code for x in F.diagnostics(dup, path)] == ["EG201"]
    assert F.diagnostics(SPEC, path) == []


def test_positions_count_utf16_units() -> None:
    text = 'spec t "é😀x"\n'
    pos = F.to_lsp(text, 1, 11)  # the 'x': 10 code points before it, the emoji is 2 UTF-16 units
    assert pos == T.Position(line=0, character=11)
    assert F.from_lsp(text, pos) == ('spec t "é😀x"', 10)


def test_formatting_hover_definition_completion(project: Path) -> None:
    path = str(project / "t.req")
    ugly = SPEC.replace("    ensures result == 2 * n", "      ensures result==2*n")
    [edit] = F.formatting(ugly, path) or []
    assert edit.new_text == SPEC and edit.range.start == T.Position(line=0, character=0)
    assert F.formatting(SPEC, path) == []
    assert F.formatting("spec (", path) is None

    on_req = F.hover(SPEC, path, T.Position(line=5, character=6))
    assert on_req is not None and isinstance(on_req.contents, T.MarkupContent)
    assert "**D-1** (formal)" in on_req.contents.value and "Returns twice its argument." in on_req.contents.value
    informal = F.hover(SPEC, path, T.Position(line=8, character=2))
    assert informal is not None and isinstance(informal.contents, T.MarkupContent)
    assert "informal (exclusion)" in informal.contents.value
    on_fn = F.hover(SPEC, path, T.Position(line=3, character=11))
    assert on_fn is not None and isinstance(on_fn.contents, T.MarkupContent)
    assert "double(n: int) -> int" in on_fn.contents.value

    [loc] = F.definition(SPEC, path, T.Position(line=3, character=11))
    assert loc.uri == (project / "t.py").resolve().as_uri() and loc.range.start == T.Position(line=3, character=0)
    assert F.definition(SPEC, path, T.Position(line=0, character=1)) == []

    labels = {c.label for c in F.completion(SPEC, path, T.Position(line=3, character=0))}
    assert labels == {"double", "Store"}
    text = SPEC + "class Store\n  method put(\n"
    params = F.completion(text, path, T.Position(line=10, character=13))
    assert [c.label for c in params] == ["key: str", "value: bytes"]
    dotted = SPEC + "    s.\n"
    assert [c.label for c in F.completion(dotted, path, T.Position(line=9, character=6))] == ["put"]


def test_the_target_is_never_imported(project: Path) -> None:
    """A hostile target (it writes a file when imported) is only parsed by the features that read it."""
    marker = project / "imported"
    (project / "t.py").write_text(f"open({str(marker)!r}, 'w').close()\n" + TARGET, encoding="utf-8")
    path = str(project / "t.req")
    F.diagnostics(SPEC, path)
    F.hover(SPEC, path, T.Position(line=3, character=11))
    F.definition(SPEC, path, T.Position(line=3, character=11))
    F.completion(SPEC, path, T.Position(line=3, character=0))
    assert not marker.exists()


def test_a_client_session_with_evalgap_lsp(project: Path) -> None:
    """``evalgap lsp`` over stdio: open a broken spec (a diagnostic), fix it and format it (an edit), hover
    and go to the target's definition; then save (the sandboxed lint finds the target's wrong signature)."""
    spec = project / "t.req"
    uri = spec.as_uri()
    broken = SPEC.replace("2 * n", "2 * )")

    async def session() -> dict[str, Any]:
        client = LanguageClient("evalgap-test", "1")
        published: asyncio.Queue[T.PublishDiagnosticsParams] = asyncio.Queue()

        @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
        def on_diagnostics(params: T.PublishDiagnosticsParams) -> None:
            published.put_nowait(params)

        await client.start_io(sys.executable, "-m", "evalgap", "lsp")
        out: dict[str, Any] = {}
        try:
            await asyncio.wait_for(client.initialize_async(T.InitializeParams(
                capabilities=T.ClientCapabilities(), root_uri=project.as_uri())), 60)
            client.initialized(T.InitializedParams())
            doc = T.TextDocumentIdentifier(uri=uri)
            client.text_document_did_open(T.DidOpenTextDocumentParams(
                text_document=T.TextDocumentItem(uri=uri, language_id="evalgap-req", version=1, text=broken)))
            out["open"] = await asyncio.wait_for(published.get(), 60)
            ugly = SPEC.replace("    ensures result == 2 * n", "      ensures result==2*n")
            client.text_document_did_change(T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=ugly)]))
            out["change"] = await asyncio.wait_for(published.get(), 60)
            out["format"] = await asyncio.wait_for(client.text_document_formatting_async(
                T.DocumentFormattingParams(text_document=doc, options=T.FormattingOptions(tab_size=2,
                                                                                          insert_spaces=True))), 60)
            out["hover"] = await asyncio.wait_for(client.text_document_hover_async(T.HoverParams(
                text_document=doc, position=T.Position(line=4, character=16))), 60)
            out["definition"] = await asyncio.wait_for(client.text_document_definition_async(T.DefinitionParams(
                text_document=doc, position=T.Position(line=3, character=11))), 60)
            wrong = SPEC.replace("double(n: int)", "double(m: int)").replace("2 * n", "2 * m")
            spec.write_text(wrong, encoding="utf-8")
            client.text_document_did_change(T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=3),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=wrong)]))
            out["renamed"] = await asyncio.wait_for(published.get(), 60)
            client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=doc))
            out["saved"] = await asyncio.wait_for(published.get(), 60)  # the in-process pass
            out["linted"] = await asyncio.wait_for(published.get(), 120)  # then the sandboxed lint
            await asyncio.wait_for(client.shutdown_async(None), 60)
        finally:
            client.exit(None)  # the server exits on `exit` (even without `shutdown`, after a failure)
            await asyncio.wait_for(client.stop(), 60)  # type: ignore[no-untyped-call]
        return out

    out = asyncio.run(session())
    [d] = out["open"].diagnostics
    assert d.code == "EG101" and d.range.start.line == 5 and d.range.end.character > d.range.start.character
    assert not out["change"].diagnostics
    [edit] = out["format"]
    assert edit.new_text == SPEC
    assert "Returns twice its argument." in out["hover"].contents.value
    [loc] = out["definition"]
    assert loc.uri.endswith("/t.py") and loc.range.start.line == 3
    assert not out["renamed"].diagnostics and not out["saved"].diagnostics  # fine without the target
    [lint] = out["linted"].diagnostics  # the target's signature, read in the sandbox, disagrees
    assert lint.code == "EG212" and "the target defines double(n)" in lint.message
    assert (lint.range.start.line, lint.range.start.character) == (3, 16)


def test_the_textmate_grammar_compiles_and_marks_requirement_ids() -> None:
    import json
    import re

    from egtest import ROOT

    grammar = json.loads((ROOT / "docs" / "editors" / "evalgap-req.tmLanguage.json").read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.evalgap-req" and grammar["fileTypes"] == ["req"]
    req = next(p for p in grammar["patterns"] if p.get("name") == "meta.requirement.evalgap-req")
    m = re.match(req["match"], '  requirement KV-1.a "prose"')
    assert m is not None and m.group(2) == "KV-1.a"
    for p in grammar["patterns"]:
        if "match" in p:
            re.compile(p["match"])


RAISING = "def withdraw(balance: int, amount: int) -> int:\n    if amount > balance:\n" \
          "        raise ValueError('insufficient funds')\n    return balance - amount\n"
WARN_SPEC = """\
spec w "warn"
  target: w_t.py

function withdraw(balance: int, amount: int) -> int
  requirement W-1 "The new balance is balance - amount."
    ensures result == balance - amount
"""


def test_lint_on_save_shows_lint_warnings(tmp_path: Path) -> None:
    """EG230 (an `ensures` forbids an exception the target raises) is a Warning diagnostic on save."""
    (tmp_path / "w_t.py").write_text(RAISING, encoding="utf-8")
    spec = tmp_path / "w.req"
    spec.write_text(WARN_SPEC, encoding="utf-8")
    diags = F.lint_diagnostics(str(spec))
    assert [(d.code, d.severity, d.range.start.line) for d in diags] == [
        ("EG230", T.DiagnosticSeverity.Warning, 5)]
    assert "raises ValueError" in diags[0].message and "hint: say when it may" in diags[0].message
    spec.write_text(WARN_SPEC.replace("    ensures", "    raises ValueError when amount > balance\n    ensures"),
                    encoding="utf-8")
    assert F.lint_diagnostics(str(spec)) == []  # said when it raises: no warning
