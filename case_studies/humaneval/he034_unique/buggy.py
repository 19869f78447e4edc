"""HumanEvalFix buggy version of HumanEval/34 (the function only; the visible check() is removed)."""
# HumanEval/34 (unique) from HumanEvalFix (HumanEvalPack, Muennighoff et al. 2023, MIT; based on OpenAI HumanEval, MIT licence, see ../LICENSE-HumanEval.txt),
# Chen et al. 2021, "Evaluating Large Language Models Trained on Code".
def unique(l: list):
    """Return sorted unique elements in a list
    >>> unique([5, 3, 5, 2, 3, 3, 9, 0, 123])
    [0, 2, 3, 5, 9, 123]
    """
    return sorted(l)
