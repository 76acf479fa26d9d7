"""Resumable per-sentence experiment runs: local processes or a Dask cluster, one JSONL file of results.

Each task is one unit of work (usually one sentence under one configuration) with a unique string key.
Results are appended to the JSONL file **in task order** as they finish, one JSON object per line, flushed
and fsync'ed, so a run that is killed loses at most the results still waiting for an earlier task; a new
run with the same file skips every key already written and appends the rest. The file of an interrupted
and resumed run is therefore the same, line by line, as that of an uninterrupted one (up to the measured
times it records).

Workers: ``workers=1`` runs in this process; ``workers>1`` uses a local process pool; ``scheduler`` (an
address such as ``tcp://127.0.0.1:8786``, or a ``distributed.Client``) sends the tasks to a Dask cluster.
The task function must be a picklable top-level function and deterministic given its task (seed it from
the task), so every backend gives identical results.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

__all__ = ["Task", "completed_keys", "read_results", "run_tasks"]

Record = dict[str, Any]


@dataclass(frozen=True)
class Task:
    """One unit of work: ``key`` is unique within a run and names the result in the JSONL file."""

    key: str
    payload: Any


def read_results(path: str | Path) -> list[Record]:
    """Every complete record of a JSONL results file (a torn last line from a killed run is ignored)."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    with path.open(encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if number < len(lines) - 1:  # only the last line may be torn
                raise ValueError(f"{path}:{number}: not a JSON record") from None
    return records


def completed_keys(path: str | Path) -> set[str]:
    return {r["key"] for r in read_results(path)}


def _truncate_torn_tail(path: Path) -> None:
    """Drop a partial last line left by a killed run, so appended records start on a fresh line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def _local(func: Callable[[Any], Record], tasks: Sequence[Task], workers: int) -> Iterator[tuple[int, Record]]:
    if workers <= 1:
        for i, task in enumerate(tasks):
            yield i, func(task.payload)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: dict[Future[Record], int] = {pool.submit(func, t.payload): i for i, t in enumerate(tasks)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()


def _dask(func: Callable[[Any], Record], tasks: Sequence[Task], scheduler: Any) -> Iterator[tuple[int, Record]]:
    from distributed import Client, as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = client.map(func, [t.payload for t in tasks], key=[f"lpparse-{t.key}" for t in tasks], pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for future in as_completed(futures):
            yield index[future.key], future.result()
    finally:
        if client is not scheduler:
            client.close()


def run_tasks(
    func: Callable[[Any], Record],
    tasks: Iterable[Task],
    out: str | Path,
    workers: int = 1,
    scheduler: Any = None,
    progress: bool = True,
    desc: str = "tasks",
) -> list[Record]:
    """Run ``func(task.payload)`` for every task whose key is not yet in ``out``; return all records of
    ``out`` in task order (old and new). Each record gets the task's ``key``."""
    tasks = list(tasks)
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise ValueError("task keys must be unique")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _truncate_torn_tail(out)
    done = completed_keys(out)
    todo = [t for t in tasks if t.key not in done]
    stream = _dask(func, todo, scheduler) if scheduler is not None else _local(func, todo, workers)
    waiting: dict[int, Record] = {}
    next_index = 0
    with out.open("a", encoding="utf-8") as handle, tqdm(
        total=len(tasks), initial=len(tasks) - len(todo), desc=desc, unit="task", disable=not progress
    ) as bar:
        for i, record in stream:
            waiting[i] = {"key": todo[i].key, **record}
            bar.update(1)
            while next_index in waiting:
                handle.write(json.dumps(waiting.pop(next_index), sort_keys=True) + "\n")
                next_index += 1
            handle.flush()
            os.fsync(handle.fileno())
    by_key = {r["key"]: r for r in read_results(out)}
    return [by_key[k] for k in keys if k in by_key]
