"""Reach and precision of `evalgap author`'s pattern engine on the docstrings of real PyPI libraries with
Google-style docstrings (issue 24): pydash 8.1.0 (developed against: the rules of issue 24 were tuned
while reading its output) and humanize 4.17.0 (read only to label the sample).

For each installed library, every public module's docstrings are drafted (``evalgap author`` on the
``.py`` file: functions, classes and methods). Reported:

* sentences (examples and reST directives excluded) and formalized sentences (clauses the signature alone
  implies excluded);
* **reach**: on a fixed random sample of sentences (seed below) labelled by hand in ``author_libs_labels.json``
  (``checkable``: the sentence states a claim about the arguments, the result, an exception or the state
  that a test could check, beyond the type the signature already gives), the share of the checkable ones
  that are formalized;
* **precision**: every formalized sentence of the library is hand-checked in the same file (``right`` /
  ``wrong``, with why); sentences formalized now but not in the file are listed as unchecked.

Usage: python benchmarks/author_libs.py [--label] (``--label`` prints the sample and the formalized
sentences to label).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
from pathlib import Path
from typing import Any

from evalgap.translators.from_prose import ProseInputError, draft_spec, load_units

SEED = 20261201
SAMPLE = 40
# distribution name -> (import name, part). "dev": the rules were tuned while reading its output; "eval":
# its sample was labelled and committed before any rule change of issue 24's library round and its figures
# are reported once, untuned (more-itertools 11.2.1, toolz 1.2.0: plain prose with doctests, Sphinx-like).
LIBRARIES: dict[str, tuple[str, str]] = {
    "pydash": ("pydash", "dev"), "humanize": ("humanize", "dev"),
    "more-itertools": ("more_itertools", "eval"), "toolz": ("toolz", "eval"),
}
LABELS = Path(__file__).with_name("author_libs_labels.json")


def sentences(lib: str) -> list[dict[str, Any]]:
    """Every drafted sentence of ``lib``'s public modules (``lib`` a key of LIBRARIES, or an import name):
    module, ID, prose, clauses."""
    spec = importlib.util.find_spec(LIBRARIES.get(lib, (lib, ""))[0])
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(list(spec.submodule_search_locations)[0])
    out: list[dict[str, Any]] = []
    for path in sorted(root.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            draft = draft_spec(load_units(path), name=path.stem)
        except ProseInputError:
            continue  # a module without docstrings
        for r in draft.requirements():
            if r.example is not None or (r.informal and "directive" in r.informal[1]):
                continue
            out.append({"module": path.stem, "id": r.id, "prose": r.prose,
                        "clauses": [] if r.signature_only else [f"{c.kind} {c.text}" for _, c in r.clauses]})
    return out


def measure(lib: str, labels: dict[str, Any]) -> dict[str, Any] | None:
    """The figures of one library (None when it is not installed)."""
    rows = sentences(lib)
    if not rows:
        return None
    key = {(r["module"], r["prose"]): r for r in rows}
    stored = labels.get(lib, {}).get("sample")
    if stored:  # the labelled sample is fixed by the file (drawn once with SEED), matched by module and prose
        sample = [key.get((x["module"], x["prose"]), {**x, "clauses": []}) for x in stored]
    else:
        sample = random.Random(SEED).sample(rows, min(SAMPLE, len(rows)))
    lab = {(x["module"], x["prose"]): x for x in stored or []}
    checkable = [r for r in sample if lab.get((r["module"], r["prose"]), {}).get("checkable")]
    unlabelled = [r for r in sample if (r["module"], r["prose"]) not in lab]
    hand = {(x["module"], x["prose"]): x for x in labels.get(lib, {}).get("handcheck", [])}
    formal = [r for r in rows if r["clauses"]]
    judged = [hand[(r["module"], r["prose"])] for r in formal if (r["module"], r["prose"]) in hand]
    return {"library": lib, "part": LIBRARIES.get(lib, (lib, "?"))[1], "sentences": len(rows), "formalized": len(formal), "sample": len(sample),
            "sample_checkable": len(checkable), "sample_checkable_formalized": sum(1 for r in checkable if r["clauses"]),
            "sample_unlabelled": len(unlabelled), "handchecked": len(judged),
            "right": sum(1 for j in judged if j["judgement"] == "right"),
            "unchecked": [r for r in formal if (r["module"], r["prose"]) not in hand],
            "sample_rows": sample, "formal_rows": formal}


def main(argv: list[str] | None = None) -> int:
    """Print the figures per library (or, with ``--label``, the sentences to label)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", action="store_true")
    args = ap.parse_args(argv)
    labels = json.loads(LABELS.read_text(encoding="utf-8")) if LABELS.exists() else {}
    for lib in LIBRARIES:
        m = measure(lib, labels)
        if m is None:
            print(f"{lib}: not installed (pip install {lib}); skipped")
            continue
        if args.label:
            for r in m["sample_rows"]:
                print(json.dumps({"lib": lib, "module": r["module"], "id": r.get("id"), "prose": r["prose"],
                                  "clauses": r["clauses"]}))
            for r in m["formal_rows"]:
                print("FORMAL", json.dumps({"lib": lib, "module": r["module"], "id": r.get("id"), "prose": r["prose"],
                                            "clauses": r["clauses"]}))
            continue
        reach = m["sample_checkable_formalized"] / max(1, m["sample_checkable"])
        prec = m["right"] / max(1, m["handchecked"])
        print(f"{lib} ({m['part']}): {m['formalized']} of {m['sentences']} sentences formalized; reach on the labelled sample: "
              f"{m['sample_checkable_formalized']} of {m['sample_checkable']} checkable sentences formalized "
              f"({100 * reach:.0f} %; sample of {m['sample']}, seed {SEED}, {m['sample_unlabelled']} unlabelled); "
              f"hand-checked precision {m['right']} of {m['handchecked']}"
              + (f" ({100 * prec:.0f} %)" if m["handchecked"] else "")
              + (f"; {len(m['unchecked'])} formalized sentences not hand-checked" if m["unchecked"] else ""))
        fr = labels.get(lib, {}).get("frozen_run")
        if fr:  # the one evaluation run, before the fixes it prompted (the figures above are tuned then)
            print(f"  {lib} frozen evaluation run (untuned): {fr['formalized']} formalized; reach "
                  f"{fr['sample_checkable_formalized']} of {fr['sample_checkable']}; hand-checked precision "
                  f"{fr['right']} of {fr['handchecked']} (the figures above are after fixes it prompted: tuned)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
