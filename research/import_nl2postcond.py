"""Import nl2postcond's assert-style postconditions (Endres et al., FSE 2024) into ``.req`` property specs.

Input: ``gpt4_simple_with_ref_postconditions.jsonl.gz`` rows (``task_id``, ``response_num``, ``entry_point``,
``postcondition_alone``: Python ``assert`` statements over the parameters and ``return_value``). Each
response becomes one requirement ``NL2P-<task>-<response>`` holding one ``ensures`` per assert, with
``return_value`` renamed ``result``. An assert that is not in the spec language's expression subset (e.g. a
generator with two ``for`` clauses, a lambda) is not imported: the response is skipped with the reason.
"""

from __future__ import annotations

import ast
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from evalgap.research.errors import ResearchError

__all__ = ["Nl2PostcondImport", "import_nl2postcond"]


@dataclass(frozen=True)
class Nl2PostcondImport:
    """The imported specs: ``task_id -> .req text``, and ``(task_id, response, reason)`` per skipped response."""

    specs: dict[str, str]
    skipped: tuple[tuple[str, str, str], ...]


class _Rename(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name("result" if node.id == "return_value" else node.id, node.ctx), node)


def _asserts(text: str) -> list[str]:
    tree = ast.parse(text)
    out = []
    for st in tree.body:
        if not isinstance(st, ast.Assert):
            raise ResearchError(f"a {type(st).__name__} statement besides asserts")
        out.append(" ".join(ast.unparse(_Rename().visit(st.test)).split()))
    if not out:
        raise ResearchError("no assert")
    return out


def import_nl2postcond(path: Path, param_types: dict[str, tuple[tuple[str, str], ...]]) -> Nl2PostcondImport:
    """Translate every compiling response of the file at ``path`` for the tasks in ``param_types``.

    Args:
        path: the ``.jsonl.gz`` file.
        param_types: ``task_id -> HumanEval (name, type)`` parameters (the asserts use HumanEval's names).

    Raises:
        ResearchError: the file is missing.
    """
    from evalgap.specs_lang import SpecError, check_structure, parse

    if not path.is_file():
        raise ResearchError(f"{path} not found")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    reqs: dict[str, list[str]] = {}
    heads: dict[str, str] = {}
    skipped: list[tuple[str, str, str]] = []
    for r in rows:
        tid, resp = r["task_id"], str(r["response_num"])
        if tid not in param_types:
            continue
        if str(r.get("compiles")) != "True":
            skipped.append((tid, resp, "does not compile (nl2postcond's own flag)"))
            continue
        try:
            conds = _asserts(r["postcondition_alone"])
        except (SyntaxError, ResearchError) as exc:
            skipped.append((tid, resp, f"not assert statements: {exc}"))
            continue
        num = tid.split("/")[-1]
        params = ", ".join(f"{n}: {t.replace(' ', '')}" for n, t in param_types[tid])
        head = f'spec nl2p_he{num} "HumanEval/{num}: GPT-4 postconditions from nl2postcond"\n\nfunction ' \
               f'{r["entry_point"]}({params})\n'
        block = f'  requirement NL2P-{num}-{resp} "nl2postcond GPT-4 response {resp}"\n' + \
            "".join(f"    ensures {c}\n" for c in conds)
        try:
            check_structure(parse(head + block))
        except SpecError as exc:
            skipped.append((tid, resp, f"outside the spec language: {str(exc).splitlines()[0][:120]}"))
            continue
        heads[tid] = head
        reqs.setdefault(tid, []).append(block)
    specs = {tid: heads[tid] + "".join(blocks) for tid, blocks in reqs.items()}
    return Nl2PostcondImport(specs, tuple(skipped))
