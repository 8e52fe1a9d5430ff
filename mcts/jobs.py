"""Games as jobs: run in this process, in a pool of worker processes, or as Ray tasks on a
local private instance or a cluster, each result handed back as it arrives.

Self-play (``council-ai selfplay``) and the ladder (``council-ladder run``) both play their
games through ``run_jobs``. The function and the jobs must pickle (a module-level function,
plain data); ``record`` runs here, in the calling process, once per result:

    >>> from council.mcts.jobs import run_jobs
    >>> results = []
    >>> run_jobs(abs, [-3, 1, -2], results.append, workers=1)  # one worker: in this process
    >>> results
    [3, 1, 2]

With more workers, or Ray, the results arrive in the order the jobs finish.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any


@contextlib.contextmanager
def progress_bar(total: int, initial: int, desc: str, enabled: bool = True) -> Iterator[Any]:
    """A tqdm bar of finished games on stderr for the block (None when not `enabled`)."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(
        total=total, initial=initial, unit="game", desc=desc, file=sys.stderr, dynamic_ncols=True
    )
    try:
        yield bar
    finally:
        bar.close()


def run_jobs(
    function: Callable,
    jobs: Sequence,
    record: Callable,
    workers: int | None = None,
    ray_address: str | None = None,
) -> None:
    """Call ``record(function(job))`` for every job: as Ray tasks with ``ray_address``, else
    in ``workers`` processes (default: every core), in this process when that is one or
    there is a single job. ``function`` must be a module-level function (it is pickled)."""
    workers = workers or os.cpu_count() or 1
    if not jobs:
        return
    if ray_address:
        run_ray_jobs(function, jobs, record, ray_address, workers)
    elif workers <= 1 or len(jobs) == 1:
        for job in jobs:
            record(function(job))
    else:
        _run_pool(function, jobs, record, workers)


def _run_pool(function: Callable, jobs: Sequence, record: Callable, workers: int) -> None:
    """A pool of fresh (spawned) processes: no gRPC or thread state is inherited by fork."""
    context = multiprocessing.get_context("spawn")
    limit = 4 * workers  # jobs queued at once; the rest wait here
    queue = list(reversed(jobs))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        running: set[Future] = set()
        try:
            while queue or running:
                while queue and len(running) < limit:
                    running.add(pool.submit(function, queue.pop()))
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    record(future.result())
        except BaseException:
            for future in running:
                future.cancel()
            raise


def run_ray_jobs(
    function: Callable, jobs: Sequence, record: Callable, address: str, workers: int | None
) -> None:
    """Run ``function(job)`` for every job as a Ray task and pass each result to ``record``
    as it arrives. ``address`` is a cluster's address or ``local`` (a private instance on
    the loopback interface with ``workers`` CPUs); Ray is shut down again if started here.
    At most twice the cluster's CPUs are in flight; an error cancels the rest."""
    if address == "local":
        # A private single-machine instance: keep all of Ray's sockets on the loopback
        # interface (Ray otherwise binds the machine's network address).
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "--ray-address needs Ray: pip install 'council-ai[ladder-ray]'"
        ) from None
    started = False
    if not ray.is_initialized():
        if address == "local":
            from ray._private import ray_constants

            ray_constants.ENABLE_RAY_CLUSTER = False  # in case Ray was imported before
            ray.init(
                address="local",
                num_cpus=workers or None,
                include_dashboard=False,
                log_to_driver=False,
                # The driver and the raylet must agree on the node's address, also when Ray
                # was imported (and read its settings) before this call.
                _node_ip_address="127.0.0.1",
            )
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=2)(function)
        limit = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
        queue = list(reversed(jobs))
        running: list = []
        try:
            while queue or running:
                while queue and len(running) < limit:
                    running.append(task.remote(queue.pop()))
                done, running = ray.wait(running, num_returns=1)
                for ref in done:
                    record(ray.get(ref))
        except BaseException:
            for ref in running:
                ray.cancel(ref, force=True)
            raise
    finally:
        if started:
            ray.shutdown()
