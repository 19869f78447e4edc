"""Read a target's signatures in a sandboxed subprocess (the checker's signature provider)."""

from __future__ import annotations

from evalgap.specs_lang.signatures import ModuleSig
from evalgap.verifier.errors import TargetError
from evalgap.verifier.sandbox import Limits, run_worker
from evalgap.verifier.targets import Target

__all__ = ["target_signatures"]


def target_signatures(target: Target, limits: Limits | None = None) -> ModuleSig:
    """Import ``target`` in a limited worker process and return its top-level signatures.

    Args:
        target: the code under check.
        limits: worker limits (default: 20 CPU s, 40 s wall clock).

    Returns:
        The :class:`ModuleSig` to hand to :func:`evalgap.specs_lang.typecheck.check_spec`.

    Raises:
        TargetError: the target cannot be imported (the message holds the exception) or the worker died.
    """
    out = run_worker("evalgap.verifier.signature_worker", {"paths": list(target.paths), "module": target.module},
                     limits or Limits(cpu_s=20, wall_s=40))
    if out.result is None:
        raise TargetError(f"reading the signatures of {target.display} failed: the worker ended with status "
                          f"{out.status}; {out.stderr.strip()[-300:]}")
    if "error" in out.result:
        raise TargetError(f"cannot import target {target.display}: {out.result['error']}")
    try:
        return ModuleSig.from_json(out.result)
    except (KeyError, TypeError, ValueError) as exc:
        raise TargetError(f"malformed signatures of {target.display}: {exc}") from None
