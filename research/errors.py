"""Exception root of the research harness (the CLI turns it into a message and exit 2)."""

from __future__ import annotations

from evalgap.verifier.errors import VerifierError

__all__ = ["ResearchError", "DatasetError"]


class ResearchError(VerifierError):
    """Root of the research harness's errors (a :class:`VerifierError`, so the CLI reports it as usage)."""


class DatasetError(ResearchError):
    """A dataset folder or file is missing or malformed (path and reason in the message)."""
