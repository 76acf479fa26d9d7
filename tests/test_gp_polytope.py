"""The grandparent polytope (Riedel, Smith & McCallum 2012 §3.2): ILP = brute force, presets ordered by
tightness, NoGP and ArcGP redundant in ``all``, projective references, both views, bad input."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.families.grandparent import rows as grandparent
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import (
    FAMILIES,
    PRESETS,
    full_grandparent_program,
    grandparent_program,
    resolve_families,
    solve_grandparent,
)
from lpparse.formulations.arborescence import heads_from_solution
from lpparse.lp import Status
from lpparse.lp.highs_view import solve_highs
from lpparse.lp.pyomo_view import to_pyomo
from lpparse.oracles.brute_force import brute_force
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.ppc.loop import solve_lp
from lpparse.scores import noisy_gold_scores, random_scores
from lpparse.trees import NoTreeError, allowed_arcs, check_tree_exists, is_projective, is_tree
from lpparse.triples import GP_DISTRIBUTIONS, DenseTripleScorer, candidate_triples, synthetic_triple_scorer

SETTINGS = settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw: st.DrawFn, max_n: int = 6) -> tuple[np.ndarray, np.ndarray, bool]:
    """(arc scores, dense triple scores, single_root): n = 2..max_n, some arcs pruned, every distribution."""
    n = draw(st.integers(2, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    dist = draw(st.sampled_from(GP_DISTRIBUTIONS))
    prune = draw(st.sampled_from([0.0, 0.0, 0.3]))
    single_root = draw(st.booleans())
    rng = np.random.default_rng(seed)
    s = random_scores(n, rng)
    pruned = s.copy()
    pruned[rng.random(s.shape) < prune] = -np.inf
    try:
        check_tree_exists(pruned, single_root)
        s = pruned
    except NoTreeError:
        pass
    return s, synthetic_triple_scorer(n, rng, dist).scores, single_root


def lp_value(s: np.ndarray, gp: np.ndarray, families: object, single_root: bool, mip: bool = False) -> float:
    _, sol = solve_grandparent(s, gp, families, mip=mip, single_root=single_root)  # type: ignore[arg-type]
    assert sol.certified, str(sol)
    return sol.objective


@SETTINGS
@given(instances())
def test_ilp_equals_brute_force_for_every_preset(instance: tuple[np.ndarray, np.ndarray, bool]) -> None:
    s, gp, single_root = instance
    _, best = brute_force(s, single_root, gp_scores=gp)
    for preset in PRESETS:
        _, sol = solve_grandparent(s, gp, preset, mip=True, single_root=single_root)
        assert sol.certified and sol.integral, (preset, str(sol))
        assert sol.objective == pytest.approx(best, abs=1e-6), preset
        assert is_tree(heads_from_solution(sol), single_root)


@SETTINGS
@given(instances(max_n=7))
def test_all_is_never_looser_and_nogp_is_redundant_in_all(
    instance: tuple[np.ndarray, np.ndarray, bool],
) -> None:
    s, gp, single_root = instance
    values = {preset: lp_value(s, gp, preset, single_root) for preset in PRESETS}
    assert values["all"] <= values["martins"] + 1e-6
    assert values["all"] <= values["onegp"] + 1e-6
    assert lp_value(s, gp, FAMILIES, single_root) == pytest.approx(values["all"], abs=1e-6)
    # with OneGP the right-hand GPArc rows (z[p,c] - zgp[g,p,c] >= 0) are left out as implied: adding them
    # back never changes the value
    prog = full_grandparent_program(s, gp, "all", single_root)
    g, p, c = prog.triples()
    k = g.size
    prog.lp.add_constraints(
        "GPArcRight",
        np.column_stack([g, p, c]),
        np.tile(np.arange(k), 2),
        np.concatenate([prog.z_col[p, c], prog.lp.cols("zgp")]),
        np.concatenate([np.ones(k), -np.ones(k)]),
        lower=0.0,
    )
    back = solve_highs(prog.lp)
    assert back.certified and back.objective == pytest.approx(values["all"], abs=1e-6)
    # ArcGP is implied in ``all`` (OneGP + GPArc + OneHead): without its rows, same value, and the optimum
    # satisfies every one of them
    reduced = full_grandparent_program(s, gp, ("GPArc", "OneGP"), single_root)
    sol = solve_highs(reduced.lp)
    assert sol.certified and sol.objective == pytest.approx(values["all"], abs=1e-6)
    z, zgp = reduced.arc_values(sol.x), reduced.triple_values(sol.x)
    g, p, c = reduced.triples()
    assert (z[g, p] + z[p, c] - zgp <= 1 + 1e-6).all()
    ilp = brute_force(s, single_root, gp_scores=gp)[1]
    assert min(values.values()) >= ilp - 1e-6


@pytest.mark.parametrize("seed", range(6))
def test_projective_instances_against_grandparent_eisner(seed: int) -> None:
    """Scores around a projective gold tree, n = 8..14: ILP >= the projective DP, with equality when the ILP's
    tree is projective; every LP bounds the ILP."""
    rng = np.random.default_rng(seed)
    n = 8 + seed
    gold = np.full(n + 1, -1)
    gold[1:] = np.arange(0, n)  # a chain: projective
    s = noisy_gold_scores(gold, noise=0.5, rng=rng, gold_bonus=1.5)
    gp = synthetic_triple_scorer(n, rng, scale=0.3).scores
    _, dp = grandparent_eisner(s, gp)
    _, ilp = solve_grandparent(s, gp, "all", mip=True)
    assert ilp.certified and ilp.objective >= dp - 1e-6
    if is_projective(heads_from_solution(ilp)):
        assert ilp.objective == pytest.approx(dp, abs=1e-6)
    for preset in PRESETS:
        assert lp_value(s, gp, preset, False) >= ilp.objective - 1e-6


def test_multi_commodity_base_and_pyomo_view_agree() -> None:
    rng = np.random.default_rng(5)
    s, gp = random_scores(5, rng), synthetic_triple_scorer(5, rng).scores
    value = lp_value(s, gp, "all", False)
    _, multi = solve_grandparent(s, gp, "all", base="multi-flow")
    assert multi.certified and multi.objective <= value + 1e-6  # the multi-commodity base is tighter
    for preset in PRESETS:
        _, pyo_sol = solve_grandparent(s, gp, preset, view="pyomo")
        assert pyo_sol.certified
        assert pyo_sol.objective == pytest.approx(lp_value(s, gp, preset, False), abs=1e-6)
    model = to_pyomo(full_grandparent_program(s, gp, FAMILIES).lp)
    for name in ("z", "zgp", "ArcGP", "GPArc", "OneGP", "NoGP", "OneHead", "NoFlow"):
        assert hasattr(model, name), name
    assert (1, 2, 3) in model.zgp and (1, 2, 3, 0) in model.GPArc and (2, 3) in model.OneGP
    assert (1, 2, 3, 1) not in model.GPArc  # implied by OneGP
    assert (1, 2, 3, 1) in to_pyomo(full_grandparent_program(s, gp, "martins").lp).GPArc


def test_program_sizes_and_rows() -> None:
    n = 6
    s, gp = random_scores(n, 0), synthetic_triple_scorer(n, 0).scores
    prog = full_grandparent_program(s, gp, FAMILIES)
    triples = n * (n - 1) ** 2  # p in 1..n, c a word other than p, g in 0..n other than p and c
    assert prog.num_triples == triples
    blocks = {name: len(b) for name, b in prog.lp.con_blocks.items()}
    assert blocks["ArcGP"] == triples and blocks["GPArc"] == triples  # one side: OneGP implies the other
    martins = full_grandparent_program(s, gp, "martins")
    assert len(martins.lp.con_blocks["GPArc"]) == 2 * triples
    assert blocks["OneGP"] == n * (n - 1) and blocks["NoGP"] == n * n
    empty = grandparent_program(s, "martins")
    assert empty.num_triples == 0 and "OneGP" not in empty.lp.con_blocks


def test_bad_input_is_reported() -> None:
    s, gp = random_scores(4, 1), synthetic_triple_scorer(4, 1).scores
    bad = s.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        solve_grandparent(bad, gp)
    bad_gp = gp.copy()
    bad_gp[0, 1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        solve_grandparent(s, bad_gp)
    no_tree = s.copy()
    no_tree[:, 3] = -np.inf
    with pytest.raises(NoTreeError):
        solve_grandparent(no_tree, gp)
    with pytest.raises(ValueError, match="preset"):
        resolve_families("nope")
    with pytest.raises(ValueError, match="families"):
        resolve_families(["ArcGP", "Bogus"])
    with pytest.raises(ValueError, match="base"):
        grandparent_program(s, base="cycle-cuts")
    prog = grandparent_program(s)
    with pytest.raises(ValueError, match="twice"):
        prog.add_triples([0, 0], [1, 1], [2, 2], [0.0, 0.0])


def test_time_limit_gives_a_status() -> None:
    n = 30
    s, gp = random_scores(n, 2), synthetic_triple_scorer(n, 2).scores
    _, sol = solve_grandparent(s, gp, "all", mip=True, time_limit=1e-3)
    assert sol.status is Status.TIME_LIMIT and not sol.certified


@SETTINGS
@given(instance=instances(), keep=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_the_sparse_triple_map_of_long_sentences_finds_what_the_dense_one_does(
    instance: tuple[np.ndarray, np.ndarray, bool], keep: float, seed: int
) -> None:
    """Programs of sentences whose (n+1)^3 cube exceeds DENSE_TRIPLE_CELLS look their triples' columns up in
    the zgp block's index map: the same column for every cell of the cube as the dense map, -1 for absent
    triples, and parse-price-cut reaches brute force's certified value through it."""
    s, gp, single_root = instance
    g, p, c = candidate_triples(allowed_arcs(s))
    chosen = np.random.default_rng(seed).random(g.size) < keep  # a restricted master's triples
    cube = np.indices(gp.shape).reshape(3, -1)
    maps = []
    for cells in (grandparent.DENSE_TRIPLE_CELLS, 0):
        with mock.patch.object(grandparent, "DENSE_TRIPLE_CELLS", cells):
            prog = grandparent_program(s, "all", single_root)
            assert prog.triple_cols(*cube).max() == -1  # no triple yet
            prog.add_triples(g[chosen], p[chosen], c[chosen], gp[g[chosen], p[chosen], c[chosen]])
            assert (prog.triple_col is None) == (cells == 0)
            maps.append(prog.triple_cols(*cube))
            if cells == 0:
                parts = [GrandparentParts(DenseTripleScorer(gp))]
                ppc = solve_lp(s, parts, "ppc", single_root)
    assert np.array_equal(maps[0], maps[1])
    bf = solve_lp(s, [GrandparentParts(DenseTripleScorer(gp))], "bf", single_root)
    assert ppc.certified and bf.certified and ppc.objective == pytest.approx(bf.objective, abs=1e-6)
