"""decode_batch's checks of what a caller gives (lengths, workers, options) and its per-sentence failures: an
empty batch is empty, a sentence without a tree is reported in its slot and the others decoded."""

from __future__ import annotations

import numpy as np
import pytest

from lpparse.batch import decode_batch, decoder_options
from lpparse.families import family_parts
from lpparse.families.base import Parts, tree_scores
from lpparse.families.grandparent import GrandparentParts
from lpparse.families.sibling import SiblingParts
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer


def _padded(lengths: list[int], seed: int = 0) -> np.ndarray:
    size = max(lengths, default=1) + 1
    return np.random.default_rng(seed).normal(size=(len(lengths), size, size))


@pytest.mark.parametrize("lengths", [[4.5, 3], [3, 0], [3, -1], [3, float("nan")], [[3, 2]], ["3", "2"]])
def test_lengths_must_be_whole_and_positive(lengths: list[object]) -> None:
    """4.5 was read as 4, silently."""
    with pytest.raises(ValueError, match="lengths"):
        decode_batch(_padded([5, 5]), lengths, decoder="cle")
    assert len(decode_batch(_padded([5, 5]), [4.0, np.int64(3)], decoder="cle")) == 2


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_workers_must_be_a_positive_whole_number(workers: object) -> None:
    with pytest.raises(ValueError, match="workers: expected a whole number of processes >= 1"):
        decode_batch(_padded([3]), [3], decoder="cle", workers=workers)  # type: ignore[arg-type]


def test_an_unknown_option_names_the_decoder_and_its_options() -> None:
    """The error named an internal class (GrandparentParts.__init__, _first_order.<locals>.run), or bp took
    any option silently."""
    gp = np.zeros((1, 4, 4, 4))
    for decoder, extra in (("cle", {}), ("auto", {"grandparent": gp}), ("exact", {"grandparent": gp}),
                           ("bp", {"grandparent": gp})):
        wanted = f"decoder '{decoder}' has no option 'colour'; its options: "
        with pytest.raises(ValueError, match=wanted) as err:
            decode_batch(_padded([3]), [3], decoder=decoder, colour=1, **extra)
        assert "Parts" not in str(err.value) and "locals" not in str(err.value)
    assert {"preset", "time_limit", "lazy_arcgp", "sibling_preset"} <= (decoder_options("auto") or set())
    assert {"k_best", "proof", "branching"} <= (decoder_options("exact") or set())
    assert decoder_options("cle") == {"pruning", "pruner_scores"}
    assert len(decode_batch(_padded([3]), [3], grandparent=gp, decoder="auto", preset="martins")) == 1


def test_an_empty_batch_is_empty() -> None:
    """It failed with "max() arg is an empty sequence"."""
    assert decode_batch(np.zeros((0, 4, 4)), [], decoder="cle") == []
    assert decode_batch(np.zeros((0, 4, 4)), np.array([], dtype=np.int64), decoder="cle") == []
    assert decode_batch([], decoder="exact") == []


@pytest.mark.parametrize(
    ("decoder", "second_order"),
    [("cle", False), ("eisner", False), ("auto", True), ("exact", True), ("bp", True)],
)
def test_a_sentence_without_a_tree_is_reported_and_others_decoded(decoder: str, second_order: bool) -> None:
    """One sentence's token 2 has no possible head: its slot says so (heads -1, objective -inf); the batch was
    lost before. The same on two worker processes."""
    arcs = _padded([4, 5, 3], seed=1)
    arcs[1, :, 2] = -np.inf
    gp = np.random.default_rng(2).normal(size=(3, 6, 6, 6)) if second_order else None
    for workers in (1, 2):
        results = decode_batch(arcs, [4, 5, 3], grandparent=gp, decoder=decoder, workers=workers)
        assert [r.ok for r in results] == [True, False, True]
        failed = results[1]
        assert "tokens [2] cannot be reached" in (failed.failed or "")
        assert failed.heads.tolist() == [-1] * 6 and failed.objective == -np.inf and not failed.optimal
        assert [len(r.heads) for r in results] == [5, 6, 4] and np.isfinite(results[0].objective)


def _brute_force_best(arcs: np.ndarray, parts: list[Parts], single_root: bool = False) -> float:
    """The best tree's score over the arcs and part families, by enumerating every tree."""
    trees = list(enumerate_trees(arcs.shape[0] - 1, single_root))
    return float(tree_scores(arcs, parts, trees).max())


def test_registered_families_by_name_and_parts_per_sentence_decode_to_brute_force() -> None:
    """``families`` (a registered family's padded scores) and ``parts`` (the caller's families, one list a
    sentence, each sentence a different family) both reach exact decoding, which proves brute force's best."""
    rng = np.random.default_rng(3)
    lengths = [4, 3, 5]
    arcs = _padded(lengths, seed=3)
    tsib = rng.normal(size=(3, 6, 6, 6, 6))
    results = decode_batch(arcs, lengths, families={"trisibling": tsib}, decoder="exact")
    own = [
        [GrandparentParts(DenseTripleScorer(rng.normal(size=(n + 1,) * 3)))]
        if b % 2
        else [SiblingParts(DenseSiblingScorer(rng.normal(size=(n + 1,) * 3)))]
        for b, n in enumerate(lengths)
    ]
    mixed = decode_batch(arcs, lengths, parts=own, decoder="exact")
    for b, n in enumerate(lengths):
        a = arcs[b, : n + 1, : n + 1]
        windows = family_parts({"trisibling": DenseTriSiblingScorer(tsib[b][(slice(0, n + 1),) * 4])}, n)
        assert results[b].optimal and results[b].objective == pytest.approx(_brute_force_best(a, windows))
        assert mixed[b].optimal and mixed[b].objective == pytest.approx(_brute_force_best(a, own[b]))


def test_families_and_parts_are_checked() -> None:
    arcs = _padded([3, 3])
    with pytest.raises(ValueError, match="unknown part family 'nope'; registered: grandparent"):
        decode_batch(arcs, [3, 3], families={"nope": np.zeros((2, 4, 4, 4))}, decoder="exact")
    with pytest.raises(ValueError, match="takes no part families"):
        decode_batch(arcs, [3, 3], families={"consecutive": np.zeros((2, 4, 4, 4))}, decoder="cle")
    with pytest.raises(ValueError, match="1 lists of part families, arcs have 2"):
        decode_batch(arcs, [3, 3], parts=[[]], decoder="exact")
    bad = np.zeros((2, 4, 4, 4, 4))
    bad[1] = np.inf  # every tri-sibling of the second sentence
    with pytest.raises(ValueError, match=r"trisibling\[1\]: the tri-sibling scores hold NaN or \+inf"):
        decode_batch(arcs, [3, 3], families={"trisibling": bad}, decoder="exact")
    with pytest.raises(ValueError, match=r"trisibling: expected shape \(B, N\+1, N\+1, N\+1, N\+1\)"):
        decode_batch(arcs, [3, 3], families={"trisibling": np.zeros((2, 4, 4, 4))}, decoder="exact")
