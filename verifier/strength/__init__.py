"""Spec strength by mutation analysis: how many wrong versions of the code a requirement rejects.

Owns: the mutation operators (``mutants``), running the spec's requirements on each mutant and estimating
equivalent mutants by differential testing (``run``), and the per-requirement figure (``Strength`` in
:mod:`evalgap.verifier.findings`). Mutants are checked through :func:`evalgap.check`, so their code runs only
in the sandboxed workers, like any target. May import: ``evalgap.specs_lang``, ``evalgap.verifier.findings``,
``evalgap.verifier.options``, ``evalgap.verifier.project``, ``evalgap.verifier.report.gap`` and the library API.
"""
