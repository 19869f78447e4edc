"""The exception root of :mod:`evalgap.verifier`."""

from __future__ import annotations

__all__ = ["VerifierError", "UsageError", "TargetError", "CaseError"]


class VerifierError(Exception):
    """Root of the errors the verifier raises for bad input; the CLI prints them and exits 2."""


class UsageError(VerifierError, ValueError):
    """A command-line option or argument is wrong (the message says which and what to do)."""


class TargetError(VerifierError, ValueError):
    """The code under check cannot be located (no such file, module or named implementation)."""


class CaseError(VerifierError, ValueError):
    """A case folder's ``case.toml`` is missing, malformed or names files that do not exist."""
