"""evalgap's verifier: everything that runs or judges the code under check.

The public entry points are in the root package :mod:`evalgap` (``evalgap.check``, ``evalgap.gate``, ...);
this package holds their machinery, one sub-package per feature, data flowing one way
(``specs_lang`` -> ``translators`` -> ``verifier`` -> ``research``; the verifier never imports ``research``):

=================  ==========================================================================================
``options``        :class:`~evalgap.verifier.options.Settings`, the one options record, and its layers
``findings``       the result model: verdicts, engine verdicts, requirement results (frozen data)
``events``         progress events handed to ``on_event`` callbacks
``errors``         the package's exception root, :class:`~evalgap.verifier.errors.VerifierError`
``cache``          the on-disk result cache: keys (what a verdict depends on) and the rules of what is stored
``cachestore``     the cache's store: entries authenticated with the per-user key (HMAC), verdict records
``sandbox/``       worker processes: the registry of worker kinds, limits, fork servers, the guard
``engines/``       CrossHair, Hypothesis and replay: obligations in, engine verdicts out
``analysis/``      static analysis: Z3 over the spec, requirement smells, the gaming scan of code
``project/``       what is checked: targets, case folders and suites, signatures, the project's tests
``report/``        the gap report model and its renderers (text, JSON, Markdown, SARIF, JUnit, HTML)
``gate/``          checking a change: git snapshots, behaviour diffs, the gate report
``authoring/``     drafting specs from prose, exporting contracts, formatting
``cli/``           the ``evalgap`` command, one module per command, a thin layer over :mod:`evalgap`
=================  ==========================================================================================

CrossHair is never imported in the parent process: it runs only inside worker subprocesses.
"""
