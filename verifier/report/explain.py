"""``evalgap explain REPORT.json ID``: one requirement's full story from a saved JSON gap report."""

from __future__ import annotations

from typing import Any

from evalgap.verifier.errors import UsageError

__all__ = ["explain"]


def _budget(b: dict[str, Any]) -> str:
    parts = []
    if b.get("seconds") is not None:
        parts.append(f"{b['seconds']:g} s budget")
    if b.get("used_s") is not None:
        parts.append(f"{b['used_s']:.1f} s used")
    if b.get("paths") is not None:
        parts.append(f"{b['paths']} paths completed")
    if b.get("examples") is not None:
        parts.append(f"{b['examples']} examples")
    return ", ".join(parts)


def explain(report: dict[str, Any], req_id: str) -> str:
    """The story of requirement ``req_id`` in a validated report dict (see
    :func:`evalgap.verifier.report.json_report.load_report`): prose, location, formal text, each engine's verdict
    with evidence and budget, tests, smells, flags and spec findings naming it.

    Raises:
        UsageError: no requirement with that ID (the message lists the IDs).
    """
    reqs = {r["id"]: r for r in report["requirements"]}
    r = reqs.get(req_id)
    if r is None:
        raise UsageError(f"no requirement {req_id!r} in the report; IDs: {', '.join(reqs)}")
    verdict = r["verdict"] or "precondition"
    out = [f"{r['id']}: {verdict}", f"  prose:    {r['prose']}", f"  location: {r['location']}"]
    if r["formalization"] == "informal":
        out.append(f"  not formalized: {r['category']}: {r['informal_reason']}")
    else:
        out.append(f"  formalization: {r['formalization']}" + (" (precondition: narrows the domain of the "
                                                                "function's other requirements)"
                                                                if r["role"] == "precondition" else ""))
        out.append("  formal text:")
        out += [f"    {line}" for line in r["formal_text"].splitlines()]
    if r["target_functions"]:
        out.append(f"  target functions: {', '.join(r['target_functions'])}")
    if r.get("bounds"):
        out.append(f"  bounded by: {'; '.join(r['bounds'])} (the verdict holds only within these bounds)")
    st = r.get("strength")
    if st:
        out.append(f"  strength: kills {st['killed']} of {st['scored']} mutants"
                   + (f" ({100 * st['ratio']:.0f} %)" if st["ratio"] is not None else "")
                   + (", weak" if st["weak"] else "") + f"; {st['equivalent']} likely equivalent, "
                   f"{st['inconclusive']} inconclusive, of {st['mutants']}")
        out += [f"      survived by {m}" for m in st["survivors"]]
    if r["narrowed_by"]:
        out.append(f"  assuming: {', '.join(r['narrowed_by'])}")
    for v in r["verdicts"]:
        out.append(f"  [{v['engine']}] {v['verdict']} in {v['elapsed_s']:.1f} s"
                   + (f" ({_budget(v['budget'])})" if _budget(v["budget"]) else ""))
        out.append(f"      {v['reason']}")
        if v["counterexample"]:
            out.append(f"      counterexample: {v['counterexample']}")
        if v["arguments"]:
            out.append("      arguments: " + ", ".join(f"{k}={a}" for k, a in v["arguments"].items()))
        if v["assumptions"]:
            out.append(f"      assuming: {', '.join(v['assumptions'])}")
    if r["tests"]:
        out.append("  tests that exercise it:")
        out += [f"    {t['test']}: {t['outcome']}" for t in r["tests"]]
    elif report.get("tests") is not None:
        out.append("  tests that exercise it: none")
    for s in r["smells"]:
        out.append(f"  smell {s['code']}: \"{s['phrase']}\" at {s['start']}-{s['end']}: {s['message']}")
    legend = report["flags_legend"]
    for f in r["flags"]:
        out.append(f"  flag {f}: {legend.get(f, '')}")
    for f in report["spec_findings"]:
        if req_id in f["requirement_ids"]:
            out.append(f"  spec finding {f['code']} {f['kind']}: {f['message']}")
    if r["expected"] is not None:
        ok = verdict in r["expected"]
        out.append(f"  case manifest expects {' or '.join(r['expected'])}: {'ok' if ok else 'MISMATCH'}")
    return "\n".join(out) + "\n"
