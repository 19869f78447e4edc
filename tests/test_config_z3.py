"""Config checks: the Python-level data model (records, schema, concrete documents), the symbolic
consistency of a config's rules, violations with offending values, and the optimizer's smallest repair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalgap.specs_lang import parse
from evalgap.translators.to_z3.config import ConfigDataError, build_config_model
from evalgap.verifier.analysis.run import analyze_spec, check_config_file, load_config_document
from evalgap.verifier.errors import UsageError
from evalgap.verifier.analysis.spec_findings import analysis_exit_code
from evalgap.verifier.analysis.z3_backend.configs import check_configuration, path_matches

SPEC = '''spec svc "Service limits"
record Pool: name: str, size: int in 1..64, burst: float
config limits "Service limits" schema: pools: list[Pool], total: int, strict: bool
  requirement L-1 "The pools fit in the total."
    sum([p.size for p in pools]) <= total
  requirement L-2 "The total is at most 100."
    total <= 100
  requirement L-3 "In strict mode no pool bursts above twice its size."
    strict ==> (forall p in pools: p.burst <= 2 * p.size)
'''


def doc(total: int = 40, strict: bool = True, burst: float = 3.0) -> dict[str, object]:
    return {"total": total, "strict": strict,
            "pools": [{"name": "a", "size": 30, "burst": burst}, {"name": "b", "size": 20, "burst": 100.5}]}


def test_data_model_leaves_and_types() -> None:
    spec = parse(SPEC)
    m = build_config_model(spec, spec.configs[0], doc())
    assert [leaf.path for leaf in m.leaves] == ["pools[0].name", "pools[0].size", "pools[0].burst", "pools[1].name",
                                               "pools[1].size", "pools[1].burst", "total", "strict"]
    assert m.leaves[1].original == 30 and m.leaves[1].bounds  # size in 1..64
    with pytest.raises(ConfigDataError, match=r"pools\[1\]\.size: expected int, got '20'"):
        bad = doc()
        bad["pools"][1]["size"] = "20"  # type: ignore[index]
        build_config_model(spec, spec.configs[0], bad)
    with pytest.raises(ConfigDataError, match="missing field"):
        build_config_model(spec, spec.configs[0], {"total": 1, "strict": True, "pools": [{"name": "x"}]})


def test_violations_name_rules_and_values_and_repair_is_minimal() -> None:
    spec = parse(SPEC)
    m = build_config_model(spec, spec.configs[0], doc())
    fs = check_configuration(m, 5.0)
    viol = {f.requirements: f for f in fs if f.kind == "violation"}
    assert set(viol) == {("L-1",), ("L-3",)}
    assert viol[("L-3",)].message.startswith("L-3 violated by pools[1]")
    assert set(viol[("L-1",)].details) == {"pools[0].size = 30", "pools[1].size = 20", "total = 40"}
    rep = [f for f in fs if f.kind == "repair"][0]
    # fewest fields: 2 (strict -> False fixes L-3; one size or the total fixes L-1), then distance 10:
    # total 40 -> 50, pools[0].size 30 -> 20 and pools[1].size 20 -> 10 tie
    l1_fixes = {"total: 40 -> 50", "pools[0].size: 30 -> 20", "pools[1].size: 20 -> 10"}
    changes = set(rep.details[:-1])
    assert len(changes) == 2 and "strict: True -> False" in changes and len(changes & l1_fixes) == 1
    assert rep.details[-1].startswith("re-checked")
    frozen = check_configuration(m, 5.0, freeze=("strict",))
    rep2 = [f for f in frozen if f.kind == "repair"][0]
    changes2 = set(rep2.details[:-1])
    assert len(changes2) == 2 and "pools[1].burst: 100.5 -> 40.0" in changes2 and len(changes2 & l1_fixes) == 1


def test_satisfied_configuration_has_no_findings() -> None:
    spec = parse(SPEC)
    ok = doc(total=50, strict=False)
    assert check_configuration(build_config_model(spec, spec.configs[0], ok), 5.0) == []


def test_schema_narrowing_violation_is_reported() -> None:
    spec = parse(SPEC)
    bad = doc(total=50, strict=False)
    bad["pools"][0]["size"] = 0  # type: ignore[index]
    fs = check_configuration(build_config_model(spec, spec.configs[0], bad), 5.0)
    assert any(f.kind == "violation" and "pools[0].size = 0" in f.message for f in fs)


def test_symbolic_config_conflict_with_core() -> None:
    spec = parse(SPEC + '''  requirement L-4 "At least 200 slots in total."
    total >= 200
''')
    rep = analyze_spec(spec, 5.0)
    assert [f.requirements for f in rep.of_kind("conflict")] == [("L-2", "L-4")]
    assert analysis_exit_code(rep) == 1
    approx = [f.requirements for f in rep.findings if f.kind == "approximated"]
    assert approx == [("L-3",)]  # the only rule reading a float field


def test_file_formats(tmp_path: Path) -> None:
    spec = parse(SPEC, str(tmp_path / "s.req"))
    (tmp_path / "c.json").write_text(json.dumps(doc()))
    (tmp_path / "c.toml").write_text('total = 40\nstrict = true\n[[pools]]\nname = "a"\nsize = 30\nburst = 3.0\n'
                                     '[[pools]]\nname = "b"\nsize = 20\nburst = 100.5\n')
    for name in ("c.json", "c.toml"):
        rep = check_config_file(spec, tmp_path / name, timeout_s=5.0)
        assert len(rep.of_kind("violation")) == 2 and analysis_exit_code(rep) == 1
    (tmp_path / "c.yaml").write_text("[1, 2]\n")
    with pytest.raises(UsageError, match="top level must be a mapping"):
        load_config_document(tmp_path / "c.yaml")


def test_freeze_patterns() -> None:
    assert path_matches("pools[3].size", "pools[*].size")
    assert path_matches("pools[3].size", "*.size")
    assert not path_matches("pools[3].size", "pools[*].burst")
    assert not path_matches("pools[3].size", "pools[0].size")


def test_symbolic_config_vacuity() -> None:
    spec = parse(SPEC + '''  requirement L-5 "Totals above 500 need approval."
    total > 500 ==> strict
''')
    rep = analyze_spec(spec, 5.0)
    vac = rep.of_kind("vacuous")
    assert [f.requirements for f in vac] == [("L-5",)] and "total > 500" in vac[0].message
