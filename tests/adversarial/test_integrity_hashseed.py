"""Verdict integrity (issue 18): ordinary code whose result depends on the string hash seed.

The sandbox runs every worker with ``PYTHONHASHSEED=0``; a normal run has a random seed. Code that returns
``next(iter(a_set_of_strings))`` where the spec says "the smallest" is wrong in a normal run even when it
happens to be right under seed 0.
"""

from __future__ import annotations


import pytest

from integrity_helpers import FRUITS, assert_not_passing, first_of_set, shared_probe_run

pytestmark = pytest.mark.adversarial


@pytest.mark.adversarial
def test_first_of_constant_set_is_not_the_smallest() -> None:
    """Attack: ``smallest_fruit()`` returns ``next(iter({'kiwi', 'plum', 'lime'}))``: the smallest under
    seed 0, another word under most seeds. Promise: refuted or unknown (hash-seed-dependent), never
    verified."""
    assert first_of_set(FRUITS, 0) == min(FRUITS), "premise: right under PYTHONHASHSEED=0"
    wrong = [s for s in range(1, 9) if first_of_set(FRUITS, s) != min(FRUITS)]
    assert len(wrong) >= 3, f"premise: wrong under most seeds (wrong under {wrong})"
    assert_not_passing(shared_probe_run(), "SF-1", whole_run=False)


@pytest.mark.adversarial
def test_first_of_set_argument_is_not_the_smallest() -> None:
    """Attack: ``smallest_word(words)`` returns ``next(iter(words))`` for a set argument. Promise: refuted
    (some set iterates out of order under any seed) or unknown, never verified."""
    assert_not_passing(shared_probe_run(), "SW-1", whole_run=False)
