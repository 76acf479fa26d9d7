"""Exact grandparent decoding with a proof (:mod:`lpparse.exact.search`) against brute-force enumeration, the
projective grandparent DP and its own certificate check; the hill-climbing heuristic against recomputed
tree scores."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpparse.ppc.loop as loop
from lpparse.colgen import ColgenOptions, Warm
from lpparse.colgen.cache import ScoreCache
from lpparse.decoding import decode
from lpparse.exact.branching import PseudoCosts
from lpparse.exact.decoder import lp_summary
from lpparse.exact.heuristics import improve_along_lp, improve_tree, lp_moves, move_gains, tree_value
from lpparse.exact.live import LiveMaster
from lpparse.exact.search import ExactOptions, check_records
from lpparse.exact.second_order import check_exact, parse_exact
from lpparse.families import family_parts
from lpparse.families.base import exact_parts, tree_score, tree_scores
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.pyomo_view import PyomoModel
from lpparse.lp.solution import Status
from lpparse.oracles.brute_force import all_trees, brute_force, enumerate_trees
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.ppc import parse_price_cut
from lpparse.ppc.loop import second_order_parts, solve_lp
from lpparse.proofs.check import ProofProgram, label_duals, signed
from lpparse.proofs.record import proof_record, read_proof_record
from lpparse.proofs.search_tree import ExactResult
from lpparse.trees import NoTreeError, allowed_arcs, check_tree_exists, is_tree
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, sibling_mask

SETTINGS = settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def gaussian(draw: st.DrawFn, max_n: int = 7) -> tuple[np.ndarray, np.ndarray, bool]:
    """n = 2..max_n, N(0,1) arc and triple scores (fractional LP optima are common), some arcs pruned."""
    n = draw(st.integers(2, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    single_root = draw(st.booleans())
    s = rng.normal(size=(n + 1, n + 1))
    pruned = s.copy()
    pruned[rng.random(s.shape) < draw(st.sampled_from([0.0, 0.0, 0.25]))] = -np.inf
    try:
        check_tree_exists(pruned, single_root)
        s = pruned
    except NoTreeError:
        pass
    return s, rng.normal(size=(n + 1,) * 3), single_root


def _fractional_instance(n: int = 7) -> tuple[np.ndarray, np.ndarray, bool]:
    """A seeded Gaussian instance whose root LP is fractional (found by search, asserted by the tests)."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s, t = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
        if not parse_price_cut(s, DenseTripleScorer(t), "all", False).integral:
            return s, t, False
    raise AssertionError("no fractional instance")


@pytest.mark.parametrize("preset", ["all", "martins", "onegp"])
@SETTINGS
@given(gaussian())
def test_exact_equals_brute_force(preset: str, inst: tuple[np.ndarray, np.ndarray, bool]) -> None:
    s, t, single_root = inst
    result = parse_exact(s, DenseTripleScorer(t), preset, single_root)
    heads, value = brute_force(s, single_root, gp_scores=t)
    assert result.status is Status.OPTIMAL and result.certified
    assert result.objective == pytest.approx(value, abs=1e-7)
    np.testing.assert_array_equal(result.heads, heads)  # Gaussian scores: the optimum is unique
    assert result.objective - 1e-9 <= result.bound <= result.objective + 1e-5 * (1 + abs(value))
    assert check_exact(s, DenseTripleScorer(t), result, preset=preset) is None


@pytest.mark.parametrize("live", [False, True])
@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian(max_n=6))
def test_reliability_branching_gives_the_brute_force_optimum_with_a_proof(
    live: bool, inst: tuple[np.ndarray, np.ndarray, bool]
) -> None:
    """Reliability branching (probes on each node's master, pseudo-costs from its children), with grandparent
    and sibling parts, a program per node or live masters: brute force's optimum, a proof that checks."""
    s, t, single_root = inst
    sibs = np.random.default_rng(int(abs(t[0, 0, 0]) * 1e6)).normal(size=t.shape)
    options = ExactOptions(branching="pseudocost", live_master=live)
    for sib in (None, DenseSiblingScorer(sibs)):
        result = parse_exact(s, DenseTripleScorer(t), "all", single_root, options=options, sibling_scorer=sib)
        _, value = brute_force(s, single_root, gp_scores=t, sib_scores=sibs if sib is not None else None)
        assert result.status is Status.OPTIMAL and result.certified
        assert result.objective == pytest.approx(value, abs=1e-7)
        assert check_exact(s, DenseTripleScorer(t), result, sibling_scorer=sib) is None


@pytest.mark.parametrize("preset", ["all", "martins"])
@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian())
def test_a_live_master_gives_the_brute_force_optimum_with_a_proof(
    preset: str, inst: tuple[np.ndarray, np.ndarray, bool]
) -> None:
    """Nodes as bound changes on their parent's master or a copy of it (:mod:`lpparse.exact.live`): the same
    optimum, and a proof that the standalone check accepts."""
    s, t, single_root = inst
    options = ExactOptions(live_master=True, verify=True, keep_results=True)
    result = parse_exact(s, DenseTripleScorer(t), preset, single_root, options=options)
    heads, value = brute_force(s, single_root, gp_scores=t)
    assert result.status is Status.OPTIMAL and result.certified
    assert result.objective == pytest.approx(value, abs=1e-7)
    np.testing.assert_array_equal(result.heads, heads)
    assert check_exact(s, DenseTripleScorer(t), result, preset=preset) is None
    below = [r.program for i, r in result.node_results.items() if i > 0]
    assert all(program is not result.node_results[0].program for program in below)  # the root keeps a copy
    for node in result.nodes:  # each node's LP is its own: a node closed by an integral LP has a tree of its arcs
        if node.closed == "integral":
            assert node.mask[node.tree[1:], np.arange(1, node.tree.size)].all()


def test_a_live_master_goes_on_from_the_roots_own_master() -> None:
    """The search's live master is the root's restricted master itself (:meth:`LiveMaster.adopt`): the
    root's LP on it, or on a copy with the root's basis copied inside HiGHS (:meth:`LiveMaster.fork`), takes
    no simplex iteration (a master built anew from the root's parts took 1,948 on Hungarian dev #152), and
    the root's record keeps a program of its own."""
    s, t, _ = _fractional_instance(12)
    root = solve_lp(s, second_order_parts(DenseTripleScorer(t), "all"), "ppc", False, keep_master=True)
    master, program, bound = root.master, root.program, root.certificate.dual_objective
    assert isinstance(master, HighsModel)
    live = LiveMaster.adopt(root, master, s, False, ColgenOptions())
    assert live.prog is program and root.program is not program and root.solution.lp is root.program.lp
    twin = live.fork()  # another child's copy: its own program and HiGHS model, the scores shared
    assert twin.prog is not program and twin.engine.live is not master
    assert twin.engine.live.lp is twin.prog.lp and twin.engine.live.highs is not master.highs
    assert twin.families[0].cache is live.families[0].cache
    for copy_ in (twin, live):  # both hold the root's basis
        again = copy_.solve(allowed_arcs(s), None)
        assert again is not None and again.certified
        assert again.rounds[0].simplex_iterations == 0
        assert again.certificate.dual_objective == pytest.approx(bound, abs=1e-7)


def test_a_live_master_branches_on_bound_changes() -> None:
    s, t, single_root = _fractional_instance()
    _, value = brute_force(s, single_root, gp_scores=t)
    # the node LPs separate the cuts too (node_cuts), so that each node's bound is its own LP's optimum
    options = ExactOptions(live_master=True, keep_results=True, node_cuts=True)
    result = parse_exact(s, DenseTripleScorer(t), "all", single_root, options=options)
    assert result.certified and result.objective == pytest.approx(value, abs=1e-9)
    assert result.stats.nodes > 2 and check_exact(s, DenseTripleScorer(t), result) is None
    master = result.node_results[max(result.node_results)].program
    assert result.node_results[0].program is not master  # the root's record keeps a copy of its program
    below = {id(r.program) for i, r in result.node_results.items() if i > 0}
    assert len(below) > 1  # a child took its parent's master over, another solved on a fork of it
    lp = master.lp
    dropped = ~master.arc_mask & (master.z_col >= 0)  # the last node's dropped arcs: columns fixed at 0
    assert dropped.any() and (lp.col_upper[master.z_col[dropped]] == 0).all()
    solved = [node for node in result.nodes if node.certificate is not None]
    assert len(solved) > 2
    assert result.base == "cycle-cuts"
    chains = exact_parts([GrandparentParts(DenseTripleScorer(t))])  # the GPChain cuts of exact decoding
    for node in solved:  # each node's bound is its own LP's optimum: brute force over the node's arcs, on the
        # multi-commodity flow base, whose LP is the cycle-cut base's with every cut (the arborescence polytope),
        # with the GPChain cuts (separated to a violation of CHAIN_TOL: hence the tolerance); or, for a node LP
        # stopped at the incumbent (ColgenOptions.cutoff), a bound above it that closes the node
        arcs = np.where(node.mask, s, -np.inf)
        own = solve_lp(arcs, chains, "bf", single_root, "multi-flow")
        if node.certificate.kind == "ppc-bound":
            assert node.closed == "bound" and own.objective - 1e-3 <= node.bound <= value + 1e-6, node.id
        else:
            assert node.bound == pytest.approx(own.objective, abs=1e-3), node.id


@pytest.mark.parametrize("with_triples", [True, False])
@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian(max_n=6))
def test_live_masters_carry_sibling_parts(
    with_triples: bool, inst: tuple[np.ndarray, np.ndarray, bool]
) -> None:
    """Sibling parts (with or without triples) on live masters: every node below the root solves on its
    parent's master or a copy (its sibling family restricted to the node's arcs), with brute force's optimum
    and a proof that checks; no node's bound is below the optimum of the trees it holds."""
    s, t, single_root = inst
    sibs = np.random.default_rng(int(abs(t[0, 0, 0]) * 1e6)).normal(size=t.shape)
    triples = DenseTripleScorer(t) if with_triples else None
    options = ExactOptions(live_master=True, keep_results=True)
    with mock.patch.object(LiveMaster, "solve", autospec=True, side_effect=LiveMaster.solve) as live:
        result = parse_exact(
            s, triples, "all", single_root, options=options, sibling_scorer=DenseSiblingScorer(sibs)
        )
    _, value = brute_force(s, single_root, gp_scores=t if with_triples else None, sib_scores=sibs)
    assert result.status is Status.OPTIMAL and result.certified
    assert result.objective == pytest.approx(value, abs=1e-7)
    assert check_exact(s, triples, result, sibling_scorer=DenseSiblingScorer(sibs)) is None
    assert live.call_count > 0 or result.stats.nodes == 1
    for node in result.nodes:
        if node.certificate is not None and node.tree is not None:
            arcs = np.where(node.mask, s, -np.inf)
            _, best = brute_force(arcs, single_root, gp_scores=t if with_triples else None, sib_scores=sibs)
            assert node.bound >= best - 1e-7


@pytest.mark.parametrize("with_triples", [True, False])
@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian(max_n=6))
def test_exact_with_sibling_parts_equals_brute_force(
    with_triples: bool, inst: tuple[np.ndarray, np.ndarray, bool]
) -> None:
    s, t, single_root = inst
    sibs = np.random.default_rng(int(abs(t[0, 0, 0]) * 1e6)).normal(size=t.shape)
    triples = DenseTripleScorer(t) if with_triples else None
    result = parse_exact(s, triples, "all", single_root, sibling_scorer=DenseSiblingScorer(sibs))
    heads, value = brute_force(s, single_root, gp_scores=t if with_triples else None, sib_scores=sibs)
    assert result.certified and result.objective == pytest.approx(value, abs=1e-7)
    np.testing.assert_array_equal(result.heads, heads)
    assert result.stats.scored["sibling"] == sibling_mask(allowed_arcs(s), single_root).sum()  # each part once
    assert check_exact(s, triples, result, DenseSiblingScorer(sibs)) is None
    zero = parse_exact(s, DenseTripleScorer(t), "all", single_root, sibling_scorer=DenseSiblingScorer(0 * sibs))
    alone = parse_exact(s, DenseTripleScorer(t), "all", single_root)
    assert zero.objective == pytest.approx(alone.objective, abs=1e-7)  # zero sibling scores change nothing


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 11), st.integers(0, 2**32 - 1), st.booleans())
def test_exact_is_never_below_the_projective_dp(n: int, seed: int, single_root: bool) -> None:
    rng = np.random.default_rng(seed)
    s, t = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
    result = parse_exact(s, DenseTripleScorer(t), "all", single_root)
    _, projective = grandparent_eisner(s, t, single_root)
    assert result.certified
    assert result.objective >= projective - 1e-7


def test_branching_rules_agree_and_the_record_shows_the_search() -> None:
    s, t, single_root = _fractional_instance()
    _, value = brute_force(s, single_root, gp_scores=t)
    for rule in ("arc", "pseudocost", "gub", "multi"):
        result = parse_exact(s, DenseTripleScorer(t), "all", single_root, options=ExactOptions(branching=rule))
        assert result.certified and result.objective == pytest.approx(value, abs=1e-9), rule
        assert not result.stats.root_integral and result.stats.nodes > 1
        assert result.stats.root_bound > result.objective  # the root LP bound was not enough
        assert 0.0 < result.stats.time_solving < result.stats.time_total  # HiGHS's share, over every node
        assert {node.closed for node in result.nodes} <= {"integral", "bound", "infeasible", "branched"}
        assert sum(node.closed == "branched" for node in result.nodes) >= 1


def test_node_options_reach_every_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop, "BF_BELOW_PARTS", 0)  # parse-price-cut at every node (BF has every row)
    s, t, single_root = _fractional_instance()
    _, value = brute_force(s, single_root, gp_scores=t)
    options = ExactOptions(keep_results=True)
    held_back = {}
    for lazy in (True, False):
        result = parse_exact(
            s, DenseTripleScorer(t), "martins", single_root, options=options, per_pair=None, lazy_arcgp=lazy
        )
        assert result.certified and result.objective == pytest.approx(value, abs=1e-9)
        assert result.stats.nodes > 1
        held_back[lazy] = [r.program.held_back_arcgp for r in result.node_results.values()]
    # ArcGP rows held back (the default) or not: the nodes ran with the given options
    assert any(k > 0 for k in held_back[True]) and not any(held_back[False])


def _tampered(result: ExactResult) -> list[tuple[str, ExactResult]]:
    """Copies of a proof with one thing changed each."""
    nodes = [dataclasses.replace(node) for node in result.nodes]
    other = result.heads.copy()
    m = int(np.flatnonzero(other[1:] > 0)[0]) + 1
    other[m] = 0 if other[m] != 0 else 1
    branched = next(i for i, node in enumerate(result.nodes) if node.closed == "branched")
    child = result.nodes[branched].children[0]
    leaf = next(i for i, node in enumerate(result.nodes) if node.closed in ("bound", "integral") and node.certificate)

    def with_node(i: int, **change: object) -> ExactResult:
        copy = list(nodes)
        copy[i] = dataclasses.replace(nodes[i], **change)
        return dataclasses.replace(result, nodes=copy)

    mask = result.nodes[child].mask.copy()
    mask[:, result.nodes[child].modifier] = True
    mask[0, 0] = False
    return [
        ("another tree", dataclasses.replace(result, heads=other)),
        ("leaf left open", with_node(leaf, closed="open")),
        ("child arcs", with_node(child, mask=mask)),
        ("children", with_node(branched, children=result.nodes[branched].children[:1])),
        ("fixing", with_node(branched, fixed=[(0, 1, -1e-9)])),
    ]


def _tampered_claims(result: ExactResult) -> list[tuple[str, ExactResult]]:
    """Copies of a result whose stated objective or bound lie: not part of the proof, which the standalone
    check never reads, but of the search's own records."""
    return [
        ("objective", dataclasses.replace(result, objective=result.objective + 0.01)),
        ("bound below tree", dataclasses.replace(result, bound=result.objective - 0.01)),
        ("bound above tolerance", dataclasses.replace(result, bound=result.objective + 0.01)),
    ]


def _tampered_duals(result: ExactResult) -> list[tuple[str, ExactResult]]:
    """Copies of a proof whose recorded duals or closing reasons lie, with every stored bound and certificate
    left as it was (a checker that reads them accepts these)."""
    branched = next(i for i, node in enumerate(result.nodes) if node.closed == "branched")
    # the leaf whose bound is closest to the tree's score: halving its duals cannot keep it below
    leaves = [i for i, node in enumerate(result.nodes) if node.closed in ("bound", "integral") and node.duals]
    leaf = max(leaves, key=lambda i: result.nodes[i].bound)

    def with_node(i: int, **change: object) -> ExactResult:
        copy = list(result.nodes)
        copy[i] = dataclasses.replace(result.nodes[i], **change)
        return dataclasses.replace(result, nodes=copy)

    duals = result.nodes[leaf].duals
    assert duals
    scaled = {name: (index, 0.5 * values) for name, (index, values) in duals.items()}
    # the tampering of issue 27: a solved, branched node rewritten as closed unsolved with bound = objective
    unsolved = with_node(branched, closed="bound", duals=None, bound=result.objective, children=())
    return [
        ("leaf duals halved", with_node(leaf, duals=scaled)),
        ("leaf duals dropped", with_node(leaf, duals={})),
        ("branched node closed unsolved", unsolved),
        ("branched node's duals on a leaf", with_node(leaf, duals=result.nodes[branched].duals)),
    ]


def parts_of(t: np.ndarray) -> list[GrandparentParts]:
    return [GrandparentParts(DenseTripleScorer(t))]


def test_tampered_proofs_fail_the_check() -> None:
    """``check_exact`` (the standalone :func:`check_proof`) recomputes every bound from the recorded duals:
    tampered trees, bounds, arcs, children, fixings and duals fail; a stored bound or certificate changed
    alone cannot make a proof fail or pass. ``check_records`` (the search's own records) catches a changed
    stored bound. On the single-flow base (the cycle-cut base's proofs: the test after this one)."""
    s, t, single_root = _fractional_instance()
    result = parse_exact(s, DenseTripleScorer(t), "all", single_root, options=ExactOptions(base="single-flow"))
    assert result.certified and check_exact(s, DenseTripleScorer(t), result) is None
    for what, bad in _tampered(result) + _tampered_duals(result):
        assert check_exact(s, DenseTripleScorer(t), bad) is not None, what
    parts = [GrandparentParts(DenseTripleScorer(t))]
    for what, bad in _tampered_claims(result):  # read by the search's records only, never by the proof's check
        assert check_exact(s, DenseTripleScorer(t), bad) is None, what
        assert check_records(s, parts, bad) is not None, what
    leaf = next(i for i, node in enumerate(result.nodes) if node.closed in ("bound", "integral") and node.duals)
    nodes = list(result.nodes)
    nodes[leaf] = dataclasses.replace(nodes[leaf], bound=nodes[leaf].bound + 0.5, certificate=None)
    stored = dataclasses.replace(result, nodes=nodes)
    assert check_exact(s, DenseTripleScorer(t), stored) is None  # the proof is the duals
    assert check_records(s, parts, stored) is not None and check_records(s, parts, result) is None
    # scored from the search's caches (as the search checks itself), a changed objective still fails
    caches = {p.name: p.cache(allowed_arcs(s), single_root) for p in parts}
    assert check_records(s, parts, result, caches) is None
    shifted = dataclasses.replace(result, objective=result.objective + 1e-3)
    assert "is not the tree's score" in check_records(s, parts, shifted, caches)
    c = int(np.flatnonzero(result.heads[1:] > 0)[0]) + 1
    p = result.heads[c]
    wrong = t.copy()
    wrong[result.heads[p], p, c] -= 5.0  # a triple of the tree scores less: the tree is no longer the best
    assert brute_force(s, single_root, gp_scores=wrong)[1] > tree_score(s, parts_of(wrong), result.heads)
    assert check_exact(s, DenseTripleScorer(wrong), result) is not None
    wrong[result.heads[p], p, c] += 10.0  # and more: the tree is still the best, and the proof proves it
    assert check_exact(s, DenseTripleScorer(wrong), result) is None


@pytest.mark.parametrize("live", [False, True])
@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian(max_n=6))
def test_exact_on_cycle_cuts_equals_brute_force_with_a_proof(
    live: bool, inst: tuple[np.ndarray, np.ndarray, bool]
) -> None:
    """Node LPs over the cycle-cut base (NoCycle rows separated, no flow columns), on a program per node or
    live masters, with grandparent parts and with sibling parts too: brute force's optimum, and a proof the
    standalone check accepts, its NoCycle rows rebuilt from their labels."""
    s, t, single_root = inst
    sibs = np.random.default_rng(int(abs(t[0, 0, 0]) * 1e6)).normal(size=t.shape)
    options = ExactOptions(base="cycle-cuts", live_master=live)
    for sib in (None, DenseSiblingScorer(sibs)):
        result = parse_exact(s, DenseTripleScorer(t), "all", single_root, options=options, sibling_scorer=sib)
        heads, value = brute_force(s, single_root, gp_scores=t, sib_scores=sibs if sib is not None else None)
        assert result.status is Status.OPTIMAL and result.certified
        assert result.objective == pytest.approx(value, abs=1e-7)
        np.testing.assert_array_equal(result.heads, heads)
        assert check_exact(s, DenseTripleScorer(t), result, sibling_scorer=sib) is None


def test_cycle_cut_proofs_hold_by_the_sets_their_labels_name() -> None:
    """A proof over the cycle-cut base names each NoCycle row by its token set: it checks from its duals
    alone, after a trip through its JSON record too, and fails when the NoCycle duals are halved, when their
    labels name no set (the rows are then missing and their duals count as 0), and under the tampering of
    the other proofs."""
    n, rng = 7, np.random.default_rng(3)  # a seeded instance whose search branches on NoCycle duals
    s, t = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
    scorer = DenseTripleScorer(t)
    result = parse_exact(s, scorer, "all", False, options=ExactOptions(base="cycle-cuts"))
    assert result.certified and len(result.nodes) > 1 and check_exact(s, scorer, result) is None
    parts = [GrandparentParts(scorer)]
    back = read_proof_record(json.loads(json.dumps(proof_record(result, parts))), s)
    assert back.base == "cycle-cuts" and check_exact(s, scorer, back) is None

    def cut_duals(change: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]) -> ExactResult:
        nodes = [
            dataclasses.replace(node, duals={**node.duals, "NoCycle": change(*node.duals["NoCycle"])})
            if node.duals and "NoCycle" in node.duals
            else node
            for node in result.nodes
        ]
        return dataclasses.replace(result, nodes=nodes)

    assert any(node.duals and "NoCycle" in node.duals for node in result.nodes)
    assert check_exact(s, scorer, cut_duals(lambda index, values: (index, 0.5 * values))) is not None
    assert check_exact(s, scorer, cut_duals(lambda index, values: (2 * index, values))) is not None
    for what, bad in _tampered(result) + _tampered_duals(result):
        assert check_exact(s, scorer, bad) is not None, what


def test_limits_give_an_honest_status_with_the_best_tree_and_bound() -> None:
    rng = np.random.default_rng(11)
    n = 14
    s, t = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
    full = parse_exact(s, DenseTripleScorer(t), "all", False)
    assert full.certified and full.stats.nodes > 3
    for options, limit in ((ExactOptions(max_nodes=2), None), (ExactOptions(), 1e-4)):
        cut = parse_exact(s, DenseTripleScorer(t), "all", False, time_limit=limit, options=options)
        assert cut.status in (Status.ITERATION_LIMIT, Status.TIME_LIMIT)
        assert not cut.certified
        assert cut.heads is not None and is_tree(cut.heads)
        assert cut.objective == pytest.approx(tree_value(s, ScoreCache(DenseTripleScorer(t), n + 1), cut.heads))
        assert cut.objective <= full.objective + 1e-9 <= cut.bound + 2e-9
        assert check_exact(s, DenseTripleScorer(t), cut) is not None  # open nodes: no proof


@pytest.mark.parametrize("limit", [0.3, 1.5])
def test_time_limit_is_honoured_within_ten_percent(limit: float) -> None:
    """A search that needs more than 8 s on a quiet core (n = 16 needed only 1.5 s: too easy for a fast
    machine) stops within 10% of its limit (plus 0.05 s), inside the root LP (0.3 s) or in the branch and
    bound (1.5 s), with the best tree so far, an honest bound and no proof."""
    rng = np.random.default_rng(1)
    n = 26
    s, t = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
    start = time.perf_counter()
    result = parse_exact(s, DenseTripleScorer(t), "all", False, time_limit=limit)
    elapsed = time.perf_counter() - start
    assert result.status is Status.TIME_LIMIT and not result.certified
    assert 0.9 * limit - 0.05 <= elapsed <= 1.1 * limit + 0.05, elapsed
    assert result.heads is not None and is_tree(result.heads) and result.objective <= result.bound
    assert check_exact(s, DenseTripleScorer(t), result) is not None


def test_node_programs_load_in_pyomo_with_the_same_value() -> None:
    s, t, single_root = _fractional_instance()
    result = parse_exact(s, DenseTripleScorer(t), "all", single_root, options=ExactOptions(keep_results=True))
    child = next(node for node in result.nodes if node.parent == 0 and node.certificate is not None)
    node_result = result.node_results[child.id]
    pyomo = PyomoModel(node_result.program.lp).solve()
    assert pyomo.objective == pytest.approx(node_result.objective, abs=1e-6)
    np.testing.assert_array_equal(node_result.program.arc_mask, child.mask)


def test_warm_start_keeps_the_optimum_and_scores_nothing_twice() -> None:
    s, t, single_root = _fractional_instance()
    cold = parse_price_cut(s, DenseTripleScorer(t), "all", single_root)
    scorer = DenseTripleScorer(t)
    cache = ScoreCache(scorer, s.shape[0])
    first = parse_price_cut(s, scorer, "all", single_root, warm={"grandparent": Warm(cache)})
    again = parse_price_cut(s, scorer, "all", single_root, warm={"grandparent": first.families["grandparent"].warm()})
    assert again.certified and again.objective == pytest.approx(cold.objective, abs=1e-9)
    assert again.stats.iterations <= first.stats.iterations
    assert scorer.scored == np.count_nonzero(~np.isnan(cache.values))  # no triple scored twice


def test_warm_started_sibling_parts_keep_the_optimum_and_score_nothing_twice() -> None:
    s, t, single_root = _fractional_instance()
    sibs = np.random.default_rng(0).normal(size=t.shape)
    triples, siblings = DenseTripleScorer(t), DenseSiblingScorer(sibs)
    size = s.shape[0]
    caches = {
        "grandparent": Warm(ScoreCache(triples, size)),
        "sibling": Warm(ScoreCache(siblings, size, "sibling", ("bound_hm",))),
    }
    first = parse_price_cut(s, triples, "all", single_root, warm=caches, sibling_scorer=siblings)
    warm = {name: family.warm() for name, family in first.families.items()}
    again = parse_price_cut(s, triples, "all", single_root, warm=warm, sibling_scorer=siblings)
    cold = parse_price_cut(s, DenseTripleScorer(t), "all", single_root, sibling_scorer=DenseSiblingScorer(sibs))
    assert again.certified and again.objective == pytest.approx(cold.objective, abs=1e-9)
    assert again.stats.iterations <= first.stats.iterations
    assert again.counts["sibling"].added >= first.counts["sibling"].added  # it starts from the first run's parts
    # a node without the arc of a started part: that part is left out, the optimum is the node's own
    h, m, m2 = (int(a[0]) for a in first.families["sibling"].sibs.siblings())
    node = s.copy()
    node[h, m] = -np.inf
    check_tree_exists(node, single_root)
    child = parse_price_cut(node, triples, "all", single_root, warm=warm, sibling_scorer=siblings)
    alone = parse_price_cut(node, DenseTripleScorer(t), "all", single_root, sibling_scorer=DenseSiblingScorer(sibs))
    assert child.certified and child.objective == pytest.approx(alone.objective, abs=1e-9)
    assert not child.families["sibling"].sibs.present[h, m, m2]
    for scorer, cache in ((triples, warm["grandparent"].cache), (siblings, warm["sibling"].cache)):
        assert cache is not None and scorer.scored == np.count_nonzero(~np.isnan(cache.values))  # once each
    other = {"sibling": Warm(ScoreCache(siblings, size + 1, "sibling", ("bound_hm",)))}
    with pytest.raises(ValueError, match="warm start's sibling cache is for n="):
        parse_price_cut(s, triples, "all", single_root, warm=other, sibling_scorer=DenseSiblingScorer(sibs))


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian(max_n=6))
def test_move_gains_are_the_change_of_the_tree_score(inst: tuple[np.ndarray, np.ndarray, bool]) -> None:
    s, t, single_root = inst
    cache = ScoreCache(DenseTripleScorer(t), s.shape[0])
    n = s.shape[0] - 1
    trees = [h for h in all_trees(n, single_root) if np.isfinite(s[h[1:], np.arange(1, n + 1)]).all()]
    heads = np.array(trees[len(trees) // 2])
    base = tree_value(s, cache, heads)
    gains = move_gains(s, cache, heads, single_root)
    for h in range(n + 1):
        for m in range(1, n + 1):
            moved = heads.copy()
            moved[m] = h
            if h != heads[m] and h != m and np.isfinite(s[h, m]) and is_tree(moved, single_root):
                assert gains[h, m] == pytest.approx(tree_value(s, cache, moved) - base, abs=1e-9)
            else:
                assert gains[h, m] == -np.inf
    better, moves = improve_tree(s, cache, heads, single_root)
    assert is_tree(better, single_root) and tree_value(s, cache, better) >= base - 1e-12
    assert (move_gains(s, cache, better, single_root) <= 1e-9).all() or moves == n


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian(max_n=6), st.integers(0, 2**32 - 1))
def test_climbing_along_the_lp_for_any_families(inst: tuple[np.ndarray, np.ndarray, bool], seed: int) -> None:
    """With grandparent and sibling parts: the LP's moves are exactly the head changes that keep a tree among
    the arcs the LP point weighs (against every change tried); the climb ends at a tree that scores at least
    its start, its score recomputed by the scorers, which no LP move improves."""
    s, t, single_root = inst
    rng = np.random.default_rng(seed)
    n = s.shape[0] - 1
    sibs = DenseSiblingScorer(rng.normal(size=(n + 1,) * 3))
    parts = [GrandparentParts(DenseTripleScorer(t)), SiblingParts(sibs)]
    caches = {p.name: p.cache(allowed_arcs(s), single_root) for p in parts}
    every = np.asarray(all_trees(n, single_root))
    finite = np.flatnonzero(np.isfinite(tree_scores(s, parts, every)))
    heads = every[finite[int(rng.integers(finite.size))]].copy()
    z = np.where(np.isfinite(s) & (rng.random(s.shape) < 0.6), rng.random(s.shape), 0.0)
    expected = set()
    for h in range(n + 1):
        for m in range(1, n + 1):
            moved = heads.copy()
            moved[m] = h
            if h != heads[m] and z[h, m] > 1e-6 and is_tree(moved, single_root):
                expected.add((h, m))
    assert set(zip(*(a.tolist() for a in lp_moves(heads, z, single_root)))) == expected
    # n² moves at most: the climb then weighs every LP move (4·max_moves of them)
    better, moves = improve_along_lp(s, parts, caches, heads, z, single_root, max_moves=n * n)
    value = tree_score(s, parts, better)
    assert is_tree(better, single_root) and value >= tree_score(s, parts, heads) - 1e-9
    hh, mm = lp_moves(better, z, single_root)
    if moves < n * n and hh.size:
        trees = np.repeat(better[None], hh.size, axis=0)
        trees[np.arange(hh.size), mm] = hh
        assert tree_scores(s, parts, trees).max() <= value + 1e-9
    late, none = improve_along_lp(s, parts, caches, heads, z, single_root, deadline=time.perf_counter() - 1.0)
    assert none == 0 and np.array_equal(late, heads)  # a deadline passed: no climb


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(gaussian(max_n=6), st.integers(0, 2**32 - 1))
def test_lp_decoders_climb_from_the_rounded_tree(
    inst: tuple[np.ndarray, np.ndarray, bool], seed: int
) -> None:
    """``ppc`` with grandparent and sibling parts: the climbed tree is a tree whose score, recomputed by the
    scorers, is its objective, at least the rounded tree's (what ``climb=False`` returns) and at most brute
    force's optimum; an integral LP is returned as it is."""
    s, t, single_root = inst
    sib = np.random.default_rng(seed).normal(size=t.shape)
    parts = [GrandparentParts(DenseTripleScorer(t)), SiblingParts(DenseSiblingScorer(sib))]
    climbed = decode("ppc", s, DenseTripleScorer(t), single_root, sibling_scorer=DenseSiblingScorer(sib))
    rounded = decode(
        "ppc", s, DenseTripleScorer(t), single_root, sibling_scorer=DenseSiblingScorer(sib), climb=False
    )
    _, best = brute_force(s, single_root, gp_scores=t, sib_scores=sib)
    assert is_tree(climbed.heads, single_root)
    assert climbed.objective == pytest.approx(tree_score(s, parts, climbed.heads), abs=1e-9)
    assert rounded.objective == pytest.approx(tree_score(s, parts, rounded.heads), abs=1e-9)
    assert rounded.objective - 1e-9 <= climbed.objective <= best + 1e-9
    if climbed.stats["integral"]:
        assert np.array_equal(climbed.heads, rounded.heads) and "climb_moves" not in climbed.stats
    else:
        assert climbed.stats["rounded_objective"] == pytest.approx(rounded.objective, abs=1e-9)


def test_the_root_climbs_along_the_lp_with_sibling_parts() -> None:
    """With sibling parts (no grandparent move gains) the root's rounded tree is climbed along its LP point:
    on a seeded instance found by search the climb moves, and the search still proves brute force's
    optimum."""
    for seed in range(300):
        rng = np.random.default_rng(seed)
        s, sib = rng.normal(size=(8, 8)), rng.normal(size=(8,) * 3)
        result = parse_exact(s, None, "all", False, sibling_scorer=DenseSiblingScorer(sib))
        if result.stats.heuristic_moves > 0:
            break
    else:
        raise AssertionError("no instance whose root climb moves")
    _, best = brute_force(s, False, sib_scores=sib)
    assert result.certified and result.objective == pytest.approx(best, abs=1e-7)


def test_exact_decoder_and_the_lp_summaries() -> None:
    s, t, single_root = _fractional_instance()
    heads, value = brute_force(s, single_root, gp_scores=t)
    exact = decode("exact", s, DenseTripleScorer(t), single_root)
    np.testing.assert_array_equal(exact.heads, heads)
    assert exact.objective == pytest.approx(value) and exact.stats["certified"]
    ppc = decode("ppc", s, DenseTripleScorer(t), single_root)
    assert ppc.stats["lp_objective"] > ppc.objective  # rounded
    line = lp_summary([ppc])
    assert line is not None and "fractional on 1 of 1" in line and "largest gap" in line
    gap = ppc.stats["lp_objective"] - ppc.objective
    assert f"{gap:.4g}" in line
    line = lp_summary([exact])
    assert line is not None and "1 of 1 certified optimal" in line
    assert lp_summary([decode("cle", s, None, single_root)]) is None
    sibs = np.random.default_rng(0).normal(size=t.shape)
    with_sibs = decode("exact", s, DenseTripleScorer(t), single_root, DenseSiblingScorer(sibs))
    assert with_sibs.objective == pytest.approx(brute_force(s, single_root, gp_scores=t, sib_scores=sibs)[1])
    total = with_sibs.stats["sibs_total"]
    assert f"and {total} of {total} sibling parts (100.0%)" in str(lp_summary([with_sibs]))  # all, once
    assert "candidate triples" in str(lp_summary([ppc])) and "sibling parts" not in str(lp_summary([ppc]))


def test_no_tree_and_nan_are_errors() -> None:
    s = np.full((4, 4), -np.inf)
    with pytest.raises(NoTreeError):
        parse_exact(s, DenseTripleScorer(np.zeros((4, 4, 4))), "all", False)
    bad = np.zeros((4, 4))
    bad[1, 2] = np.nan
    with pytest.raises(ValueError):
        parse_exact(bad, DenseTripleScorer(np.zeros((4, 4, 4))), "all", False)


def test_pseudo_costs_learn_per_arc_and_direction() -> None:
    pseudo = PseudoCosts(4)
    z = np.zeros((4, 4))
    z[1, 2] = z[3, 2] = 0.5  # two fractional arcs into 2, equally fractional
    candidates = z > 0
    scores = np.zeros((4, 4))
    scores[3, 2] = 1.0
    assert pseudo.choose(z, candidates, scores) == (3, 2)  # nothing learned: the tie goes to the higher score
    pseudo.record(1, 2, 0.5, up=True, parent_bound=10.0, child_bound=8.0)  # ψ⁺ = 2 / 0.5 = 4
    pseudo.record(1, 2, 0.5, up=False, parent_bound=10.0, child_bound=9.0)  # ψ⁻ = 1 / 0.5 = 2
    pseudo.record(3, 2, 0.5, up=True, parent_bound=10.0, child_bound=9.9)
    pseudo.record(3, 2, 0.5, up=False, parent_bound=10.0, child_bound=9.9)
    assert pseudo.choose(z, candidates, scores) == (1, 2)  # the arc whose branching moved the bound most
    pseudo.record(1, 2, 1.0, up=True, parent_bound=10.0, child_bound=0.0)  # no change in the arc: ignored
    pseudo.record(1, 2, 0.5, up=True, parent_bound=10.0, child_bound=-np.inf)  # an infeasible child: ignored
    assert pseudo.count[1, 1, 2] == 1
    z[2, 3] = 0.5  # never branched on: the mean ψ of each direction, (2 + 0.2) / 2 and (4 + 0.2) / 2
    candidates = z > 0
    candidates[1, 2] = False
    assert pseudo.choose(z, candidates, scores) == (2, 3)  # 1.1·0.5 · 2.1·0.5 against 0.2·0.5 · 0.2·0.5
    assert pseudo.choose(np.round(z), candidates, scores) is None  # nothing fractional: _split's arc rule decides


def test_unknown_branching_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="branching rule 'best'"):
        ExactOptions(branching="best")


@pytest.mark.parametrize("with_siblings", [False, True])
def test_a_run_stopped_at_its_cutoff_proves_its_bound_by_its_duals(with_siblings: bool) -> None:
    """ColgenOptions.cutoff: a run stops at the first round that prices nothing once its value is at most the
    cutoff (status CUTOFF, a ``ppc-bound`` certificate), before separating NoCycle or held-back rows. Its
    value may exceed the LP optimum, never fall below it, and its duals alone, over the full program, prove
    it (the proof checker's bound); a cutoff below the optimum changes nothing."""
    s, t, _ = _fractional_instance(8)
    rng = np.random.default_rng(1)
    sib = DenseSiblingScorer(np.where(sibling_mask(allowed_arcs(s)), rng.normal(size=(9,) * 3), -np.inf))
    parts = second_order_parts(DenseTripleScorer(t), "all", sib if with_siblings else None)
    full = solve_lp(s, parts, "ppc", False, "cycle-cuts")
    assert full.certified
    optimum = full.certificate.dual_objective
    low = solve_lp(s, parts, "ppc", False, "cycle-cuts", ColgenOptions(cutoff=optimum - 1.0))
    assert low.status is Status.OPTIMAL and low.certificate.dual_objective == pytest.approx(optimum, abs=1e-6)
    run = solve_lp(s, parts, "ppc", False, "cycle-cuts", ColgenOptions(cutoff=np.inf))
    assert run.status is Status.CUTOFF and not run.certified and run.heads is None
    cert = run.certificate
    assert cert is not None and cert.kind == "ppc-bound" and cert.ok
    assert cert.dual_objective >= optimum - 1e-6
    assert run.stats.iterations < full.stats.iterations  # it stopped before the rounds that separate
    duals = label_duals(run.program.lp, signed(run.program.lp, run.row_dual), run.outside)
    proof = ProofProgram(s, parts, False, "cycle-cuts", [duals])
    bound = proof.bound(duals, allowed_arcs(s))
    assert not isinstance(bound, str) and bound[0] == pytest.approx(cert.dual_objective, abs=1e-6)


def test_the_auto_branching_rule_follows_the_families() -> None:
    """``auto`` is reliability branching where every family runs on live masters (grandparent, sibling) and
    the most fractional arc otherwise (consecutive siblings); an explicit rule is kept; an unknown one refused."""
    n = 5
    rng = np.random.default_rng(4)
    t = DenseTripleScorer(rng.normal(size=(n + 1,) * 3))
    sib = DenseSiblingScorer(np.where(sibling_mask(np.ones((n + 1, n + 1), bool)), 0.0, -np.inf))
    gp_sib = second_order_parts(t, "all", sib)
    consecutive = [GrandparentParts(t), ConsecutiveSiblingParts(DenseConsecutiveScorer(np.zeros((n + 1,) * 3)))]
    assert ExactOptions().rule(gp_sib) == "pseudocost" and ExactOptions().rule(consecutive) == "arc"
    assert ExactOptions(branching="arc").rule(gp_sib) == "arc"
    assert ExactOptions(branching="gub").rule(consecutive) == "gub"
    with pytest.raises(ValueError, match="unknown branching rule"):
        ExactOptions(branching="best")


def test_node_lps_stopped_at_the_cutoff_by_the_dual_simplex_still_prove_the_optimum() -> None:
    """Below the root, a node LP's dual simplex stops once the bound of its basis falls below the cutoff
    (HighsModel.set_cutoff): the node closes by the bound of duals that are no optimum's (a ``ppc-bound``
    certificate, status CUTOFF). On Gaussian instances whose searches stop some node LPs so, the search
    finds brute force's optimum, the standalone checker re-proves every bound from the duals, and a search
    whose node LPs never stop early (the cutoff ignored by HiGHS) finds the same tree."""
    n, stopped = 7, 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        s, t = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
        result = parse_exact(s, DenseTripleScorer(t), "all", False)
        if not result.stats.lp_cutoffs:
            continue
        stopped += 1
        heads, value = brute_force(s, False, gp_scores=t)
        assert result.certified and result.objective == pytest.approx(value, abs=1e-7)
        np.testing.assert_array_equal(result.heads, heads)
        assert check_exact(s, DenseTripleScorer(t), result) is None
        certs = [nd.certificate for nd in result.nodes if nd.certificate is not None]
        bounds = [c for c in certs if c.kind == "ppc-bound"]
        assert len(bounds) >= result.stats.lp_cutoffs and all(c.ok for c in bounds)
        with mock.patch.object(HighsModel, "set_cutoff", lambda self, value: None):
            full = parse_exact(s, DenseTripleScorer(t), "all", False)
        assert full.stats.lp_cutoffs == 0
        np.testing.assert_array_equal(full.heads, result.heads)
        if stopped == 3:
            break
    assert stopped == 3


@pytest.mark.parametrize("seed", range(3))
def test_parse_exact_takes_more_part_families(seed: int) -> None:
    """parse_exact and check_exact with a registered family beside the grandparents: the proved tree scores
    brute force's best, and the proof checks only with the families the search had."""
    rng = np.random.default_rng(seed)
    n = 5
    arcs = rng.normal(size=(n + 1, n + 1))
    triples = DenseTripleScorer(rng.normal(size=(n + 1,) * 3))
    more = family_parts({"trisibling": DenseTriSiblingScorer(rng.normal(size=(n + 1,) * 4) * 2)}, n)
    result = parse_exact(arcs, triples, parts=more)
    best = tree_scores(arcs, [GrandparentParts(triples), *more], list(enumerate_trees(n))).max()
    assert result.certified and result.objective == pytest.approx(best)
    assert check_exact(arcs, triples, result, parts=more) is None
    assert check_exact(arcs, triples, result) is not None  # the same proof without the family it bounds
