"""Canonical solution of HumanEval/35."""
# HumanEval/35 (max_element) from OpenAI HumanEval (MIT licence, see ../LICENSE-HumanEval.txt),
# Chen et al. 2021, "Evaluating Large Language Models Trained on Code".
def max_element(l: list):
    """Return maximum element in the list.
    >>> max_element([1, 2, 3])
    3
    >>> max_element([5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10])
    123
    """
    m = l[0]
    for e in l:
        if e > m:
            m = e
    return m
