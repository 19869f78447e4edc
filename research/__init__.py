"""evalgap research harness: test-based vs proof-based evaluation measured on benchmarks (``evalgap compare``).

Data flows: an adapter (:mod:`evalgap.research.humaneval`) builds a :class:`~evalgap.research.dataset.Dataset`;
evaluators (:mod:`evalgap.research.evaluators`) give one verdict per candidate each, in sandboxed workers;
:mod:`evalgap.research.compare` runs them (local pool or Ray) and :mod:`evalgap.research.summary` computes the
figures (accept rates, evaluation gap, recall, false refutations, CPU cost, agreement).
"""

from evalgap.research.errors import ResearchError

__all__ = ["ResearchError"]
