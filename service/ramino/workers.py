"""``ramino serve --workers N``: N server processes on one port.

The parent starts N worker processes (multiprocessing, spawn start method:
no state of the parent is forked into them); each runs the whole server of
``ramino serve`` bound with ``SO_REUSEPORT`` to the same host and port, and
the kernel spreads new connections over them. They share games through the
store, so only a store that several processes can share is accepted: Redis
(``redis://``) and Redis Cluster (``redis+cluster://``). The memory store
lives in one process; the sqlite store's group commit and its cache of games
assume one writer process.

The parent forwards SIGTERM and SIGINT to every worker (each drains as a
single server does) and exits 0 once all have exited. A worker that exits
when it was not told to (a crash, a kill, a store it cannot reach at start)
is logged (``worker_died``, with its pid and exit code); the parent then
stops the other workers the same way and exits 1, so that the supervisor
(systemd, Kubernetes) restarts the whole server. Games lose nothing: every
acknowledged move is in the store, and bots and turn timers run under
per-game leases that the surviving or restarted workers take over.

Metrics: worker ``i`` (from 0) serves them on ``--metrics-port`` + ``i``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.connection
import os
import secrets
import signal
from collections.abc import Callable
from types import FrameType

import structlog

log = structlog.get_logger("ramino.workers")

SHARED_STORES = ("redis://", "redis+cluster://", "rediss://", "rediss+cluster://")
"""Prefixes of the store URLs that several worker processes can share."""


def unshared_store(store: str) -> str | None:
    """Why ``store`` cannot be shared by several worker processes; None when it can."""
    if store == "memory":
        return "the memory store lives in one process and is not shared"
    if store.startswith("sqlite:"):
        return "the sqlite store's group commit and cached games assume one writer process"
    if store.startswith(SHARED_STORES):
        return None
    return f"the store {store[:40]!r} is not one of redis:// or redis+cluster:// (rediss:// too)"


def workers_refused(store: str, workers: int) -> str | None:
    """The startup error for ``--workers workers`` with ``store``; None when allowed."""
    if workers < 1:
        return f"ramino serve: --workers must be at least 1, not {workers}"
    if workers == 1:
        return None
    reason = unshared_store(store)
    if reason is None:
        return None
    return (
        f"ramino serve: --workers {workers} needs a store shared across processes "
        f"(redis:// or redis+cluster://): {reason}"
    )


def supervise(args: argparse.Namespace, target: Callable[[argparse.Namespace, int], None]) -> int:
    """Runs ``target(args, i)`` in ``args.workers`` spawned processes until
    they have all exited; 0 if they were told to stop, 1 if one died."""
    if not os.environ.get("RAMINO_TOKEN_SECRET") and not os.environ.get("RAMINO_TOKEN_SECRET_FILE"):
        # every worker must accept the seat tokens the others issue
        os.environ["RAMINO_TOKEN_SECRET"] = secrets.token_hex(32)
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=target, args=(args, i), name=f"ramino-worker-{i}")
        for i in range(args.workers)
    ]
    stopping: list[int] = []  # the signal the workers were sent, once they were

    def stop_all(signum: int) -> None:
        if not stopping:
            stopping.append(signum)
        for worker in workers:
            if worker.pid is not None and worker.exitcode is None:
                try:
                    os.kill(worker.pid, signum)
                except ProcessLookupError:
                    pass

    def forward(signum: int, frame: FrameType | None) -> None:
        log.info("stopping_workers", signal=signal.Signals(signum).name)
        stop_all(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        for worker in workers:
            worker.start()
            if stopping:  # a signal came while the workers were starting
                stop_all(stopping[0])
        log.info("workers", count=len(workers), pids=[w.pid for w in workers])
        died = False
        running = list(workers)
        while running:
            multiprocessing.connection.wait([w.sentinel for w in running])
            for worker in [w for w in running if not w.is_alive()]:
                worker.join()
                running.remove(worker)
                if stopping:
                    log.info("worker_stopped", pid=worker.pid, exitcode=worker.exitcode)
                    continue
                died = True
                log.error(
                    "worker_died",
                    worker=workers.index(worker),
                    pid=worker.pid,
                    exitcode=worker.exitcode,
                    action="stopping the other workers; exit status 1",
                )
                stop_all(signal.SIGTERM)
        log.info("stopped", workers=len(workers))
        return 1 if died else 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
