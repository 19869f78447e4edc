"""Worker process: replay a counterexample concretely, with icontract's checks enforced.

Run only through :func:`evalgap.verifier.sandbox.runner.run_worker`. CrossHair is never imported here (importing
it would turn icontract's checks into no-ops); the worker first proves enforcement is on by calling a
function with a violated postcondition and requiring ``icontract.ViolationError``.

Request keys: ``paths``, ``harness``, ``function``, ``args`` (Python source of each positional argument,
as CrossHair printed it; evaluated in the harness module's namespace over the target module's, with CrossHair's
library stand-ins rebuilt: :mod:`evalgap.verifier.engines.standins`), ``target_module`` (the module under
check, whose folder tells the target's frames apart in a traceback), ``schedule`` (optional: a list of
event-loop choices; every event loop the call starts is then controlled and follows it, see
:mod:`evalgap.verifier.engines.schedloop`; the result then carries ``steps``, the run's task steps).

Result keys: ``outcome`` one of

* ``violation``: a contract raised ``ViolationError``; ``kind`` is ``pre`` or ``post``, ``message`` its text,
  ``returned`` (for scenarios and examples, the failing check's index from the unchecked call);
* ``exception``: the call raised another exception: ``type``, ``message``, ``in_harness`` (True when the
  innermost frame is in the harness), ``origin`` (who raised it, from the traceback, see :func:`origin`),
  ``traceback``;
* ``passed``: the call returned normally and every contract held (the counterexample does not reproduce);
* ``bad-args``: an argument could not be evaluated (its printed form is not valid Python);
* ``error``: the harness could not be imported, or enforcement is off (``stage`` says which).

Every result also carries ``blocked``: the operations the sandbox guard (:mod:`evalgap.verifier.sandbox.guard`)
blocked while the target ran.
"""

from __future__ import annotations

import os
import sys
import traceback
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import icontract

from evalgap.verifier.engines.standins import replay_namespace
from evalgap.verifier.sandbox import channel, enforcement


def _build_args(sources: list[str], namespace: dict[str, Any]) -> list[Any]:
    """Evaluate the argument sources together, so CrossHair's aliases (``(v1:=b'')``, ``v1``) resolve to the
    same object."""
    value = eval("[" + ", ".join(sources) + "]", namespace)  # noqa: S307 - CrossHair's repr of values
    assert isinstance(value, list)
    return value


_BOUNDARY_WORDS = ("argument", "positional", "keyword", "takes", "missing", "required", "unexpected")


def target_code_objects(module: object) -> set[Any]:
    """The code objects of the callables ``module`` exports (functions, and the methods of its classes), as
    the module holds them: for a decorated function that is the decorator's wrapper (deal, icontract...), so
    a contract the target's own decorator checks and fails is the target's exception."""
    codes: set[Any] = set()
    for obj in list(vars(module).values()) if module is not None else []:
        members = list(vars(obj).values()) if isinstance(obj, type) else [obj]
        for m in members:
            m = getattr(m, "__func__", m)  # classmethod / staticmethod
            code = getattr(m, "__code__", None)
            if code is not None:
                codes.add(code)
    return codes


def origin(exc: BaseException, harness_file: str, target_roots: list[str],
           target_codes: set[Any] | None = None) -> str:
    """Who raised ``exc``, read from its traceback (outermost frame first).

    Returns:
        ``target`` when a frame of the target's own code (a file under one of ``target_roots``, the harness
        excepted) is on the traceback: the target ran and raised (also through a library it called), or the
        frame the harness called runs one of ``target_codes`` (a callable the target module exports, e.g. a
        contract library's wrapper around a target function: see :func:`target_code_objects`);
        ``boundary`` when the innermost frame is the harness's call site and ``exc`` is a ``TypeError`` about
        the call's arguments (wrong number or names: a spec/signature mismatch, the target never ran);
        ``spec`` when the innermost harness frame raised otherwise, or a library the spec's expression called
        did (the spec's own expression is at fault); ``engine`` when no harness frame was reached (the
        replayed arguments do not fit the check function itself).
    """
    frames = traceback.extract_tb(exc.__traceback__)
    files = [os.path.abspath(f.filename) for f in frames]
    harness_at = [i for i, f in enumerate(files) if f == harness_file]
    if not harness_at:
        return "engine"
    roots = [os.path.join(os.path.abspath(r), "") for r in target_roots if r]
    below = files[harness_at[0] + 1:]
    if any(f != harness_file and any(f.startswith(r) and (_is_library(r) or not _is_library(f)) for r in roots)
           for f in below):
        return "target"
    if target_codes and len(files) > harness_at[-1] + 1:
        tb = exc.__traceback__
        for _ in range(harness_at[-1] + 1):
            tb = tb.tb_next if tb is not None else None
        if tb is not None and tb.tb_frame.f_code in target_codes:
            return "target"
    if (isinstance(exc, TypeError) and harness_at[-1] == len(files) - 1
            and any(w in str(exc) for w in _BOUNDARY_WORDS)):
        return "boundary"
    return "spec"


def _is_library(path: str) -> bool:
    """Whether ``path`` belongs to the interpreter or an installed package (a virtual environment inside the
    target's folder is not the target's code)."""
    prefixes = {os.path.join(os.path.abspath(p), "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return any(path.startswith(p) for p in prefixes) or any(
        part in ("site-packages", "dist-packages") for part in path.split(os.sep))


def _target_roots(req: dict[str, Any]) -> list[str]:
    """The folder of the target module (its package folder, or the folder of a single-file module)."""
    mod = sys.modules.get(str(req.get("target_module") or ""))
    file = getattr(mod, "__file__", None)
    return [os.path.dirname(os.path.abspath(file))] if file else []


def _loop(req: dict[str, Any], steps: list[str]) -> AbstractContextManager[Any]:
    """A controlled event loop following ``req["schedule"]`` (its steps appended to ``steps``), or nothing."""
    schedule = req.get("schedule")
    if schedule is None:
        return nullcontext()
    from contextlib import contextmanager

    from evalgap.verifier.engines import schedloop

    @contextmanager
    def ctx() -> Any:
        with schedloop.controlled(schedloop.Prefix([int(c) for c in schedule])) as run:
            try:
                yield run
            finally:
                steps.extend(run.steps)
    return ctx()


def main(argv: list[str]) -> int:
    """Replay one counterexample (see the module docstring); always 0, the outcome is in the result."""
    return channel.run(argv, _work)


def _work(ch: channel.Channel) -> dict[str, Any]:
    req = ch.request
    ch.add_paths()
    failed = enforcement.enforcement_error("replay")
    if failed is not None:
        return failed
    ch.watch_modules(("icontract",))
    ch.install_guard()
    ch.start_record()
    try:
        harness = ch.import_harness(req["harness"])
        fn = getattr(harness, req["function"])
        ch.watch_function(f"{req['harness']}.{req['function']}", fn)
        ch.watch(req["harness"], harness)
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "error", "stage": "import", "message": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-3000:]}
    target_mod = sys.modules.get(str(req.get("target_module") or ""))
    namespace = replay_namespace(harness, target_mod)
    try:
        args = _build_args(req["args"], namespace)
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "bad-args", "message": f"{type(exc).__name__}: {exc}"}
    harness_file = os.path.abspath(getattr(harness, "__file__", ""))
    steps: list[str] = []
    extra = {"steps": steps} if req.get("schedule") is not None else {}
    try:
        with _loop(req, steps):
            returned = fn(*args)
    except icontract.ViolationError as exc:
        text = str(exc)
        # icontract puts "File ..., line N in ...:" before the description: look at every line
        kind = "pre" if any(line.startswith("[pre] ") for line in text.splitlines()) else "post"
        returned_index = None
        if kind == "post" and hasattr(fn, "__wrapped__"):
            try:
                again = _build_args(req["args"], replay_namespace(harness, target_mod))
                with _loop(req, []):
                    returned_index = fn.__wrapped__(*again)
            except BaseException:  # noqa: BLE001
                returned_index = None
        return {"outcome": "violation", "kind": kind, "message": text[:4000], **extra,
                "returned": returned_index if isinstance(returned_index, int) else None}
    except BaseException as exc:  # noqa: BLE001
        tb = traceback.extract_tb(exc.__traceback__)
        innermost = os.path.abspath(tb[-1].filename) if tb else ""
        return {"outcome": "exception", "type": type(exc).__name__, "message": str(exc)[:2000], **extra,
                     "in_harness": innermost == harness_file,
                     "origin": origin(exc, harness_file, _target_roots(req), target_code_objects(
                         sys.modules.get(str(req.get("target_module") or "")))),
                     "traceback": traceback.format_exc()[-3000:]}
    if req.get("expect_zero") and returned != 0:
        return {"outcome": "violation", "kind": "post", "message": "check returned a failing index",
                     "returned": returned if isinstance(returned, int) else None}
    if enforcement.contracts_enforced("replay") is not None:
        ch.flag("icontract's checks were switched off during the replay")
    return {"outcome": "passed", "returned": repr(returned)[:int(req.get("returned_limit") or 500)], **extra}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
