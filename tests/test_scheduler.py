"""Dask scheduling: ``parse --scheduler`` runs on the cluster's workers whatever the input's length (the
chunked path of :func:`lpparse.workers.ordered_map` kept the scheduler), and a scheduler without workers fails
with one line after :data:`lpparse.workers.WORKER_WAIT` instead of hanging. One small in-process cluster for
the module; its worker records the key of every task it runs (:class:`Recorder`)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from lpparse import workers
from lpparse.batch import decode_batch
from lpparse.cli import main
from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.parsing import parse
from lpparse.scoring import Model

SAMPLE = sample_treebank_path()


class Recorder(distributed.WorkerPlugin):
    """Keeps, on its worker, the key of every task the worker finished (``worker.lpparse_ran``)."""

    name = "lpparse-recorder"

    def setup(self, worker: Any) -> None:
        self.worker = worker
        worker.lpparse_ran = []

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if start == "executing" and finish == "memory":
            self.worker.lpparse_ran.append(str(key))


def ran(client: Any) -> list[str]:
    """The keys of the tasks the cluster's workers ran so far."""
    return [key for keys in client.run(lambda dask_worker: dask_worker.lpparse_ran).values() for key in keys]


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as client:
        client.register_plugin(Recorder())
        yield client


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "m.npz"
    assert main(["train", "--treebank", str(SAMPLE), "--epochs", "1", "--limit", "10", "--out", str(path),
                 "--no-progress"]) == 0
    return path


@pytest.fixture(scope="module")
def idle_scheduler() -> Iterator[str]:
    options = {"processes": False, "protocol": "tcp", "dashboard_address": ":0"}
    with distributed.LocalCluster(n_workers=0, **options) as cluster:
        yield cluster.scheduler_address


@pytest.fixture()
def empty_scheduler(idle_scheduler: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The address of a scheduler with no worker; runs wait for one 0.5 s."""
    monkeypatch.setattr(workers, "WORKER_WAIT", 0.5)
    return idle_scheduler


def test_parse_runs_on_the_cluster_for_long_inputs(client: Any, model: Path, tmp_path: Path) -> None:
    """50 sentences: more than 32, so the sentences travel in chunks of 3 (17 tasks), each run by the worker;
    the trees are those of a local parse. The command line sends its 17 tasks too."""
    sentences = read_treebank(SAMPLE)
    assert len(sentences) >= 32
    loaded = Model.load(model)
    local = parse(loaded, sentences, "cle")
    before = len(ran(client))
    remote = parse(loaded, sentences, "cle", scheduler=client)
    assert len(ran(client)) - before == 17
    assert all(np.array_equal(a.heads, b.heads) for a, b in zip(local, remote))
    out = tmp_path / "p.conllu"
    address = client.scheduler.address
    before = len(ran(client))
    argv = ["parse", "--model", str(model), "--treebank", str(SAMPLE), "--out", str(out), "--no-progress"]
    assert main([*argv, "--scheduler", address]) == 0
    assert len(ran(client)) - before == 17
    assert [s.heads.tolist() for s in read_treebank(out)] == [r.heads.tolist() for r in local]


def test_decode_batch_runs_on_the_client(client: Any) -> None:
    rng = np.random.default_rng(0)
    arcs = [rng.normal(size=(n + 1, n + 1)) for n in (3, 4, 5)]
    before = len(ran(client))
    results = decode_batch(arcs, decoder="cle", client=client)
    assert len(ran(client)) - before == 3
    here = decode_batch(arcs, decoder="cle")
    assert [r.heads.tolist() for r in results] == [r.heads.tolist() for r in here]


@pytest.mark.parametrize(
    "argv",
    [
        ["parse", "--treebank", str(SAMPLE), "--limit", "2"],
        ["scores", "export", "--treebank", str(SAMPLE), "--out", "s.npz"],
        ["experiment", "ppc", "--synthetic", "--limit", "1", "--out", "e.jsonl"],
        ["dd", "--synthetic", "--limit", "1", "--out", "d.jsonl"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_scheduler_without_workers_fails_in_one_line(
    argv: list[str], empty_scheduler: str, model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    if argv[0] in ("parse", "scores"):
        argv = [*argv, "--model", str(model)]
    assert main([*argv, "--scheduler", empty_scheduler, "--no-progress"]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "no Dask worker joined the scheduler in 0.5 s" in lines[0], lines
    assert empty_scheduler in lines[0]


def test_a_scheduler_without_dask_installed_is_a_usage_error(
    model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Long inputs "worked" without Dask (decoded in-process); now any --scheduler needs it, said at once."""
    real = importlib.util.find_spec
    hidden = lambda name, *args: None if name == "distributed" else real(name, *args)
    monkeypatch.setattr(importlib.util, "find_spec", hidden)
    argv = ["parse", "--model", str(model), "--treebank", str(SAMPLE), "--scheduler", "tcp://127.0.0.1:1"]
    assert main(argv) == 2
    assert "needs Dask's distributed package: pip install 'lpparse[dask]'" in capsys.readouterr().err
