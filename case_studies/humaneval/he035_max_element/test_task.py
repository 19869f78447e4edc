"""HumanEval's own tests for HumanEval/35 (the benchmark's check()), run against canonical.py or buggy.py.

Select the implementation with HUMANEVAL_IMPL=canonical|buggy (default canonical).
"""
# HumanEval/35 (max_element) from OpenAI HumanEval (MIT licence, see ../LICENSE-HumanEval.txt),
# Chen et al. 2021, "Evaluating Large Language Models Trained on Code".
import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


METADATA = {}


def check(candidate):
    assert candidate([1, 2, 3]) == 3
    assert candidate([5, 3, -5, 2, -3, 3, 9, 0, 124, 1, -10]) == 124


def test_humaneval_check() -> None:
    impl = importlib.import_module(os.environ.get("HUMANEVAL_IMPL", "canonical"))
    check(impl.max_element)
