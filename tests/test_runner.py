"""Resumable experiment runs: kill-and-resume gives the same file; processes and Dask give the same results."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.experiments.first_order import first_order_task
from lpparse.experiments.runner import Task, read_header, read_results, run_tasks
from lpparse.io import UsageError, UserError
from lpparse.trees import NoTreeError
from lpparse.workers import chunk_size, worker_count


def tasks(limit: int = 20) -> list[Task]:
    sentences = read_treebank(sample_treebank_path(), limit=limit)
    return [
        Task(f"{s.sent_id}/seed{i}", {"sentence": s, "seed": i, "noise": 0.5, "single_root": True})
        for i, s in enumerate(sentences)
    ]


def without_times(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if not k.startswith("time_")} for r in records]


def file_without_times(path: Path) -> list[dict]:
    return without_times([json.loads(line) for line in path.read_text().splitlines()])


def test_serial_run_writes_every_task_in_order(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    records = run_tasks(first_order_task, tasks(), out, progress=False)
    assert [r["key"] for r in records] == [t.key for t in tasks()]
    assert [r["key"] for r in read_results(out)] == [t.key for t in tasks()]
    for r in records:
        assert r["objective_eisner"] <= r["objective_cle"] + 1e-9
    # a second run finds everything done and computes nothing
    before = out.read_bytes()
    assert without_times(run_tasks(first_order_task, tasks(), out, progress=False)) == without_times(records)
    assert out.read_bytes() == before


def test_processes_and_dask_match_serial(tmp_path: Path) -> None:
    serial = run_tasks(first_order_task, tasks(), tmp_path / "serial.jsonl", progress=False)
    pooled = run_tasks(first_order_task, tasks(), tmp_path / "pool.jsonl", workers=2, progress=False)
    assert without_times(pooled) == without_times(serial)
    assert file_without_times(tmp_path / "pool.jsonl") == file_without_times(tmp_path / "serial.jsonl")
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            dasked = run_tasks(first_order_task, tasks(), tmp_path / "dask.jsonl", scheduler=client, progress=False)
        by_address = run_tasks(
            first_order_task, tasks(), tmp_path / "dask-address.jsonl", scheduler=cluster.scheduler_address, progress=False
        )
    assert without_times(dasked) == without_times(serial)
    assert without_times(by_address) == without_times(serial)
    assert file_without_times(tmp_path / "dask.jsonl") == file_without_times(tmp_path / "serial.jsonl")


SLOW_RUN = """
import sys, time
from lpparse.experiments import first_order
from lpparse.experiments.runner import run_tasks
sys.path.insert(0, {tests!r})
from test_runner import tasks
real = first_order.first_order_task
def slow(payload):
    time.sleep(0.15)
    return real(payload)
run_tasks(slow, tasks(), {out!r}, progress=False)
"""


def test_killed_run_resumes_to_the_same_file(tmp_path: Path) -> None:
    reference = tmp_path / "reference.jsonl"
    run_tasks(first_order_task, tasks(), reference, progress=False)
    out = tmp_path / "killed.jsonl"
    script = SLOW_RUN.format(tests=str(Path(__file__).parent), out=str(out))
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 5):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    written = len(out.read_text().splitlines())
    assert 5 <= written < len(tasks()), "the run must be killed mid-way"
    with out.open("a") as handle:  # a torn line, as a kill during a write leaves
        handle.write('{"key": "torn')
    run_tasks(first_order_task, tasks(), out, progress=False)
    assert file_without_times(out) == file_without_times(reference)


def test_duplicate_keys_and_corrupt_files(tmp_path: Path) -> None:
    t = tasks(2)
    with pytest.raises(ValueError, match="unique"):
        run_tasks(first_order_task, [t[0], t[0]], tmp_path / "x.jsonl", progress=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": 1\n{"key": "b"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        read_results(bad)


def failing_on_seeds_3_and_4(payload: dict) -> dict:
    if payload["seed"] == 3:
        raise MemoryError("test")
    if payload["seed"] == 4:
        raise NoTreeError("pruned parts leave none")
    return first_order_task(payload)


def test_failed_task_is_recorded_and_computed_again(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    settings = {"noise": 0.5}
    records = run_tasks(failing_on_seeds_3_and_4, tasks(6), out, progress=False, settings=settings)
    assert [r["key"] for r in records] == [t.key for t in tasks(6)]  # nothing lost around the failure
    assert records[3] == {"key": tasks(6)[3].key, "failed": "MemoryError test"}
    assert records[4] == {"key": tasks(6)[4].key, "failed": "no tree: pruned parts leave none"}
    assert all("objective_cle" in r for i, r in enumerate(records) if i not in (3, 4))
    assert read_header(out) == {"format": "lpparse-results", "version": 1, "settings": settings}
    again = run_tasks(first_order_task, tasks(6), out, progress=False, settings=settings)
    assert "objective_cle" in again[3] and "objective_cle" in again[4] and len(out.read_text().splitlines()) == 7  # header + each key once
    with pytest.raises(UsageError, match="noise: 0.5 there, 0.4 here"):
        run_tasks(first_order_task, tasks(6), out, progress=False, settings={"noise": 0.4})


def test_a_second_writer_is_stopped(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with (tmp_path / ".r.jsonl.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        with pytest.raises(UserError, match="being written by another lpparse run"):
            run_tasks(first_order_task, tasks(2), out, progress=False)
    assert len(run_tasks(first_order_task, tasks(2), out, progress=False)) == 2


def test_records_written_twice_count_once(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text('{"key": "a", "x": 1}\n{"key": "b", "x": 2}\n{"key": "a", "x": 3}\n')
    assert read_results(out) == [{"key": "a", "x": 3}, {"key": "b", "x": 2}]


def test_workers_are_capped_by_the_work_and_the_cores() -> None:
    cores = len(os.sched_getaffinity(0))
    assert worker_count(100_000, 2) == min(2, cores)
    assert worker_count(6, 2) <= 2 and worker_count(1, 50) == 1 and worker_count(3, 0) == 1
    assert worker_count(100_000, 100_000) == cores


def test_chunks_are_small_while_every_worker_gets_many_tasks() -> None:
    assert chunk_size(578, 2) == 4 and chunk_size(100, 2) == 3 and chunk_size(20, 2) == 1
    assert chunk_size(10_000, 8, most=6) == 6 and chunk_size(0, 1) == 1
    for tasks, workers in ((578, 2), (100, 2), (5_000, 16)):
        assert tasks // chunk_size(tasks, workers) >= min(tasks, 16 * workers)


def scaled(common: dict, payload: int) -> tuple[int, int]:
    return payload * common["factor"], os.getpid()


def test_ordered_map_sends_what_every_task_needs_once() -> None:
    from distributed import Client, LocalCluster

    from lpparse.workers import ordered_map

    common = {"factor": 3, "ballast": np.zeros(10_000)}
    want = [3 * i for i in range(40)]
    here = list(ordered_map(scaled, range(40), 1, common=common))
    assert [r for r, _ in here] == want and {pid for _, pid in here} == {os.getpid()}
    pooled = list(ordered_map(scaled, range(40), 2, window=4, common=common))
    assert [r for r, _ in pooled] == want
    chunked = list(ordered_map(scaled, range(41), 2, window=3, common=common, chunk=4))  # a last, short chunk
    assert [r for r, _ in chunked] == [*want, 120]
    assert [r for r in ordered_map(abs, range(-7, 0), 2, chunk=3)] == [7, 6, 5, 4, 3, 2, 1]
    if len(os.sched_getaffinity(0)) >= 2:
        assert os.getpid() not in {pid for _, pid in pooled} | {pid for _, pid in chunked}
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            assert [r for r, _ in ordered_map(scaled, range(40), scheduler=client, common=common)] == want
            chunked = ordered_map(scaled, list(range(41)), scheduler=client, common=common, chunk=4)
            assert [r for r, _ in chunked] == [*want, 120]
