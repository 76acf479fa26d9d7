"""Consecutive siblings (head automata; Koo et al. 2010): candidates and tree windows against their
definitions, the polytope's rows on every tree, zcs forced on integral arcs, the ILP against enumeration,
pruned parts, the dense scorer's bounds, and the Pyomo view."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.families.consecutive.rows import (
    BASES,
    ConsecutiveSiblingScorer,
    DenseConsecutiveScorer,
    candidate_csibs,
    consecutive_program,
    csib_mask,
    full_consecutive_program,
    max_csibs_per_tree,
    solve_consecutive,
    synthetic_csib_scorer,
    tree_csibs,
)
from lpparse.families.grandparent.rows import full_grandparent_program
from lpparse.families.sibling.rows import sibling_program
from lpparse.formulations.arborescence import FORMULATIONS, heads_from_solution, solve_arborescence
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import Terms
from lpparse.lp.pyomo_view import to_pyomo
from lpparse.lp.solution import Status
from lpparse.lp.views import make_model
from lpparse.oracles.brute_force import all_trees, enumerate_trees
from lpparse.scores import random_scores
from lpparse.trees import NoTreeError, allowed_arcs, allowed_mask_shape, check_tree_exists
from lpparse.triples import check_csib_batch

SETTINGS = settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
TOL = 1e-6
NEG = -np.inf


# ------------------------------------------------------------------------------ independent definitions


def windows(heads: np.ndarray) -> list[tuple[int, int, int]]:
    """The windows of a tree, written out: per head and side, the children sorted nearest first, then the
    consecutive pairs of [h, c1, ..., ck, h]; sorted."""
    n = len(heads) - 1
    out = []
    for h in range(n + 1):
        for side in (-1, 1):
            kids = [m for m in range(1, n + 1) if heads[m] == h and (m - h) * side > 0]
            kids.sort(key=lambda m: abs(m - h))
            if kids:
                chain = [h, *kids, h]
                out.extend((h, a, b) for a, b in zip(chain, chain[1:]))
    return sorted(out)


def is_candidate(arcs: np.ndarray, single_root: bool, h: int, a: int, b: int) -> bool:
    if a == h != b:
        return bool(arcs[h, b])
    if b == h != a:
        return bool(arcs[h, a])
    if h in (a, b) or (single_root and h == 0):
        return False
    return (h < a < b or b < a < h) and bool(arcs[h, a] and arcs[h, b])


@lru_cache(maxsize=None)
def _tree_windows(n: int, single_root: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every tree of n tokens, its windows padded to 2n as (T, 2n, 3) index triples, and the padding mask."""
    trees = all_trees(n, single_root)
    idx = np.zeros((len(trees), 2 * n, 3), np.int64)
    used = np.zeros((len(trees), 2 * n), bool)
    for t, heads in enumerate(trees):
        w = windows(heads)
        idx[t, : len(w)] = w
        used[t, : len(w)] = True
    return trees, idx, used


def tree_values(arc_scores: np.ndarray, cube: np.ndarray, single_root: bool) -> tuple[np.ndarray, np.ndarray]:
    """(trees, scores): arcs plus windows, -inf for a tree with a pruned arc or part."""
    n = arc_scores.shape[0] - 1
    trees, idx, used = _tree_windows(n, single_root)
    arcs = arc_scores[trees[:, 1:], np.arange(1, n + 1)].sum(axis=1)
    parts = np.where(used, cube[idx[..., 0], idx[..., 1], idx[..., 2]], 0.0).sum(axis=1)
    return trees, arcs + parts


def tree_point(prog, heads: np.ndarray) -> np.ndarray:
    """A tree's indicator vector in the program: z, the flows of the base (single-flow: subtree sizes;
    multi-flow: commodity k along the path 0→k) and zcs on the windows (which must all have columns)."""
    lp = prog.lp
    n = len(heads) - 1
    x = np.zeros(lp.num_cols)
    m = np.arange(1, n + 1)
    x[prog.z_col[heads[1:], m]] = 1.0
    ancestors = {k: [] for k in range(1, n + 1)}  # the tokens on the path 0→k, k included
    for k in range(1, n + 1):
        v = k
        while v > 0:
            ancestors[k].append(v)
            v = heads[v]
    if lp.formulation == "single-flow":
        size = np.zeros(n + 1)
        for k in range(1, n + 1):
            size[ancestors[k]] += 1
        x[lp.var_blocks["phi"].find(np.column_stack([heads[1:], m]))] = size[1:]
    else:
        flows = np.array([(k, heads[v], v) for k in range(1, n + 1) for v in ancestors[k]])
        x[lp.var_blocks["phi"].find(flows)] = 1.0
    w = np.array(windows(heads))
    cols = prog.part_cols(w[:, 0], w[:, 1], w[:, 2])
    assert (cols >= 0).all()
    x[cols] = 1.0
    return x


@st.composite
def instances(draw: st.DrawFn, max_n: int = 5) -> tuple[np.ndarray, np.ndarray, bool]:
    """(arc scores, part cube, single_root): n = 1..max_n, some arcs pruned, sometimes some parts."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    single_root = draw(st.booleans())
    s = random_scores(n, rng)
    pruned = np.where(rng.random(s.shape) < draw(st.sampled_from([0.0, 0.3])), NEG, s)
    try:
        check_tree_exists(pruned, single_root)
        s = pruned
    except NoTreeError:
        pass
    cube = rng.normal(0.0, draw(st.sampled_from([0.5, 1.0, 2.0])), (n + 1,) * 3)
    cube[rng.random(cube.shape) < draw(st.sampled_from([0.0, 0.0, 0.15]))] = NEG
    return s, cube, single_root


# ------------------------------------------------------------------------------------------------ parts


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1), prune=st.floats(0.0, 0.6), single_root=st.booleans()
)
def test_candidates_and_tree_windows_match_their_definitions(
    n: int, seed: int, prune: float, single_root: bool
) -> None:
    rng = np.random.default_rng(seed)
    scores = random_scores(n, rng)
    scores[rng.random(scores.shape) < prune] = NEG
    arcs = allowed_arcs(scores)
    expected = [p for p in itertools.product(range(n + 1), repeat=3) if is_candidate(arcs, single_root, *p)]
    got = candidate_csibs(arcs, single_root)
    assert all(a.dtype == np.int64 for a in got)
    assert list(zip(*(a.tolist() for a in got))) == expected  # lexicographic
    assert np.array_equal(np.argwhere(csib_mask(arcs, single_root)), np.array(expected).reshape(-1, 3))
    trees = all_trees(n, single_root)
    heads = trees[rng.integers(len(trees))]
    assert list(zip(*(a.tolist() for a in tree_csibs(heads)))) == windows(heads)
    # a tree's windows are candidates over any arc set that holds the tree
    h, a, b = tree_csibs(heads)
    tree_arcs = np.zeros_like(arcs)
    tree_arcs[heads[1:], np.arange(1, n + 1)] = True
    assert csib_mask(tree_arcs, single_root)[h, a, b].all()


def test_tree_windows_by_hand() -> None:
    heads = np.array([-1, 2, 0, 2, 2, 3, 3])  # 2 takes 1 on its left and 3, 4 on its right; 3 takes 5, 6
    expected = {(0, 0, 2), (0, 2, 0), (2, 2, 1), (2, 1, 2), (2, 2, 3), (2, 3, 4), (2, 4, 2), (3, 3, 5),
                (3, 5, 6), (3, 6, 3)}  # fmt: skip
    assert set(zip(*(a.tolist() for a in tree_csibs(heads)))) == expected
    left = np.array([-1, 0, 3, 1])  # 3 heads 2 alone on its left, 1 heads 3 alone on its right
    expected = {(0, 0, 1), (0, 1, 0), (1, 1, 3), (1, 3, 1), (3, 3, 2), (3, 2, 3)}
    assert set(zip(*(a.tolist() for a in tree_csibs(left)))) == expected
    with pytest.raises(ValueError):
        max_csibs_per_tree(-1)


@pytest.mark.parametrize("single_root", [False, True])
def test_max_csibs_per_tree_holds_and_is_attained(single_root: bool) -> None:
    for n in range(1, 6):
        counts = []
        for heads in enumerate_trees(n, single_root):
            h = tree_csibs(heads)[0]
            sides = {(int(heads[m]), m > heads[m]) for m in range(1, n + 1)}
            assert h.size == n + len(sides)
            counts.append(h.size)
        assert max(counts) == max_csibs_per_tree(n) == 2 * n
    assert tree_csibs(np.array([-1, 0, 1, 2, 3]))[0].size == max_csibs_per_tree(4)  # the chain


# ------------------------------------------------------------------------------------------ the polytope


@pytest.mark.parametrize(
    ("base", "n"), [("single-flow", n) for n in range(1, 6)] + [("multi-flow", n) for n in range(1, 5)]
)
@pytest.mark.parametrize("single_root", [False, True])
def test_every_tree_satisfies_every_row(base: str, n: int, single_root: bool) -> None:
    """The full indicator vector of every tree (arcs, base flows, windows) satisfies every row of the
    program, base rows included; CSibIn/CSibOut hold with equality by construction, CSibStart is tight for
    some tree (on each side that has a candidate child)."""
    lp = FORMULATIONS[base](np.zeros((n + 1, n + 1)), single_root)
    prog = consecutive_program(lp)
    h, a, b = prog.candidates()
    prog.add_parts(h, a, b, np.zeros(h.size))
    assert prog.num_parts == h.size and (prog.part_cols(h, a, b) >= 0).all()
    x = np.array([tree_point(prog, heads) for heads in all_trees(n, single_root)])
    ax = lp.A @ x.T
    assert (ax <= lp.row_upper[:, None] + TOL).all() and (ax >= lp.row_lower[:, None] - TOL).all()
    start = lp.rows("CSibStart")
    assert np.isclose(ax[start], 1.0).any(axis=1).all()
    assert {"CSibIn", "CSibOut", "CSibStart"} <= set(lp.con_blocks)
    assert np.array_equal(lp.con_blocks["CSibIn"].index, lp.var_blocks["z"].index)


@SETTINGS
@given(
    n=st.integers(1, 5), pick=st.integers(0, 10**6), single_root=st.booleans(), base=st.sampled_from(BASES)
)
def test_integral_arcs_force_the_windows(n: int, pick: int, single_root: bool, base: str) -> None:
    """With z fixed to a tree, maximize Σ(non-windows) - Σ(windows) over the LP (zcs fractional allowed):
    the optimum -#windows is reached only at the windows (each <= 1) and nowhere else, so zcs is forced."""
    trees = all_trees(n, single_root)
    heads = trees[pick % len(trees)]
    w = tree_csibs(heads)
    cube = np.ones((n + 1,) * 3)
    cube[w] = -1.0
    prog = full_consecutive_program(np.zeros((n + 1, n + 1)), cube, single_root, base)
    arcs = prog.lp.var_blocks["z"].index
    on = (heads[arcs[:, 1]] == arcs[:, 0]).astype(float)
    prog.lp.constrain("FixArcs", arcs, Terms.columns(prog.lp.cols("z")), on, on)
    sol = HighsModel(prog.lp).solve()
    assert sol.certified
    assert sol.objective == pytest.approx(-w[0].size, abs=TOL)
    values = np.zeros((n + 1,) * 3)
    values[prog.parts()] = prog.part_values(sol.x)
    expected = np.zeros_like(values)
    expected[w] = 1.0
    assert np.allclose(values, expected, atol=TOL)


@settings(deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_n=6), st.sampled_from(BASES))
def test_ilp_is_the_best_tree_lp_bounds_it_and_pruned_parts_are_respected(instance, base: str) -> None:
    s, cube, single_root = instance
    n = s.shape[0] - 1
    trees, values = tree_values(s, cube, single_root)
    best = values.max()
    prog, mip = solve_consecutive(s, cube, single_root, mip=True, base=base)
    candidate = csib_mask(allowed_arcs(s), single_root)
    assert np.array_equal(prog.pruned, candidate & np.isneginf(cube))
    assert np.array_equal(prog.present, candidate & ~np.isneginf(cube))
    h, a, b = np.nonzero(prog.pruned)
    assert (prog.part_cols(h, a, b) == -1).all()
    if not np.isfinite(best):  # every tree holds a pruned part: no feasible point
        assert mip.status is not Status.OPTIMAL
        return
    assert mip.certified and mip.objective == pytest.approx(best, abs=TOL)
    heads = heads_from_solution(mip)
    assert values[(trees == heads).all(axis=1)][0] == pytest.approx(best, abs=TOL)
    on = prog.part_values(mip.x) > 0.5
    assert sorted(zip(*(x[on].tolist() for x in prog.parts()))) == windows(heads)
    _, lp = solve_consecutive(s, cube, single_root, base=base)
    assert lp.certified and lp.objective >= best - TOL
    if lp.integral:
        assert lp.objective == pytest.approx(best, abs=TOL)
    assert prog.n == n


@SETTINGS
@given(instances(), st.sampled_from(BASES))
def test_zero_part_scores_leave_the_arc_lp_unchanged(instance, base: str) -> None:
    """Every point of the arc polytope extends to zcs (module docstring), so parts scored 0 change nothing."""
    s, cube, single_root = instance
    _, sol = solve_consecutive(s, np.zeros_like(cube), single_root, base=base)
    alone = solve_arborescence(s, base, single_root=single_root)
    assert sol.certified and sol.objective == pytest.approx(alone.objective, abs=TOL)


@pytest.mark.parametrize("single_root", [False, True])
def test_a_program_with_one_trees_parts_is_that_tree(single_root: bool) -> None:
    """Arcs without a part are forced to 0: holding only a tree's windows, the LP's one point is the tree."""
    n = 5
    rng = np.random.default_rng(3)
    s = random_scores(n, rng)
    cube = rng.normal(size=(n + 1,) * 3)
    trees, values = tree_values(s, cube, single_root)
    for t in rng.choice(len(trees), 5, replace=False):
        prog = consecutive_program(FORMULATIONS["single-flow"](s, single_root))
        h, a, b = tree_csibs(trees[t])
        prog.add_parts(h, a, b, cube[h, a, b])
        sol = HighsModel(prog.lp).solve()
        assert sol.certified and sol.integral and np.array_equal(heads_from_solution(sol), trees[t])
        assert sol.objective == pytest.approx(values[t])
    empty = consecutive_program(FORMULATIONS["single-flow"](s, single_root))
    assert HighsModel(empty.lp).solve().status is Status.INFEASIBLE


def test_parts_on_a_grandparent_program_with_siblings() -> None:
    """The family attaches to a grandparent program's lp that holds siblings already: zero triple and
    sibling scores leave the consecutive-sibling ILP the best tree."""
    n = 4
    rng = np.random.default_rng(5)
    s, cube = random_scores(n, rng), rng.normal(size=(n + 1,) * 3)
    gp = full_grandparent_program(s, np.zeros((n + 1,) * 3))
    sib = sibling_program(gp.lp)
    sib.add_siblings(*sib.candidates(), 0.0)
    prog = consecutive_program(gp.lp)
    h, a, b = prog.candidates()
    prog.add_parts(h, a, b, cube[h, a, b])
    assert {"zgp", "zsib", "zcs"} <= set(gp.lp.var_blocks)
    mip = HighsModel(gp.lp, mip=True).solve()
    assert mip.certified and mip.objective == pytest.approx(tree_values(s, cube, False)[1].max(), abs=TOL)
    with pytest.raises(ValueError, match="attached to this program already"):
        consecutive_program(gp.lp)


def test_bad_parts_and_arguments_raise() -> None:
    n = 4
    s = random_scores(n, 0)
    s[1, 3] = NEG
    prog = consecutive_program(FORMULATIONS["single-flow"](s, True))
    # pruned arc 1→3; sides differ; middle root part (single root); ⟨h, h, h⟩; a farther than b; out of range
    bad_parts = [[1, 1, 3], [1, 3, 1], [2, 3, 1], [0, 1, 2], [1, 1, 1], [2, 1, 3], [3, 1, 2]]
    bad_parts += [[5, 5, 1], [-1, 0, 1]]
    for bad in bad_parts:
        with pytest.raises(ValueError, match="window shape"):
            prog.add_parts([bad[0]], [bad[1]], [bad[2]], [0.0])
    prog.add_parts([2, 2], [2, 3], [3, 4], [0.0, NEG])
    assert prog.num_parts == 1 and prog.pruned[2, 3, 4] and prog.present[2, 2, 3]
    assert prog.part_cols([2, 2], [2, 3], [3, 4]).tolist() == [prog.lp.col("zcs", (2, 2, 3)), -1]
    for again in ([2, 2, 3], [2, 3, 4]):
        with pytest.raises(ValueError, match="added twice"):
            prog.add_parts([again[0]], [again[1]], [again[2]], [1.0])
    with pytest.raises(ValueError, match="added twice"):
        prog.add_parts([1, 1], [1, 1], [2, 2], [0.0, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        prog.add_parts([1], [1], [2], [np.nan])
    assert prog.add_parts([], [], [], []).size == 0
    with pytest.raises(ValueError, match="attached to this program already"):
        consecutive_program(prog.lp)
    with pytest.raises(ValueError, match="unknown base"):
        solve_consecutive(s, np.zeros((n + 1,) * 3), base="cycle-cuts")
    with pytest.raises(ValueError, match="must have shape"):
        solve_consecutive(s, np.zeros((n,) * 3))
    with pytest.raises(ValueError, match="scorer is for n=3"):
        solve_consecutive(s, synthetic_csib_scorer(3, 0))


# ---------------------------------------------------------------------------------------------- scorers


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_dense_scorer_bounds_are_exact_valid_and_scoring_is_counted(n: int, seed: int) -> None:
    loose = synthetic_csib_scorer(n, seed)
    exact = DenseConsecutiveScorer(loose.scores.copy())
    assert isinstance(exact, ConsecutiveSiblingScorer)
    h, a, b = candidate_csibs(allowed_mask_shape(n + 1))
    values = exact.score(h, a, b)
    assert exact.scored == h.size and loose.scored == 0
    first = np.full((n + 1, n + 1), NEG)  # max over the windows, by a plain loop
    second = np.full((n + 1, n + 1), NEG)
    for hh, aa, bb, v in zip(h, a, b, values):
        first[hh, aa] = max(first[hh, aa], v)
        second[hh, bb] = max(second[hh, bb], v)
    assert np.array_equal(exact.bound_first(), first) and np.array_equal(exact.bound_second(), second)
    used1, used2 = np.isfinite(first), np.isfinite(second)
    assert (loose.bound_first()[used1] >= first[used1]).all()
    assert (loose.bound_second()[used2] >= second[used2]).all()
    assert (np.minimum(loose.bound_first()[h, a], loose.bound_second()[h, b]) >= values).all()
    # solving through the scorer scores every candidate once
    scorer = DenseConsecutiveScorer(loose.scores.copy())
    prog, sol = solve_consecutive(random_scores(n, seed), scorer)
    assert sol.certified and scorer.scored == prog.num_parts == h.size


def test_bad_batches_and_cubes_raise() -> None:
    scorer = synthetic_csib_scorer(4, 1)
    for bad in ([1, 1, 1], [2, 1, 3], [3, 1, 2], [2, 3, 1], [1, 0, 1], [2, 1, 0], [0, 0, 0], [2, 2, 0]):
        with pytest.raises(ValueError, match="not a consecutive-sibling window"):
            scorer.score([bad[0]], [bad[1]], [bad[2]])
    with pytest.raises(ValueError, match="lie in 0..4"):
        scorer.score([1], [1], [5])
    with pytest.raises(ValueError, match="same length"):
        scorer.score([1, 1], [1], [2])
    assert scorer.scored == 0
    h, a, b = check_csib_batch(4, [3, 3, 0, 4, 2], [3, 2, 2, 2, 3], [2, 1, 0, 4, 4])
    assert h.tolist() == [3, 3, 0, 4, 2]
    with pytest.raises(ValueError, match="NaN"):
        DenseConsecutiveScorer(np.full((3, 3, 3), np.nan))
    cube = np.zeros((3, 3, 3))
    cube[1, 2, 0] = np.inf  # not a window: ignored
    DenseConsecutiveScorer(cube)
    cube[0, 0, 1] = np.inf
    with pytest.raises(ValueError, match=r"\+inf"):
        DenseConsecutiveScorer(cube)
    with pytest.raises(ValueError, match="shape"):
        DenseConsecutiveScorer(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="slack_first"):
        DenseConsecutiveScorer(np.zeros((3, 3, 3)), slack_first=-np.ones((3, 3)))


# ------------------------------------------------------------------------------------------------ views


def test_pyomo_view_gives_the_highs_lp_optimum() -> None:
    n = 4
    rng = np.random.default_rng(2)
    s, cube = random_scores(n, rng), 2.0 * rng.normal(size=(n + 1,) * 3)
    cube[0, 0, 2] = NEG
    prog, highs = solve_consecutive(s, cube)
    pyomo = make_model(prog.lp, view="pyomo").solve()
    assert highs.certified and pyomo.certified
    assert pyomo.objective == pytest.approx(highs.objective, abs=TOL)
    names = {c.name for c in to_pyomo(prog.lp).component_objects()}
    assert {"z", "phi", "zcs", "CSibIn", "CSibOut", "CSibStart"} <= names
