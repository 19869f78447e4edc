"""Read a target's signatures in a sandboxed subprocess (the checker's signature provider)."""

from __future__ import annotations

import signal

from typing import TYPE_CHECKING

from evalgap.specs_lang.signatures import ModuleSig
from evalgap.verifier.errors import TargetError
from evalgap.verifier.sandbox.runner import Limits, run_worker, wall_limit
from evalgap.verifier.project.targets import Target

if TYPE_CHECKING:
    from evalgap.verifier.cache import ResultCache

__all__ = ["target_signatures", "ImportTimeout", "PROBE_CPU_S", "PROBE_WALL_S"]

#: Limits of the import-time signature probe (docs/report.md, "Time limits"): importing the target and reading
#: its signatures must finish within 10 CPU seconds and 15 s of wall clock (stretched by the machine's load,
#: as every worker's limit is, but to 30 s at most), so a target that sleeps or loops at import fails fast.
PROBE_CPU_S = 10.0
PROBE_WALL_S = 15.0


class ImportTimeout(TargetError):
    """Importing the target did not finish within the probe's limits: every engine would hang the same way,
    so ``check`` stops here too (exit 2) instead of waiting for each worker's own limit."""


def target_signatures(target: Target, limits: Limits | None = None, cache: ResultCache | None = None) -> ModuleSig:
    """Import ``target`` in a limited worker process and return its top-level signatures.

    Args:
        target: the code under check.
        limits: worker limits (default: :data:`PROBE_CPU_S` CPU s, :data:`PROBE_WALL_S` s wall clock).
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
    key, fp = None, None
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
    from evalgap.verifier.sandbox import forkserver

    # from the probe's fork server when one is warm or coming (`evalgap serve`, a check that prestarted it),
    # else one spawned interpreter (`lint`: starting a server for one job costs more than spawning)
    kind = "signature-served" if forkserver.enabled() and forkserver.pool().coming("signature-served") else "signature"
    out = run_worker(kind, {"paths": list(target.paths), "module": target.module},
                     limits or Limits(cpu_s=PROBE_CPU_S, wall_s=min(2 * PROBE_WALL_S,
                                                                wall_limit(PROBE_WALL_S / 3, PROBE_WALL_S / 3))))
    killed_early = (out.status == "cpu-limit" and out.returncode in (-signal.SIGKILL, -signal.SIGPROF)
                    and out.wall_s < PROBE_CPU_S)  # no CPU limit is reached in less wall time: a signal from inside
    if out.result is None and killed_early:
        raise TargetError(f"importing target {target.display} ended the import-time probe: killed by "
                          f"{signal.Signals(-int(out.returncode or 0)).name} after {out.wall_s:.1f} s, before any "
                          "limit of evalgap's was reached (the target's import-time code, or another process, sent "
                          "the signal)")
    if out.result is None and out.status in ("timeout", "cpu-limit"):
        raise ImportTimeout(f"importing target {target.display} did not finish within the import-time probe's "
                          f"limits ({PROBE_WALL_S:g} s wall clock, {PROBE_CPU_S:g} CPU s): it sleeps, blocks or "
                          "loops at import; move that work out of module level")
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
        from evalgap.verifier.cache import module_closure_fingerprint

        if module_closure_fingerprint(target.module, target.paths) == fp:  # unchanged while the probe ran
            cache.put_payload(key, sig.to_json())
    return sig
