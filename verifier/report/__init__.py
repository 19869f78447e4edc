"""The gap report (:mod:`.gap`: :class:`~evalgap.verifier.report.gap.GapReport`, flags, exit codes)
and one renderer per format (text, JSON with its schema, Markdown, SARIF 2.1.0, JUnit XML, HTML), plus
``explain``, ``diff`` and the reproducer tests.

May import: ``specs_lang`` (traceability), ``verifier.{findings,errors,analysis}``; never the engines.
"""
