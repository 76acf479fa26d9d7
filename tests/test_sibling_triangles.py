"""SibTriangle cuts (the triangle inequalities of the Boolean quadric polytope, Padberg 1989) on arbitrary
siblings: valid and tight on trees, separation against enumeration, exact decoding with them against brute
force, and proofs whose checker rebuilds them from their labels."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen import ColgenOptions
from lpparse.exact.search import ExactOptions
from lpparse.exact.second_order import check_exact, parse_exact
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import grandparent_program
from lpparse.families.sibling.family import SiblingFamily, SiblingParts
from lpparse.families.sibling.rows import sibling_program
from lpparse.families.sibling.triangles import (
    TRIANGLE_COEFFICIENTS,
    add_cross_triangles,
    add_sibling_triangles,
    violated_cross_triangles,
    violated_sibling_triangles,
)
from lpparse.formulations.arborescence import FORMULATIONS
from lpparse.oracles import all_trees
from lpparse.oracles.brute_force import brute_force
from lpparse.ppc import solve_lp
from lpparse.proofs.check import ProofProgram, check_proof
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, candidate_triples

TOL = 1e-9


def _full_program(n: int, single_root: bool, scores: np.ndarray | None = None):
    """An arborescence program with every candidate sibling part (scores 0, or -inf where ``scores`` is)."""
    lp = FORMULATIONS["single-flow"](np.zeros((n + 1, n + 1)), single_root)
    prog = sibling_program(lp, "triangles")
    h, m, m2 = prog.candidates()
    prog.add_siblings(h, m, m2, np.zeros(h.size) if scores is None else scores[h, m, m2])
    return lp, prog


def _every_triangle(prog) -> np.ndarray:
    """[h, a, b, c, kind] of every triangle row of the program's candidate parts."""
    size = prog.present.shape[0]
    rows = [
        (h, a, b, c, k)
        for h in range(size)
        for a, b, c in itertools.combinations(range(1, size), 3)
        if all(prog.present[h, u, v] or prog.pruned[h, u, v] for u, v in ((a, b), (a, c), (b, c)))
        for k in range(4)
    ]
    return np.array(rows, np.int64).reshape(-1, 5)


def _expect(expected: dict, label: tuple[int, ...], point: list[float], tol: float) -> None:
    """Record the most violated kind of a triple of arcs (values x₁, x₂, x₃, y₁₂, y₁₃, y₂₃), row by row."""
    excess = TRIANGLE_COEFFICIENTS @ np.array(point) - np.array([1.0, 0, 0, 0])
    if excess.max() > tol:
        expected[label] = (int(excess.argmax()), excess.max())


def _assert_rows(rows: tuple[np.ndarray, np.ndarray], expected: dict) -> None:
    index, excess = rows
    found = {tuple(r[:4]): (r[4], e) for r, e in zip(index.tolist(), excess)}
    assert found.keys() == expected.keys()
    for key, (kind, value) in expected.items():
        assert found[key][0] == kind and found[key][1] == pytest.approx(value)


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_triangle_rows_hold_on_every_tree_and_each_is_tight_on_one(n: int, single_root: bool) -> None:
    lp, prog = _full_program(n, single_root)
    rows = add_sibling_triangles(prog, _every_triangle(prog))
    assert rows.size == 4 * sum(
        len(list(itertools.combinations(np.flatnonzero(prog.z_col[h] >= 0), 3)))
        for h in range(n + 1)
        if not (single_root and h == 0)
    )
    trees = all_trees(n, single_root)
    x = np.zeros((len(trees), lp.num_cols))
    x[np.arange(len(trees))[:, None], prog.z_col[trees[:, 1:], np.arange(1, n + 1)]] = 1.0
    h, m, m2 = prog.siblings()
    x[:, prog.sibling_cols(h, m, m2)] = (trees[:, m] == h) & (trees[:, m2] == h)
    ax = lp.A[rows] @ x.T
    assert (ax <= lp.row_upper[rows, None] + TOL).all()
    assert np.isclose(ax, lp.row_upper[rows, None]).any(axis=1).all()  # none is loose on every tree


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [3, 4])
def test_cross_triangle_rows_hold_on_every_tree_and_each_is_tight_on_one(n: int, single_root: bool) -> None:
    """Every GPSibTriangle row (arcs g→h, h→a, h→b; triples ⟨g,h,a⟩, ⟨g,h,b⟩; part ⟨h,a,b⟩) holds on every
    tree with its grandparent and sibling parts, and each is met with equality by some tree."""
    gp = grandparent_program(np.zeros((n + 1, n + 1)), "all", single_root)
    sibs = sibling_program(gp.lp, "triangles")
    g, p, c = candidate_triples(gp.arc_mask)
    gp.add_triples(g, p, c, np.zeros(g.size))
    h, m, m2 = sibs.candidates()
    sibs.add_siblings(h, m, m2, np.zeros(h.size))
    labels = [
        (g, h, a, b, k)
        for g, h, a, b in itertools.product(range(n + 1), range(1, n + 1), range(1, n + 1), range(1, n + 1))
        if a < b and g not in (a, b, h) and gp.present[g, h, a] and gp.present[g, h, b] and sibs.present[h, a, b]
        for k in range(4)
    ]
    assert labels
    rows = add_cross_triangles(gp, sibs, labels)
    lp = gp.lp
    trees = all_trees(n, single_root)
    x = np.zeros((len(trees), lp.num_cols))
    x[np.arange(len(trees))[:, None], gp.z_col[trees[:, 1:], np.arange(1, n + 1)]] = 1.0
    x[:, gp.triple_cols(g, p, c)] = (trees[:, p] == g) & (trees[:, c] == p)
    x[:, sibs.sibling_cols(h, m, m2)] = (trees[:, m] == h) & (trees[:, m2] == h)
    ax = lp.A[rows] @ x.T
    assert (ax <= lp.row_upper[rows, None] + TOL).all()
    assert np.isclose(ax, lp.row_upper[rows, None]).any(axis=1).all()


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(0, 2**32 - 1), st.floats(0.0, 0.5))
def test_cross_separation_finds_the_most_violated_row_of_every_violated_triple(
    n: int, seed: int, unknown: float
) -> None:
    """violated_cross_triangles against a loop over every arc g→h and pair of children of h."""
    rng = np.random.default_rng(seed)
    size = n + 1
    z = np.where(rng.random((size, size)) < 0.3, 0.0, rng.random((size, size)))
    gp, sib = rng.random((size,) * 3), rng.random((size,) * 3)
    gp_known, sib_known = (rng.random((size,) * 3) >= unknown for _ in range(2))
    tol = 1e-6
    expected = {}
    for g, h in itertools.product(range(size), range(size)):
        if z[g, h] <= tol:
            continue
        kids = [m for m in range(size) if z[h, m] > tol and m != g]
        for a, b in itertools.combinations(kids, 2):
            if not (gp_known[g, h, a] and gp_known[g, h, b] and sib_known[h, a, b]):
                continue
            _expect(expected, (g, h, a, b), [z[g, h], z[h, a], z[h, b], gp[g, h, a], gp[g, h, b], sib[h, a, b]], tol)
    _assert_rows(violated_cross_triangles(z, gp, gp_known, sib, sib_known, tol), expected)


def test_a_triangle_cuts_the_point_martins_rows_allow() -> None:
    """x = 1/2 on three children, y_ab = y_ac = 1/2, y_bc = 0: ArcSib and SibArc hold, the row of apex a is
    violated by 1/2, and separation finds exactly that row."""
    n = 4
    lp, prog = _full_program(n, False)
    x = np.zeros(lp.num_cols)
    x[prog.z_col[1, [2, 3, 4]]] = 0.5
    x[prog.sibling_cols([1, 1], [2, 2], [3, 4])] = 0.5
    ax = lp.A @ x
    for block in ("ArcSib", "SibArc"):
        rows = lp.rows(block)
        assert (ax[rows] <= lp.row_upper[rows] + TOL).all() and (ax[rows] >= lp.row_lower[rows] - TOL).all()
    z = np.zeros((n + 1, n + 1))
    z[1, [2, 3, 4]] = 0.5
    y = np.zeros((n + 1,) * 3)
    y[1, 2, 3] = y[1, 2, 4] = 0.5
    index, excess = violated_sibling_triangles(z, y, prog.present | prog.pruned, 1e-6)
    np.testing.assert_array_equal(index, [[1, 2, 3, 4, 1]])
    assert excess == pytest.approx([0.5])
    row = add_sibling_triangles(prog, index)
    assert (lp.A[row] @ x)[0] - lp.row_upper[row][0] == pytest.approx(0.5)


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(0, 2**32 - 1), st.floats(0.0, 0.5))
def test_separation_finds_the_most_violated_row_of_every_violated_triangle(n: int, seed: int, unknown: float) -> None:
    """violated_triangles against a loop over every head and triple of its children, on random points with
    some parts unknown (neither a column nor pruned) and some arcs at 0."""
    rng = np.random.default_rng(seed)
    size = n + 1
    z = np.where(rng.random((size, size)) < 0.3, 0.0, rng.random((size, size)))
    y = rng.random((size,) * 3)
    known = rng.random((size,) * 3) >= unknown
    tol = 1e-6
    expected = {}
    for h in range(size):
        kids = [m for m in range(size) if z[h, m] > tol]
        for a, b, c in itertools.combinations(kids, 3):
            if not (known[h, a, b] and known[h, a, c] and known[h, b, c]):
                continue
            _expect(expected, (h, a, b, c), [z[h, a], z[h, b], z[h, c], y[h, a, b], y[h, a, c], y[h, b, c]], tol)
    _assert_rows(violated_sibling_triangles(z, y, known, tol), expected)


def _instance(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3), rng.normal(size=(n + 1,) * 3)


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 7), st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_exact_with_triangles_is_brute_force_with_a_proof(n: int, seed: int, single_root: bool, gp: bool) -> None:
    """Exact decoding with the SibTriangle cuts (its default): brute force's optimum and a proof that checks;
    the LP with them is between the best tree and the LP without them, which a run that separates no cuts
    solves."""
    s, t, sib = _instance(n, seed)
    triples = DenseTripleScorer(t) if gp else None
    options = ExactOptions(verify=True)
    result = parse_exact(s, triples, "all", single_root, options=options, sibling_scorer=DenseSiblingScorer(sib))
    _, best = brute_force(s, single_root, gp_scores=t if gp else None, sib_scores=sib)
    assert result.certified and result.objective == pytest.approx(best, abs=1e-7)
    assert check_exact(s, triples, result, DenseSiblingScorer(sib)) is None
    lps = {}
    for preset in ("martins", "triangles"):
        parts = [SiblingParts(DenseSiblingScorer(sib), preset)]
        if gp:
            parts.insert(0, GrandparentParts(DenseTripleScorer(t)))
        lps[preset] = solve_lp(s, parts, "ppc", single_root)
        assert lps[preset].certified
    assert best - 1e-7 <= lps["triangles"].objective <= lps["martins"].objective + 1e-7
    parts[-1] = SiblingParts(DenseSiblingScorer(sib), "triangles")
    uncut = solve_lp(s, parts, "ppc", single_root, options=ColgenOptions(cuts=False))  # a run without cuts
    assert uncut.certified and uncut.objective == pytest.approx(lps["martins"].objective, abs=1e-7)


def test_triangles_close_a_fractional_root_and_the_proof_needs_them() -> None:
    """On a seeded instance whose sibling LP is fractional without them, the cuts' duals carry the proof: the
    checker that rebuilds them from their labels accepts it (under Martins et al.'s rows, the family's
    preset: exact decoding adds the cuts, ``for_exact``), one that does not rebuild them rejects it."""
    for seed in range(400):
        s, _, sib = _instance(6, seed)
        martins = solve_lp(s, [SiblingParts(DenseSiblingScorer(sib), "martins")], "ppc", False)
        triangles = solve_lp(s, [SiblingParts(DenseSiblingScorer(sib), "triangles")], "ppc", False)
        if not martins.integral and triangles.objective < martins.objective - 1e-3:
            break
    else:
        raise AssertionError("no instance where the cuts tighten a fractional LP")
    assert "SibTriangle" in triangles.program.lp.con_blocks
    result = parse_exact(s, None, "all", False, sibling_scorer=DenseSiblingScorer(sib))
    assert result.certified
    assert check_proof(s, [SiblingParts(DenseSiblingScorer(sib))], result) is None
    assert any(node.duals is not None and "SibTriangle" in node.duals for node in result.nodes)
    with mock.patch.object(SiblingFamily, "add_named_rows", lambda self, duals: None):
        assert check_proof(s, [SiblingParts(DenseSiblingScorer(sib))], result) is not None


def test_the_checker_builds_only_the_triangles_that_labels_name() -> None:
    """A label that names no triangle of candidate parts (children out of order, a kind beyond 3, a token
    beyond the sentence, a non-candidate arc, a grandparent that is a child) adds no row; a good label adds
    its row once."""
    n = 5
    s = np.zeros((n + 1, n + 1))
    s[2, 3] = -np.inf  # 2 -> 3 is no candidate: parts <2, 3, ·> do not exist
    cube = np.zeros((n + 1,) * 3)
    parts = [GrandparentParts(DenseTripleScorer(cube)), SiblingParts(DenseSiblingScorer(cube), "triangles")]
    good = [1, 2, 4, 5, 3]
    bad = [[1, 4, 2, 5, 0], [1, 2, 4, 5, 4], [1, 2, 4, 9, 0], [2, 1, 3, 4, 0], [-1, 2, 4, 5, 0]]
    cross = [3, 1, 2, 4, 1]
    cross_bad = [[2, 1, 2, 4, 0], [1, 2, 3, 4, 0], [3, 1, 4, 2, 0], [3, 1, 2, 4, 5], [1, 1, 2, 4, 0]]
    labels = {
        "SibTriangle": (np.array([good, *bad, good]), np.ones(7)),
        "GPSibTriangle": (np.array([cross, *cross_bad]), np.ones(6)),
    }
    full = ProofProgram(s, parts, False, "single-flow", [labels])
    for name, label, nonzeros, rhs in (("SibTriangle", good, 4, 0.0), ("GPSibTriangle", cross, 4, 0.0)):
        block = full.lp.con_blocks[name]
        np.testing.assert_array_equal(block.index, [label])
        row = block.positions[0]
        assert np.count_nonzero(full.lp.A[row].toarray()) == nonzeros and full.lp.row_upper[row] == rhs
