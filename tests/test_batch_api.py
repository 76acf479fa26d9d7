"""decode_batch's checks of what a caller gives (lengths, workers, options) and its per-sentence failures: an
empty batch is empty, a sentence without a tree is reported in its slot and the others decoded."""

from __future__ import annotations

import numpy as np
import pytest

from lpparse.batch import decode_batch, decoder_options


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
