"""GSibGP cuts linking grand-sibling flows to grandparent triples: equal on every tree, separation against a
plain loop, exact decoding with them against brute force, and proofs whose checker rebuilds them from their
labels."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen import ColgenOptions
from lpparse.exact.kbest import k_best_search
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.base import Binding, exact_parts, tree_score, tree_scores
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.families.grandparent.family import GrandparentParts, tree_triples
from lpparse.families.grandparent.rows import arc_program
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import GrandSiblingFamily, GrandSiblingParts
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer, tree_gsibs
from lpparse.families.third_order.grandsibling_links import (
    LINK_BLOCK,
    add_grandparent_links,
    every_grandparent_link,
    grandparent_link_known,
    violated_grandparent_links,
)
from lpparse.family_kit import cuts_close_a_root, random_arc_scores
from lpparse.oracles import all_trees
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc import solve_lp
from lpparse.proofs.check import ProofProgram, check_proof
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer


def _parts(rng: np.random.Generator, n: int, links: bool = False, gsib_scale: float = 1.0) -> list:
    """Grandparent triples, consecutive siblings and grand-siblings of random scores (about 5% pruned)."""
    size = n + 1

    def pruned(shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
        out = rng.normal(scale=scale, size=shape)
        out[rng.random(shape) < 0.05] = -np.inf
        return out

    return [
        GrandparentParts(DenseTripleScorer(pruned((size,) * 3))),
        ConsecutiveSiblingParts(DenseConsecutiveScorer(pruned((size,) * 3))),
        GrandSiblingParts(DenseGrandSiblingScorer(pruned((size,) * 4, gsib_scale), slack=0.3), link_grandparents=links),
    ]


def _full(s: np.ndarray, parts: list, single_root: bool) -> GrandSiblingFamily:
    """The grand-sibling family of a program with every candidate part of ``parts``."""
    prog = arc_program(s, single_root, "single-flow")
    binding = Binding(prog, s, chu_liu_edmonds(s, single_root=single_root), ColgenOptions(), None)
    families = [p.bind(binding) for p in parts]
    for family in families:
        family.tree = None
        family.seed()
    return families[-1]


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_link_row_is_an_equality_on_every_tree(n: int, single_root: bool) -> None:
    """Over every candidate part, Σ_b zgsib[g,h,m,b] - zgp[g,h,m] is 0 on every tree (<= 0 valid and tight),
    for every label the checker accepts, pruned parts included."""
    rng = np.random.default_rng(n)
    s = np.zeros((n + 1, n + 1))
    family = _full(s, _parts(rng, n), single_root)
    size = n + 1
    labels = np.array(list(itertools.product(range(size), repeat=3)))
    labels = labels[grandparent_link_known(family.gp, labels)]
    assert len(labels) and (labels[:, 0] == labels[:, 2]).any() and family.gp.pruned.any()
    rows = add_grandparent_links(family.prog, family.gp, labels)
    lp = family.prog.lp
    gsib_cols, gp_cols = lp.cols("zgsib"), lp.cols("zgp")
    gsib_at = {tuple(k): c for k, c in zip(lp.var_blocks["zgsib"].index.tolist(), gsib_cols)}
    gp_at = {tuple(k): c for k, c in zip(lp.var_blocks["zgp"].index.tolist(), gp_cols)}
    A = lp.A.tocsr()[rows]
    for heads in all_trees(n, single_root):
        x = np.zeros(lp.num_cols)
        for part in zip(*(v.tolist() for v in tree_gsibs(heads))):
            if part in gsib_at:
                x[gsib_at[part]] = 1.0
        for triple in zip(*(v.tolist() for v in tree_triples(heads))):
            if triple in gp_at:
                x[gp_at[triple]] = 1.0
        pruned_tree = any(
            family.gp.pruned[t] for t in zip(*(v.tolist() for v in tree_triples(heads)))
        ) or any(part not in gsib_at for part in zip(*(v.tolist() for v in tree_gsibs(heads))))
        if not pruned_tree:  # a tree with a pruned part is no tree of the program
            np.testing.assert_allclose(A @ x, 0.0, atol=1e-12)
        assert (A @ x <= 1e-12).all() or pruned_tree


def _loop_violations(family: GrandSiblingFamily, x: np.ndarray, tol: float) -> dict:
    """What a plain loop over (g, h, m) finds: Σ over present parts ⟨g,h,m,b⟩ minus zgp, where known."""
    prog, gp = family.prog, family.gp
    parts = list(zip(*(v.tolist() for v in prog.parts())))
    values = prog.part_values(x)
    gp_value = dict(zip(zip(*(v.tolist() for v in gp.triples())), gp.triple_values(x)))
    out = {}
    size = prog.n + 1
    for g, h, m in itertools.product(range(size), repeat=3):
        if h == 0 or m == h or g == h:
            continue
        if not (gp.present[g, h, m] or gp.pruned[g, h, m] or g == m):
            continue
        flow = sum(v for (pg, ph, pa, _), v in zip(parts, values) if (pg, ph, pa) == (g, h, m))
        excess = flow - gp_value.get((g, h, m), 0.0)
        if excess > tol:
            out[(g, h, m)] = excess
    return out


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 5), st.integers(0, 2**32 - 1), st.floats(0.0, 0.6))
def test_separation_finds_every_violated_row_over_present_parts(n: int, seed: int, absent: float) -> None:
    """On a program holding a random subset of the parts (the others absent: not known), at a random point,
    separation finds exactly the rows a plain loop finds, with their violations, and none twice."""
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng)
    prog = arc_program(s, False, "single-flow")
    binding = Binding(prog, s, chu_liu_edmonds(s), ColgenOptions(), None)
    families = [p.bind(binding) for p in _parts(rng, n)]
    gp_family, csib_family, family = families
    for f in (gp_family, csib_family):
        f.tree = None
        f.seed()
    g, p, c = prog.triples()
    drop = rng.random(g.size) < absent
    if drop.any():  # a program with some triples absent: rebuild with the rest only
        prog = arc_program(s, False, "single-flow")
        binding = Binding(prog, s, chu_liu_edmonds(s), ColgenOptions(), None)
        families = [p_.bind(binding) for p_ in _parts(np.random.default_rng(seed), n)]
        gp_family, csib_family, family = families
        gp_family.prog.add_triples(g[~drop], p[~drop], c[~drop], gp_family.cache.get(g[~drop], p[~drop], c[~drop]))
        csib_family.tree = None
        csib_family.seed()
    quads = family.spec.candidates(family.prog.csibs.arc_mask, False)
    keep = rng.random(quads[0].size) >= absent
    family._add(tuple(v[keep] for v in quads))
    x = rng.random(prog.lp.num_cols) * (rng.random(prog.lp.num_cols) < 0.7)
    index, excess = violated_grandparent_links(family.prog, family.gp, x, 1e-6)
    expected = _loop_violations(family, x, 1e-6)
    found = dict(zip(map(tuple, index.tolist()), excess))
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert found[key] == pytest.approx(value)
    if len(index):
        add_grandparent_links(family.prog, family.gp, index)
        again, _ = violated_grandparent_links(family.prog, family.gp, x, 1e-6)
        assert len(again) == 0  # rows the program holds are not found again
    every = {tuple(r) for r in every_grandparent_link(family.prog, family.gp).tolist()}
    g, h, a, _ = family.prog.parts()
    expected = {
        (pg, ph, pa)
        for pg, ph, pa in zip(g.tolist(), h.tolist(), a.tolist())
        if pa != ph and bool(grandparent_link_known(family.gp, [[pg, ph, pa]])[0])
    }
    assert every == expected - set(map(tuple, index.tolist()))  # every row over present parts, none held twice


def _instance(n: int, seed: int, single_root: bool) -> tuple[np.ndarray, list]:
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng, single_root=single_root)
    return s, _parts(rng, n, gsib_scale=2.0)


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 5), st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_tree_scores_are_tree_score_of_each_tree(
    n: int, seed: int, single_root: bool, siblings: bool
) -> None:
    """Batched brute-force scoring (one scorer call per family) against scoring tree by tree, over every tree,
    with pruned arcs and parts (-inf) of 3- and 4-index families, arbitrary siblings too: the same floats."""
    s, parts = _instance(n, seed, single_root)
    if siblings:
        rng = np.random.default_rng(seed)
        parts.append(SiblingParts(DenseSiblingScorer(rng.normal(size=(n + 1,) * 3))))
    trees = all_trees(n, single_root)
    one_by_one = [tree_score(s, parts, heads) for heads in trees]
    assert tree_scores(s, parts, trees).tolist() == one_by_one


@settings(deadline=None, max_examples=30)
@given(st.one_of(st.integers(1, 9), st.integers(10, 70)), st.integers(0, 2**32 - 1), st.sampled_from([-1, 0]))
def test_grandparent_trees_parts_are_tree_parts_tree_by_tree(n: int, seed: int, root_head: int) -> None:
    """The grandparent family's batch of trees' triples (:meth:`GrandparentParts.trees_parts`, what
    :func:`tree_scores` scores in one call) is each tree's :func:`tree_triples` in turn, exactly, with the
    tree of each triple; and :func:`tree_scores` through it is bit for bit the families' fallback, tree by
    tree, and :func:`tree_score` of each tree (random heads, cycles included: the parts are read off the heads
    as given; long trees too, whose sums NumPy would split pairwise)."""
    rng = np.random.default_rng(seed)
    heads = np.full((int(rng.integers(0, 6)), n + 1), root_head)
    for row in heads:  # each token under the root or a token placed before it, in a random order
        order = rng.permutation(np.arange(1, n + 1))
        for i, m in enumerate(order):
            row[m] = rng.choice(np.concatenate([[0], order[:i]]))
    parts = [GrandparentParts(DenseTripleScorer(rng.normal(size=(n + 1,) * 3)))]
    tree, idx = parts[0].trees_parts(heads)
    one_by_one = [tree_triples(h) for h in heads]
    assert np.array_equal(tree, np.repeat(np.arange(len(heads)), [t[0].size for t in one_by_one]))
    for k in range(3):
        assert np.array_equal(idx[k], np.concatenate([t[k] for t in one_by_one] or [np.zeros(0, np.int64)]))
    s = rng.normal(size=(n + 1, n + 1))
    batched = tree_scores(s, parts, heads)
    with mock.patch.object(GrandparentParts, "trees_parts", None):  # the families' fallback: tree by tree
        looped = tree_scores(s, parts, heads)
    assert batched.tolist() == looped.tolist()
    assert batched.tolist() == [tree_score(s, parts, h) for h in heads]


def _best(s: np.ndarray, parts: list, single_root: bool) -> float:
    return float(tree_scores(s, parts, all_trees(s.shape[0] - 1, single_root)).max())


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(0, 2**32 - 1), st.booleans())
def test_exact_with_links_is_brute_force_with_a_proof(n: int, seed: int, single_root: bool) -> None:
    """Exact decoding (which turns the cuts on: ``for_exact``) finds brute force's optimum with a proof that
    the standalone check accepts; the LP with the cuts lies between the best tree and the LP without, which
    a run that separates no cuts solves."""
    s, parts = _instance(n, seed, single_root)
    best = _best(s, parts, single_root)
    if np.isneginf(best):
        return
    assert exact_parts(parts)[-1].link_grandparents and not parts[-1].link_grandparents
    result = exact_search(s, parts, single_root, options=ExactOptions(verify=True))
    assert result.certified and result.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, parts, result) is None
    plain = solve_lp(s, parts, "ppc", single_root)
    linked = solve_lp(s, exact_parts(parts), "ppc", single_root)
    assert plain.certified and linked.certified
    assert best - 1e-6 <= linked.objective <= plain.objective + 1e-6
    uncut = solve_lp(s, exact_parts(parts), "ppc", single_root, options=ColgenOptions(cuts=False))
    assert uncut.certified and uncut.objective == pytest.approx(plain.objective, abs=1e-6)


def test_links_close_a_fractional_root_and_the_proof_needs_them() -> None:
    """On a seeded instance whose LP without the cuts is fractional and whose root they close, the cuts'
    duals carry the proof: the checker that rebuilds them from their labels accepts it, one that does not
    rebuild them rejects it."""
    found = next(cuts_close_a_root(lambda seed: _instance(6, seed, False), range(300)), None)
    assert found is not None, "no instance where the cuts close a fractional root"
    _, s, parts, _, linked = found
    assert LINK_BLOCK in linked.program.lp.con_blocks
    result = exact_search(s, parts, False)
    assert result.certified and result.stats.nodes == 1
    assert any(node.duals is not None and LINK_BLOCK in node.duals for node in result.nodes)
    assert check_proof(s, parts, result) is None
    with mock.patch.object(GrandSiblingFamily, "add_named_rows", lambda self, duals: None):
        assert check_proof(s, parts, result) is not None


def test_the_checker_builds_only_the_rows_that_labels_name() -> None:
    """A label that names no GSibGP row (h the root, m = h, g = h, beyond the sentence, an arc that is no
    candidate, a negative token) adds none; a good label adds its row once, over every candidate part."""
    n = 5
    s = np.zeros((n + 1, n + 1))
    s[2, 3] = -np.inf  # 2 -> 3 is no candidate: no triple <·, 2, 3>; 2's right children are 4 and 5
    rng = np.random.default_rng(0)
    parts = [
        GrandparentParts(DenseTripleScorer(np.zeros((n + 1,) * 3))),
        ConsecutiveSiblingParts(DenseConsecutiveScorer(np.zeros((n + 1,) * 3))),
        GrandSiblingParts(DenseGrandSiblingScorer(rng.normal(size=(n + 1,) * 4))),
    ]
    good, cyclic = [1, 2, 4], [4, 2, 4]
    bad = [[1, 0, 2], [1, 2, 2], [2, 2, 1], [1, 2, 7], [1, 2, 3], [-1, 2, 4]]
    labels = {LINK_BLOCK: (np.array([good, *bad, good, cyclic]), np.ones(9))}
    full = ProofProgram(s, parts, False, "single-flow", [labels])
    block = full.lp.con_blocks[LINK_BLOCK]
    np.testing.assert_array_equal(block.index, [good, cyclic])
    windows = full.lp.var_blocks["zgsib"].index
    for label, row in zip(block.index.tolist(), block.positions):
        coefficients = full.lp.A.tocsr()[row].toarray().ravel()
        g, h, m = label
        named = (windows[:, 0] == g) & (windows[:, 1] == h) & (windows[:, 2] == m)
        assert set(windows[named, 3].tolist()) == {5, 2}  # m's next sibling 5, or the end of its side
        np.testing.assert_array_equal(coefficients[full.lp.cols("zgsib")[named]], 1.0)
        gp_col = full.lp.var_blocks["zgp"].find(np.array([label]))[0]
        assert (gp_col >= 0) == (g != m)
        assert np.count_nonzero(coefficients) == named.sum() + (g != m)
        if g != m:
            assert coefficients[gp_col] == -1.0
        assert full.lp.row_upper[row] == 0.0


@pytest.mark.parametrize("seed", [0, 3])
def test_k_best_with_links_is_brute_forces_k_best(seed: int) -> None:
    """The K best trees of a full model (grandparents, windows, grand-siblings; the cuts on at every
    subproblem) are brute force's K best scores, best first, distinct trees."""
    s, parts = _instance(5, seed, False)
    scores = sorted(tree_scores(s, parts, all_trees(5)), reverse=True)
    result = k_best_search(s, parts, 4, False)
    assert result.status.value == "optimal"
    np.testing.assert_allclose([score for _, score in result.trees], scores[:4], atol=1e-6)
    assert len({tuple(heads.tolist()) for heads, _ in result.trees}) == 4
