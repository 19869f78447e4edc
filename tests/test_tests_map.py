"""``--tests``: the project's tests run once in a sandboxed worker with function coverage of the target, and
are mapped to requirements by the functions they executed (never by name)."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_fixtures import KV

from evalgap.specs_lang import parse_file
from evalgap.verifier.errors import UsageError
from evalgap.verifier.project.targets import resolve_target
from evalgap.verifier.project import tests_map as tm
from evalgap.verifier.report.traceability import requirement_functions, target_definitions


def test_kvstore_tests_traced_per_test() -> None:
    target = resolve_target("agent", KV, {"agent": "agent_store.py"}, KV)
    suite = tm.run_tests(KV / "test_ycsb.py", target)
    assert suite.exit_status == 0
    ran = {t.nodeid: t for t in suite.tests}
    assert set(ran) == {"test_ycsb.py::test_delete", "test_ycsb.py::test_load_then_read_all",
                        "test_ycsb.py::test_missing_key_raises", "test_ycsb.py::test_workload_a"}
    assert all(t.outcome == "passed" for t in suite.tests)
    assert set(ran["test_ycsb.py::test_missing_key_raises"].functions) == {"KVStore.__init__", "KVStore.get"}
    assert "KVStore.delete" in ran["test_ycsb.py::test_delete"].functions
    assert "_recompute" in ran["test_ycsb.py::test_workload_a"].functions  # the agent's hidden helper


def test_failing_test_outcome_recorded(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("def inc(x):\n    return x + 2\n", encoding="utf-8")
    (tmp_path / "test_mod.py").write_text(
        "import mod\n\ndef test_inc():\n    assert mod.inc(1) == 2\n\ndef test_other():\n    assert True\n",
        encoding="utf-8")
    target = resolve_target(str(tmp_path / "mod.py"), tmp_path)
    suite = tm.run_tests(tmp_path / "test_mod.py", target)
    assert [(t.nodeid, t.outcome, t.functions) for t in suite.tests] == [
        ("test_mod.py::test_inc", "failed", ("inc",)), ("test_mod.py::test_other", "passed", ())]
    assert suite.exit_status == 1


def test_mapping_by_executed_functions() -> None:
    spec = parse_file(KV / "kvstore.req")
    defs = target_definitions(KV / "agent_store.py")
    funcs = {r.id: requirement_functions(r, o, spec, defs) for r, o in spec.all_requirements()}
    assert funcs["KV-4"] == ("KVStore.__init__", "KVStore.delete", "KVStore.get", "KVStore.put")
    assert funcs["KV-5"] == ()
    suite = tm.TestSuiteResult("t", (tm.TestRun("a", "passed", ("KVStore.__init__", "KVStore.get")),
                                  tm.TestRun("b", "failed", ("KVStore.__init__", "KVStore.get", "KVStore.put"))), 1, 0.1)
    assert [(e.test, e.outcome) for e in tm.tests_for(funcs["KV-1"], suite)] == [("b", "failed")]
    assert [e.test for e in tm.tests_for(funcs["KV-2"], suite)] == ["a", "b"]  # the constructor alone is not needed
    assert tm.tests_for(funcs["KV-5"], suite) == ()


def test_missing_tests_path_is_usage_error() -> None:
    target = resolve_target("agent", KV, {"agent": "agent_store.py"}, KV)
    with pytest.raises(UsageError, match="no such file"):
        tm.run_tests(KV / "nope.py", target)
