"""Work on many cores or a Dask cluster: an ordered, windowed map over local worker processes or a cluster's
workers, and what every runner of lpparse shares (the pool whose workers die with the run, the cluster
client whose lost scheduler is a one-line error, the scheduler check that fails fast).

Local workers are forked (Linux), so they start with the parent's modules and data; ``PR_SET_PDEATHSIG`` kills
them when the run's process dies. Used by :mod:`lpparse.experiments.runner` (resumable runs), by parsing,
training and exporting scores.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import functools
import importlib.util
import logging
import multiprocessing
import os
import signal
import socket
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any
from urllib.parse import urlsplit

from lpparse.io import UsageError, UserError

__all__ = [
    "SCHEDULER_NOTE",
    "WORKER_WAIT",
    "check_scheduler",
    "chunk_size",
    "cluster",
    "ordered_map",
    "process_pool",
    "stop_pool",
    "worker_count",
]

#: prctl(2) option: the signal a process gets when its parent dies
_PR_SET_PDEATHSIG = 1


#: Seconds a run waits for a Dask scheduler to have a worker (:func:`cluster`) before it fails: a scheduler
#: without workers would hold every task for ever, silently
WORKER_WAIT = 30.0
#: What the help of every ``--scheduler`` option adds
SCHEDULER_NOTE = (
    f"needs Dask (pip install 'lpparse[dask]'); fails if no worker joins within {WORKER_WAIT:g} s"
)


def check_scheduler(address: str) -> None:
    """Fail fast with a :class:`UsageError` unless Dask's ``distributed`` is installed (the ``dask`` extra),
    a TCP connection to the Dask scheduler opens in 5 s and, over plain TCP, the server starts its handshake
    within 5 s (a silent server would hang the client)."""
    if importlib.util.find_spec("distributed") is None:
        raise UsageError(
            f"--scheduler {address}: needs Dask's distributed package: pip install 'lpparse[dask]'"
        )
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if parts.scheme not in ("tcp", "tls") or not host or port is None:
        raise UsageError(f"--scheduler {address!r}: expected an address such as tcp://HOST:8786")
    try:
        sock = socket.create_connection((host, port), timeout=5)
    except OSError as err:
        raise UsageError(f"--scheduler {address}: cannot connect ({err.strerror or err})") from None
    with sock:
        if parts.scheme == "tcp":  # a Dask scheduler sends its handshake as soon as it accepts a connection
            try:
                sock.recv(1)
            except TimeoutError:
                raise UsageError(
                    f"--scheduler {address}: no Dask scheduler answered (silent for 5 s)"
                ) from None
            except OSError:
                pass  # reset or closed: the client's own handshake below says what it is



def _die_with_parent(parent: int) -> None:
    """Worker initializer (Linux): the kernel kills this worker when the run's process dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the run died before the call above
        os._exit(1)


def process_pool(workers: int) -> ProcessPoolExecutor:
    if not sys.platform.startswith("linux"):
        return ProcessPoolExecutor(max_workers=workers)
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    )


def worker_count(requested: int, tasks: int) -> int:
    """Local worker processes for ``tasks`` tasks: the ``requested`` number, but never more than the tasks nor
    than the cores this process may run on (``os.sched_getaffinity``; more would only compete for them)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(requested, tasks, cores))



def chunk_size(tasks: int, workers: int, most: int = 4) -> int:
    """Payloads per task for :func:`ordered_map` (``chunk``): ``most`` (``parse --workers 2`` on Danish dev,
    four sentences a task: 7% faster than one), while every worker still gets at least 16 tasks (a slow task
    at the end idles the others)."""
    return max(1, min(most, tasks // (16 * max(workers, 1))))


def ordered_map(
    func: Callable[..., Any],
    payloads: Sequence[Any],
    workers: int = 1,
    window: int | None = None,
    scheduler: Any = None,
    common: Any = None,
    chunk: int = 1,
) -> Iterator[Any]:
    """``func`` over ``payloads`` on local worker processes (:func:`worker_count` of them) or, with
    ``scheduler`` (an address or a ``distributed.Client``), on a Dask cluster; the results in the payloads'
    order. At most ``window`` tasks (default: 32 per local worker, 64 on a cluster) are submitted ahead of the
    result due next (a slow task does not idle the other workers), so a long input holds a bounded number of
    tasks and results in memory. One local worker: in this process. An interrupt or error stops the local
    workers at once; a worker that dies, or a lost scheduler, is a :class:`UserError`.

    With ``common`` (not None), the calls are ``func(common, payload)``: what every task needs is sent once,
    not with each payload. Forked local workers inherit it from this process (no copy at all); a cluster
    gets it once (``scatter``, to every worker).

    With ``chunk`` > 1 (:func:`chunk_size`), workers take ``chunk`` consecutive payloads a task (as
    ``Executor.map``'s ``chunksize``): fewer round trips for many short tasks; the window counts tasks."""
    if chunk > 1 and (scheduler is not None or worker_count(workers, len(payloads)) > 1):
        chunks = [payloads[start : start + chunk] for start in range(0, len(payloads), chunk)]
        each = functools.partial(_each, func)
        for results in ordered_map(each, chunks, workers, window, scheduler=scheduler, common=common):
            yield from results
        return
    if common is not None:
        func = functools.partial(_with_common, func)
    if scheduler is not None:
        yield from _ordered_dask(func, payloads, window or 64, scheduler, common)
        return
    workers = worker_count(workers, len(payloads))
    if workers <= 1:
        yield from (func(payload, common) if common is not None else func(payload) for payload in payloads)
        return
    global _COMMON
    _COMMON = common  # a forked worker starts with it (a spawned one gets a copy with each task)
    pool = process_pool(workers)
    forked = sys.platform.startswith("linux")  # as _pool starts them
    try:
        for result in _windowed(
            lambda payload: pool.submit(func, payload) if forked or common is None else pool.submit(func, payload, common),
            payloads,
            window or 32 * workers,
        ):
            yield result
    except BrokenProcessPool:
        stop_pool(pool)
        raise UserError("a worker process died (killed, or out of memory?)") from None
    except BaseException:
        stop_pool(pool)
        raise
    finally:
        _COMMON = None
    pool.shutdown(wait=True)


#: the ``common`` object of the running :func:`ordered_map` (inherited by its forked workers)
_COMMON: Any = None


def _each(func: Callable[..., Any], *args: Any) -> list[Any]:
    """``func`` over one chunk of payloads (the last argument; before it, the ``common`` object if any)."""
    *common, payloads = args
    return [func(*common, payload) for payload in payloads]


def _with_common(func: Callable[[Any, Any], Any], payload: Any, common: Any = None) -> Any:
    """``func(common, payload)``, ``common`` passed along or else inherited (:data:`_COMMON`)."""
    return func(_COMMON if common is None else common, payload)


def _windowed(submit: Callable[[Any], Any], payloads: Sequence[Any], window: int) -> Iterator[Any]:
    """The results of ``submit(payload)`` futures in order, at most ``window`` of them pending."""
    ahead: deque[Any] = deque()
    feed = iter(payloads)
    for payload in feed:
        ahead.append(submit(payload))
        if len(ahead) >= window:
            break
    while ahead:
        result = ahead.popleft().result()
        for payload in feed:
            ahead.append(submit(payload))
            break
        yield result


def _ordered_dask(
    func: Callable[..., Any], payloads: Sequence[Any], window: int, scheduler: Any, common: Any = None
) -> Iterator[Any]:
    with cluster(scheduler) as client:
        # scattered whole, in a list: a dict or tuple given alone would be scattered item by item (a dict's
        # items under its keys as names, which a later run's items of the same names would collide with)
        extra = () if common is None else (client.scatter([common], broadcast=True, hash=False)[0],)
        yield from _windowed(lambda payload: client.submit(func, payload, *extra, pure=False), payloads, window)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and terminate the workers at once (shutdown alone waits for the running
    tasks; ``_processes`` is the executor's own table of its worker processes)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _client(address: str) -> Any:
    """A Dask client of the scheduler at ``address`` (:class:`UsageError` when none answers in 10 s)."""
    from distributed import Client

    try:
        return Client(address, timeout=10)
    except Exception as err:  # refused, timed out, or a server that does not speak Dask's protocol
        raise UsageError(
            f"--scheduler {address}: no Dask scheduler answered ({type(err).__name__}: {err})"
        ) from None


#: what a Dask future raises when the scheduler connection is lost (Dask cancels every future:
#: FutureCancelledError, a concurrent.futures.CancelledError)
_LOST = (OSError, asyncio.CancelledError, concurrent.futures.CancelledError)


@contextlib.contextmanager
def cluster(scheduler: Any, resume: str = "") -> Iterator[Any]:
    """A client of ``scheduler`` (an address, or a client used as is), with the client's own logging of its
    reconnection attempts (tracebacks) held back; a lost scheduler is a one-line :class:`UserError`, and so is
    a scheduler with no worker after :data:`WORKER_WAIT` seconds."""
    from distributed import Client

    client = scheduler if isinstance(scheduler, Client) else _client(scheduler)
    client_log = logging.getLogger("distributed.client")
    level = client_log.level
    client_log.setLevel(logging.CRITICAL)
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except TimeoutError:
            address = getattr(client.scheduler, "address", scheduler)
            raise UserError(
                f"--scheduler {address}: no Dask worker joined the scheduler in {WORKER_WAIT:g} s "
                "(start workers with 'dask worker ADDRESS')"
            ) from None
        yield client
    except _LOST as err:
        why = str(err).splitlines()[0] if str(err) else ""
        raise UserError(
            f"lost the Dask scheduler {scheduler} ({type(err).__name__}: {why}){resume}"
        ) from None
    finally:
        if client is not scheduler:
            client.close()
        client_log.setLevel(level)
