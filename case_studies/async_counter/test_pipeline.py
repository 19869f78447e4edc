"""The pipeline's tests: each step awaited in turn (as the agent wrote them).

Select the implementation with PIPELINE_IMPL=agent_pipeline|reference_pipeline (default reference_pipeline).
"""

import asyncio
import importlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
impl = importlib.import_module(os.environ.get("PIPELINE_IMPL", "reference_pipeline"))


def test_counts_every_item() -> None:
    async def main() -> int:
        counter = impl.Counter()
        for n in [1, 2, 3]:
            await impl.add(counter, n)
        return counter.value

    assert asyncio.run(main()) == 6


def test_single_batch() -> None:
    assert impl.run_pipeline([5]) == 5
