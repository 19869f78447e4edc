"""``--executor ray``: run compare jobs as Ray tasks (``pip install 'evalgap[research]'``).

Each job (:class:`~evalgap.research.compare.Job`) runs :func:`~evalgap.research.compare.run_job` in a Ray
worker process, which starts the same sandboxed worker subprocesses as the local pool: verdicts are the same
for tests, the ground truth, Hypothesis with the same seeds, and CrossHair up to its time budget (CrossHair's
budget is CPU time, so a loaded node may complete fewer paths; refutations are replayed concretely either way).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from evalgap.research.errors import ResearchError

if TYPE_CHECKING:
    from evalgap.research.compare import Job

__all__ = ["run_on_ray"]


def run_on_ray(jobs: list["Job"], address: str | None, on_done: Callable[[dict[str, Any]], None],
               num_cpus: int | None = None) -> None:
    """Run ``jobs`` on Ray, calling ``on_done`` with each result as it finishes (in completion order).

    Args:
        jobs: the programs to evaluate.
        address: a cluster address (``ray://host:10001`` or ``auto``); None starts a local instance
            (``num_cpus`` of it) unless one is already initialised in this process.
        on_done: receives ``run_job``'s dict.
        num_cpus: CPUs of a local instance started here (None: Ray's default, all cores).

    Raises:
        ResearchError: Ray is not installed or cannot connect.
    """
    try:
        import ray
    except ImportError as exc:
        raise ResearchError("--executor ray needs Ray: pip install 'evalgap[research]'") from exc
    from evalgap.research.compare import run_job

    try:
        if not ray.is_initialized():
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    except Exception as exc:  # noqa: BLE001 - connection problems become a clear message
        raise ResearchError(f"cannot start or reach Ray ({address or 'local'}): {exc}") from exc
    remote = ray.remote(num_cpus=1, max_retries=1)(run_job)
    pending = [remote.remote(job) for job in jobs]
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            on_done(ray.get(ref))
