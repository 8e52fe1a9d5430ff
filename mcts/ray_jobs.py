"""Jobs as Ray tasks on a local private instance or a cluster, their results streamed back.

Self-play (``council-ai selfplay``) and the ladder (``council-ai ladder run``) both hand their
games to ``run_ray_jobs`` when given ``--ray-address``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable


def run_ray_jobs(
    function: Callable, jobs: Iterable, record: Callable, address: str, workers: int | None
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
        queue = list(reversed(list(jobs)))
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
