"""Training by iterative parameter mixing (``TrainConfig.workers``): one learner through the parallel path is
the sequential trainer exactly; local processes and a Dask cluster give the same weights; the mixture is
the mean of the learners' weights and of their averaged weights; dev decoding on workers is unchanged."""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pytest
from distributed import Client, LocalCluster

from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.parsing import evaluate, parse
from lpparse.scoring import Model, Vocabulary
from lpparse.training import TrainConfig, _Averager, _Learned, _Learner, _mix, train

SAMPLE = read_treebank(sample_treebank_path())
TRAIN, DEV = SAMPLE[:36], SAMPLE[36:]
VOCAB = Vocabulary.build(TRAIN)
TWO_CORES = len(os.sched_getaffinity(0)) >= 2

#: (order, trainer, decoder): the averaged perceptron and both AdaGrad trainers, one of them over the LP
CASES = [(1, "perceptron", None), (2, "hinge", "auto"), (2, "cll", None)]


def _trained(order: int, trainer: str, decoder: str | None, client=None, **options) -> tuple[Model, list]:
    model = Model(VOCAB, order=order, bits=16, single_root=False)
    config = TrainConfig(trainer=trainer, epochs=2, patience=2, progress=False, decoder=decoder, **options)
    history = train(model, TRAIN, DEV, config, scheduler=client)
    return model, history


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            yield c


@pytest.mark.parametrize(("order", "trainer", "decoder"), CASES)
def test_one_learner_on_a_cluster_is_the_sequential_trainer(order, trainer, decoder, client) -> None:
    serial, serial_history = _trained(order, trainer, decoder)
    mixed, mixed_history = _trained(order, trainer, decoder, client, mix_every=7)  # rounds of 7 sentences
    np.testing.assert_array_equal(mixed.weights, serial.weights)
    # the same losses, summed by round
    assert [r.loss for r in mixed_history] == pytest.approx([r.loss for r in serial_history], rel=1e-12)
    assert [r.dev_uas for r in mixed_history] == [r.dev_uas for r in serial_history]


@pytest.mark.parametrize(("order", "trainer", "decoder"), CASES)
def test_two_learners_same_weights_on_processes_and_on_a_cluster(order, trainer, decoder, client) -> None:
    serial, _ = _trained(order, trainer, decoder)
    on_cluster, history = _trained(order, trainer, decoder, client, workers=2, mix_every=5)
    assert not np.array_equal(on_cluster.weights, serial.weights)  # mixing is not the sequential trainer
    assert all(r.train_sentences == len(TRAIN) for r in history)
    assert history[-1].dev_uas > 0.5  # it learns (an untrained model scores about 0.1 here)
    if TWO_CORES:
        local, local_history = _trained(order, trainer, decoder, workers=2, mix_every=5)
        np.testing.assert_array_equal(local.weights, on_cluster.weights)
        assert [r.loss for r in local_history] == [r.loss for r in history]


def _learned(learner: _Learner, rng: np.random.Generator, steps: int) -> _Learned:
    """A learner's round from ``learner``'s state: ``steps`` random perceptron updates on a copy."""
    w, u = learner.model.weights.copy(), learner.averager.u.copy()
    own = _Averager(w.size)
    own.u, own.count = u, learner.averager.count
    touched = []
    for _ in range(steps):
        idx = rng.integers(0, w.size, 3)
        own.step(w, idx, rng.normal(size=3))
        own.count += 1
        touched.append(idx)
    slots = np.unique(np.concatenate(touched))
    return _Learned(slots, w[slots], own.u[slots], own.count, 0.0, 0, 0, steps), w, own.averaged(w)


def test_mixing_averages_the_weights_and_the_averaged_weights() -> None:
    rng = np.random.default_rng(3)
    model = Model(VOCAB, order=1, bits=6)
    model.weights = rng.normal(size=model.weights.size)
    learner = _Learner.start(model, TrainConfig(trainer="perceptron"), 10)
    learner.averager.u = rng.normal(size=model.weights.size)
    learner.averager.count = 11
    rounds = [_learned(learner, rng, steps) for steps in (4, 6, 5)]  # unequal shares
    _mix(learner, [r[0] for r in rounds])
    np.testing.assert_allclose(model.weights, np.mean([r[1] for r in rounds], axis=0), atol=1e-12)
    np.testing.assert_allclose(learner.averaged(), np.mean([r[2] for r in rounds], axis=0), atol=1e-12)
    assert learner.averager.count == 11 + 6


def test_mixing_adagrad_sums_the_squared_gradients() -> None:
    rng = np.random.default_rng(4)
    model = Model(VOCAB, order=1, bits=6)
    learner = _Learner.start(model, TrainConfig(trainer="cll"), 10)
    learner.adagrad.squares[:] = 1.0
    before = learner.adagrad.squares.copy()
    ones = []
    for _ in range(2):
        w, sq = model.weights.copy(), before.copy()
        idx = rng.choice(w.size, 5, replace=False)
        w[idx] += 1.0
        sq[idx] += 2.0
        slots = np.sort(idx)
        ones.append((_Learned(slots, w[slots], sq[slots], 0, 0.0, 0, 0, 1), w, sq))
    _mix(learner, [o[0] for o in ones])
    np.testing.assert_allclose(model.weights, (ones[0][1] + ones[1][1]) / 2)
    np.testing.assert_allclose(learner.adagrad.squares, ones[0][2] + ones[1][2] - before)


def test_parse_on_workers_and_on_a_cluster_is_the_same(client) -> None:
    model, _ = _trained(2, "cll", None)
    one = parse(model, DEV, "auto")
    on_cluster = parse(model, DEV, "auto", scheduler=client)
    assert all(np.array_equal(a.heads, b.heads) for a, b in zip(one, on_cluster))
    assert evaluate(model, DEV, "auto", scheduler=client).uas == evaluate(model, DEV, "auto").uas
    if TWO_CORES:
        local = parse(model, DEV, "auto", workers=2)
        assert all(np.array_equal(a.heads, b.heads) and a.objective == b.objective for a, b in zip(one, local))


def test_bad_worker_options_are_refused() -> None:
    model = Model(VOCAB, order=1, bits=6)
    for bad in (dict(workers=0), dict(mix_every=0)):
        with pytest.raises(ValueError, match="workers and mix_every"):
            train(model, TRAIN, [], replace(TrainConfig(progress=False), **bad))


def test_train_command_on_two_workers(tmp_path, capsys) -> None:
    from lpparse.cli import main

    sample = str(sample_treebank_path())
    out = tmp_path / "m.npz"
    argv = ["train", "--treebank", sample, "--dev", sample, "--dev-limit", "10", "--out", str(out)]
    argv += ["--trainer", "perceptron", "--epochs", "2", "--bits", "14", "--no-progress", "--limit", "30"]
    assert main([*argv, "--workers", "2", "--mix-every", "4"]) == 0
    model = Model.load(out)
    assert model.training["config"]["workers"] == 2 and model.training["config"]["mix_every"] == 4
    assert "epoch 2:" in capsys.readouterr().out
    assert main([*argv, "--scheduler", "localhost:1"]) == 2  # no scheduler there: a usage error
    assert "--scheduler" in capsys.readouterr().err
