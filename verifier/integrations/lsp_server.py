"""``evalgap lsp``: the language server for ``.req`` files, on pygls 2.x; wires the features of
:mod:`evalgap.verifier.integrations.lsp_features` to LSP.

* open/change: diagnostics from the spec language alone (parse and check in this process; the target is
  neither imported nor run);
* save: those, and when they are clean, :func:`evalgap.lint`'s (the target's real signatures, read in a
  sandboxed subprocess, in a worker thread so the editor is never blocked); off with ``lint_on_save=False``;
* formatting, hover, go-to-definition and completion (the target file parsed with :mod:`ast`).
"""

from __future__ import annotations

import asyncio

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

import evalgap
from evalgap.verifier.integrations import lsp_features as F

__all__ = ["build_server"]


def build_server(lint_on_save: bool = True) -> LanguageServer:
    """The language server with its features registered.

    Args:
        lint_on_save: on save, also run :func:`evalgap.lint` (sandboxed) for the target-dependent checks.

    Returns:
        A ``pygls.lsp.server.LanguageServer``; ``.start_io()`` serves it on stdio.
    """
    server = LanguageServer("evalgap", evalgap.__version__, text_document_sync_kind=T.TextDocumentSyncKind.Full)

    def publish(ls: LanguageServer, uri: str, diags: list[T.Diagnostic], version: int | None = None) -> None:
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                        version=version))

    def refresh(ls: LanguageServer, uri: str) -> list[T.Diagnostic]:
        doc = ls.workspace.get_text_document(uri)
        diags = F.diagnostics(doc.source, doc.path)
        publish(ls, uri, diags, doc.version)
        return diags

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: T.DidOpenTextDocumentParams) -> None:
        refresh(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: T.DidChangeTextDocumentParams) -> None:
        refresh(ls, params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: LanguageServer, params: T.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if refresh(ls, uri) or not lint_on_save:
            return
        doc = ls.workspace.get_text_document(uri)
        diags = await asyncio.to_thread(F.lint_diagnostics, doc.path)
        publish(ls, uri, diags, doc.version)

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: LanguageServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return F.formatting(doc.source, doc.path)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: T.HoverParams) -> T.Hover | None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return F.hover(doc.source, doc.path, params.position)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: LanguageServer, params: T.DefinitionParams) -> list[T.Location]:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return F.definition(doc.source, doc.path, params.position)

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", "("]))
    def completion(ls: LanguageServer, params: T.CompletionParams) -> T.CompletionList:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return T.CompletionList(is_incomplete=False, items=F.completion(doc.source, doc.path, params.position))

    return server
