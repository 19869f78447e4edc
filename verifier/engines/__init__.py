"""The engines that answer "does the code meet this requirement?": CrossHair, Hypothesis and the
concrete replay of counterexamples (:mod:`.run` drives them; ``*_worker`` modules run in sandboxed processes).

Owns: turning a harness obligation into :class:`~evalgap.verifier.findings.EngineVerdict` s and a
:class:`~evalgap.verifier.findings.RequirementResult` per requirement. May import: ``specs_lang``,
``translators``, ``verifier.{options,findings,cache,errors,sandbox,project.targets}`` and
``verifier.report.emit_tests`` (reproducer snippets).
"""
