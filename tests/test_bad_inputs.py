"""The bad-input battery of issue 19: every command fed what a careless or hostile user would give it.

Each row runs one command in-process (``run_cli``) in a workspace of prepared inputs and asserts the exit
code, the message (file, line and column where there is one, what was expected), that no traceback or
"internal error" appears, and that no file of the workspace changed except the row's intended outputs.
The rows that need real processes (engines, signals, a full disk, root) are in test_bad_inputs_runtime.py.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

from egtest import CASES, run_cli

OK_SPEC = 'spec s "S"\ntarget: t.py\n\nfunction f(n: int) -> int\n  requirement R-1 "x"\n    ensures result >= 0\n'
TARGET = "def f(n: int) -> int:\n    return abs(n)\n"


def _spec(param: str = "n: int", clause: str = "result >= 0", target: str | None = None) -> str:
    head = f"target: {target}\n" if target else ""
    return f'spec s "S"\n{head}\nfunction f({param}) -> int\n  requirement R-1 "x"\n    ensures {clause}\n'


def _files() -> dict[str, bytes]:
    deep_type = "list[" * 500 + "int" + "]" * 500
    files: dict[str, str | bytes] = {
        "ok.req": OK_SPEC, "t.py": TARGET, "notarget.req": _spec(), "bom.req": b"\xef\xbb\xbf" + _spec().encode(),
        "bin.req": b"\xff\xfe\x00bad", "latin.req": b'spec s "S"\n# caf\xe9\n', "nul.req": b'spec s "S"\n\x00\n',
        "empty.req": "", "blank.req": "\n\n   \n", "comments.req": "# only a comment\n", "header.req": 'spec s "S"\n',
        "deeptype.req": _spec(f"n: {deep_type}"), "deepexpr.req": _spec(clause="(" * 500 + "n" + ")" * 500),
        "deepnot.req": _spec(clause="not " * 500 + "True"), "deepcall.req": _spec(clause="abs(" * 500 + "n" + ")" * 500),
        "deeplist.req": _spec(clause="len(" + "[" * 500 + "]" * 500 + ") >= 0"),
        "deepadd.req": _spec(clause=" + ".join(["1"] * 3000) + " > 0"),
        "range.req": _spec("n: int in 10..0"), "lenrange.req": _spec("xs: list[int] len 5..1"),
        "rangeok.req": _spec("n: int in 0..10"),
        "dunder.req": _spec(clause="n.__class__.__mro__[1].__subclasses__() == []"),
        "dunder2.req": _spec(clause="result.__dict__ == {}"),
        "getattr.req": _spec(clause='getattr(n, "__class__") == int'),
        "missingtarget.req": _spec(target="missing.py"), "badtarget.req": _spec(target="bad.py"),
        "dirtarget.req": _spec(target="adir"), "bintarget.req": _spec(target="bint.py"),
        "bad.py": "def f(n:\n", "bint.py": b"\x00\xff\xfebinary", "adir/keep": "",
        "syntax.req": 'spec s "S"\n\nfunction f(n: int) -> int\n  requirement R-1 "x"\n    ensures result >=\n',
        "unterminated.req": 'spec s "S"\n\nrequirement R-1 "never closed\n',
        "dupid.req": _spec() + '  requirement R-1 "again"\n    ensures result >= 0\n',
        "unknowntype.req": _spec("n: Frobnicator", target="t.py"),
        "huge.req": b"# filler line of a huge spec\n" * (5 * 1024 * 1024 // 29),
        "prose.md": "- Returns a non-negative number.\n", "prose_bin.md": b"\x89PNG\r\n\x1a\n\x00\x00",
        "prose_latin.md": b"- Returns the caf\xe9 count.\n", "prose_nul.md": b"- Returns.\x00\n",
        "prose_empty.md": "",
        "case_bin/case.toml": b"\xff\xfe[case]", "case_latin/case.toml": b'[case]\nname = "caf\xe9"\n',
        "case_badtoml/case.toml": "[case\nname = 1\n", "case_nospec/case.toml": '[case]\nname = "x"\n',
        "case_missingspec/case.toml": '[case]\nname = "x"\nspec = "nope.req"\ndefault = "a"\n\n[implementations]\n'
                                      'a = "t.py"\n',
        "rep_bin.json": b"\xff\x00\x01", "rep_latin.json": b'{"a": "caf\xe9"}', "rep_notjson.json": "not json {",
        "rep_schema.json": "{}", "cfg_bin.json": b"\xff\xfe{}", "cfg.xyz": "a = 1\n", "cfg_bad.yaml": "a: [1, 2\n",
        "proj/pyproject.toml": "[tool.evalgap]\nbudget = nan\n", "proj/ok.req": OK_SPEC, "proj/t.py": TARGET,
        "proj2/pyproject.toml": '[tool.evalgap]\nbudget = "fast"\n', "proj2/ok.req": OK_SPEC, "proj2/t.py": TARGET,
        "proj3/pyproject.toml": "[tool.evalgap]\nbudget = inf\n", "proj3/ok.req": OK_SPEC, "proj3/t.py": TARGET,
        "out/keep": "",
    }
    return {k: v.encode() if isinstance(v, str) else v for k, v in files.items()}


def _snapshot(root: Path) -> dict[str, tuple[str, str]]:
    """Relative path -> (kind and mode, content hash or link target) of everything under ``root``."""
    out: dict[str, tuple[str, str]] = {}
    for folder, dirs, names in os.walk(root):
        for n in dirs + names:
            p = Path(folder) / n
            st = os.lstat(p)
            rel = str(p.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = (f"file {stat.S_IMODE(st.st_mode):o}", hashlib.sha256(p.read_bytes()).hexdigest())
            else:
                out[rel] = (f"{stat.S_IFMT(st.st_mode):o}", "")
    return out


@pytest.fixture()
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for rel, data in _files().items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@dataclass(frozen=True)
class Row:
    """One bad input: the command line, the exit code, regexes the output must match, and the workspace
    paths the command may create or change (its intended outputs)."""

    args: tuple[str, ...]
    code: int
    patterns: tuple[str, ...]
    changes: tuple[str, ...] = ()


def R(cmd: str, code: int, *patterns: str, changes: tuple[str, ...] = ()) -> Row:
    return Row(tuple(cmd.split()), code, patterns, changes)


NOT_UTF8 = r"EG100: the spec is not UTF-8 text: byte 0x%s at byte offset %d \(line %d, column %d\)"
TOO_DEEP = r"EG106: nested too deeply: \d+ levels here, at most 100"
BIG = r"EG107: the %s is too large: at most %d bytes"
NO_REQ = r":1:1: error EG223: the spec states no requirement"
BUDGET = r"must be a finite, positive number of CPU seconds"
CFG = str(CASES / "config_drift" / "config.req")

ROWS: dict[str, Row] = {
    # ---- lint: encodings, sizes, nesting, accepted nonsense, targets, case manifests
    "lint-binary": R("lint bin.req", 2, r"^bin\.req:1:1: error " + NOT_UTF8 % ("ff", 0, 1, 1), "save the file as UTF-8"),
    "lint-latin1": R("lint latin.req", 2, r"^latin\.req:2:6: error " + NOT_UTF8 % ("e9", 16, 2, 6)),
    "lint-nul": R("lint nul.req", 2, r"nul\.req:2:1: error EG100: the spec is a binary file: NUL byte at byte offset 11"),
    "lint-bom-ok": R("lint bom.req", 0, r"bom\.req: ok"),
    "lint-empty": R("lint empty.req", 2, "empty.req" + NO_REQ, "an empty spec would check nothing"),
    "lint-blank": R("lint blank.req", 2, "blank.req" + NO_REQ),
    "lint-comments": R("lint comments.req", 2, "comments.req" + NO_REQ),
    "lint-header-only": R("lint header.req", 2, "header.req" + NO_REQ),
    # the parser stops at the 101st bracket (one diagnostic, a caret, the hint); see also deepexpr
    "lint-deep-type": R("lint deeptype.req", 2, r"deeptype\.req:3:\d+: error EG106: .*nested too deeply", "`let`"),
    "lint-deep-parens": R("lint deepexpr.req", 2, r"deepexpr\.req:5:\d+: error EG106"),
    "lint-deep-not": R("lint deepnot.req", 2, r"deepnot\.req:5:\d+: error EG106"),
    "lint-deep-call": R("lint deepcall.req", 2, r"deepcall\.req:5:\d+: error EG106"),
    "lint-deep-list": R("lint deeplist.req", 2, r"deeplist\.req:5:\d+: error EG106"),
    "lint-long-sum": R("lint deepadd.req", 2, r"deepadd\.req:5:\d+: error EG106"),
    "lint-empty-range": R("lint range.req", 2, r"range\.req:3:22: error EG224: empty range 10\.\.0", "0\\.\\.10"),
    "lint-empty-length": R("lint lenrange.req", 2, r"lenrange\.req:3:30: error EG224: empty length 5\.\.1"),
    "lint-range-ok": R("lint rangeok.req", 0, r"rangeok\.req: ok"),
    "lint-dunder-chain": R("lint dunder.req", 2, r"dunder\.req:5:13: error EG225: dunder attribute"),
    "lint-dunder-dict": R("lint dunder2.req", 2, r"dunder2\.req:5:13: error EG225: dunder attribute `\.__dict__`"),
    "lint-getattr-dunder": R("lint getattr.req", 2, r"getattr\.req:5:13: error EG225: `getattr` of a dunder"),
    "lint-missing-target": R("lint missingtarget.req", 2, r"missingtarget\.req:2:9: target file missing\.py does "
                             "not exist"),
    "lint-target-syntax": R("lint badtarget.req", 2, r"badtarget\.req:2:9: cannot import target bad\.py: "
                            "SyntaxError"),
    "lint-target-folder": R("lint dirtarget.req", 2, r"dirtarget\.req:4:10: error EG211: the target defines no function `f`"),
    "lint-target-binary": R("lint bintarget.req", 2, r"bintarget\.req:2:9: cannot import target bint\.py"),
    "lint-option-target-missing": R("lint notarget.req --target missing.py", 2, "target file missing.py does not exist"),
    "lint-syntax": R("lint syntax.req", 2, r"syntax\.req:5:\d+: error EG101"),
    "lint-unterminated": R("lint unterminated.req", 2, r"unterminated\.req:3:\d+: error EG105"),
    "lint-duplicate-id": R("lint dupid.req", 2, r"dupid\.req:\d+:\d+: error EG201: duplicate requirement ID R-1"),
    "lint-unknown-type": R("lint unknowntype.req", 2, r"unknowntype\.req:4:\d+: error EG20[67]"),
    "lint-huge": R("lint huge.req", 2, r"huge\.req:1:1: error " + BIG % ("spec", 4194304), "split the spec"),
    "lint-dev-zero": R("lint /dev/zero", 2, r"/dev/zero:1:1: error " + BIG % ("spec", 4194304) + ".*more than that"),
    "lint-dev-null": R("lint /dev/null", 2, "/dev/null" + NO_REQ),
    "lint-missing-file": R("lint nope.req", 2, "nope.req"),
    "lint-folder-no-spec": R("lint adir", 2, "adir"),
    "lint-several-files": R("lint bin.req empty.req rangeok.req", 2, "bin.req:1:1", "empty.req:1:1", "rangeok.req: ok"),
    "lint-case-binary-toml": R("lint case_bin", 2, r"case_bin/case\.toml:1:1: error EG100: the case manifest is not "
                               "UTF-8 text: byte 0xff at byte offset 0"),
    "lint-case-latin-toml": R("lint case_latin", 2, r"case_latin/case\.toml:2:12: error EG100: the case manifest "
                              "is not UTF-8"),
    "lint-case-bad-toml": R("lint case_badtoml", 2, r"case_badtoml/case\.toml: invalid TOML"),
    "lint-case-no-spec": R("lint case_nospec", 2, r"case_nospec/case\.toml"),
    "lint-case-missing-spec": R("lint case_missingspec", 2, r"case_missingspec/case\.toml.*nope\.req"),
    # ---- check: the same inputs, options that cannot be honoured, outputs that cannot be written
    "check-binary": R("check bin.req", 2, r"bin\.req:1:1: error EG100"),
    "check-latin1": R("check latin.req", 2, r"latin\.req:2:6: error EG100"),
    "check-deep-type": R("check deeptype.req", 2, r"deeptype\.req:3:\d+: error EG106"),
    "check-empty": R("check empty.req", 2, "EG223"),
    "check-dev-zero": R("check /dev/zero", 2, "EG107"),
    "check-huge": R("check huge.req", 2, "EG107"),
    "check-dunder": R("check dunder.req", 2, "EG225"),
    "check-missing-target": R("check missingtarget.req", 2, r"missingtarget\.req:2:9: target file missing\.py"),
    "check-target-folder": R("check dirtarget.req", 2, r"dirtarget\.req:4:10: error EG211"),
    "check-case-binary-toml": R("check case_bin", 2, r"case_bin/case\.toml:1:1: error EG100"),
    "check-case-latin-toml": R("check case_latin", 2, r"case_latin/case\.toml:2:12: error EG100"),
    "check-budget-nan": R("check ok.req --budget nan", 2, BUDGET, "got nan"),
    "check-budget-inf": R("check ok.req --budget inf", 2, BUDGET, "got inf"),
    "check-budget-minus-inf": R("check ok.req --budget=-inf", 2, BUDGET),
    "check-budget-zero": R("check ok.req --budget 0", 2, BUDGET, "got 0"),
    "check-budget-negative": R("check ok.req --budget=-1", 2, BUDGET),
    "check-budget-huge": R("check ok.req --budget 1e9", 2, BUDGET, "at most 86400"),
    "check-budget-overflow": R("check ok.req --budget 1e400", 2, BUDGET),
    "check-budget-word": R("check ok.req --budget fast", 2, "'fast' is not a valid float"),
    "check-pyproject-budget-nan": R("check proj/ok.req", 2, r"the budget \(from pyproject\.toml\) " + BUDGET),
    "check-pyproject-budget-inf": R("check proj3/ok.req", 2, BUDGET, "got inf"),
    "check-pyproject-budget-type": R("check proj2/ok.req", 2, r"budget = 'fast' has the wrong type"),
    "check-jobs-zero": R("check ok.req -j 0", 2, "0 is not in the range x>=1"),
    "check-fail-on": R("check ok.req --fail-on maybe", 2, "maybe"),
    "check-format": R("check ok.req -f pdf", 2, "'pdf' is not one of"),
    "check-output-format": R("check ok.req -o pdf=x.pdf", 2, "unknown format 'pdf'"),
    "check-two-outputs": R("check ok.req -o a.txt -o b.txt", 2, "may be given once"),
    "check-output-empty": R("check ok.req -o json=", 2, "give a path after '='"),
    "check-two-stdout": R("check ok.req -f json -f sarif", 2, "would all go to standard output"),
    "check-output-folder": R("check ok.req -o adir", 2, "cannot write adir: it is a folder"),
    "check-output-missing-folder": R("check ok.req -o nodir/x.txt", 2, "the folder nodir does not exist"),
    "check-output-json-missing-folder": R("check ok.req -o json=nodir/x.json", 2, "the folder nodir does not exist"),
    "check-output-dir-missing-parent": R("check ok.req -f json -f sarif -o no/such/", 2, "its parent no/such? does not "
                                         "exist|its parent no does not exist"),
    "check-output-dir-is-file": R("check ok.req -f json -f sarif -o t.py/", 2, "t.py/: it exists and is not a folder"),
    "check-output-several-no-folder": R("check ok.req -f json -f sarif -o nodir", 2, "nodir"),
    "check-engines": R("check ok.req --engines z3", 2, "unknown engine 'z3'"),
    "check-engines-empty": R("check ok.req --engines ,", 2, "no engine given"),
    "check-profile": R("check ok.req --profile turbo", 2, "'turbo' is not one of"),
    "check-missing-spec": R("check nope.req", 2, "nope.req"),
    "check-suite-target": R("check adir --target t.py", 2, "--target names one implementation; it cannot apply to a folder"),
    # ---- analyze and check-config
    "analyze-binary": R("analyze bin.req", 2, r"bin\.req:1:1: error EG100"),
    "analyze-deep-type": R("analyze deeptype.req", 2, r"deeptype\.req:3:\d+: error EG106"),
    "analyze-deep-parens": R("analyze deepexpr.req", 2, "EG106"),
    "analyze-empty": R("analyze empty.req", 2, "EG223"),
    "analyze-dev-zero": R("analyze /dev/zero", 2, "EG107"),
    "analyze-syntax": R("analyze syntax.req", 2, r"syntax\.req:5:\d+: error EG101"),
    "analyze-timeout-zero": R("analyze notarget.req --timeout 0", 2, "0.01"),
    "analyze-timeout-nan": R("analyze notarget.req --timeout nan", 2, "must be a finite, positive number of seconds, got nan"),
    "config-timeout-inf": R(f"check-config {CFG} cfg.xyz --timeout inf", 2, "got inf"),
    "author-llm-timeout-nan": R("author prose.md --llm-timeout nan", 2, "got nan"),
    "config-binary": R(f"check-config {CFG} cfg_bin.json", 2, r"cfg_bin\.json:1:1: the configuration is not UTF-8"),
    "config-extension": R(f"check-config {CFG} cfg.xyz", 2, r"cfg\.xyz"),
    "config-bad-yaml": R(f"check-config {CFG} cfg_bad.yaml", 2, r"cfg_bad\.yaml"),
    "config-missing": R(f"check-config {CFG} nope.json", 2, r"nope\.json"),
    "config-dev-zero": R(f"check-config {CFG} /dev/zero", 2, r"/dev/zero"),
    "config-folder": R(f"check-config {CFG} adir", 2, "adir"),
    # ---- fmt and export
    "fmt-binary": R("fmt bin.req", 2, r"bin\.req:1:1: error EG100"),
    "fmt-latin1": R("fmt --check latin.req", 2, r"latin\.req:2:6: error EG100"),
    "fmt-dev-zero": R("fmt /dev/zero", 2, "EG107"),
    "fmt-syntax": R("fmt syntax.req", 2, r"syntax\.req:5:\d+: error EG101"),
    "fmt-missing": R("fmt nope.req", 2, "nope.req"),
    "export-binary": R("export --to icontract bin.req", 2, "EG100"),
    "export-deep-type": R("export --to pytest deeptype.req", 2, "EG106"),
    "export-no-target": R("export --to icontract notarget.req", 2, "no target"),
    "export-output-folder": R("export --to icontract ok.req -o adir", 2, "cannot write adir: it is a folder"),
    "export-output-missing-folder": R("export --to icontract ok.req -o nodir/x.py", 2, "folder nodir does not exist"),
    "export-to-bogus": R("export --to deal ok.req", 2, "'deal' is not one of"),
    # ---- author
    "author-binary": R("author prose_bin.md", 2, r"prose_bin\.md:1:1: error EG100: the prose is not UTF-8 text: "
                       "byte 0x89 at byte offset 0"),
    "author-latin1": R("author prose_latin.md", 2, r"prose_latin\.md:1:18: error EG100: the prose is not UTF-8.*"
                       "offset 17"),
    "author-nul": R("author prose_nul.md", 2, r"prose_nul\.md:1:11: error EG100: the prose is a binary file"),
    "author-dev-zero": R("author /dev/zero", 2, BIG % ("prose", 16777216)),
    "author-missing": R("author nope.md", 2, "nope.md"),
    "author-folder": R("author adir", 2, "adir.*folder"),
    "author-target-binary": R("author prose.md --target bint.py", 2, r"bint\.py:1:1: error EG100: the target is a "
                              "binary file"),
    "author-target-missing": R("author prose.md --target nope.py", 2, "nope.py"),
    "author-target-syntax": R("author prose.md --target bad.py", 2, r"target bad\.py"),
    "author-output-folder": R("author prose.md --target t.py -o adir", 2, "cannot write adir: it is a folder"),
    "author-output-missing-folder": R("author prose.md --target t.py -o nodir/s.req", 2, "folder nodir does not "
                                      "exist"),
    "author-llm-no-config": R("author prose.md --target t.py --engine llm", 2, "needs a base URL and a model"),
    "author-reference-missing": R("author prose.md --reference nope.py", 2, "nope.py"),
    "author-max-repairs": R("author prose.md --max-repairs=-1", 2, "-1"),
    # ---- explain, diff, schema
    "explain-binary": R("explain rep_bin.json R-1", 2, r"rep_bin\.json"),
    "explain-latin1": R("explain rep_latin.json R-1", 2, r"rep_latin\.json:1:11: the report is not UTF-8.*offset 10"),
    "explain-not-json": R("explain rep_notjson.json R-1", 2, r"rep_notjson\.json: not JSON"),
    "explain-schema": R("explain rep_schema.json R-1", 2, r"rep_schema\.json"),
    "explain-missing": R("explain nope.json R-1", 2, r"nope\.json"),
    "explain-folder": R("explain adir R-1", 2, "adir"),
    "explain-dev-zero": R("explain /dev/zero R-1", 2, "/dev/zero"),
    "diff-binary": R("diff rep_bin.json rep_bin.json", 2, r"rep_bin\.json"),
    "diff-not-json": R("diff rep_notjson.json rep_schema.json", 2, r"rep_notjson\.json"),
    "diff-missing": R("diff nope.json rep_schema.json", 2, r"nope\.json"),
    # ---- import (research plug-in) and gate
    "import-nagini-file": R("import nagini t.py --data adir -o imp", 2, "is a file: `import nagini` reads a folder"),
    "import-icontract-not-python": R("import icontract bin.req -o imp", 2, "is not a Python file"),
    "import-nl2postcond-not-gzip": R("import nl2postcond t.py --data adir -o imp", 2, "t.py: not a gzipped JSON-lines nl2postcond file"),
    "import-nl2postcond-folder": R("import nl2postcond adir --data adir -o imp", 2, "adir/gpt4_simple_with_ref_"
                                   "postconditions.jsonl.gz: not a gzipped"),
    "import-missing": R("import icontract nope.py -o imp", 2, "does not exist"),
    "import-device": R("import icontract /dev/null -o imp", 2, "neither a file nor a folder"),
    "gate-not-git": R("gate adir --spec ok.req --base HEAD", 2, "not inside a git repository"),
    "gate-budget-nan": R("gate . --spec ok.req --budget nan", 2, BUDGET),
    "gate-diff-budget-inf": R("gate . --spec ok.req --diff-budget inf", 2, r"--diff-budget " + BUDGET),
    "gate-output-folder": R("gate . --spec ok.req -f json -o adir", 2, "cannot write adir: it is a folder"),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_bad_input(name: str, workspace: Path) -> None:
    row = ROWS[name]
    before = _snapshot(workspace)
    res = run_cli(*row.args)
    text = res.stderr + res.stdout
    assert res.exit_code == row.code, f"{name}: exit {res.exit_code}\n{text[-2000:]}"
    for pat in row.patterns:
        assert re.search(pat, text, re.M), f"{name}: no /{pat}/ in\n{text[-2000:]}"
    assert "Traceback" not in text and "internal error" not in text, text[-2000:]
    after = _snapshot(workspace)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    allowed = {c for c in changed if any(c == a or c.startswith(a.rstrip("/") + "/") for a in row.changes)}
    assert changed == allowed, f"{name}: files changed outside the intended outputs: {sorted(changed - allowed)}"


def test_the_battery_covers_every_command_with_at_least_100_inputs() -> None:
    commands = {row.args[0] for row in ROWS.values()}
    assert len(ROWS) >= 100
    assert commands >= {"lint", "check", "analyze", "check-config", "fmt", "export", "author", "explain", "diff",
                        "import", "gate"}
