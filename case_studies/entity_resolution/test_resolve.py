"""Example tests of the matcher and the clustering.

Select the implementation with ER_IMPL=agent_resolve|reference_resolve (default reference_resolve).
"""

import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("ER_IMPL", "reference_resolve"))


def test_case_and_spaces_do_not_matter() -> None:
    assert impl.same_entity("ACME", " acme ")


def test_different_companies() -> None:
    assert not impl.same_entity("acme", "globex")


def test_resolve_groups_duplicates() -> None:
    assert impl.resolve(["Acme", "Globex", "acme"]) == [["Acme", "acme"], ["Globex"]]
