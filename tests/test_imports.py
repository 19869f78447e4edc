"""`import "other.req"`: requirements from several files, IDs unique across them."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalgap.specs_lang import SpecNameError
from evalgap.specs_lang.check import check_spec
from evalgap.specs_lang.loader import load_spec

SPECS = Path(__file__).parent / "specs"


def test_imported_requirements_are_merged() -> None:
    loaded = load_spec(SPECS / "all_constructs.req")
    ids = [r.id for r, _ in loaded.spec.all_requirements()]
    assert ids[-1] == "O-1" and "KV-1" in ids
    assert len(loaded.files) == 2 and loaded.spec.name == "demo"
    assert loaded.spec.requirements[-1].span.file.endswith("other.req")


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.req").write_text('import "b.req"\nrequirement R-1 "a"\n  informal vague "x"\n')
    (tmp_path / "b.req").write_text('requirement R-1 "b"\n  informal vague "y"\n')
    loaded = load_spec(tmp_path / "a.req")
    with pytest.raises(SpecNameError) as info:
        check_spec(loaded.spec, loaded.sources)
    d = info.value.diagnostics[0]
    assert d.code == "EG201" and "b.req" in d.span.file
    assert "b.req:1:1: error EG201: duplicate requirement ID R-1" in info.value.render()


def test_missing_import_and_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.req").write_text('import "missing.req"\n')
    with pytest.raises(SpecNameError) as info:
        load_spec(tmp_path / "a.req")
    assert info.value.diagnostics[0].code == "EG220" and info.value.diagnostics[0].span.line == 1
    (tmp_path / "c.req").write_text('import "d.req"\n')
    (tmp_path / "d.req").write_text('import "c.req"\n')
    with pytest.raises(SpecNameError) as info:
        load_spec(tmp_path / "c.req")
    assert "import cycle" in info.value.diagnostics[0].message
