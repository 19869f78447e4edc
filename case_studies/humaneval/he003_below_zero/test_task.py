"""HumanEval's own tests for HumanEval/3 (the benchmark's check()), run against canonical.py or buggy.py.

Select the implementation with HUMANEVAL_IMPL=canonical|buggy (default canonical).
"""
# HumanEval/3 (below_zero) from OpenAI HumanEval (MIT licence, see ../LICENSE-HumanEval.txt),
# Chen et al. 2021, "Evaluating Large Language Models Trained on Code".
import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


METADATA = {
    'author': 'jt',
    'dataset': 'test'
}


def check(candidate):
    assert candidate([]) == False
    assert candidate([1, 2, -3, 1, 2, -3]) == False
    assert candidate([1, 2, -4, 5, 6]) == True
    assert candidate([1, -1, 2, -2, 5, -5, 4, -4]) == False
    assert candidate([1, -1, 2, -2, 5, -5, 4, -5]) == True
    assert candidate([1, -2, 2, -2, 5, -5, 4, -4]) == True


def test_humaneval_check() -> None:
    impl = importlib.import_module(os.environ.get("HUMANEVAL_IMPL", "canonical"))
    check(impl.below_zero)
