"""Resumable per-sentence experiment runs: local processes or a Dask cluster, one JSONL file of results.

Each task is one unit of work (usually one sentence under one configuration) with a unique string key.
Results are appended to the JSONL file **in task order** as they finish, one JSON object per line, flushed
and fsync'ed, so a run that is killed loses at most the results still waiting for an earlier task; a new
run with the same file skips every key already written and appends the rest. The file of an interrupted
and resumed run is therefore the same, line by line, as that of an uninterrupted one (up to the measured
times it records).

With ``settings``, the file's first line is a header record ``{"header": {"format", "version", "settings"}}``
and a run on a file of other settings is refused (:class:`~lpparse.io.UsageError`), so results of different
set-ups never mix; only the header line of an existing file is read before it matches (:func:`read_header`).
A lock file beside the results (``.NAME.lock``, ``fcntl.flock``, removed at the end) stops a second writer.
The results file must be a new name or a regular file (:func:`lpparse.io.regular_output`).
A task that fails for want of memory, or because its sentence has no tree, is recorded as ``{"failed": reason}`` and the run goes on; records that
failed or say ``"time_limited": true`` are computed again by the next run on the file.

Workers: ``workers=1`` runs in this process; ``workers>1`` uses a local process pool whose workers die with
the run (Linux: ``PR_SET_PDEATHSIG``); ``scheduler`` (an address such as ``tcp://127.0.0.1:8786``, or a
``distributed.Client``) sends the tasks to a Dask cluster. The task function must be a picklable top-level
function and deterministic given its task (seed it from the task), so every backend gives identical results.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from lpparse.io import DataError, UsageError, UserError, atomic_write, regular_output
from lpparse.trees import NoTreeError
from lpparse.workers import check_scheduler, cluster, ordered_map, process_pool, stop_pool, worker_count

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


@dataclass(frozen=True)
class Task:
    """One unit of work: ``key`` is unique within a run and names the result in the JSONL file."""

    key: str
    payload: Any


#: The longest header line :func:`read_header` reads: a results file's header (format, version, settings)
#: is far shorter, and a file that is not one is never read further
HEADER_BYTES = 1 << 20


def _lines(path: Path) -> Iterator[Record]:
    """The JSON objects of a results file, one line at a time (a torn last line from a killed run is
    ignored)."""
    if not path.exists():
        return
    with path.open(encoding="utf-8") as handle:
        torn: int | None = None  # the number of a line that is not JSON: fine only if it is the last
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if torn is not None:
                raise DataError(f"{path}:{torn}: not a JSON record")
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                torn = number


def read_results(path: str | Path) -> list[Record]:
    """Every complete record of a JSONL results file, the header left out; a key written twice (by an
    older lpparse) counts once, with its last record."""
    records = {r["key"]: r for r in _lines(Path(path)) if "key" in r}
    return list(records.values())


def read_header(path: str | Path) -> Record | None:
    """The header record of a results file, or None if it has none (no file, an empty one, or a first line
    that is not a header). Reads the first line alone, at most :data:`HEADER_BYTES` of it."""
    path = Path(path)
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        first = handle.readline(HEADER_BYTES)
    try:
        record = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    header = record.get("header") if isinstance(record, dict) else None
    return header if isinstance(header, dict) else None


def incomplete(record: Record) -> bool:
    """True for a record that the next run computes again: its task failed or hit a time limit."""
    return bool(record.get("failed") or record.get("time_limited"))


def completed_keys(path: str | Path) -> set[str]:
    return {r["key"] for r in read_results(path) if not incomplete(r)}


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold the lock of ``out`` (a lock file beside it, removed at the end) or fail at once if another run
    holds it. A run that locked a lock file another run removed meanwhile takes the new one instead."""
    lock = out.with_name(f".{out.name}.lock")
    while True:
        handle = lock.open("a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise UserError(
                f"{out} is being written by another lpparse run; wait for it or use another --out"
            ) from None
        try:
            if os.stat(lock).st_ino == os.fstat(handle.fileno()).st_ino:
                break
        except FileNotFoundError:
            pass
        handle.close()  # removed by the run that held it: lock the file now at that name
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)  # while locked: a run that opened it meanwhile sees it gone and retries
        handle.close()


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
    if settings is not None and header is None and out.exists() and out.stat().st_size > 0:
        raise UsageError(
            f"{out} exists and is not an lpparse results file with a settings header (another file, or one "
            "written by an older lpparse); use another --out"
        )
    records = read_results(out)  # a file of this run's settings (or the caller asked for none)
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


def _local(
    func: Callable[[Any], Record], tasks: Sequence[Task], workers: int
) -> Iterator[tuple[int, Record]]:
    workers = worker_count(workers, len(tasks))
    if workers <= 1:
        for i, task in enumerate(tasks):
            yield i, func(task.payload)
        return
    pool = process_pool(workers)
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
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


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
    out = regular_output(out, "results file")  # never a device or FIFO: it is read back, then appended to
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
