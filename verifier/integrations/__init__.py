"""evalgap where its users work: the pytest plugin, the MCP server for coding agents and the language server.

Each integration is a thin layer over the library API (:mod:`evalgap`: ``check``, ``gate``, ``lint``,
``author``, ``settings``) and the spec language's public entry points; every run of the code under check goes
through the API, so through evalgap's sandboxed worker processes. None of them imports CrossHair (or
hypothesis-crosshair) into its own process (design.md section 8: importing CrossHair disables icontract's
checks in that process).

=====================  ===================================================================================
``pytest_plugin``      ``pytest --evalgap``: one test item per requirement of each ``.req`` file
                       (a ``pytest11`` entry point; imports nothing heavy until a spec is collected)
``mcp_server``         ``evalgap mcp``: an MCP server (the official ``mcp`` SDK) with check, gate, lint,
                       format, explain and draft tools; budgets capped by the server's limits
``lsp_features``       the language server's features as plain functions over a document's text
                       (diagnostics, formatting, hover, definition, completion); no editor protocol
``lsp_server``         ``evalgap lsp``: the language server on pygls, wiring ``lsp_features`` to LSP
=====================  ===================================================================================

May import: :mod:`evalgap` (the API), ``evalgap.specs_lang``, ``evalgap.translators``, the rest of
``evalgap.verifier`` (never ``evalgap.verifier.cli``: the CLI imports this package, not the reverse), and the
optional third-party SDKs ``mcp``, ``pygls`` and ``lsprotocol`` (the ``integrations`` extra), each only in the
module that needs it.
"""
