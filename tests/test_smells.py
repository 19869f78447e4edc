"""Requirement smells: each rule fires on its textbook case, stays quiet on a clean requirement, and the
measured precision on the case studies' prose (docs/smells.md) is what the labelled file says."""

from __future__ import annotations

import json

import pytest
from report_fixtures import REPO

from evalgap.translators.prose_split import sentence_spans as split_sentences
from evalgap.verifier.analysis.smells import SMELL_CODES, find_smells


@pytest.mark.parametrize(("prose", "code", "phrase"), [
    ("The store shall be fast.", "vague-term", "fast"),
    ("Errors are handled as appropriate.", "vague-term", "as appropriate"),
    ("Supports str, bytes, etc.", "open-ended", "etc."),
    ("Supports lists, tuples and so on.", "open-ended", "and so on"),
    ("Never expose one client's values to another client.", "unbounded-universal", "Never"),
    ("The new store is faster.", "comparative", "faster"),
    ("The record is deleted.", "passive-no-actor", "is deleted"),
    ("Getting a key that was never written raises KeyError.", "passive-no-actor", "was never written"),
    ("The server responds within 200.", "missing-unit", "200"),
    ("The function should return the sorted list.", "weak-modal", "should"),
])
def test_each_rule_fires_with_phrase_and_span(prose: str, code: str, phrase: str) -> None:
    hits = [s for s in find_smells(prose) if s.code == code]
    assert [s.phrase for s in hits] == [phrase]
    s = hits[0]
    assert prose[s.start:s.end] == phrase
    assert s.message == SMELL_CODES[code]


@pytest.mark.parametrize("prose", [
    "A value written with put is returned unchanged by get.",
    "The server responds within 200 ms.",
    "Returns a list that is faster to search than the input.",
    "For each key written with put, get returns the last value.",
    "Writing a key again replaces its value; other keys keep theirs.",
    "The function shall return the larger of the two numbers.",
])
def test_clean_requirements_have_no_smell(prose: str) -> None:
    assert find_smells(prose) == ()


def test_spans_index_the_prose_across_sentences() -> None:
    prose = "Keys are strings. The store should be fast, etc. Values are always returned."
    smells = find_smells(prose)
    assert [(s.code, s.phrase) for s in smells] == [
        ("weak-modal", "should"), ("vague-term", "fast"), ("open-ended", "etc."),
        ("passive-no-actor", "are always returned"), ("unbounded-universal", "always")]
    assert all(prose[s.start:s.end] == s.phrase for s in smells)


def test_sentence_split_keeps_abbreviations() -> None:
    text = "Use e.g. a list. Then stop! Done"
    assert [text[a:b] for a, b in split_sentences(text)] == ["Use e.g. a list.", "Then stop!", "Done"]


def test_measured_precision_matches_labels() -> None:
    """docs/smells-labels.json holds a person's true/false judgement of every smell the detector reports on
    the case studies' prose; the detector's current output must be exactly the labelled set, and the
    precision recorded in docs/smells.md must be the one these labels give."""
    labels = json.loads((REPO / "docs" / "smells-labels.json").read_text(encoding="utf-8"))
    found = []
    for item in labels["texts"]:
        for s in find_smells(item["text"]):
            found.append([item["id"], s.code, s.phrase, s.start])
    labelled = [[x["id"], x["code"], x["phrase"], x["start"]] for x in labels["smells"]]
    assert found == labelled
    tp = sum(1 for x in labels["smells"] if x["true_positive"])
    precision = tp / len(labels["smells"])
    doc = (REPO / "docs" / "smells.md").read_text(encoding="utf-8")
    assert f"{tp} of {len(labels['smells'])} " in doc and f"{precision:.0%}" in doc
