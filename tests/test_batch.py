"""Batch decoding of another model's scores (lpparse.batch): padded arrays or sequences, array-likes, the same
results in this process, on two workers and on a Dask client, and against brute force."""

from __future__ import annotations

import os

import numpy as np
import pytest

from lpparse.batch import decode_batch
from lpparse.families.base import tree_score
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer, synthetic_csib_scorer
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.triples import DenseTripleScorer

LENGTHS = [3, 5, 2, 6, 4]


class TensorLike:
    """What a CPU torch tensor offers numpy: ``__array__`` alone."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __array__(self, dtype=None, copy=None):  # noqa: ANN001, ANN204
        return self._array if dtype is None else self._array.astype(dtype)


def _batch(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    size = max(LENGTHS) + 1
    arcs = np.full((len(LENGTHS), size, size), 1e9)  # padding: must be ignored
    gp = np.full((len(LENGTHS), size, size, size), 1e9)
    csib = np.full((len(LENGTHS), size, size, size), 1e9)
    for b, n in enumerate(LENGTHS):
        arcs[b, : n + 1, : n + 1] = rng.normal(size=(n + 1, n + 1))
        gp[b, : n + 1, : n + 1, : n + 1] = rng.normal(size=(n + 1,) * 3)
        csib[b, : n + 1, : n + 1, : n + 1] = synthetic_csib_scorer(n, rng).scores
    return arcs, gp, csib


def _best(s: np.ndarray, parts: list) -> tuple[float, np.ndarray]:
    return max(((tree_score(s, parts, h), h) for h in enumerate_trees(s.shape[0] - 1)), key=lambda t: t[0])


def test_padded_batch_matches_brute_force_and_every_way_to_run() -> None:
    arcs, gp, csib = _batch()
    results = decode_batch(
        TensorLike(arcs), np.array(LENGTHS), grandparent=TensorLike(gp), consecutive=csib, decoder="exact"
    )
    assert len(results) == len(LENGTHS)
    for b, (n, r) in enumerate(zip(LENGTHS, results)):
        s = arcs[b, : n + 1, : n + 1]
        parts = [
            GrandparentParts(DenseTripleScorer(gp[b, : n + 1, : n + 1, : n + 1])),
            ConsecutiveSiblingParts(DenseConsecutiveScorer(csib[b, : n + 1, : n + 1, : n + 1])),
        ]
        value, heads = _best(s, parts)
        assert r.optimal and r.objective == pytest.approx(value, abs=1e-7) and r.bound >= value - 1e-6
        np.testing.assert_array_equal(r.heads, heads)
    sequences = [arcs[b, : n + 1, : n + 1] for b, n in enumerate(LENGTHS)]
    gps = [gp[b, : n + 1, : n + 1, : n + 1] for b, n in enumerate(LENGTHS)]
    csibs = [csib[b, : n + 1, : n + 1, : n + 1] for b, n in enumerate(LENGTHS)]
    again = decode_batch(sequences, grandparent=gps, consecutive=csibs, decoder="exact")
    assert [r.objective for r in again] == [r.objective for r in results]
    if len(os.sched_getaffinity(0)) >= 2:
        pooled = decode_batch(sequences, grandparent=gps, consecutive=csibs, decoder="exact", workers=2)
        assert all(
            np.array_equal(a.heads, b.heads) and a.objective == b.objective for a, b in zip(pooled, results)
        )
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            dasked = decode_batch(
                sequences, grandparent=gps, consecutive=csibs, decoder="exact", client=client
            )
    assert all(
        np.array_equal(a.heads, b.heads) and a.objective == b.objective for a, b in zip(dasked, results)
    )


def test_first_order_and_lp_decoders_and_errors() -> None:
    arcs, gp, _ = _batch(1)
    first = decode_batch(arcs, LENGTHS, decoder="cle", single_root=True)
    assert all(r.optimal and r.bound is None and (r.heads[1:] == 0).sum() == 1 for r in first)
    lp = decode_batch(arcs, LENGTHS, grandparent=gp, decoder="auto")
    assert all(r.bound >= r.objective - 1e-6 and r.optimal == r.stats["integral"] for r in lp)
    with pytest.raises(ValueError, match="unknown decoder"):
        decode_batch(arcs, LENGTHS, decoder="nope")
    with pytest.raises(ValueError, match="grandparent: expected shape"):
        decode_batch(arcs, LENGTHS, grandparent=gp[:2], decoder="auto")
    with pytest.raises(ValueError, match="N\\+1 >= 8"):
        decode_batch(arcs, [3, 5, 2, 7, 4], decoder="cle")
    bad = arcs.copy()
    bad[2, 1, 2] = np.nan
    with pytest.raises(ValueError, match=r"arcs\[2\]: NaN"):
        decode_batch(bad, LENGTHS, decoder="cle")
    with pytest.raises(ValueError, match="a single sentence"):
        decode_batch(arcs[0], decoder="cle")
