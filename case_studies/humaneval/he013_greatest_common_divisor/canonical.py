"""Canonical solution of HumanEval/13."""
# HumanEval/13 (greatest_common_divisor) from OpenAI HumanEval (MIT licence, see ../LICENSE-HumanEval.txt),
# Chen et al. 2021, "Evaluating Large Language Models Trained on Code".
def greatest_common_divisor(a: int, b: int) -> int:
    """ Return a greatest common divisor of two integers a and b
    >>> greatest_common_divisor(3, 5)
    1
    >>> greatest_common_divisor(25, 15)
    5
    """
    while b:
        a, b = b, a % b
    return a
