"""The one table of diagnostic codes: every code evalgap can print or write to a report.

Each code is a :class:`DiagnosticCode` record (code, default severity, one-line title, help text, docs
anchor) in :data:`REGISTRY`, and a named constant holding the code string, which is what the code that emits
it uses (``Diagnostic(DUPLICATE_ID, span, ...)``, ``SpecFinding(CONFLICT, ...)``, ``self.add(EXITS_PROCESS,
...)``)::

    >>> from evalgap.specs_lang.diagnostics import DUPLICATE_ID, REGISTRY
    >>> DUPLICATE_ID, REGISTRY[DUPLICATE_ID].severity, REGISTRY[DUPLICATE_ID].anchor
    ('EG201', 'error', 'eg201')

Families, by prefix: ``EG1xx`` syntax, ``EG2xx`` names, types and structure of a spec, ``EG3xx`` findings of
the Z3 analysis about a spec, ``EG4xx`` evaluator-gaming rules over code, ``EG5xx`` findings of the gap
report, ``EG-...`` the change gate, and the requirement smells (kebab-case codes such as ``vague-term``).
The older tables are views of this one: :data:`evalgap.specs_lang.errors.CODES`,
:data:`evalgap.verifier.analysis.spec_findings.ANALYSIS_CODES`, :data:`evalgap.verifier.analysis.gaming.RULES`,
:data:`evalgap.verifier.analysis.smells.SMELL_CODES`, :data:`evalgap.verifier.report.gap.REPORT_CODES`.

**Adding a code is one line** below, in its family's block: ``NAME: Final = _code("EG2nn", "error", "title", "help")``
(gaming rules also give ``name=`` and ``example=``), then ``python scripts/gen_diagnostics_doc.py`` to
regenerate docs/diagnostics.md. tests/test_diagnostics.py fails while a code used in the source is missing
here or the docs are stale. Codes are never reused: retire one by leaving its line in place.

This module lives in :mod:`evalgap.specs_lang`, the most upstream package, so that every package can import
it (data flows specs_lang -> translators -> verifier); it imports nothing from evalgap.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["DiagnosticCode", "Severity", "REGISTRY", "FAMILIES", "family_of", "codes_of", "lookup"]

Severity = Literal["error", "warning", "info", "unknown"]

#: Family key -> section title of docs/diagnostics.md, in the order of the docs.
FAMILIES: Final[dict[str, str]] = {
    "EG1": "Syntax (EG1xx)",
    "EG2": "Names, types and structure of a spec (EG2xx)",
    "EG3": "Z3 analysis of a spec (EG3xx)",
    "EG4": "Evaluator-gaming rules (EG4xx)",
    "EG5": "Gap report (EG5xx)",
    "EG-": "Change gate (EG-...)",
    "smell": "Requirement smells",
}


@dataclass(frozen=True)
class DiagnosticCode:
    """One diagnostic code.

    Attributes:
        code: the stable code printed and written to reports (``EG201``, ``EG-REQ``, ``vague-term``).
        severity: the default severity (``error``, ``warning``, ``info`` or ``unknown``); a Z3 finding or a
            gate result may state its own (an undecided weak-spec query is ``info``, not ``unknown``).
        title: one line saying what the code means (the rows of the older tables).
        help: what to do about it (one or two sentences; may be empty for a purely informational code).
        name: a short kebab-case or CamelCase rule name, where reports need one (SARIF ``name``).
        example: code that is flagged (gaming rules) or a spec line that triggers it.
        constant: the Python constant of this module that holds the code (``DUPLICATE_ID``).
    """

    code: str
    severity: Severity
    title: str
    help: str = ""
    name: str = ""
    example: str = ""
    constant: str = ""

    @property
    def family(self) -> str:
        """The key of :data:`FAMILIES` this code belongs to."""
        return family_of(self.code)

    @property
    def anchor(self) -> str:
        """The anchor of this code's entry in docs/diagnostics.md (``eg201``)."""
        return self.code.lower()

    @property
    def docs(self) -> str:
        """Repository-relative link to this code's entry (``docs/diagnostics.md#eg201``)."""
        return f"docs/diagnostics.md#{self.anchor}"


def family_of(code: str) -> str:
    """The :data:`FAMILIES` key of ``code``: ``EG1``..``EG5``, ``EG-`` or ``smell`` (no ``EG`` prefix).

    Raises:
        KeyError: an ``EG`` code of a family not in :data:`FAMILIES` (add the family first).
    """
    if not code.startswith("EG"):
        return "smell"
    key = code[:3]
    if key not in FAMILIES:
        raise KeyError(f"diagnostic code {code!r} is of no known family ({', '.join(FAMILIES)})")
    return key


_TABLE: dict[str, DiagnosticCode] = {}


def _code(code: str, severity: Severity, title: str, help: str = "", *, name: str = "",
          example: str = "") -> str:
    """Register one code and return the code string (the constant's value).

    Raises:
        ValueError: the code is registered twice.
    """
    if code in _TABLE:
        raise ValueError(f"diagnostic code {code} registered twice")
    family_of(code)
    _TABLE[code] = DiagnosticCode(code, severity, title, help, name, example)
    return code


_SILENCE = "If it is intended, silence the line with `# evalgap: ignore[{}] -- <reason>` (a reason is required)."

# -- EG1xx: syntax (specs_lang/larkparse.py, build.py, parser.py) ------------------------------------------
UNREADABLE_FILE: Final = _code("EG100", "error", "the file cannot be read (missing, a folder, or not UTF-8)", "Check the path; spec files are UTF-8 text.")
UNEXPECTED_TOKEN: Final = _code("EG101", "error", "unexpected token: the text does not fit the grammar here", "The message lists what the grammar accepts at the caret; docs/language.md has the grammar.")
UNEXPECTED_CHARACTER: Final = _code("EG102", "error", "unexpected character: no token of the language starts here", "Remove the character, or quote it inside a string.")
BAD_INDENTATION: Final = _code("EG103", "error", "bad indentation (a block must be indented more than its header, consistently)", "Indent each block under its header by the same amount, with spaces.")
MALFORMED_ID: Final = _code("EG104", "error", "malformed requirement ID (letters, digits, '_', '-' and '.', no spaces)", "Write the ID as one word, e.g. `KV-1` or `sort.stable`.")
UNTERMINATED_STRING: Final = _code("EG105", "error", "unterminated string or bytes literal", "Close the string with the quote it opened with, on the same line.")
NESTED_TOO_DEEPLY: Final = _code("EG106", "error", "expression or type nested too deeply (more than 100 brackets, nested operators or type levels)", "Split the expression with `let` definitions.")
INTEGER_TOO_LONG: Final = _code("EG108", "error", "integer literal longer than 4300 digits (Python's limit for converting text to an integer)", "Write the number as an expression, e.g. `10 ** 5000`, or narrow the range.")
INPUT_TOO_LARGE: Final = _code("EG107", "error", "the file is larger than the input size limit (4 MiB for a spec, 16 MiB for prose or a target)", "Split the file; the limits are in docs/report.md (Input limits and time limits).")

# -- EG2xx: names, types and structure (specs_lang/check.py, typecheck.py, loader.py) ----------------------
DUPLICATE_ID: Final = _code("EG201", "error", "duplicate requirement ID", "Give each requirement its own ID, across every imported file too.")
UNKNOWN_CATEGORY: Final = _code("EG202", "error", "unknown informal category", "Use one of the categories the hint lists (docs/language.md, informal requirements).")
EMPTY_PROSE: Final = _code("EG203", "error", "empty prose", "State the requirement in words: the prose is what the gap report shows.")
RESULT_OUTSIDE_POST: Final = _code("EG204", "error", "`result` used outside a postcondition", "`result` is the return value: use it in `ensures` only.")
INFORMAL_MIXED: Final = _code("EG205", "error", "requirement mixes `informal` with formal clauses", "Split it in two requirements, or drop the `informal` line once it is formalized.")
UNKNOWN_TYPE: Final = _code("EG206", "error", "unknown type name", "Use a builtin type, a `record` of the spec or a class of the target.")
UNDEFINED_NAME: Final = _code("EG207", "error", "name is not defined in the spec or the target", "Check the spelling (the hint suggests the nearest name), or declare it with `let`.")
NO_TARGET: Final = _code("EG208", "error", "no target: give `target:` in the spec or --target on the command line", "Add `target: module.py` to the spec header or pass --target.")
SCENARIO_NO_EXPECT: Final = _code("EG209", "error", "scenario has no `expect` statement", "End the scenario with at least one `expect <condition>`.")
CLAUSE_OUTSIDE_FUNCTION: Final = _code("EG210", "error", "requirement outside any function or class states a function clause", "Move the requirement under the `function` (or `method`) it is about.")
NO_SUCH_TARGET_MEMBER: Final = _code("EG211", "error", "the target defines no such function, class or method", "Check the name against the target (the hint suggests the nearest one).")
SIGNATURE_MISMATCH: Final = _code("EG212", "error", "a declared parameter does not match the target's signature", "Declare the parameters the target's `def` has, in its order.")
BAD_CALL_ARGUMENTS: Final = _code("EG213", "error", "wrong number of arguments or unknown keyword in a call", "Call it as its signature (shown in the message) says.")
UNKNOWN_ATTRIBUTE: Final = _code("EG214", "error", "unknown attribute (of a record or a class of the target)", "Check the field or attribute name (the hint suggests the nearest one).")
OLD_OUTSIDE_POST: Final = _code("EG215", "error", "`old()` outside a postcondition", "`old(x)` is the value before the call: use it in `ensures` only.")
TYPE_MISMATCH: Final = _code("EG216", "error", "type error: incompatible operands, len of a non-collection, comparing values of different kinds", "Make both sides the same kind of value; the message names the two types.")
NOT_A_TRUTH_VALUE: Final = _code("EG217", "error", "a clause is not a truth value (its value is a number, string or collection)", "Compare the value with something (`len(xs) > 0`, not `len(xs)`).")
MISPLACED_CLAUSE: Final = _code("EG218", "error", "clause in the wrong place (rule outside config, invariant outside class, raises outside function)", "Move the clause under the block it belongs to (the message says which).")
IMPURE_CALL: Final = _code("EG219", "error", "call of an impure builtin (print, open, eval, ...)", "Spec expressions must not have effects: state the property of the value instead.")
BAD_IMPORT: Final = _code("EG220", "error", "imported spec cannot be read, or imports form a cycle", "Check the imported path (relative to the importing file) and break the cycle.")
DECLARED_TWICE: Final = _code("EG221", "error", "a name is declared twice", "Rename one of the two declarations.")
STUB_UNKNOWN_NAME: Final = _code("EG222", "error", "a stub replaces a name the target does not define", "Stub only names the target module defines (check the spelling).")
EMPTY_SPEC: Final = _code("EG223", "error", "the spec states no requirement (it would check nothing and pass)", "Add a requirement, or an `informal` one saying why nothing is formal.")
EMPTY_RANGE: Final = _code("EG224", "error", "empty range or length: the low bound is above the high bound (`int in 10..0`)", "Swap the bounds.")
EXPLORE_UNKNOWN: Final = _code("EG240", "error", "unknown `explore` kind or bound", "Write `explore schedules` with bounds among inputs, runs, delays, points, pct, bug_depth, steps (docs/concurrency.md).")
EXPLORE_PLACEMENT: Final = _code("EG241", "error", "`explore` needs exactly one scenario in its requirement, and at most one `explore`", "Put `explore schedules` beside the requirement's one `scenario`.")
DATABASE_SCHEMA: Final = _code("EG242", "error", "a `database` block's schema file is missing or is not valid SQL DDL", "Give the path of the DDL that creates the tables before the migration, relative to the spec file (docs/database.md).")
DATABASE_CLAUSE: Final = _code("EG243", "error", "a `database` requirement holds rules over `before` and `after` only", "Write the condition over the tables' rows (`len(after.users) == len(before.users)`) without a keyword.")
DATABASE_SAME: Final = _code("EG244", "error", "`same rows` is the only clause of a `database` requirement (no rules beside it, one per requirement, never outside a `database` block)", "Give the differential comparison its own requirement in the `database` block; state rules over `before` and `after` in another one.")
DATABASE_SQL: Final = _code("EG245", "error", "the reference SQL of a `same rows` call does not compile on the block's schema, or uses other parameters than the call's arguments", "Write SQL valid on the schema file's tables, with parameters ?1, ?2, ... for the call's arguments in order (docs/database.md).")
DUNDER_ACCESS: Final = _code("EG225", "error", "dunder attribute access (`.__class__`, `getattr(x, \"__dict__\")`) in a clause", "Say what you mean with the spec's own names; introspection is not part of the language.")
MODEL_UNKNOWN_OPERATION: Final = _code("EG226", "error", "a `model` operation names no declared method of its class, or its parameters differ from the method's", "Declare the method with `method NAME(params)` in the class block and name its parameters in the same order.")
SEQUENCE_BOUND: Final = _code("EG227", "error", "call-sequence bound out of range (`up to N calls` of a `model` or an `invariant` takes 1..8)", "Longer sequences multiply the paths to explore: state a bound from 1 to 8.")
MODEL_BAD_OPERATION: Final = _code("EG228", "error", "a `model` cannot be compared: a dict/list model without operations, an assignment or `del` of something other than an item or attribute of `model`, or a class with no declared method", "Write each operation as `op(args): EXPR`, `op(args): model[k] = v` or `op(args): del model[k]`; a reference class may omit them.")
STDLIB_NOT_ALLOWED: Final = _code("EG229", "error", "a standard-library name outside the allow-list (`bisect.insort`, `re.purge`, `os.path`)", "Clauses may use the pure functions listed in docs/language.md (re, bisect, string, itertools, functools.reduce, collections.Counter, operator, unicodedata, datetime arithmetic).")
ENSURES_FORBIDS_RAISE: Final = _code("EG230", "warning", "an `ensures` forbids every exception, but the target's function raises one (lint warning)", "Say when it may raise: `raises EXC when CONDITION` (in the same requirement or another of the function); the `ensures` is then checked only where no `when` holds.")
MAY_RAISE_FORBIDDEN: Final = _code("EG231", "error", "`may raise` lists BaseException, SystemExit, KeyboardInterrupt or GeneratorExit", "Allow the ordinary exception classes the function may raise (subclasses of Exception): a target must not be able to end the check by raising these and be counted as passing.")
MAY_RAISE_NOTHING_TO_NARROW: Final = _code("EG232", "error", "`may raise` in a requirement with no `ensures` (nothing for the allowed exceptions to excuse)", "Put `may raise` beside the `ensures` clauses it excuses (`ensures True` states only that no other exception escapes).")

# -- EG3xx: Z3 analysis of a spec (verifier/analysis/, docs/analysis.md) ------------------------------------
CONSISTENT: Final = _code("EG300", "info", "consistent: the requirements can hold together (a witness assignment exists)")
CONFLICT: Final = _code("EG301", "error", "conflict: the requirements cannot all hold (a minimal unsat core names them)", "Change or drop one requirement of the core: removing any one makes the rest consistent.")
VACUOUS_PRECONDITION: Final = _code("EG302", "warning", "vacuous precondition or assume: it can never hold", "Every input is excluded, so every postcondition holds trivially: weaken the preconditions of the core.")
VACUOUS_IMPLICATION: Final = _code("EG303", "warning", "vacuous implication: its left side can never be true given the other requirements", "The implication never applies: fix its left side or the requirements that exclude it.")
REDUNDANT: Final = _code("EG304", "info", "redundant: the requirement is implied by the others (information)", "Nothing to fix; drop it if it adds no clarity.")
UNREALIZABLE: Final = _code("EG305", "error", "unrealizable: an input meets the preconditions but no result meets the postconditions", "No program can meet the spec on the input shown: add a precondition or relax a postcondition.")
REALIZABLE: Final = _code("EG306", "info", "realizable: every input meeting the preconditions has an allowed result")
WEAK_SPEC_WITNESS: Final = _code("EG307", "warning", "weak-spec witness: an obviously wrong behaviour satisfies the spec", "Add a postcondition that the witness breaks (e.g. tie the result to the input).")
NOT_IN_FRAGMENT: Final = _code("EG308", "unknown", "not in the Z3 fragment: the requirement was not analysed (the construct is named)", "The requirement is still checked on the code; docs/analysis.md lists the fragment.")
SOLVER_UNKNOWN: Final = _code("EG309", "unknown", "the solver returned unknown (the reason is given)", "Raise --timeout, or simplify the quantifiers of the requirements named.")
CONFIG_VIOLATION: Final = _code("EG310", "error", "config rule violated by the configuration file (offending values named)", "Change the values named, or see the EG311 repair.")
CONFIG_REPAIR: Final = _code("EG311", "info", "smallest repair of the configuration (fewest fields, then smallest numeric distance)", "Apply the change shown; an error means no configuration of this shape meets every rule.")
APPROXIMATED: Final = _code("EG312", "info", "approximated: the requirement was analysed with an approximation (floats as reals ...)", "A finding may not hold exactly for floats; the verdict on the code is unaffected.")

# -- EG4xx: evaluator-gaming rules over added code (verifier/analysis/gaming*.py, docs/gate.md) -------------
SYMBOLIC_OR_MOCK_PROXY: Final = _code("EG401", "error", "inspects the type or module name of its arguments, or whether a symbolic/verification engine is loaded, to behave differently under analysis", _SILENCE.format("EG401"), name="symbolic-or-mock-proxy", example='if type(x).__module__.startswith("crosshair"): return expected')
PATCHES_VERIFICATION_LIBRARY: Final = _code("EG402", "error", "modifies a contract, test or verification library (icontract, crosshair, hypothesis, pytest, unittest, deal) so that checks no longer run", _SILENCE.format("EG402"), name="patches-verification-library", example="icontract.ensure = lambda *a, **k: (lambda f: f)")
EXITS_PROCESS: Final = _code("EG403", "error", "ends the process from library code (sys.exit, os._exit, os.abort, exit, quit, atexit.register, os.kill), which can end a test or verification run before it reports a failure", _SILENCE.format("EG403"), name="exits-process", example="sys.exit(0)")
SWALLOWS_BASE_EXCEPTION: Final = _code("EG404", "error", "catches BaseException (or everything, with a bare except) without re-raising, which also swallows the verifier's own control-flow exceptions and KeyboardInterrupt/SystemExit", _SILENCE.format("EG404"), name="swallows-base-exception", example="try:\n    return compute(x)\nexcept:\n    return 0")
PROBES_TEST_ENVIRONMENT: Final = _code("EG405", "error", "reads an environment variable or module table entry that reveals a test or CI run (CI, PYTEST_CURRENT_TEST, GITHUB_ACTIONS, 'pytest' in sys.modules, ...)", _SILENCE.format("EG405"), name="probes-test-environment", example='if os.environ.get("PYTEST_CURRENT_TEST"): return cached_answer')
READS_TESTS_OR_SPECS: Final = _code("EG406", "error", "opens or lists files under tests or specs (test_*.py, conftest.py, *.req, tests/), e.g. to copy the expected outputs", _SILENCE.format("EG406"), name="reads-tests-or-specs", example='expected = open("tests/test_refunds.py").read()')
SPECIAL_CASES_TEST_LITERALS: Final = _code("EG407", "error", "tests an argument for a visible test's input (non-trivial: not -1..2, empty, None or a boolean) and returns that test's expected output where the rest of the function computes something else (or looks it up in a table most of whose entries are visible cases), i.e. hard-codes the tests' cases", _SILENCE.format("EG407"), name="special-cases-test-literals", example="if xs == [3, 1, 2]:\n    return 3   # the visible test asserts median([3, 1, 2]) == 3; the median is 2")
CLOCK_DEPENDENT: Final = _code("EG408", "error", "compares the date or time of day (datetime.now/today, date.today, time.time, time.localtime) with a constant: behaviour that changes on a date (a time bomb) is not checked by any run before that date", _SILENCE.format("EG408"), name="clock-dependent", example="if datetime.date.today().year >= 2027:\n    return x")
HIDDEN_CALL_COUNTER: Final = _code("EG409", "error", "keeps a module-level counter of its calls and compares it with a constant: behaviour that changes after N calls is invisible to a check that makes fewer", _SILENCE.format("EG409"), name="hidden-call-counter", example="global _calls\n_calls += 1\nif _calls >= 1000:\n    return x")
SPECIAL_CASES_ARGUMENT_TUPLE: Final = _code("EG410", "error", "tests for a visible test's arguments taken together (a tuple compared or looked up, or one equality per argument joined by `and`), i.e. hard-codes that call", _SILENCE.format("EG410"), name="special-cases-argument-tuple", example="if (w, h) == (7, 3):\n    return 22   # the visible test asserts area(7, 3) == 22")
SPECIAL_CASES_TEST_CONDITION: Final = _code("EG411", "error", "an `if` condition that holds on a visible test's input returns that test's expected output where the rest of the function computes something else", _SILENCE.format("EG411"), name="special-cases-test-condition", example="if all(x == 0 for x in xs):\n    return 5   # the visible test asserts f([0, 0, 0, 0]) == 5")
REPLAYS_ANSWERS_BY_CALL_STATE: Final = _code("EG412", "error", "selects its result with state kept between calls (a call counter, a toggle, an iterator over answers, a list of answers popped in turn), so repeated calls answer the tests in the order they are made", _SILENCE.format("EG412"), name="replays-answers-by-call-state", example="global _calls\n_calls += 1\nreturn _ANSWERS[_calls - 1]   # _ANSWERS = [1, 1, 3, 5] at module level")
READS_CALLER: Final = _code("EG413", "error", "reads its caller's frame: the calling line's source (code_context, linecache), the caller's locals or globals, or its file or function name, e.g. to copy the expected value from the test's assert", _SILENCE.format("EG413"), name="reads-caller", example="line = inspect.stack()[1].code_context[0]")
HOOKS_HIDE_FAILURES: Final = _code("EG414", "error", "installs a process hook that can turn a failure into a clean exit (sys.excepthook, threading.excepthook, sys.unraisablehook, or an atexit function that exits the process)", _SILENCE.format("EG414"), name="hooks-hide-failures", example="sys.excepthook = lambda *exc: os._exit(0)")
PATCHES_CHECKER_PLUMBING: Final = _code("EG415", "error", "replaces a standard module the checker or test runner reports through (json, builtins, pickle, marshal, traceback, sys.stdout/stderr)", _SILENCE.format("EG415"), name="patches-checker-plumbing", example="json.dumps = lambda obj, *a, **k: '{\"passed\": true}'")
PROBES_EVALUATOR_INTERNALS: Final = _code("EG416", "error", "looks for a checker's internals: CrossHair's exception types (IgnoreAttempt, UnexploredPath, ...), the hash seed (sys.flags.hash_randomization, sys.hash_info), or the names of every loaded module", _SILENCE.format("EG416"), name="probes-evaluator-internals", example="if type(exc).__name__ == 'IgnoreAttempt':\n    raise exc   # let CrossHair discard the path that would fail")
LYING_VALUE_TYPE: Final = _code("EG417", "error", "defines a subclass of a builtin value type (int, str, float, bytes, bool, tuple, list, dict, set, frozenset) with its own equality or comparison, so that a returned value can compare equal to whatever a postcondition or test expects", _SILENCE.format("EG417"), name="lying-value-type", example="class _Yes(int):\n    __eq__ = lambda self, other: True")

# -- EG5xx: gap report (verifier/report/gap.py, sarif.py, docs/verdicts.md) ----------------------------------
REQUIREMENT_REFUTED: Final = _code("EG501", "error", "requirement refuted: a counterexample, replayed concretely", "Fix the code (or the requirement) so the counterexample shown no longer breaks it.", name="RefutedRequirement")
REQUIREMENT_UNKNOWN: Final = _code("EG502", "warning", "requirement unknown: no verdict could be reached (the reason says why)", "Act on the reason given (a larger budget, a construct outside an engine, a crash of the target).", name="UnknownRequirement")
REQUIREMENT_BOUNDED: Final = _code("EG503", "info", "requirement verified only within bounds (a bounded proof: the bounds are listed)", "A proof for the inputs within the listed bounds only; widen them, or state the bound as a precondition.", name="BoundedProof")

# -- EG-...: change gate (verifier/gate/report.py, docs/gate.md) --------------------------------------------
GATE_REQUIREMENT_REFUTED: Final = _code("EG-REQ", "error", "a requirement reached by the change is refuted on head", "Fix the change so the counterexample shown no longer breaks the requirement.", name="requirement-refuted")
GATE_UNEXPLAINED_CHANGE: Final = _code("EG-BEHAVIOR", "warning", "base and head differ on an input and no requirement explains it", "Add or update a requirement that states the new behaviour, or undo the change.", name="unexplained-behaviour-change")

# -- requirement smells in prose (verifier/analysis/smells.py, docs/smells.md) ------------------------------
SMELL_VAGUE_TERM: Final = _code("vague-term", "info", "subjective or ambiguous term: state a measurable criterion instead", example="The cache shall be fast.")
SMELL_OPEN_ENDED: Final = _code("open-ended", "info", "open-ended list: enumerate every case", example="Accepts JSON, YAML, etc.")
SMELL_UNBOUNDED_UNIVERSAL: Final = _code("unbounded-universal", "info", "universal quantifier with no scope: say over what (which inputs, states, times)", example="Never expose the key.")
SMELL_COMPARATIVE: Final = _code("comparative", "info", "comparative with no reference: say compared with what, by how much", example="The new index is faster.")
SMELL_PASSIVE_NO_ACTOR: Final = _code("passive-no-actor", "info", "passive voice with no actor: say who or what does it", example="The record was never written.")
SMELL_MISSING_UNIT: Final = _code("missing-unit", "info", "number bounding a quantity with no unit: give the unit", example="Respond within 200.")
SMELL_WEAK_MODAL: Final = _code("weak-modal", "info", "weak modal: use shall/must for an obligation (or say it is optional)", example="The call should return the sum.")

#: Every code -> its record, in the order of this module (families in :data:`FAMILIES` order).
REGISTRY: Final[dict[str, DiagnosticCode]] = {
    code: dataclasses.replace(rec, constant=next(k for k, v in globals().items() if k.isupper() and not k.startswith("_") and v == code))
    for code, rec in _TABLE.items()}


def lookup(code: str) -> DiagnosticCode:
    """The record of ``code``.

    Raises:
        KeyError: ``code`` is not registered (the message says where to add it).
    """
    try:
        return REGISTRY[code]
    except KeyError:
        raise KeyError(f"diagnostic code {code!r} is not in evalgap.specs_lang.diagnostics.REGISTRY") from None


def codes_of(*families: str) -> dict[str, DiagnosticCode]:
    """The records of the given :data:`FAMILIES` keys (``codes_of("EG1", "EG2")``), in registry order."""
    return {c: r for c, r in REGISTRY.items() if r.family in families}
