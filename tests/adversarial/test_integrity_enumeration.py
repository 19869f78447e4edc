"""Attacks on the bounded proofs by exhaustion (the ``enumeration`` engine) and on bytecode, found by a red-team
pass on 2026-12-02: each earned a false ``verified`` before its fix. The domain is ``x: int in 0..255`` so the
enumeration applies; the spec says ``ident`` returns ``x``; every target is wrong.

* a forged precondition violation (``icontract.ViolationError("[pre] ")``) counted the input as outside the
  preconditions;
* ``copy.deepcopy`` replaced at import (the enumeration copied each argument with it);
* the worker's lists of domain values rewritten through ``gc.get_objects()``;
* a ``__pycache__/*.pyc`` of a right program planted beside a wrong source with the source's size and mtime in
  its header (CrossHair, too, checked the bytecode instead of the source).
"""

from __future__ import annotations

import os
import py_compile
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from integrity_helpers import assert_not_passing, check, fresh_dir, sandbox, write_project  # noqa: E402

pytestmark = pytest.mark.adversarial


def _spec(req_id: str, domain: str = "int in 0..255") -> str:
    return (f'spec enum_attack "enumeration attack"\n  target: t.py\n\nfunction ident(x: {domain}) -> int\n'
            f'  requirement {req_id} "Returns x."\n    ensures result == x\n')


_TARGETS = {
    "FP-1": '''
        import icontract


        def ident(x: int) -> int:
            if x:
                raise icontract.ViolationError("[pre] ")
            return x
        ''',
    "DC-1": '''
        import copy as _c

        _real = _c.deepcopy


        def _dc(obj, memo=None):
            if type(obj) is list and obj and all(type(v) is int for v in obj):
                return [0 for _ in obj]
            return _real(obj, memo)


        _c.deepcopy = _dc


        def ident(x: int) -> int:
            return 0
        ''',
    "GC-1": '''
        import gc


        def ident(x: int) -> int:
            for o in gc.get_objects():
                if type(o) is list and len(o) == 256 and o[:3] == [0, 1, 2] and o[-1] == 255:
                    o[:] = [0] * 256
                    return x
            return 0
        ''',
}


@pytest.mark.parametrize("req_id", sorted(_TARGETS))
def test_the_enumeration_is_not_fooled(req_id: str) -> None:
    folder = write_project(fresh_dir(f"enum-{req_id}"), {"spec.req": _spec(req_id), "t.py": _TARGETS[req_id]})
    run = check(folder / "spec.req", sandbox(), "--no-cache", "-j", "1")
    assert_not_passing(run, req_id)


@pytest.mark.parametrize("domain", ["int in 0..255", "int"])
def test_planted_bytecode_of_a_right_program_is_not_what_gets_checked(domain: str) -> None:
    """The right program compiled into __pycache__, then the source replaced by a wrong one of the same length
    and mtime: Python's import would run the right bytecode; the check must see the wrong source."""
    req_id = "PY-1" if domain != "int" else "PY-2"
    folder = write_project(fresh_dir(f"pyc-{req_id}"), {"spec.req": _spec(req_id, domain)})
    src = folder / "t.py"
    src.write_text("def ident(x: int) -> int:\n    return x\n", encoding="utf-8")
    (folder / "__pycache__").mkdir()
    py_compile.compile(str(src), cfile=str(folder / "__pycache__" / f"t.{sys.implementation.cache_tag}.pyc"))
    st = src.stat()
    src.write_text("def ident(x: int) -> int:\n    return 0\n", encoding="utf-8")  # same length
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    run = check(src.parent / "spec.req", sandbox(), "--no-cache", "-j", "1")
    assert_not_passing(run, req_id)


_RECORD_CLEARER = '''
    import os, sys
    _OFF = int(open(os.path.join(os.path.dirname(__file__), "offset.txt")).read())

    # forget that offset.txt was read: empty the run-time input record kept in the recorder's closure
    _rec = sys.modules.get("evalgap.verifier.sandbox.record")
    if _rec is not None:
        for _fn in _rec._COLLECT:
            for _c in _fn.__closure__ or ():
                _v = _c.cell_contents
                if type(_v) is dict:
                    for _k in [k for k in _v if k.endswith("offset.txt")]:
                        del _v[_k]


    def ident(x: int) -> int:
        return x + _OFF
    '''


def test_a_target_that_erases_its_run_time_record_gets_no_cached_verdict() -> None:
    """Right while offset.txt says 0 (verified), the target erases the record that it read the file; after
    the file says 1 a cached `verified` would be a false one: the re-run must check again and refute."""
    folder = write_project(fresh_dir("record-clear"), {"spec.req": _spec("RC-1"), "t.py": _RECORD_CLEARER,
                                                       "offset.txt": "0\n"})
    box = sandbox()
    first = check(folder / "spec.req", box, "-j", "1")
    assert first.verdict("RC-1") == "verified", first.describe("RC-1")
    (folder / "offset.txt").write_text("1\n", encoding="utf-8")
    assert_not_passing(check(folder / "spec.req", box, "-j", "1"), "RC-1")
