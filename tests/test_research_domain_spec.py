"""The benchmark's domain as assumptions of the differential spec (`crosshair-domain`): the same rule as the
recall count (research/domains.py), stated so that CrossHair searches inside the domain."""

from __future__ import annotations

import pytest

from evalgap.research.dataset import Candidate, Task
from evalgap.research.diffspec import differential_spec
from evalgap.research.domains import infer_domain, outside
from evalgap.research.evaluators import EvalSettings, evaluate
from evalgap.specs_lang import check_structure, parse
from evalgap.specs_lang.lower import applicable_assumptions
from evalgap.verifier.findings import Verdict

_REF = "def upper(s: str, n: int) -> str:\n    return s.upper() * (n % 3)\n"
_TASK = Task("toy/upper", "upper", "Upper case, n % 3 times.", prompt=_REF, reference=_REF,
             base_inputs='[["ab", 12], ["Zz", -3]]', ground_truth_inputs='[["ab", 12]]',
             param_types=(("s", "str"), ("n", "int")))


def test_the_domain_of_the_visible_inputs_becomes_assumptions() -> None:
    plain, _ = differential_spec(_TASK)
    assert "assume" not in plain
    text, _ = differential_spec(_TASK, in_domain=True)
    spec = parse(text)
    check_structure(spec, text)
    a, b = spec.assumptions
    assert (a.id, b.id) == ("DOMAIN_s", "DOMAIN_n")
    assert "s.isascii()" in text and "abs(n) < 100000000" in text   # 2 digits visible: below 10**8
    assert "ASCII text" in a.prose and "ASCII" not in b.prose and "10**8" in b.prose
    assert applicable_assumptions(spec, ["s", "n"]) == [a, b]


def test_containers_unions_and_no_bound_without_inputs() -> None:
    task = Task("toy/t", "f", "p", reference="def f(xs, d, u):\n    return 0\n", base_inputs='[[["a"], {"k": 5}, 1]]',
                param_types=(("xs", "List[str]"), ("d", "Dict[str, int]"), ("u", "Optional[int]")))
    text, _ = differential_spec(task, in_domain=True)
    assert "forall v0 in xs: v0.isascii()" in text
    assert "(forall v0 in d: v0.isascii()) and (forall v0 in d.values(): abs(v0) < 10000000)" in text
    assert "(not isinstance(u, int) or (abs(u) < 10000000))" in text
    bare = Task("toy/b", "f", "p", reference="def f(s):\n    return s\n", param_types=(("s", "str"),))
    assert "DOMAIN" in differential_spec(bare, True)[0]      # no visible string: ASCII (the rule's default)
    wide = Task("toy/w", "f", "p", reference="def f(s):\n    return s\n", base_inputs='[["\\u00e9"]]',
                param_types=(("s", "str"),))
    assert "assume" not in differential_spec(wide, True)[0]  # non-ASCII visible: text is not bounded


@pytest.mark.slow
def test_the_search_stays_inside_the_domain_and_its_refutations_count() -> None:
    """Wrong on every non-ASCII text and on the ASCII text "q": the free search may stop at a non-ASCII
    counterexample (not counted for recall), the in-domain one finds "q" (or another ASCII one)."""
    wrong = Candidate("w", "toy/upper", "toy",
                      "def upper(s, n):\n    if not s.isascii() or s == 'q':\n        return ''\n"
                      "    return s.upper() * (n % 3)\n")
    v = evaluate("crosshair-domain", _TASK, wrong, EvalSettings(crosshair_budget_s=4.0))
    assert v.verdict is Verdict.REFUTED, v.reason
    assert v.counterexample is not None
    assert outside(infer_domain(_TASK.visible_inputs()), v.counterexample) is None, v.counterexample
    right = Candidate("r", "toy/upper", "toy", _REF)
    assert evaluate("crosshair-domain", _TASK, right, EvalSettings(crosshair_budget_s=2.0)).verdict in (
        Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)
