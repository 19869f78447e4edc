"""HumanEval's own tests for HumanEval/13 (the benchmark's check()), run against canonical.py or buggy.py.

Select the implementation with HUMANEVAL_IMPL=canonical|buggy (default canonical).
"""
# HumanEval/13 (greatest_common_divisor) from OpenAI HumanEval (MIT licence, see ../LICENSE-HumanEval.txt),
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
    assert candidate(3, 7) == 1
    assert candidate(10, 15) == 5
    assert candidate(49, 14) == 7
    assert candidate(144, 60) == 12


def test_humaneval_check() -> None:
    impl = importlib.import_module(os.environ.get("HUMANEVAL_IMPL", "canonical"))
    check(impl.greatest_common_divisor)
