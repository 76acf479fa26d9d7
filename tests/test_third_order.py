"""Third-order parts: tri-siblings ⟨h, x, a, b⟩ and grand-siblings ⟨g, h, a, b⟩ (lpparse.families.third_order.trisibling,
lpparse.families.third_order.grandsibling, lpparse.families.third_order.family): the parts of a tree by hand and against their
definition, the family kit (valid rows, ILP = best tree, pricing, certificates) with consecutive siblings
alone and with every other family, BF / PPC / exact / proofs against brute force."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lpparse.exact.live import LiveMaster
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer, csib_mask, tree_csibs
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import THIRD_ORDER_BF_BELOW, GrandSiblingParts, TriSiblingParts
from lpparse.families.third_order.grandsibling import (
    DenseGrandSiblingScorer,
    candidate_gsibs,
    count_gsibs,
    gsibs_over,
    max_gsibs_per_tree,
    solve_grandsibling,
    tree_gsibs,
)
from lpparse.families.third_order.trisibling import (
    DenseTriSiblingScorer,
    candidate_tsibs,
    count_tsibs,
    max_tsibs_per_tree,
    solve_trisibling,
    tree_tsibs,
    tsibs_over,
)
from lpparse.family_kit import PURGE_EVERY_ROUND, check_parts, random_arc_scores
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.ppc import solve_lp
from lpparse.ppc.loop import BF_BELOW_PARTS, bf_below, candidate_parts, choose_method
from lpparse.proofs.check import check_proof
from lpparse.scores import SparseParts
from lpparse.trees import allowed_mask_shape
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, check_gsib_batch, check_tsib_batch


def _pruned(rng: np.random.Generator, scores: np.ndarray, share: float = 0.05) -> np.ndarray:
    out = scores.copy()
    out[rng.random(scores.shape) < share] = -np.inf
    return out


#: combinations of families: consecutive siblings with tri-siblings, grand-siblings or both, and all five
COMBOS = ["trisib", "grandsib", "third", "full"]


def _families(rng: np.random.Generator, n: int, combo: str) -> list:
    """Consecutive siblings with the third-order families of ``combo`` (``full``: both, grandparents and
    arbitrary siblings too)."""
    size = n + 1
    out: list = [ConsecutiveSiblingParts(DenseConsecutiveScorer(_pruned(rng, rng.normal(size=(size,) * 3))))]
    if combo != "grandsib":
        out.append(TriSiblingParts(DenseTriSiblingScorer(_pruned(rng, rng.normal(size=(size,) * 4)), slack=0.3)))
    if combo != "trisib":
        out.append(
            GrandSiblingParts(DenseGrandSiblingScorer(_pruned(rng, rng.normal(size=(size,) * 4)), slack=0.3))
        )
    if combo == "full":
        out += [
            GrandparentParts(DenseTripleScorer(rng.normal(size=(size,) * 3))),
            SiblingParts(DenseSiblingScorer(rng.normal(scale=0.5, size=(size,) * 3))),
        ]
    return out


def _brute_force(s: np.ndarray, parts: list, single_root: bool) -> float:
    m = np.arange(1, s.shape[0])
    best = -np.inf
    for heads in enumerate_trees(s.shape[0] - 1, single_root):
        value = float(s[heads[1:], m].sum())
        for part in parts:
            idx = part.tree_parts(heads)
            if idx[0].size:
                value += float(part.scorer.scores[idx].sum())
        best = max(best, value)
    return best


def test_tree_parts_by_hand() -> None:
    # 0 -> 3; 3 has left children 2, 1 (outward: 2 then 1) and right children 4, 5
    heads = np.array([-1, 3, 3, 0, 3, 3])
    got = set(zip(*(x.tolist() for x in tree_tsibs(heads))))
    assert got == {(0, 0, 3, 0), (3, 3, 2, 1), (3, 2, 1, 3), (3, 3, 4, 5), (3, 4, 5, 3)}
    assert len(got) == 5 == max_tsibs_per_tree(5)
    # each part chains two of the tree's windows
    windows = set(zip(*(x.tolist() for x in tree_csibs(heads))))
    assert all((h, x, a) in windows and (h, a, b) in windows for h, x, a, b in got)


@pytest.mark.parametrize("single_root", [False, True])
def test_candidates_count_and_tree_parts_match_their_definitions(single_root: bool) -> None:
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 4, 5):
        mask = allowed_mask_shape(n + 1) & (rng.random((n + 1, n + 1)) > 0.2)
        windows = csib_mask(mask, single_root)
        want = {
            (h, x, a, b)
            for h, x, a, b in itertools.product(range(n + 1), repeat=4)
            if a != h and windows[h, x, a] and windows[h, a, b]
        }
        got = list(zip(*(v.tolist() for v in candidate_tsibs(mask, single_root))))
        assert got == sorted(want) and count_tsibs(mask, single_root) == len(want)
        every = np.array(list(itertools.product(range(n + 1), repeat=4))).T  # the membership test agrees
        over = tsibs_over(mask, single_root, tuple(every))
        assert {tuple(q) for q in every.T[over].tolist()} == want
        for heads in enumerate_trees(n, single_root):
            parts = tree_tsibs(heads)
            assert parts[0].size == n  # one part per token, its middle child
            np.testing.assert_array_equal(np.sort(parts[2]), np.arange(1, n + 1))
            if mask[heads[1:], np.arange(1, n + 1)].all():
                assert set(zip(*(v.tolist() for v in parts))) <= want
            check_tsib_batch(n, *parts)


def test_bad_batches_scores_and_orders_are_refused() -> None:
    with pytest.raises(ValueError, match="needs a token a"):
        check_tsib_batch(3, [1], [1], [1], [2])  # a = h
    with pytest.raises(ValueError, match="needs a token a"):
        check_tsib_batch(3, [0], [2], [1], [3])  # x farther than a
    scores = np.zeros((4,) * 4)
    scores[1, 1, 2, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DenseTriSiblingScorer(scores)
    with pytest.raises(ValueError, match=r"\(n\+1,\)\*4"):
        DenseTriSiblingScorer(np.zeros((4, 4, 4)))
    s = random_arc_scores(3, np.random.default_rng(0), prune=0.0)
    with pytest.raises(ValueError, match="list ConsecutiveSiblingParts before"):
        solve_lp(s, [TriSiblingParts(DenseTriSiblingScorer(np.zeros((4,) * 4)))], "bf")


def test_dense_scorer_bounds_bound_every_part() -> None:
    rng = np.random.default_rng(2)
    scorer = DenseTriSiblingScorer(rng.normal(size=(6,) * 4), slack=0.25)
    h, x, a, b = candidate_tsibs(allowed_mask_shape(6))
    values = scorer.score(h, x, a, b)
    assert scorer.scored == h.size
    first, second = scorer.bound_first(), scorer.bound_second()
    assert (values <= first[h, x, a] - 0.25 + 1e-12).all() and (values <= second[h, a, b] - 0.25 + 1e-12).all()
    # exact up to the slack: some part attains each bound
    assert np.isclose(first[h, x, a] - 0.25, values).any() and np.isclose(second[h, a, b] - 0.25, values).any()


@pytest.mark.parametrize("combo", COMBOS)
def test_the_kit_passes_third_order_families(combo: str) -> None:
    report = check_parts(lambda s, single_root, rng: _families(rng, s.shape[0] - 1, combo), per_size=3, seed=0)
    assert report.sentences + len(report.notes) == 12 and report.trees > 200 and report.entered > 0
    assert report.fractional > 0


def test_ilp_is_the_best_tree_and_zero_scores_leave_the_window_lp_unchanged() -> None:
    rng = np.random.default_rng(8)
    for trial in range(12):
        n, single_root = 2 + trial % 4, bool(trial % 2)
        s = random_arc_scores(n, rng, prune=0.0, single_root=single_root)
        cs, ts = rng.normal(size=(n + 1,) * 3), rng.normal(size=(n + 1,) * 4)
        parts = [
            ConsecutiveSiblingParts(DenseConsecutiveScorer(cs)),
            TriSiblingParts(DenseTriSiblingScorer(ts)),
        ]
        _, mip = solve_trisibling(s, cs, ts, single_root, mip=True)
        assert mip.objective == pytest.approx(_brute_force(s, parts, single_root), abs=1e-6)
        _, zero = solve_trisibling(s, cs, np.zeros_like(ts), single_root)
        windows_only = solve_lp(s, parts[:1], "bf", single_root)
        assert zero.objective == pytest.approx(windows_only.objective, abs=1e-6)


def _instance(n: int, seed: int, single_root: bool, combo: str) -> tuple[np.ndarray, Callable[[], list], float]:
    """Random arc scores, a maker of the same fresh families of ``combo`` (fresh counters each call), and the
    best tree's score by brute force."""
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng, single_root=single_root)
    state = rng.bit_generator.state

    def parts() -> list:
        rng.bit_generator.state = state
        return _families(rng, n, combo)

    return s, parts, _brute_force(s, parts(), single_root)


@settings(deadline=None, max_examples=16, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 6), st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(COMBOS))
def test_bf_ppc_exact_against_brute_force(n: int, seed: int, single_root: bool, combo: str) -> None:
    s, parts, best = _instance(n, seed, single_root, combo)
    if np.isneginf(best):
        return
    counted = candidate_parts(s, parts(), single_root)  # third-order families count without enumerating
    assert counted == sum(p.candidates(np.isfinite(s), single_root)[0].size for p in parts())
    bf = solve_lp(s, parts(), "bf", single_root)
    ppc = solve_lp(s, parts(), "ppc", single_root)
    assert bf.certified and ppc.certified
    assert bf.objective >= best - 1e-6
    assert ppc.objective == pytest.approx(bf.objective, abs=1e-6)
    for name in ppc.counts:
        assert ppc.counts[name].scored <= bf.counts[name].scored == bf.counts[name].candidates
    exact = exact_search(s, parts(), single_root, options=ExactOptions(verify=True))
    assert exact.certified and exact.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, parts(), exact) is None


@settings(deadline=None, max_examples=16, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(COMBOS))
@example(n=5, seed=0, single_root=False, combo="full")  # purged a row again with earlier rows in HiGHS
def test_ppc_that_purges_every_round_reaches_brute_force(
    n: int, seed: int, single_root: bool, combo: str
) -> None:
    """The windows' rows are shared by many parts, so a purge can take out again a row that an earlier round
    brought back (:mod:`lpparse.colgen.purge`), with rows that never left (HiGHS deletes sets in increasing
    order only: the example failed so): the run still ends at BF's LP optimum, certified."""
    s, parts, best = _instance(n, seed, single_root, combo)
    if np.isneginf(best):
        return
    bf = solve_lp(s, parts(), "bf", single_root)
    ppc = solve_lp(s, parts(), "ppc", single_root, options=PURGE_EVERY_ROUND)
    assert bf.certified and ppc.certified
    assert ppc.objective == pytest.approx(bf.objective, abs=1e-6)


@pytest.mark.parametrize("branching", ["arc", "pseudocost"])
@settings(deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 5), st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(COMBOS))
def test_window_families_on_live_masters(branching: str, n: int, seed: int, single_root: bool, combo: str) -> None:
    """Consecutive siblings with tri- and grand-siblings (and grandparents and siblings) as branch-and-bound
    nodes on live masters (:mod:`lpparse.exact.live`): every node below the root solves on its parent's master
    or a copy, with brute force's optimum and a proof that checks, and no node's bound is below the best tree
    over its arcs; a program per node gives the same optimum."""
    s, parts, best = _instance(n, seed, single_root, combo)
    if np.isneginf(best):
        return
    options = ExactOptions(branching=branching, keep_results=True)
    with mock.patch.object(LiveMaster, "solve", autospec=True, side_effect=LiveMaster.solve) as live:
        result = exact_search(s, parts(), single_root, options=options)
    assert result.certified and result.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, parts(), result) is None
    assert live.call_count >= result.stats.nodes - 1  # each node below the root, once or twice (_short)
    for node in result.nodes:
        if node.certificate is not None:
            assert node.bound >= _brute_force(np.where(node.mask, s, -np.inf), parts(), single_root) - 1e-6
    own = exact_search(s, parts(), single_root, options=ExactOptions(branching=branching, live_master=False))
    assert own.certified and own.objective == pytest.approx(best, abs=1e-6)


def test_a_family_without_live_gets_a_program_per_node() -> None:
    """A family whose ``Parts`` does not say ``live`` (one written outside lpparse, say) makes every node solve
    on a program of its own, with the most fractional arc, and the same proved optimum."""

    @dataclasses.dataclass(frozen=True)
    class Outside(TriSiblingParts):
        live = False

    s, parts, best = _instance(5, 1, False, "third")
    outside = [Outside(p.scorer) if isinstance(p, TriSiblingParts) else p for p in parts()]
    assert not LiveMaster.supports(outside) and ExactOptions().rule(outside) == "arc"
    with mock.patch.object(LiveMaster, "solve", autospec=True, side_effect=LiveMaster.solve) as live:
        result = exact_search(s, outside, False, options=ExactOptions(verify=True))
    assert live.call_count == 0 and result.stats.nodes > 1
    assert result.certified and result.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, outside, result) is None


def test_grand_sibling_parts_by_hand() -> None:
    # 0 -> 3; 3 has left children 2, 1 and right child 4; 4 has right child 5
    heads = np.array([-1, 3, 3, 0, 3, 4])
    got = set(zip(*(x.tolist() for x in tree_gsibs(heads))))
    assert got == {(0, 3, 3, 2), (0, 3, 2, 1), (0, 3, 1, 3), (0, 3, 3, 4), (0, 3, 4, 3), (3, 4, 4, 5), (3, 4, 5, 4)}
    windows = set(zip(*(x.tolist() for x in tree_csibs(heads))))
    assert {(h, a, b) for _, h, a, b in got} == {w for w in windows if w[0] > 0}


@pytest.mark.parametrize("single_root", [False, True])
def test_grand_sibling_candidates_count_and_tree_parts(single_root: bool) -> None:
    rng = np.random.default_rng(6)
    for n in (1, 2, 3, 4, 5):
        mask = allowed_mask_shape(n + 1) & (rng.random((n + 1, n + 1)) > 0.2)
        windows = csib_mask(mask, single_root)
        want = {
            (g, h, a, b)
            for g, h, a, b in itertools.product(range(n + 1), repeat=4)
            if h > 0 and mask[g, h] and windows[h, a, b]
        }
        got = list(zip(*(v.tolist() for v in candidate_gsibs(mask, single_root))))
        assert got == sorted(want) and count_gsibs(mask, single_root) == len(want)
        every = np.array(list(itertools.product(range(n + 1), repeat=4))).T  # the membership test agrees
        over = gsibs_over(mask, single_root, tuple(every))
        assert {tuple(q) for q in every.T[over].tolist()} == want
        most = 0
        for heads in enumerate_trees(n, single_root):
            parts = tree_gsibs(heads)
            most = max(most, parts[0].size)
            if mask[heads[1:], np.arange(1, n + 1)].all():
                assert set(zip(*(v.tolist() for v in parts))) <= want
            check_gsib_batch(n, *parts)
        assert most == max_gsibs_per_tree(n)  # attained (the chain)
    with pytest.raises(ValueError, match="needs a token h"):
        check_gsib_batch(3, [1], [0], [0], [2])  # h = 0
    s = random_arc_scores(3, rng, prune=0.0)
    with pytest.raises(ValueError, match="list ConsecutiveSiblingParts before"):
        solve_lp(s, [GrandSiblingParts(DenseGrandSiblingScorer(np.zeros((4,) * 4)))], "bf")


def test_grand_sibling_ilp_is_the_best_tree_and_zero_scores_change_nothing() -> None:
    rng = np.random.default_rng(9)
    for trial in range(12):
        n, single_root = 2 + trial % 4, bool(trial % 2)
        s = random_arc_scores(n, rng, prune=0.0, single_root=single_root)
        cs, gs = rng.normal(size=(n + 1,) * 3), rng.normal(size=(n + 1,) * 4)
        parts = [
            ConsecutiveSiblingParts(DenseConsecutiveScorer(cs)),
            GrandSiblingParts(DenseGrandSiblingScorer(gs)),
        ]
        _, mip = solve_grandsibling(s, cs, gs, single_root, mip=True)
        assert mip.objective == pytest.approx(_brute_force(s, parts, single_root), abs=1e-6)
        _, zero = solve_grandsibling(s, cs, np.zeros_like(gs), single_root)
        assert zero.objective == pytest.approx(solve_lp(s, parts[:1], "bf", single_root).objective, abs=1e-6)


def _sparse(rng: np.random.Generator, parts: tuple, share: float = 0.6) -> SparseParts:
    """A random share of ``parts`` listed with N(0,1) scores (a few -inf), the rest scoring a default."""
    index = np.column_stack(parts)
    keep = rng.random(index.shape[0]) < share
    values = rng.normal(size=int(keep.sum()))
    values[rng.random(values.size) < 0.03] = -np.inf
    return SparseParts(index[keep], values, default=float(rng.normal(scale=0.3)))


def test_parse_and_check_proof_on_a_score_file_with_third_order_parts(tmp_path) -> None:
    """A version-3 score file with arcs, windows, dense tri-siblings and sparse grand-siblings (and one with
    grand-siblings alone, zero windows implied): ``parse --decoder exact`` returns the brute-force optimum
    of every sentence, ``check-proof`` accepts its proofs, ``experiment ppc`` runs BF = PPC on every
    family; a decoder that cannot take the parts is refused."""
    from test_cli_errors import fails, lpparse

    from lpparse.corpus import read_treebank, sample_treebank_path, write_treebank
    from lpparse.scores import SentenceScores, load_scores, save_scores

    sentences = [s for s in read_treebank(sample_treebank_path()) if 2 <= s.n <= 5][:4]
    single_root = all(s.single_rooted for s in sentences)
    treebank = tmp_path / "short.conllu"
    write_treebank(treebank, sentences)
    rng = np.random.default_rng(12)
    entries = []
    for s in sentences:
        size = s.n + 1
        mask = allowed_mask_shape(size)
        entries.append(
            SentenceScores(
                s.sent_id,
                random_arc_scores(s.n, rng, prune=0.0),
                csib=rng.normal(size=(size,) * 3),
                gsib=_sparse(rng, candidate_gsibs(mask)),
                tsib=rng.normal(size=(size,) * 4),
            )
        )
    for name, kept in (("all", entries), ("gsib", [SentenceScores(e.sent_id, e.arcs, gsib=e.gsib) for e in entries])):
        path = tmp_path / f"{name}.npz"
        save_scores(path, kept)
        held = load_scores(path)
        assert held.meta["version"] == 3 and held.grandsiblings and held.windows and held.order == 2
        out, proofs = tmp_path / f"{name}.conllu", tmp_path / f"{name}.proofs.jsonl"
        argv = ["parse", "--scores", path, "--treebank", treebank, "--decoder", "exact", "--out", out]
        done = lpparse(*argv, "--proof", proofs, "--no-progress")
        assert done.returncode == 0, done.stderr
        for entry, sentence in zip(kept, read_treebank(out)):
            parts = entry.window_parts()
            best = _brute_force_scored(np.asarray(entry.arcs), parts, single_root)
            assert _tree_value(np.asarray(entry.arcs), parts, np.asarray(sentence.heads)) == pytest.approx(best, abs=1e-6)
        checked = lpparse("check-proof", proofs, "--scores", path, "--treebank", treebank, "--no-progress")
        assert checked.returncode == 0, checked.stderr
        results = tmp_path / f"{name}-ppc.jsonl"
        run = lpparse("experiment", "ppc", "--scores", path, "--treebank", treebank, "--out", results, "--no-progress")
        assert run.returncode == 0 and "warning" not in run.stderr, run.stderr
    fails(lpparse("parse", "--scores", tmp_path / "all.npz", "--treebank", treebank, "--decoder", "bp"), 2, "third-order")


def _tree_value(s: np.ndarray, parts: list, heads: np.ndarray) -> float:
    value = float(s[heads[1:], np.arange(1, heads.size)].sum())
    for part in parts:
        idx = part.tree_parts(heads)
        if idx[0].size:
            value += float(part.scorer.score(*idx).sum())
    return value


def _brute_force_scored(s: np.ndarray, parts: list, single_root: bool) -> float:
    """The best tree's score, parts scored through their scorers (dense or sparse)."""
    return max(_tree_value(s, parts, h) for h in enumerate_trees(s.shape[0] - 1, single_root))


@pytest.mark.parametrize("family", ["trisibling", "grandsibling"])
def test_programs_refuse_bad_parts_and_keep_pruned_ones_out(family: str) -> None:
    from lpparse.families.consecutive.rows import consecutive_program
    from lpparse.families.third_order.grandsibling import grandsibling_program
    from lpparse.families.third_order.trisibling import trisibling_program
    from lpparse.formulations.arborescence import FORMULATIONS

    s = random_arc_scores(4, np.random.default_rng(1), prune=0.0)
    prog = (trisibling_program if family == "trisibling" else grandsibling_program)(
        consecutive_program(FORMULATIONS["single-flow"](s, False))
    )
    parts = (candidate_tsibs if family == "trisibling" else candidate_gsibs)(allowed_mask_shape(5))
    first = tuple(v[:3] for v in parts)
    with pytest.raises(ValueError, match="lie in 0..4"):
        prog.add_parts(*(v + 5 for v in first), 0.0)
    with pytest.raises(ValueError, match="every .* part"):
        prog.add_parts(*(np.zeros(1, np.int64) for _ in range(4)), 0.0)  # ⟨0, 0, 0, 0⟩ is no part
    with pytest.raises(ValueError, match="NaN"):
        prog.add_parts(*first, np.nan)
    cols = prog.add_parts(*first, [1.0, -np.inf, 2.0])
    assert cols.size == 2 == prog.num_parts  # the pruned part has no column
    assert prog.keys.present(*first).tolist() == [True, False, True] and not prog.keys.new(*first).any()
    np.testing.assert_array_equal(np.column_stack(prog.parts()), np.column_stack(first)[[0, 2]])
    with pytest.raises(ValueError, match="added twice"):
        prog.add_parts(*(v[1:2] for v in first), 0.0)  # the pruned one, again
    with pytest.raises(ValueError, match="added twice"):
        prog.add_parts(*(np.repeat(v[3:4], 2) for v in parts), 0.0)  # a new part listed twice in one batch
    assert prog.keys.new(*(v[3:4] for v in parts)).all()  # a refused batch leaves nothing behind
    assert prog.lp.cost[cols].tolist() == [1.0, 2.0]


def test_auto_runs_brute_force_longer_with_third_order_parts() -> None:
    """``auto``'s crossover follows the families: the default below BF_BELOW_PARTS, a third-order family's
    own (larger) ``bf_below`` when one is in the run; both methods reach the same certified LP."""
    rng = np.random.default_rng(7)
    n = 11
    s = random_arc_scores(n, rng)
    parts = _families(rng, n, "third")
    count = candidate_parts(s, parts)
    assert BF_BELOW_PARTS <= count < bf_below(parts) == THIRD_ORDER_BF_BELOW
    auto = solve_lp(s, parts, "auto")
    assert auto.stats.method == "bf" and choose_method(count) == "ppc"  # the default alone would run PPC
    ppc = solve_lp(s, parts, "ppc")
    assert auto.certified and ppc.certified and auto.objective == pytest.approx(ppc.objective, abs=1e-6)
    assert bf_below([GrandparentParts(DenseTripleScorer(np.zeros((n + 1,) * 3)))]) == BF_BELOW_PARTS
