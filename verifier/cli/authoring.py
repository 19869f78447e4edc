"""``evalgap author`` and ``evalgap export``: drafting a spec from prose and exporting contracts; thin layers
over :func:`evalgap.author` and :func:`evalgap.verifier.authoring.export.export_text`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

import evalgap
from evalgap.verifier.cli.common import echo_or_write, fail, finite_seconds, handles_errors
from evalgap.verifier.errors import UsageError
from evalgap.verifier.fileio import preflight
from evalgap.verifier.report.gap import EXIT_OK

__all__ = ["author", "export"]


@click.command()
@click.argument("input_path", type=click.Path(path_type=Path), metavar="INPUT")
@click.option("--target", type=click.Path(path_type=Path), help="The .py file the prose is about (its "
              "signatures bind the names; parsed, never imported).")
@click.option("--function", "function", help="The function the prose describes (when the target has several).")
@click.option("--engine", type=click.Choice(["patterns", "llm"]), default="patterns", show_default=True)
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the spec here (default: stdout).")
@click.option("--reference", type=click.Path(path_type=Path, exists=True), help="A reference implementation: "
              "clauses failing on it (at the examples' inputs) are rejected.")
@click.option("--interactive", is_flag=True, help="Walk through each sentence: accept, edit or mark informal.")
@click.option("--base-url", help="LLM engine: chat-completions API root (or EVALGAP_LLM_BASE_URL).")
@click.option("--model", help="LLM engine: model name (or EVALGAP_LLM_MODEL).")
@click.option("--api-key", help="LLM engine: API key (or EVALGAP_LLM_API_KEY).")
@click.option("--max-repairs", type=click.IntRange(min=0), default=2, show_default=True)
@click.option("--llm-timeout", type=float, default=60.0, show_default=True, metavar="SECONDS",
              callback=finite_seconds)
@handles_errors()
def author(input_path: Path, target: Path | None, function: str | None, engine: str, output: Path | None,
           reference: Path | None, interactive: bool, base_url: str | None, model: str | None,
           api_key: str | None, max_repairs: int, llm_timeout: float) -> None:
    """Draft a .req spec from prose INPUT (Markdown, text, or a .py file's docstrings); exit 1 when a drafted
    clause contradicted an example (it is rejected and reported)."""
    from evalgap.translators import TranslationError

    if output is not None and str(output) == "-":
        output = None
    if output is not None:
        preflight(output)  # before any LLM request
    try:
        eng: Any = None
        note = "pattern engine"
        if engine == "llm":
            from evalgap.translators.llm_client import LLMConfig, llm_engine

            cfg = LLMConfig.from_env(base_url, model, api_key, llm_timeout, max_repairs)
            eng, note = llm_engine(cfg), f"llm engine, model {cfg.model} at {cfg.base_url}"
        prompter = ((lambda text, default: str(click.prompt(text, default=default, show_default=bool(default)))),
                    click.echo) if interactive else None
        res = evalgap.author(input_path, target=target, function=function, reference=reference, engine=eng,
                             engine_note=note, prompter=prompter, output=output)
    except (TranslationError, OSError) as exc:
        fail(str(exc))
    echo_or_write(res.text, output)
    click.echo(res.summary_text(), err=True, nl=False)
    raise SystemExit(1 if res.conflicts else EXIT_OK)


@click.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--to", "fmt", type=click.Choice(["icontract", "pytest"]), required=True,
              help="icontract: a module of contract-wrapped check functions; pytest: plus Hypothesis tests.")
@click.option("--target", "target_arg", metavar="NAME|MODULE|FILE", help="The code the module wraps.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the module here (default: stdout; "
              "the target is then imported relative to the current folder).")
@handles_errors()
def export(spec: Path, fmt: str, target_arg: str | None, output: Path | None) -> None:
    """Export SPEC's requirements as an icontract module or a pytest module of Hypothesis properties."""
    from evalgap.verifier.authoring.export import export_text

    loaded, target, _ = evalgap.load_spec(spec, target_arg)
    if target is None:
        raise UsageError(f"{loaded.files[0]}: no target: add `target: FILE.py` to the spec or pass --target")
    folder = output.parent if output is not None and str(output) != "-" else Path.cwd()
    echo_or_write(export_text(loaded.spec, target, fmt, folder), output)
