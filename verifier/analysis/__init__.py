"""Static analysis, nothing executed: Z3 over the spec alone (:mod:`.run`, :mod:`.z3_backend`:
conflicts, vacuity, redundancy, realizability, witnesses, configuration checks), requirement smells in the
prose (:mod:`.smells`) and the evaluator-gaming scan of code (:mod:`.gaming`, :mod:`.visible_tests`).

May import: ``specs_lang``, ``translators``, ``verifier.{findings,cache,errors}``.
"""
