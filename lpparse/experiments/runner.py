"""Resumable per-sentence experiment runs: local processes or a Dask cluster, one JSONL file of results.

Each task is one unit of work (usually one sentence under one configuration) with a unique string key.
Results are appended to the JSONL file **in task order** as they finish, one JSON object per line, flushed
and fsync'ed, so a run that is killed loses at most the results still waiting for an earlier task; a new
run with the same file skips every key already written and appends the rest. The file of an interrupted
and resumed run is therefore the same, line by line, as that of an uninterrupted one (up to the measured
times it records).

With ``settings``, the file's first line is a header record ``{"header": {"format", "version", "settings"}}``
and a run on a file of other settings is refused (:class:`~lpparse.io.UsageError`), so results of different
set-ups never mix. A lock file beside the results (``.NAME.lock``, ``fcntl.flock``) stops a second writer.
A task that fails for want of memory, or because its sentence has no tree, is recorded as ``{"failed": reason}`` and the run goes on; records that
failed or say ``"time_limited": true`` are computed again by the next run on the file.

Workers: ``workers=1`` runs in this process; ``workers>1`` uses a local process pool whose workers die with
the run (Linux: ``PR_SET_PDEATHSIG``); ``scheduler`` (an address such as ``tcp://127.0.0.1:8786``, or a
``distributed.Client``) sends the tasks to a Dask cluster. The task function must be a picklable top-level
function and deterministic given its task (seed it from the task), so every backend gives identical results.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import fcntl
import functools
import json
import logging
import multiprocessing
import os
import signal
import socket
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tqdm import tqdm

from lpparse.io import DataError, UsageError, UserError, atomic_write
from lpparse.trees import NoTreeError

__all__ = [
    "Task",
    "check_scheduler",
    "ordered_map",
    "completed_keys",
    "incomplete",
    "read_header",
    "read_results",
    "run_tasks",
    "worker_count",
]

Record = dict[str, Any]
HEADER_FORMAT, HEADER_VERSION = "lpparse-results", 1
#: prctl(2) option: the signal a process gets when its parent dies
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Task:
    """One unit of work: ``key`` is unique within a run and names the result in the JSONL file."""

    key: str
    payload: Any


def _lines(path: Path) -> Iterator[Record]:
    """The JSON objects of a results file (a torn last line from a killed run is ignored)."""
    if not path.exists():
        return
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            if number < len(lines) - 1:  # only the last line may be torn
                raise DataError(f"{path}:{number}: not a JSON record") from None


def read_results(path: str | Path) -> list[Record]:
    """Every complete record of a JSONL results file, the header left out; a key written twice (by an
    older lpparse) counts once, with its last record."""
    records = {r["key"]: r for r in _lines(Path(path)) if "key" in r}
    return list(records.values())


def read_header(path: str | Path) -> Record | None:
    """The header record of a results file, or None if it has none."""
    first = next(_lines(Path(path)), None)
    return first["header"] if first is not None and "header" in first else None


def incomplete(record: Record) -> bool:
    """True for a record that the next run computes again: its task failed or hit a time limit."""
    return bool(record.get("failed") or record.get("time_limited"))


def completed_keys(path: str | Path) -> set[str]:
    return {r["key"] for r in read_results(path) if not incomplete(r)}


def check_scheduler(address: str) -> None:
    """Fail fast with a :class:`UsageError` unless a TCP connection to the Dask scheduler opens in 5 s and,
    over plain TCP, the server starts its handshake within 5 s (a silent server would hang the client)."""
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


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold the lock of ``out`` (a lock file beside it) or fail at once if another run holds it."""
    with out.with_name(f".{out.name}.lock").open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(
                f"{out} is being written by another lpparse run; wait for it or use another --out"
            ) from None
        yield


def _prepare(out: Path, settings: Record | None) -> None:
    """Make ``out`` ready to append to: torn tail and records to recompute dropped, header checked or
    written."""
    header = read_header(out)
    if settings is not None and header is not None and header.get("settings") != settings:
        theirs = header.get("settings") or {}
        diff = "; ".join(
            f"{k}: {theirs.get(k)!r} there, {settings.get(k)!r} here"
            for k in sorted(set(theirs) | set(settings))
            if theirs.get(k) != settings.get(k)
        )
        raise UsageError(f"{out} holds results of other settings ({diff}); use another --out")
    records = read_results(out)
    if settings is not None and header is None and out.exists() and out.stat().st_size > 0:
        raise UsageError(
            f"{out} exists and is not an lpparse results file with a settings header (another file, or one "
            "written by an older lpparse); use another --out"
        )
    if header is None and settings is not None:
        header = {"format": HEADER_FORMAT, "version": HEADER_VERSION, "settings": settings}
    lines = [{"header": header}] if header is not None else []
    with atomic_write(out) as handle:
        handle.writelines(json.dumps(r, sort_keys=True) + "\n" for r in lines + records if not incomplete(r))


def _guarded(func: Callable[[Any], Record], payload: Any) -> Record:
    """``func(payload)``, or ``{"failed": reason}`` if it ran out of memory or its sentence has no tree (pruned
    arcs or parts leave none)."""
    try:
        return func(payload)
    except MemoryError as err:
        return {"failed": f"MemoryError {err}".strip()}
    except NoTreeError as err:
        return {"failed": f"no tree: {err}"}


def _die_with_parent(parent: int) -> None:
    """Worker initializer (Linux): the kernel kills this worker when the run's process dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the run died before the call above
        os._exit(1)


def _pool(workers: int) -> ProcessPoolExecutor:
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


def _local(
    func: Callable[[Any], Record], tasks: Sequence[Task], workers: int
) -> Iterator[tuple[int, Record]]:
    workers = worker_count(workers, len(tasks))
    if workers <= 1:
        for i, task in enumerate(tasks):
            yield i, func(task.payload)
        return
    pool = _pool(workers)
    try:
        pending: dict[Future[Record], int] = {pool.submit(func, t.payload): i for i, t in enumerate(tasks)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                i = pending.pop(future)
                try:
                    yield i, future.result()
                except BrokenProcessPool:
                    raise UserError(
                        f"a worker process died (killed, or out of memory?) on task {tasks[i].key}; "
                        "results so far are kept, run again to resume"
                    ) from None
    except BaseException:  # an interrupt (or an error): stop the workers now rather than finish every task
        _stop(pool)
        raise
    pool.shutdown(wait=True)


def ordered_map(
    func: Callable[..., Any],
    payloads: Sequence[Any],
    workers: int = 1,
    window: int | None = None,
    scheduler: Any = None,
    common: Any = None,
) -> Iterator[Any]:
    """``func`` over ``payloads`` on local worker processes (:func:`worker_count` of them) or, with
    ``scheduler`` (an address or a ``distributed.Client``), on a Dask cluster; the results in the payloads'
    order. At most ``window`` tasks (default: 32 per local worker, 64 on a cluster) are submitted ahead of the
    result due next (a slow task does not idle the other workers), so a long input holds a bounded number of
    tasks and results in memory. One local worker: in this process. An interrupt or error stops the local
    workers at once; a worker that dies, or a lost scheduler, is a :class:`UserError`.

    With ``common`` (not None), the calls are ``func(common, payload)``: what every task needs is sent once,
    not with each payload. Forked local workers inherit it from this process (no copy at all); a cluster
    gets it once (``scatter``, to every worker)."""
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
    pool = _pool(workers)
    forked = sys.platform.startswith("linux")  # as _pool starts them
    try:
        for result in _windowed(
            lambda payload: pool.submit(func, payload) if forked or common is None else pool.submit(func, payload, common),
            payloads,
            window or 32 * workers,
        ):
            yield result
    except BrokenProcessPool:
        _stop(pool)
        raise UserError("a worker process died (killed, or out of memory?)") from None
    except BaseException:
        _stop(pool)
        raise
    finally:
        _COMMON = None
    pool.shutdown(wait=True)


#: the ``common`` object of the running :func:`ordered_map` (inherited by its forked workers)
_COMMON: Any = None


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
        extra = () if common is None else (client.scatter(common, broadcast=True, hash=False),)
        yield from _windowed(lambda payload: client.submit(func, payload, *extra, pure=False), payloads, window)


def _stop(pool: ProcessPoolExecutor) -> None:
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
    reconnection attempts (tracebacks) held back; a lost scheduler is a one-line :class:`UserError`."""
    from distributed import Client

    client = scheduler if isinstance(scheduler, Client) else _client(scheduler)
    client_log = logging.getLogger("distributed.client")
    level = client_log.level
    client_log.setLevel(logging.CRITICAL)
    try:
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


def _dask(
    func: Callable[[Any], Record], tasks: Sequence[Task], scheduler: Any
) -> Iterator[tuple[int, Record]]:
    from distributed import as_completed

    with cluster(scheduler, "; results so far are kept, run again to resume") as client:
        futures = client.map(
            func, [t.payload for t in tasks], key=[f"lpparse-{t.key}" for t in tasks], pure=False
        )
        index = {f.key: i for i, f in enumerate(futures)}
        for future in as_completed(futures):
            yield index[future.key], future.result()


def run_tasks(
    func: Callable[[Any], Record],
    tasks: Iterable[Task],
    out: str | Path,
    workers: int = 1,
    scheduler: Any = None,
    progress: bool = True,
    desc: str = "tasks",
    settings: Record | None = None,
) -> list[Record]:
    """Run ``func(task.payload)`` for every task whose key is not yet complete in ``out``; return all records
    of ``out`` in task order (old and new). Each record gets the task's ``key``. With ``settings`` (a JSON
    object of what the results depend on) the file carries them in its header and must match them."""
    tasks = list(tasks)
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise ValueError("task keys must be unique")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with _locked(out):
        _prepare(out, settings)
        done = completed_keys(out)
        todo = [t for t in tasks if t.key not in done]
        guarded = functools.partial(_guarded, func)
        stream = _dask(guarded, todo, scheduler) if scheduler is not None else _local(guarded, todo, workers)
        waiting: dict[int, Record] = {}
        next_index = 0
        with (
            out.open("a", encoding="utf-8") as handle,
            tqdm(
                total=len(tasks), initial=len(tasks) - len(todo), desc=desc, unit="task", disable=not progress
            ) as bar,
        ):
            try:
                for i, record in stream:
                    waiting[i] = {"key": todo[i].key, **record}
                    bar.update(1)
                    while next_index in waiting:
                        handle.write(json.dumps(waiting.pop(next_index), sort_keys=True) + "\n")
                        next_index += 1
                    handle.flush()
                    os.fsync(handle.fileno())
            finally:  # interrupted: keep every finished record, in any order (a resumed run reads them by key)
                handle.writelines(json.dumps(r, sort_keys=True) + "\n" for r in waiting.values())
                handle.flush()
                stream.close()  # stops the workers at once if the run did not finish (_local, _dask)
    by_key = {r["key"]: r for r in read_results(out)}
    return [by_key[k] for k in keys if k in by_key]
