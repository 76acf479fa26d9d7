"""The row builder and index maps of :mod:`lpparse.lp.program`, the formulations written with them against
their equations enumerated row by row, and the two views (:class:`lpparse.lp.views.LPModel`) against each
other on the same programs."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest

from lpparse.families.grandparent.rows import FAMILIES, PRESETS, full_grandparent_program
from lpparse.families.sibling.rows import SIBLING_FAMILIES, sibling_program
from lpparse.formulations.arborescence import (
    FORMULATIONS,
    ArborescenceLP,
    add_subtour_cuts,
    arc_matrix,
    cycle_cut_program,
    heads_from_solution,
    multi_commodity_flow,
    single_commodity_flow,
)
from lpparse.lp import LinearProgram, Terms
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import IndexMap
from lpparse.lp.pyomo_view import PyomoModel
from lpparse.lp.views import VIEWS, LPModel, make_model
from lpparse.trees import allowed_arcs
from lpparse.triples import candidate_siblings

Rows = dict[tuple[str, tuple[int, ...]], tuple[float, float, dict[tuple[str, tuple[int, ...]], float]]]


def labelled_rows(lp: LinearProgram) -> Rows:
    """Every row as (block, index) -> (lower, upper, {(variable block, index): coefficient})."""
    a = lp.A.tocsr()
    out: Rows = {}
    for i in range(lp.num_rows):
        terms = {
            lp.col_label(j): v
            for j, v in zip(a.indices[a.indptr[i] : a.indptr[i + 1]], a.data[a.indptr[i] : a.indptr[i + 1]])
        }
        out[lp.row_label(i)] = (float(lp.row_lower[i]), float(lp.row_upper[i]), terms)
    return out


class Equations:
    """Rows written one at a time, straight from the formulas (the reference the builder is held to)."""

    def __init__(self) -> None:
        self.rows: Rows = {}

    def row(
        self,
        name: str,
        index: tuple[int, ...],
        lower: float,
        upper: float,
        terms: list[tuple[float, str, tuple[int, ...]]],
    ) -> None:
        coefs: dict[tuple[str, tuple[int, ...]], float] = defaultdict(float)
        for a, var, idx in terms:
            coefs[(var, tuple(int(i) for i in idx))] += a
        self.rows[(name, tuple(int(i) for i in index))] = (
            lower,
            upper,
            {k: v for k, v in coefs.items() if v},
        )


def instance(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arc scores with some arcs pruned (a chain from the root stays), triple scores and sibling scores with
    some parts scored -inf."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n + 1, n + 1))
    s[rng.random(s.shape) < 0.25] = -np.inf
    s[np.arange(n), np.arange(1, n + 1)] = 0.5
    gp = rng.normal(size=(n + 1,) * 3)
    gp[rng.random(gp.shape) < 0.1] = -np.inf
    sib = rng.normal(size=(n + 1,) * 3)
    sib[rng.random(sib.shape) < 0.1] = -np.inf
    return s, gp, sib


def arborescence_equations(s: np.ndarray, formulation: str, single_root: bool) -> Equations:
    """Riedel, Smith & McCallum 2012 §3.1 (single commodity) and Magnanti & Wolsey 1995 (multi-commodity)."""
    n = s.shape[0] - 1
    arcs = [tuple(a) for a in np.argwhere(allowed_arcs(s))]
    eq = Equations()
    for m in range(1, n + 1):
        eq.row("OneHead", (m,), 1, 1, [(1, "z", a) for a in arcs if a[1] == m])
    if single_root:
        eq.row("OneRoot", (0,), 1, 1, [(1, "z", a) for a in arcs if a[0] == 0])
    if formulation == "single-flow":
        eq.row("Source", (0,), n, n, [(1, "phi", a) for a in arcs if a[0] == 0])
        for v in range(1, n + 1):
            terms = [(1, "phi", a) for a in arcs if a[1] == v] + [(-1, "phi", a) for a in arcs if a[0] == v]
            eq.row("Consume", (v,), 1, 1, terms)
        for a in arcs:
            eq.row("NoFlow", a, -np.inf, 0, [(1, "phi", a), (-n, "z", a)])
    elif formulation == "multi-flow":
        for k in range(1, n + 1):
            eq.row("Source", (k,), 1, 1, [(1, "phi", (k, *a)) for a in arcs if a[0] == 0])
        for k, v in itertools.product(range(1, n + 1), repeat=2):
            terms = [(1, "phi", (k, *a)) for a in arcs if a[1] == v] + [
                (-1, "phi", (k, *a)) for a in arcs if a[0] == v
            ]
            eq.row("Consume", (k, v), float(k == v), float(k == v), terms)
        for k in range(1, n + 1):
            for a in arcs:
                eq.row("NoFlow", (k, *a), -np.inf, 0, [(1, "phi", (k, *a)), (-1, "z", a)])
    return eq


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("formulation", sorted(FORMULATIONS))
def test_arborescence_programs_are_their_equations(seed: int, single_root: bool, formulation: str) -> None:
    s, _, _ = instance(seed, 3 + seed)
    lp = FORMULATIONS[formulation](s, single_root)
    eq = arborescence_equations(s, formulation, single_root)
    if formulation == "cycle-cuts":
        subsets = list(dict.fromkeys([(1, 2), (1, 2, 3), tuple(range(1, s.shape[0]))]))
        add_subtour_cuts(lp, subsets + [(1, 2)])  # a set cut twice is one row
        for subset in subsets:
            inside = [(1, "z", (h, m)) for h, m in itertools.permutations(subset, 2) if np.isfinite(s[h, m])]
            label = tuple(int(i in subset) for i in range(s.shape[0]))  # the row's label is its set
            eq.row("NoCycle", label, -np.inf, len(subset) - 1, inside)
        assert lp.cuts == subsets
    assert labelled_rows(lp) == eq.rows
    assert list(lp.con_blocks) == list(dict.fromkeys(name for name, _ in eq.rows))  # blocks in paper order
    assert (lp.n, lp.single_root, lp.formulation) == (s.shape[0] - 1, single_root, formulation)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("families", [*PRESETS.values(), FAMILIES])
def test_grandparent_and_sibling_rows_are_their_equations(seed: int, families: tuple[str, ...]) -> None:
    """Riedel, Smith & McCallum 2012 §3.2 (ArcGP, GPArc, OneGP, NoGP, and PrunedGP for triples scored -inf)
    and Martins, Smith & Xing 2009 (ArcSib, SibArc, PrunedSib; SibClique: Padberg 1989), on the full
    programs, whose triples and parts enter in two batches."""
    s, gp, sib = instance(seed, 4)
    n = s.shape[0] - 1
    prog = full_grandparent_program(s, gp, families)
    sibs = sibling_program(prog.lp, SIBLING_FAMILIES)
    h, m, m2 = sibs.candidates()
    half = len(h) // 2
    for part in (slice(0, half), slice(half, None)):
        sibs.add_siblings(h[part], m[part], m2[part], sib[h[part], m[part], m2[part]])
    eq = Equations()
    eq.rows = {k: v for k, v in arborescence_equations(s, "single-flow", False).rows.items()}
    arcs = [tuple(a) for a in np.argwhere(allowed_arcs(s))]
    triples = [(g, p, c) for (g, p), (p2, c) in itertools.product(arcs, arcs) if p == p2 and g != c]
    live = [t for t in triples if np.isfinite(gp[t])]
    if "OneGP" in families:
        for p, c in arcs:
            if p > 0:
                eq.row(
                    "OneGP",
                    (p, c),
                    0,
                    0,
                    [(-1, "z", (p, c))] + [(1, "zgp", t) for t in live if t[1:] == (p, c)],
                )
    if "NoGP" in families:
        for g, p in arcs:
            eq.row(
                "NoGP",
                (g, p),
                -np.inf,
                0,
                [(-n, "z", (g, p))] + [(1, "zgp", t) for t in live if t[:2] == (g, p)],
            )
    for g, p, c in triples:
        if not np.isfinite(gp[g, p, c]):
            eq.row("PrunedGP", (g, p, c), -np.inf, 1, [(1, "z", (g, p)), (1, "z", (p, c))])
            continue
        if "ArcGP" in families:
            eq.row(
                "ArcGP", (g, p, c), -np.inf, 1, [(1, "z", (g, p)), (1, "z", (p, c)), (-1, "zgp", (g, p, c))]
            )
        if "GPArc" in families:
            eq.row("GPArc", (g, p, c, 0), 0, np.inf, [(1, "z", (g, p)), (-1, "zgp", (g, p, c))])
            if "OneGP" not in families:
                eq.row("GPArc", (g, p, c, 1), 0, np.inf, [(1, "z", (p, c)), (-1, "zgp", (g, p, c))])
    parts = list(zip(*candidate_siblings(allowed_arcs(s)), strict=True))
    for head in range(n + 1):
        kids = [c for c in range(n + 1) if (head, c) in arcs]
        mine = [t for t in parts if t[0] == head and np.isfinite(sib[t])]
        for alpha in range(1, len(kids) - 1):
            terms = [(alpha, "z", (head, c)) for c in kids] + [(-1, "zsib", t) for t in mine]
            eq.row("SibClique", (head, alpha), -np.inf, alpha * (alpha + 1) / 2, terms)
    for t in parts:
        first, second = (t[0], t[1]), (t[0], t[2])
        if not np.isfinite(sib[t]):
            eq.row("PrunedSib", t, -np.inf, 1, [(1, "z", first), (1, "z", second)])
            continue
        eq.row("ArcSib", t, -np.inf, 1, [(1, "z", first), (1, "z", second), (-1, "zsib", t)])
        for side, arc in enumerate((first, second)):
            eq.row("SibArc", (*t, side), 0, np.inf, [(1, "z", arc), (-1, "zsib", t)])
    assert labelled_rows(prog.lp) == eq.rows
    cols = prog.triple_cols(*np.array(live).T)
    assert [prog.lp.col_label(j) for j in cols] == [("zgp", t) for t in live]
    assert (prog.triple_cols(*np.array([t for t in triples if t not in live] or [(0, 0, 0)]).T) == -1).all()
    assert [sibs.lp.col_label(j) for j in sibs.sibling_cols(*sibs.siblings())] == [
        ("zsib", t) for t in zip(*sibs.siblings())
    ]


def test_terms_place_scale_and_refuse() -> None:
    lp = LinearProgram()
    arcs = np.array([[0, 1], [0, 2], [1, 2], [2, 1]])
    lp.add_variables("z", arcs)
    lp.add_variables("y", [[0], [1]])
    rows = lp.constrain(
        "R", [[1], [2]], 2.0 * lp.var("z", arcs).at(arcs[:, 1]) - lp.var("y", [0, 1]), 0.0, 1.0
    )
    np.testing.assert_array_equal(lp.A.toarray(), [[2, 0, 0, 2, -1, 0], [0, 2, 2, 0, 0, -1]])
    lp.add_terms("R", np.array([3.0]) * lp.var("y", [1]).at([1]))
    assert lp.A[rows[0], 5] == 3.0
    with pytest.raises(KeyError, match=r"z\(1, 1\)"):
        lp.var("z", [[1, 1]])
    with pytest.raises(ValueError, match="no row labelled"):
        lp.constrain("S", [0], lp.var("y", [0]).at([5]))
    with pytest.raises(ValueError, match="one term per row"):
        lp.constrain("S", [0], lp.var("y", [0, 1]))
    with pytest.raises(ValueError, match="scale a sum"):
        _ = (lp.var("y", [0]) + lp.var("y", [1])) * np.array([1.0])
    side = lp.constrain("Side", [[0, 0], [0, 1]], Terms.stack(lp.var("y", [0]), lp.var("y", [1])), upper=1.0)
    np.testing.assert_array_equal(lp.A[side].toarray()[:, 4:], np.eye(2))
    with pytest.raises(ValueError, match="stack"):
        Terms.stack(lp.var("y", [0]).at([0]))
    with pytest.raises(TypeError, match="arborescence"):
        heads_from_solution(HighsModel(lp).solve())


@pytest.mark.parametrize("arity", [1, 2, 3, 4])
@pytest.mark.parametrize("spread", [3, 12])
def test_index_map_against_a_dict(arity: int, spread: int) -> None:
    """Maps grown in batches, some outside the first box (the block then rebuilds its map), against a dict;
    negative labels (marginal polytopes use -1) included; tuples over a small or a wide range."""
    rng = np.random.default_rng(arity)
    tuples = np.unique(rng.integers(-1, spread, size=(40 * 4**arity, arity)), axis=0)
    tuples = tuples[rng.permutation(len(tuples))]
    lp = LinearProgram()
    reference: dict[tuple[int, ...], int] = {}
    for batch in np.array_split(tuples, 4):
        pos = lp.add_variables("x", batch)
        reference.update(zip(map(tuple, batch.tolist()), pos.tolist(), strict=True))
        block = lp.var_blocks["x"]
        queries = rng.integers(-2, spread + 2, size=(200, arity))
        expected = [reference.get(tuple(q), -1) for q in queries.tolist()]
        np.testing.assert_array_equal(block.find(queries), expected)
    with pytest.raises(ValueError, match="duplicate"):
        lp.add_variables("x", tuples[:1])
    # the map's form: dense when the tuples fill at least half of their box
    index = np.argwhere(np.ones((spread + 1,) * arity, bool))
    assert not IndexMap(index, np.arange(len(index))).sparse
    few = index[np.r_[0, len(index) - 1, 1 : len(index) - 1 : 16]]  # the corners keep the box
    assert IndexMap(few, np.arange(len(few))).sparse == (len(index) > 2 * len(few))


def programs() -> list[tuple[str, LinearProgram]]:
    s, gp, sib = instance(7, 5)
    cuts = cycle_cut_program(s)
    add_subtour_cuts(cuts, [(1, 2), (2, 3, 4)])
    grand = full_grandparent_program(s, gp, "all")
    sibs = sibling_program(full_grandparent_program(s, gp, "martins").lp, "all")
    sibs.add_siblings(*sibs.candidates(), sib[sibs.candidates()])
    return [
        ("single-flow", single_commodity_flow(s)),
        ("multi-flow", multi_commodity_flow(s, single_root=True)),
        ("cycle-cuts", cuts),
        ("grandparent", grand.lp),
        ("sibling", sibs.lp),
    ]


@pytest.mark.parametrize("mip", [False, True])
def test_both_views_are_lp_models_with_the_same_answers(mip: bool) -> None:
    for name, lp in programs():
        models = [make_model(lp, view=view, mip=mip) for view in VIEWS]
        assert all(isinstance(model, LPModel) for model in models)
        assert isinstance(models[0], HighsModel) and isinstance(models[1], PyomoModel)
        highs, pyomo = (model.solve() for model in models)
        assert highs.certified and pyomo.certified, name
        assert highs.objective == pytest.approx(pyomo.objective, abs=1e-6), name
        assert isinstance(lp, ArborescenceLP)
        np.testing.assert_allclose(arc_matrix(lp, highs.x), arc_matrix(lp, pyomo.x), atol=1e-6, err_msg=name)
        if mip:
            np.testing.assert_array_equal(heads_from_solution(highs), heads_from_solution(pyomo))
