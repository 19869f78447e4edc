"""Read a target's signatures in a sandboxed subprocess (the checker's signature provider)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalgap.specs_lang.signatures import ModuleSig
from evalgap.verifier.errors import TargetError
from evalgap.verifier.sandbox.runner import Limits, run_worker
from evalgap.verifier.project.targets import Target

if TYPE_CHECKING:
    from evalgap.verifier.cache import ResultCache

__all__ = ["target_signatures"]


def target_signatures(target: Target, limits: Limits | None = None, cache: ResultCache | None = None) -> ModuleSig:
    """Import ``target`` in a limited worker process and return its top-level signatures.

    Args:
        target: the code under check.
        limits: worker limits (default: 20 CPU s, 40 s wall clock).
        cache: when given, signatures are read from / stored in it, keyed by the whole text of the target
            module and of every project module it imports (transitively), evalgap's own source and the
            Python and tool versions (:func:`evalgap.verifier.cache.aux_key`); only successful reads are
            stored. (A target whose names come from a third-party library that changed without a change of
            those keys would keep stale signatures: ``--no-cache`` reads them afresh.)

    Returns:
        The :class:`ModuleSig` to hand to :func:`evalgap.specs_lang.typecheck.check_spec`.

    Raises:
        TargetError: the target cannot be imported (the message holds the exception) or the worker died.
    """
    key = None
    if cache is not None:
        from evalgap.verifier.cache import aux_key, module_closure_fingerprint

        fp = module_closure_fingerprint(target.module, target.paths)
        key = aux_key("signatures", {"module": target.module, "source": fp}) if fp is not None else None
        hit = cache.get_payload(key) if key is not None else None
        if isinstance(hit, dict):
            try:
                return ModuleSig.from_json(hit)
            except (KeyError, TypeError, ValueError, AttributeError):
                pass  # a malformed entry is rebuilt below (and overwritten)
    out = run_worker("signature", {"paths": list(target.paths), "module": target.module},
                     limits or Limits(cpu_s=20, wall_s=40))
    if out.result is None:
        raise TargetError(f"reading the signatures of {target.display} failed: the worker ended with status "
                          f"{out.status}; {out.stderr.strip()[-300:]}")
    if "error" in out.result:
        raise TargetError(f"cannot import target {target.display}: {out.result['error']}")
    try:
        sig = ModuleSig.from_json(out.result)
    except (KeyError, TypeError, ValueError) as exc:
        raise TargetError(f"malformed signatures of {target.display}: {exc}") from None
    if cache is not None and key is not None:
        cache.put_payload(key, sig.to_json())
    return sig
