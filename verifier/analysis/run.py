"""Z3 analysis of the requirements themselves (``evalgap analyze``, ``evalgap check-config`` and the
``analysis`` part of ``evalgap check``): builds the Z3 models (translators.to_z3), runs the queries
(verifier.z3_backend) and returns an :class:`~evalgap.verifier.analysis.spec_findings.AnalysisReport`.

Class specs are analysed over the object's state (invariants; method requirements before/after the call,
verifier.analysis.z3_backend.classes). Requirements outside the Z3 fragment (scenarios calling the target,
``model`` clauses, ``old()`` in a function, ``sorted()`` ...) are reported one by one as ``unknown (not in the Z3 fragment: <construct>)``.
"""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from evalgap.specs_lang import ast as A
from evalgap.translators.errors import TranslationError, UnsupportedConstruct
from evalgap.verifier.errors import UsageError
from evalgap.verifier.analysis.spec_findings import AnalysisReport, SpecFinding, report_from_dict, report_to_dict
from evalgap.specs_lang.diagnostics import NOT_IN_FRAGMENT, SOLVER_UNKNOWN
from evalgap.specs_lang.errors import SpecError
from evalgap.specs_lang.textfile import MAX_SPEC_BYTES, read_text

if TYPE_CHECKING:
    from evalgap.verifier.cache import ResultCache

__all__ = ["analyze_spec", "analyze_spec_cached", "check_config_file", "load_config_document", "DEFAULT_TIMEOUT_S"]

#: Solver timeout per query, seconds.
DEFAULT_TIMEOUT_S = 5.0


def _outside(spec: A.Spec) -> list[SpecFinding]:
    out = []
    for req, owner in spec.all_requirements():
        if req.informal is not None or isinstance(owner, (A.FunctionDecl, A.ConfigDecl, A.ClassDecl, A.MethodDecl)):
            continue
        kinds = sorted({type(c).__name__.lower() for c in req.clauses})
        out.append(SpecFinding(NOT_IN_FRAGMENT, "unknown", "unknown", "top level", (req.id,),
                               f"{req.id}: unknown (not in the Z3 fragment: {', '.join(kinds)} clause)"))
    return out


def analyze_spec(spec: A.Spec, timeout_s: float = DEFAULT_TIMEOUT_S) -> AnalysisReport:
    """Run every analysis query on ``spec``.

    Args:
        spec: a parsed, structurally checked spec.
        timeout_s: solver timeout per query, seconds.

    Returns:
        The report: per function (consistency, vacuity, redundancy, realizability, weak-spec witnesses),
        per class (invariants; each method with the invariants before and after the call), per config (consistency, redundancy), and an ``unknown`` per requirement not in the fragment.
    """
    from evalgap.translators.to_z3 import build_function_models, spec_context
    from evalgap.translators.to_z3.classes import build_class_models
    from evalgap.translators.to_z3.config import build_config_model
    from evalgap.verifier.analysis.z3_backend import analyze_function
    from evalgap.verifier.analysis.z3_backend.classes import analyze_class
    from evalgap.verifier.analysis.z3_backend.configs import analyze_config

    t0 = time.monotonic()
    ctx = spec_context(spec)
    findings: list[SpecFinding] = []
    for m in build_function_models(spec, ctx):
        findings += analyze_function(m, timeout_s)
    for cm in build_class_models(spec, ctx):
        findings += analyze_class(cm, timeout_s)
    for cfg in spec.configs:
        try:
            findings += analyze_config(build_config_model(spec, cfg, None, ctx), timeout_s)
        except UnsupportedConstruct as exc:
            findings += [SpecFinding(NOT_IN_FRAGMENT, "unknown", "unknown", f"config {cfg.name}", (r.id,),
                                     f"{r.id}: unknown (not in the Z3 fragment: {exc.construct})")
                         for r in cfg.requirements if r.informal is None]
    findings += _outside(spec)
    return AnalysisReport(spec.name, spec.file, tuple(findings), timeout_s, time.monotonic() - t0)


def analyze_spec_cached(spec: A.Spec, sources: Mapping[str, str], cache: ResultCache | None,
                        timeout_s: float = DEFAULT_TIMEOUT_S) -> AnalysisReport:
    """:func:`analyze_spec`, answered from ``cache`` when an unchanged spec was analysed before.

    The key (:func:`evalgap.verifier.cache.aux_key`) covers evalgap's own source and version, the versions
    of Python and z3-solver (and the other tools), the text of every file of the spec, its name and path,
    and the solver timeout. A report where the solver gave up for lack of time or memory (an EG309
    ``unknown`` whose reason says timeout, canceled, resource or memory limits: it may depend on the
    machine's load) is not stored. A corrupt entry is ignored, deleted and rebuilt. On a
    hit, neither Z3 nor the translators to Z3 are imported.

    Args:
        spec: a parsed, structurally checked spec.
        sources: file name -> text of every file of the spec (the loader's ``sources``).
        cache: the result cache, or None to always analyse.
        timeout_s: solver timeout per query, seconds.

    Returns:
        The report (a cached one carries the elapsed time of the run that computed it).
    """
    key = None
    if cache is not None:
        from evalgap.verifier.cache import aux_key

        key = aux_key("analysis", {"sources": sorted(sources.items()), "name": spec.name, "file": spec.file,
                                   "timeout_s": timeout_s})
        hit = cache.get_payload(key)
        if isinstance(hit, dict):
            try:
                return report_from_dict(hit)
            except (KeyError, TypeError, ValueError, AttributeError):
                pass  # malformed: recomputed and overwritten below
    report = analyze_spec(spec, timeout_s)
    if cache is not None and key is not None and not _load_dependent(report):
        cache.put_payload(key, report_to_dict(report))
    return report


#: Words of Z3's ``reason_unknown`` when it gave up for lack of time or memory (may differ on a quieter
#: machine, so such a report is not cached); structural unknowns (outside the fragment) are stable.
_GAVE_UP = ("timeout", "canceled", "cancelled", "resource", "memout", "memory", "interrupted")


def _load_dependent(report: AnalysisReport) -> bool:
    return any(f.code == SOLVER_UNKNOWN and any(w in f.message.lower() for w in _GAVE_UP) for f in report.findings)


def load_config_document(path: Path) -> dict[str, Any]:
    """Read a configuration file: ``.json``, ``.yaml``/``.yml`` or ``.toml``.

    Raises:
        UsageError: unreadable file, unknown extension, bad syntax, or a top level that is not a mapping.
    """
    try:
        text = read_text(path, "configuration", MAX_SPEC_BYTES)
    except SpecError as exc:
        raise UsageError(f"{exc.span}: {exc.diagnostics[0].message}") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(text)
        elif suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        elif suffix == ".toml":
            data = tomllib.loads(text)
        else:
            raise UsageError(f"{path}: unknown configuration format {suffix!r}; use .json, .yaml, .yml or .toml")
    except UsageError:
        raise
    except Exception as exc:  # json/yaml/toml each have their own error class
        raise UsageError(f"{path}: not valid {suffix[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: the top level must be a mapping of the config's fields")
    return data


def check_config_file(spec: A.Spec, config_path: Path, config_name: str | None = None,
                      timeout_s: float = DEFAULT_TIMEOUT_S, freeze: Sequence[str] = ()) -> AnalysisReport:
    """Check one configuration file against a ``config`` block of ``spec``.

    Args:
        spec: the parsed spec.
        config_path: the JSON/YAML/TOML file.
        config_name: which ``config`` block (needed when the spec has several).
        timeout_s: solver timeout per query, seconds.
        freeze: glob patterns of fields the repair must keep (facts, not settings).

    Returns:
        A report with one ``violation`` per violated rule and a ``repair`` when something is violated.

    Raises:
        UsageError: no or ambiguous config block, unreadable file, or a file not matching the schema.
    """
    from evalgap.translators.to_z3.config import build_config_model
    from evalgap.verifier.analysis.z3_backend.configs import check_configuration

    if not spec.configs:
        raise UsageError(f"{spec.file} has no `config` block")
    if config_name is None and len(spec.configs) > 1:
        raise UsageError(f"{spec.file} has several configs ({', '.join(c.name for c in spec.configs)}); "
                         "choose one with --config NAME")
    matches = [c for c in spec.configs if config_name in (None, c.name)]
    if not matches:
        raise UsageError(f"no config named {config_name!r} in {spec.file}")
    data = load_config_document(config_path)
    t0 = time.monotonic()
    try:
        model = build_config_model(spec, matches[0], data)
    except TranslationError as exc:
        raise UsageError(f"{config_path}: {exc}") from None
    findings = check_configuration(model, timeout_s, freeze)
    return AnalysisReport(spec.name, spec.file, tuple(findings), timeout_s, time.monotonic() - t0,
                          config_file=str(config_path))
