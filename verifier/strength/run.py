"""Measure the spec strength of a checked spec: run its passing requirements on mutants of the code.

For each requirement that passed (``verified`` or ``no-counterexample``), the mutants of the target functions
it exercises (:func:`~evalgap.verifier.strength.mutants.mutants_of`) are checked against it through
:func:`evalgap.check` (sandboxed like any target, with the run's engines, a budget of at most
:data:`MUTANT_BUDGET_S` per requirement and no cache). A mutant the requirement refutes is *killed*. A mutant
that survives is tested for equivalence by differential testing: a generated requirement compares the mutant
with the original function on the spec's inputs (its parameter types and preconditions), by result, raised
exception type and the arguments' state afterwards; one that shows no difference is *likely equivalent* and
left out of the ratio (mutation analysis cannot decide equivalence; Budd and Angluin 1982). The strength of a
requirement is ``killed / (mutants - likely equivalent - inconclusive)``; below :data:`WEAK_BELOW` the
requirement is flagged ``weak`` with a surviving mutant shown.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalgap.specs_lang import ast as A
from evalgap.specs_lang.format import format_expr
from evalgap.specs_lang.loader import LoadedSpec
from evalgap.verifier.findings import RequirementResult, Strength, Verdict
from evalgap.verifier.options import Settings
from evalgap.verifier.project.targets import Target
from evalgap.verifier.strength.mutants import Mutant, MutationError, mutants_of
from evalgap.verifier.sandbox.scratch import scratch_dir

__all__ = ["measure_strength", "WEAK_BELOW", "MUTANT_BUDGET_S"]

#: A requirement killing fewer than this share of the scored mutants is flagged ``weak``.
WEAK_BELOW = 0.5
#: CrossHair CPU seconds per requirement on each mutant (at most; the run's budget if smaller).
MUTANT_BUDGET_S = 2.0
_PASSING = (Verdict.VERIFIED, Verdict.NO_COUNTEREXAMPLE)
_AGREE = "eg_agree__"
_ORIG = "_eg_orig__"


def _functions(r: RequirementResult) -> tuple[str, ...]:
    return r.target_functions or ((r.function,) if r.function else ())


def _subset(loaded: LoadedSpec, keep: set[str], preconditions: set[str]) -> LoadedSpec:
    """The spec with only the requirements in ``keep`` (and the preconditions of the functions kept)."""
    s = loaded.spec
    fns = tuple(replace(f, requirements=tuple(r for r in f.requirements if r.id in keep or r.id in preconditions))
                for f in s.functions if any(r.id in keep for r in f.requirements))
    top = tuple(r for r in s.requirements if r.id in keep)
    classes = tuple(replace(c, methods=tuple(replace(m, requirements=tuple(r for r in m.requirements if r.id in keep))
                                             for m in c.methods),
                            requirements=tuple(r for r in c.requirements if r.id in keep)) for c in s.classes)
    return LoadedSpec(replace(s, functions=fns, requirements=top, classes=classes), loaded.sources, loaded.files)


def _agree_source(original: str, function: str) -> str | None:
    """Python appended to a mutant: the original function as ``_eg_orig__NAME`` and ``eg_agree__NAME(...)``,
    True when the mutant and the original agree on the arguments (None: not a plain top-level function)."""
    tree = ast.parse(original)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function), None)
    if fn is None or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
        return None
    for node in ast.walk(fn):  # the original's own recursive calls stay in the original
        if isinstance(node, ast.Name) and node.id == function:
            node.id = _ORIG + function
    fn.name = _ORIG + function
    fn.decorator_list = []
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    args = ", ".join(names)
    return "\n\n" + ast.unparse(fn) + f'''


def _eg_outcome(fn, args):
    import copy
    a = copy.deepcopy(args)
    try:
        r = fn(*a)
    except Exception as e:
        return ("raise", type(e).__name__, a)
    return ("ok", r, a)


def _eg_same(x, y):
    if x[0] != y[0] or (x[0] == "raise" and x[1] != y[1]):
        return False
    try:
        same = x[1] == y[1] or (x[1] != x[1] and y[1] != y[1])
        return bool(same) and bool(x[2] == y[2])
    except Exception:
        return False


def {_AGREE}{function}({args}):
    args = ({args}{"," if len(names) == 1 else ""})
    return _eg_same(_eg_outcome({_ORIG}{function}, args), _eg_outcome({function}, args))
'''


def _agree_spec(decl: A.FunctionDecl, preconditions: list[A.Expr]) -> str:
    params = ", ".join(f"{p.name}: {p.type}" for p in decl.params)
    lines = ['spec eg_equivalence "does the mutant differ from the original?"', "",
             f"function {_AGREE}{decl.name}({params}) -> bool",
             '  requirement EQ-1 "the mutant returns what the original returns, or raises the same exception"']
    if preconditions:
        lines.append("    requires " + " and ".join(f"({format_expr(e)})" for e in preconditions))
    lines.append("    ensures result")
    return "\n".join(lines) + "\n"


def module_file(target: Target) -> Path | None:
    """The source file of ``target``: its ``file``, else the ``.py`` file (or package ``__init__.py``) that its
    dotted module name names on its paths or ``sys.path``, found without importing anything (the code under
    check runs only in sandboxed workers); None when there is none (a C extension, a namespace package)."""
    import sys

    if target.file is not None:
        return Path(target.file) if Path(target.file).is_file() else None
    parts = target.module.split(".")
    for root in (*target.paths, *sys.path):
        base = Path(root or ".").joinpath(*parts)
        for cand in (base.with_suffix(".py"), base / "__init__.py"):
            if cand.is_file():
                return cand
    return None


def _mutant_target(target: Target, folder: Path, text: str) -> Target:
    """A target whose module is ``text``, written under ``folder`` (put first on the workers' path). A module of
    an installed package (``pydash.arrays``) gets a copy of its top-level package with the one file replaced,
    so that its relative imports still resolve; the installed package is never changed."""
    import shutil

    parts = target.module.split(".")
    src = module_file(target)
    if len(parts) > 1 and src is not None:
        top = src.parents[len(parts) - 2] if src.name != "__init__.py" else src.parents[len(parts) - 1]
        shutil.copytree(top, folder / parts[0], ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                        dirs_exist_ok=True)
        dest = folder.joinpath(*parts[:-1], parts[-1] + ".py") if src.name != "__init__.py" \
            else folder.joinpath(*parts, "__init__.py")
    else:
        dest = folder / (f"{parts[-1]}.py" if src is None or src.name != "__init__.py" else f"{parts[-1]}/__init__.py")
        dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    return Target(target.module, (str(folder), *target.paths), f"mutant of {target.display}", str(dest))


def _sub_settings(settings: Settings) -> Settings:
    return replace(settings, strength=False, analysis=False, cache=False,
                   budget_s=min(settings.budget_s, MUTANT_BUDGET_S),
                   hypothesis_examples=min(settings.hypothesis_examples, 100))


def measure_strength(report: Any, loaded: LoadedSpec, target: Target, settings: Settings) -> dict[str, Strength]:
    """The :class:`~evalgap.verifier.findings.Strength` of each passing requirement of ``report``.

    Args:
        report: the :class:`~evalgap.verifier.report.gap.GapReport` of ``loaded`` checked against ``target``.
        loaded: the spec that was checked.
        target: the code it was checked against (its ``file`` is mutated; the mutants are written to a
            temporary folder put first on the workers' ``sys.path``; the original is never changed).
        settings: the run's settings (engines, jobs; the budget is capped at :data:`MUTANT_BUDGET_S`).

    Returns:
        Requirement ID -> strength, for the requirements that passed and whose functions could be mutated.
    """
    import evalgap

    src = module_file(target)
    if src is None:
        return {}
    original = src.read_text(encoding="utf-8")
    passing = [r for r in report.requirements if r.role != "precondition" and r.verdict in _PASSING]
    pre_ids = {r.id for r in report.requirements if r.role == "precondition"}
    decls = {f.name: f for f in loaded.spec.functions}
    sub = _sub_settings(settings)
    rows: dict[str, list[tuple[Mutant, str]]] = {r.id: [] for r in passing}
    for fn in sorted({f for r in passing for f in _functions(r)}):
        try:
            mutants = mutants_of(original, fn, settings.strength_mutants)
        except MutationError:
            continue
        about = {r.id for r in passing if fn in _functions(r)}
        spec = _subset(loaded, about, pre_ids)
        agree = _agree_source(original, fn) if fn in decls else None
        for m in mutants:
            with scratch_dir("evalgap-mutant-") as tmp:
                rep = evalgap.check(spec, _mutant_target(target, Path(tmp), m.source), settings=sub)
                verdicts = {r.id: r.verdict for r in rep.requirements}
                survived = any(verdicts.get(rid) in _PASSING for rid in about)
                equivalent = survived and agree is not None and _likely_equivalent(
                    decls[fn], pre_ids, target, Path(tmp), m.source + agree, sub)
            for rid in about:
                rows[rid].append((m, _outcome(verdicts.get(rid), equivalent)))
    out: dict[str, Strength] = {}
    for rid, got in rows.items():
        if got:
            words = [w for _, w in got]
            survivors = tuple(m.description for m, w in got if w == "survived")
            out[rid] = Strength(len(got), words.count("killed"), words.count("equivalent"),
                                words.count("inconclusive"), survivors[:5], WEAK_BELOW)
    return out


def _outcome(v: Verdict | None, equivalent: bool) -> str:
    """``killed`` (refuted), ``equivalent`` (passed, and no input tells the mutant from the original),
    ``survived`` (passed) or ``inconclusive`` (unknown)."""
    if v is Verdict.REFUTED:
        return "killed"
    if v in _PASSING:
        return "equivalent" if equivalent else "survived"
    return "inconclusive"


def _likely_equivalent(decl: A.FunctionDecl, pre_ids: set[str], target: Target, folder: Path, text: str,
                       sub: Settings) -> bool:
    """True when differential testing (the run's engines, on the spec's parameter types and the function's
    preconditions) finds no input on which the mutant and the original differ; False when it finds one or
    cannot tell."""
    import evalgap
    from evalgap.specs_lang.errors import SpecError
    from evalgap.verifier.errors import VerifierError

    pres = [c.expr for r in decl.requirements if r.id in pre_ids for c in r.clauses if isinstance(c, A.Requires)]
    spec_file = folder / "eg_equivalence.req"
    spec_file.write_text(_agree_spec(decl, pres), encoding="utf-8")
    try:
        rep = evalgap.check(spec_file, _mutant_target(target, folder, text),
                            settings=replace(sub, hypothesis_examples=max(sub.hypothesis_examples, 200)))
    except (SpecError, VerifierError):
        return False
    return bool(rep.requirements) and rep.requirements[0].verdict in _PASSING
