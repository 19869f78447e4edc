"""Options of a check run, layered: defaults <- ``[tool.evalgap]`` in pyproject.toml <- a profile <- the
command line (each later layer overrides the earlier ones, key by key).

The profile is the one named by ``--profile``, else ``EVALGAP_PROFILE``, else ``profile = "..."`` in
``[tool.evalgap]``; with none named, no profile layer applies (so pyproject values stand). The
pyproject.toml read is the first one found in the spec's folder or its parents.

| profile    | CrossHair CPU s per requirement | Hypothesis examples per requirement |
|------------|---------------------------------|-------------------------------------|
| default    | 10                              | 200                                 |
| quick      | 3                               | 50                                  |
| ci         | 5                               | 100                                 |
| thorough   | 60                              | 1000                                |

Keys of ``[tool.evalgap]``: ``budget`` (CPU seconds), ``jobs``, ``engines`` (list or comma-separated string of
``crosshair``, ``hypothesis``), ``hypothesis_examples``, ``seed`` (Hypothesis seed for research runs;
absent: derandomized), ``cache`` (bool), ``profile``, ``fail_on`` (``check``'s ``--fail-on``: list or
comma-separated string of ``refuted``, ``unknown``, ``bounded``, ``not-formalized``, ``smell``, ``weak``),
``strength`` (bool: ``check --strength``),
``gate_fail_on`` (``gate``'s ``--fail-on``: ``still-refuted``, ``unexplained``), ``analysis_timeout`` (Z3 seconds
per query of ``analyze``), ``database_url`` (a ``postgresql://`` URL: the ``database`` engine runs on that
PostgreSQL server instead of SQLite; ``EVALGAP_POSTGRES_URL`` overrides it and ``check --database-url`` both;
docs/database.md), ``specs`` (list of ``.req`` paths or globs, relative to the pyproject.toml: what the
pytest plugin collects and ``evalgap lint`` with no arguments checks; see docs/pytest.md). An unknown key or a
value of the wrong type is a usage error (exit 2).

This module is the one reader of ``[tool.evalgap]``: every command (``check`` of one case or a folder of
cases, ``gate``, ``analyze``, ``lint``, the research ``compare``) and the pytest plugin take their values from
the :class:`Settings` that :func:`resolve_settings` builds (or :func:`project_table` for the raw table).
"""

from __future__ import annotations

import glob
import math
import os
import tomllib

from evalgap.specs_lang.textfile import MAX_SPEC_BYTES, read_text
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from evalgap.verifier.errors import UsageError

__all__ = ["PROFILES", "DEFAULT_BUDGET_S", "ENGINES", "Settings", "resolve_settings", "resolve_budget",
           "check_budget", "MAX_BUDGET_S", "default_jobs", "find_pyproject", "parse_engines", "project_table",
           "GATE_FAIL_ON_CHOICES", "parse_gate_fail_on", "project_specs"]

DEFAULT_BUDGET_S = 10.0
#: The engines run by default (``--engines`` accepts every selectable engine of
#: :mod:`evalgap.verifier.engines.registry`).
ENGINES = ("crosshair", "hypothesis")
#: Budgets of each profile (the keys are those of ``[tool.evalgap]``).
PROFILES: dict[str, dict[str, Any]] = {
    "default": {"budget": DEFAULT_BUDGET_S, "hypothesis_examples": 200},
    "quick": {"budget": 3.0, "hypothesis_examples": 50},
    "ci": {"budget": 5.0, "hypothesis_examples": 100},
    "thorough": {"budget": 60.0, "hypothesis_examples": 1000},
}
#: What ``gate --fail-on`` (and ``gate_fail_on``) may add to the gate's blocking policy.
GATE_FAIL_ON_CHOICES = ("still-refuted", "unexplained")
_DEFAULTS: dict[str, Any] = {"budget": DEFAULT_BUDGET_S, "jobs": None, "engines": ENGINES,
                             "hypothesis_examples": 200, "seed": None, "cache": True, "strength": False,
                             "fail_on": ("refuted", "unknown"), "gate_fail_on": (), "analysis_timeout": 5.0,
                             "database_url": None}
_TYPES: dict[str, tuple[type, ...]] = {"budget": (int, float), "jobs": (int,), "engines": (str, list),
                                       "hypothesis_examples": (int,), "seed": (int,), "cache": (bool,),
                                       "profile": (str,), "specs": (list,), "strength": (bool,),
                                       "fail_on": (str, list), "gate_fail_on": (str, list),
                                       "analysis_timeout": (int, float), "database_url": (str,)}


def default_jobs() -> int:
    """Parallel workers by default: the number of CPU cores available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Settings:
    """The one options record of a check run (library, CLI, suite, gate and research all use it).

    Built by :func:`resolve_settings` from the layers defaults <- ``[tool.evalgap]`` <- profile <- arguments
    (``sources`` says which layer each value came from), or directly (``Settings(budget_s=3)``): the field
    defaults are the product's defaults, the same as the ``default`` column of the layers.

    Attributes:
        budget_s: CrossHair CPU seconds per requirement (split across its postconditions).
        jobs: requirements checked in parallel (worker processes); default: the number of cores.
        engines: engines per formal requirement, in order (``crosshair``, ``hypothesis``).
        hypothesis_examples: Hypothesis ``max_examples`` per requirement.
        seed: Hypothesis seed for research runs; None means ``derandomize=True``.
        cache: answer unchanged requirements from the on-disk result cache (:mod:`evalgap.verifier.cache`).
        cache_dir: the cache folder (None: :func:`evalgap.verifier.cache.default_cache_dir`).
        memory_bytes: address-space limit of each worker process, bytes.
        analysis: also run the Z3 analysis of the spec (``check``; findings land in ``spec_findings``).
        profile: the profile applied, or None.
        strength: also measure each passing requirement's spec strength by mutation analysis
            (:mod:`evalgap.verifier.strength`; costs one check of the spec per mutant).
        strength_mutants: at most this many mutants per target function.
        fail_on: what makes ``check`` exit non-zero (``--fail-on``; words of
            :data:`evalgap.verifier.report.gap.FAIL_ON_CHOICES`).
        gate_fail_on: what the gate blocks on besides newly broken requirements and gaming
            (:data:`GATE_FAIL_ON_CHOICES`).
        analysis_timeout_s: Z3 seconds per query of ``analyze``.
        database_url: the PostgreSQL server the ``database`` engine runs on (``postgresql://...``), or None for
            SQLite in memory.
        specs: the spec files ``[tool.evalgap] specs`` names (globs expanded, relative to its pyproject.toml).
        pyproject: the pyproject.toml read, or None.
        sources: option -> the layer it came from (``default``, ``pyproject.toml``, ``profile X``, ``command
            line``), for reports and debugging; empty when built directly.
    """

    budget_s: float = DEFAULT_BUDGET_S
    jobs: int = field(default_factory=default_jobs)
    engines: tuple[str, ...] = ENGINES
    hypothesis_examples: int = 200
    seed: int | None = None
    cache: bool = True
    cache_dir: Path | None = None
    memory_bytes: int = 4 * 1024**3
    analysis: bool = True
    profile: str | None = None
    strength: bool = False
    strength_mutants: int = 12
    fail_on: tuple[str, ...] = ("refuted", "unknown")
    gate_fail_on: tuple[str, ...] = ()
    analysis_timeout_s: float = 5.0
    database_url: str | None = None
    specs: tuple[Path, ...] = ()
    pyproject: Path | None = None
    sources: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        """Refuse a budget no engine can honour (``nan``, ``inf``, not positive) with a UsageError."""
        check_budget(self.budget_s, "budget_s")


def parse_engines(value: str | list[str] | tuple[str, ...], origin: str = "--engines") -> tuple[str, ...]:
    """``"crosshair,hypothesis"`` (or a list) to a tuple of engine names.

    Raises:
        UsageError: an empty list or an unknown engine.
    """
    from evalgap.verifier.engines.registry import selectable_names

    known = selectable_names()
    items = value.split(",") if isinstance(value, str) else list(value)
    names = tuple(dict.fromkeys(str(i).strip() for i in items if str(i).strip()))
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise UsageError((f"{origin}: unknown engine {bad[0]!r}" if bad else f"{origin}: no engine given")
                         + f"; choose from {', '.join(known)}")
    return names


def find_pyproject(start: Path) -> Path | None:
    """The first ``pyproject.toml`` in ``start`` or its parents, or None."""
    here = start.resolve()
    for folder in (here, *here.parents):
        cand = folder / "pyproject.toml"
        if cand.is_file():
            return cand
    return None


def project_table(start: Path) -> tuple[Path | None, dict[str, Any]]:
    """The first pyproject.toml in ``start`` or its parents and its checked ``[tool.evalgap]`` table
    (``(None, {})`` when there is none).

    Raises:
        UsageError: the file does not parse, or the table has an unknown key or a value of the wrong type.
    """
    path = find_pyproject(start)
    return path, _pyproject_layer(path)


def project_specs(pyproject: Path) -> tuple[Path, ...]:
    """The spec files ``[tool.evalgap] specs`` of ``pyproject`` names (globs expanded relative to its folder; a
    pattern matching nothing stays as the path it names, so its absence is reported), in order, once each.

    Raises:
        UsageError: the file does not parse, the table is bad, or ``specs`` is not a list of strings.
    """
    return _specs(pyproject, _pyproject_layer(pyproject).get("specs", []))


def parse_gate_fail_on(value: str | list[str] | tuple[str, ...], origin: str = "--fail-on") -> tuple[str, ...]:
    """``"still-refuted,unexplained"`` (or a list) to a tuple of words of :data:`GATE_FAIL_ON_CHOICES`.

    Raises:
        UsageError: a word that is not one of them.
    """
    items = value.split(",") if isinstance(value, str) else list(value)
    words = tuple(dict.fromkeys(str(w).strip() for w in items if str(w).strip()))
    bad = [w for w in words if w not in GATE_FAIL_ON_CHOICES]
    if bad:
        raise UsageError(f"{origin} {value!r}: unknown word {bad[0]!r}; use a comma-separated list of "
                         f"{', '.join(GATE_FAIL_ON_CHOICES)}")
    return words


def _fail_on(value: str | list[str] | tuple[str, ...], origin: str) -> tuple[str, ...]:
    from evalgap.verifier.report.gap import parse_fail_on

    return parse_fail_on(value if isinstance(value, str) else ",".join(str(v) for v in value), origin)


def _specs(pyproject: Path | None, patterns: list[Any]) -> tuple[Path, ...]:
    if pyproject is None:
        return ()
    if not all(isinstance(p, str) for p in patterns):
        raise UsageError(f"{pyproject}: [tool.evalgap] specs must be a list of paths or globs")
    out: list[Path] = []
    for pattern in patterns:
        matches = sorted(glob.glob(str(pyproject.parent / pattern), recursive=True))
        out += [Path(m).resolve() for m in matches] or [(pyproject.parent / pattern).resolve()]
    return tuple(dict.fromkeys(out))


def _pyproject_layer(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = tomllib.loads(read_text(path, "pyproject.toml", MAX_SPEC_BYTES))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: cannot read [tool.evalgap] ({exc})") from None
    except RecursionError:
        raise UsageError(f"{path}: cannot read [tool.evalgap] (arrays or tables nested too deeply)") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise UsageError(f"{path}: [tool] must be a table")
    table = tool.get("evalgap", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [tool.evalgap] must be a table")
    for key, value in table.items():
        if key not in _TYPES:
            raise UsageError(f"{path}: [tool.evalgap] has unknown key {key!r}; known: {', '.join(sorted(_TYPES))}")
        if not isinstance(value, _TYPES[key]) or (isinstance(value, bool) and bool not in _TYPES[key]):
            raise UsageError(f"{path}: [tool.evalgap] {key} = {value!r} has the wrong type")
    if "jobs" in table and table["jobs"] < 1:
        raise UsageError(f"{path}: [tool.evalgap] jobs = {table['jobs']!r}: must be at least 1")
    return dict(table)


def resolve_settings(cli: Mapping[str, Any], start: Path, env: Mapping[str, str] | None = None) -> Settings:
    """Layer defaults, ``[tool.evalgap]``, the profile and the command line.

    Args:
        cli: command-line values (keys as in ``[tool.evalgap]`` plus ``profile``); None means not given.
        start: folder where the search for pyproject.toml starts (the spec's folder).
        env: the environment (default ``os.environ``), for ``EVALGAP_PROFILE`` and ``EVALGAP_POSTGRES_URL`` (a
            layer between the profile and the command line).

    Returns:
        The :class:`Settings`.

    Raises:
        UsageError: an unknown profile or engine, a bad ``[tool.evalgap]`` entry, a non-positive budget.
    """
    env = os.environ if env is None else env
    pyproject, pp = project_table(start)
    layers: list[tuple[str, dict[str, Any]]] = [("default", dict(_DEFAULTS))]
    layers.append(("pyproject.toml", {k: v for k, v in pp.items() if k not in ("profile", "specs")}))
    given = [(cli.get("profile"), "--profile"), (env.get("EVALGAP_PROFILE"), "EVALGAP_PROFILE"),
             (pp.get("profile"), f"{pyproject}: [tool.evalgap] profile")]
    profile, origin = next(((p, o) for p, o in given if p), (None, ""))
    if profile is not None:
        if profile not in PROFILES:
            raise UsageError(f"unknown profile {profile!r} (from {origin}); choose one of {', '.join(PROFILES)}")
        layers.append((f"profile {profile}", dict(PROFILES[profile])))
    if env.get("EVALGAP_POSTGRES_URL"):
        layers.append(("EVALGAP_POSTGRES_URL", {"database_url": env["EVALGAP_POSTGRES_URL"]}))
    layers.append(("command line", {k: v for k, v in cli.items() if v is not None and k != "profile"}))
    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, layer in layers:
        for k, v in layer.items():
            merged[k], sources[k] = v, name
    budget = check_budget(float(merged["budget"]), f"the budget (from {sources['budget']})")
    examples = int(merged["hypothesis_examples"])
    if examples < 1:
        raise UsageError(f"hypothesis_examples must be at least 1, got {examples} (from "
                         f"{sources['hypothesis_examples']})")
    jobs = merged["jobs"]
    timeout = check_budget(float(merged["analysis_timeout"]), f"analysis_timeout (from {sources['analysis_timeout']})")
    return Settings(budget_s=budget, jobs=int(jobs) if jobs else default_jobs(),
                    engines=parse_engines(merged["engines"], f"engines (from {sources['engines']})"),
                    hypothesis_examples=examples, seed=merged["seed"], cache=bool(merged["cache"]),
                    profile=profile, strength=bool(merged["strength"]),
                    fail_on=_fail_on(merged["fail_on"], f"fail_on (from {sources['fail_on']})"),
                    gate_fail_on=parse_gate_fail_on(merged["gate_fail_on"],
                                                    f"gate_fail_on (from {sources['gate_fail_on']})"),
                    analysis_timeout_s=timeout, database_url=_database_url(merged["database_url"], sources),
                    specs=_specs(pyproject, pp.get("specs", [])),
                    pyproject=pyproject, sources=sources)


def _database_url(value: str | None, sources: dict[str, str]) -> str | None:
    """``value`` when it is a ``postgresql://`` URL (None or empty: SQLite); a UsageError naming its layer
    otherwise."""
    if not value:
        return None
    from evalgap.verifier.engines.dbserver import parse_url

    try:
        parse_url(value)
    except ValueError as exc:
        raise UsageError(f"database_url (from {sources.get('database_url', 'default')}): {exc}") from None
    return value


#: The largest budget accepted, CPU seconds (one day): a larger one is a typo, and the worker's wall limits
#: are derived from it.
MAX_BUDGET_S = 86400.0


def check_budget(value: float, origin: str = "--budget") -> float:
    """``value`` if it is a usable budget: finite, positive and at most :data:`MAX_BUDGET_S` CPU seconds.

    Args:
        value: the budget, CPU seconds.
        origin: where it came from, for the message (``--budget``, ``--diff-budget``, ...).

    Returns:
        ``value``.

    Raises:
        UsageError: ``nan``, ``inf``, zero, negative or above the maximum.
    """
    if not math.isfinite(value) or value <= 0 or value > MAX_BUDGET_S:
        raise UsageError(f"{origin} must be a finite, positive number of CPU seconds (at most {MAX_BUDGET_S:g}), "
                         f"got {value:g}")
    return value


def resolve_budget(budget: float | None, profile: str | None) -> float:
    """The CrossHair budget in CPU seconds: ``budget`` if given, else the profile's (``--profile`` or
    ``EVALGAP_PROFILE``), else the default (no pyproject layer; see :func:`resolve_settings` for that).

    Raises:
        UsageError: an unknown profile, or a budget that is not positive.
    """
    name = profile or os.environ.get("EVALGAP_PROFILE") or "default"
    if name not in PROFILES:
        raise UsageError(f"unknown profile {name!r} (from {'--profile' if profile else 'EVALGAP_PROFILE'}); "
                         f"choose one of {', '.join(PROFILES)}")
    if budget is not None:
        return check_budget(budget, "--budget")
    return float(PROFILES[name]["budget"])
