"""GPSibArc cuts on an arc and a third token's head: valid on every tree, separation against a plain loop,
exact decoding with them against brute force with a proof, and labels that name no row."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen import ColgenOptions
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.base import Binding, tree_scores
from lpparse.families.grandparent.family import GrandparentParts, tree_triples
from lpparse.families.grandparent.rows import arc_program
from lpparse.families.sibling.arc_heads import (
    ARC_HEADS_BLOCK,
    add_arc_heads,
    arc_heads_known,
    violated_arc_heads,
)
from lpparse.families.sibling.family import SiblingParts
from lpparse.family_kit import random_arc_scores
from lpparse.oracles import all_trees
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.proofs.check import ProofProgram, check_proof
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, tree_siblings


def _parts(rng: np.random.Generator, n: int, pruned: float = 0.05) -> list:
    def cube() -> np.ndarray:
        out = rng.normal(scale=2.0, size=(n + 1,) * 3)
        out[rng.random(out.shape) < pruned] = -np.inf
        return out

    return [GrandparentParts(DenseTripleScorer(cube())), SiblingParts(DenseSiblingScorer(cube()))]


def _programs(s: np.ndarray, parts: list, single_root: bool, keep: float = 1.0, rng=None):  # type: ignore[no-untyped-def]
    """The grandparent and sibling programs of every candidate part (or a random share ``keep`` of them)."""
    prog = arc_program(s, single_root, "single-flow")
    binding = Binding(prog, s, chu_liu_edmonds(s, single_root=single_root), ColgenOptions(), None)
    gp_family, sib_family = [p.bind(binding) for p in parts]
    for family, part in ((gp_family, parts[0]), (sib_family, parts[1])):
        family.tree = None
        if keep >= 1.0:
            family.seed()
            continue
        index = part.candidates(prog.arc_mask, single_root)
        chosen = rng.random(index[0].size) < keep
        index = tuple(v[chosen] for v in index)
        if family is gp_family:
            gp_family.prog.add_triples(*index, gp_family.cache.get(*index))
        else:
            sib_family.sibs.add_siblings(*index, sib_family.cache.get(*index))
    return gp_family.prog, sib_family.sibs


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [4, 5])
def test_every_row_holds_on_every_tree(n: int, single_root: bool) -> None:
    """Over every candidate part (pruned ones included), every row the checker accepts holds on every tree,
    and some row is tight."""
    rng = np.random.default_rng(n)
    s = np.zeros((n + 1, n + 1))
    s[:, 0] = -np.inf
    np.fill_diagonal(s, -np.inf)
    gp, sibs = _programs(s, _parts(rng, n, 0.1), single_root)
    labels = np.array(list(itertools.product(range(n + 1), repeat=3)))
    labels = labels[arc_heads_known(gp, labels)]
    rows = add_arc_heads(gp, sibs, labels)
    lp = gp.lp
    at = {
        name: {tuple(k): c for k, c in zip(lp.var_blocks[name].index.tolist(), lp.cols(name))}
        for name in ("z", "zgp", "zsib")
    }
    A = lp.A.tocsr()[rows]
    tight = 0
    for heads in all_trees(n, single_root):
        arcs = [(int(heads[m]), m) for m in range(1, n + 1)]
        triples = list(zip(*(v.tolist() for v in tree_triples(heads))))
        siblings = list(zip(*(v.tolist() for v in tree_siblings(heads))))
        if any(t not in at["zgp"] for t in triples) or any(p not in at["zsib"] for p in siblings):
            continue  # a tree with a pruned part is no tree of the program
        x = np.zeros(lp.num_cols)
        for name, keys in (("z", arcs), ("zgp", triples), ("zsib", siblings)):
            x[[at[name][k] for k in keys]] = 1.0
        activity = A @ x
        assert (activity <= 1e-12).all()
        tight += int((activity > -1e-12).sum())
    assert tight


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 5), st.integers(0, 2**32 - 1), st.floats(0.3, 1.0))
def test_separation_finds_every_violated_row_over_present_parts(n: int, seed: int, keep: float) -> None:
    """At a random point of a program with a random share of the parts, separation finds exactly the rows a
    plain loop finds, with their violations; a row the program holds is not found again."""
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng)
    gp, sibs = _programs(s, _parts(rng, n), False, keep, rng)
    x = rng.random(gp.lp.num_cols) * (rng.random(gp.lp.num_cols) < 0.8)
    index, excess = violated_arc_heads(gp, sibs, x, 1e-6)
    triple = dict(zip(zip(*(v.tolist() for v in gp.triples())), gp.triple_values(x)))
    sibling = dict(zip(zip(*(v.tolist() for v in sibs.siblings())), sibs.sibling_values(x)))
    z = gp.arc_values(x)
    expected = {}
    for h, m, c in itertools.product(range(n + 1), repeat=3):
        if not arc_heads_known(gp, [[h, m, c]])[0]:
            continue
        left = (
            triple.get((h, m, c), 0.0)
            + triple.get((c, h, m), 0.0)
            + sibling.get((h, min(m, c), max(m, c)), 0.0)
        )
        if left - z[h, m] > 1e-6:
            expected[(h, m, c)] = left - z[h, m]
    found = dict(zip(map(tuple, index.tolist()), excess))
    assert len(found) == len(index) and found.keys() == expected.keys()
    for key, value in expected.items():
        assert found[key] == pytest.approx(value)
    if len(index):
        add_arc_heads(gp, sibs, index)
        assert len(violated_arc_heads(gp, sibs, x, 1e-6)[0]) == 0


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(0, 2**32 - 1), st.booleans())
def test_exact_with_the_rows_is_brute_force_with_a_proof(n: int, seed: int, single_root: bool) -> None:
    """Exact decoding of grandparents + siblings (which separates the rows with the triangle cuts) finds brute
    force's optimum with a proof that the standalone check accepts."""
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng, single_root=single_root)
    parts = _parts(rng, n)
    best = float(tree_scores(s, parts, all_trees(n, single_root)).max())
    if np.isneginf(best):
        return
    result = exact_search(s, parts, single_root, options=ExactOptions(verify=True))
    assert result.certified and result.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, parts, result) is None


def test_the_rows_enter_at_fractional_roots_and_the_checker_rebuilds_them() -> None:
    """Some seeded instance's search separates GPSibArc rows and its proof carries their duals; the checker
    builds exactly the rows whose labels are valid, each over every candidate part."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s = random_arc_scores(6, rng)
        parts = _parts(rng, 6)
        result = exact_search(s, parts, False)
        carried = [
            node.duals[ARC_HEADS_BLOCK]
            for node in result.nodes
            if node.duals and ARC_HEADS_BLOCK in node.duals
        ]
        if any(np.abs(values).max() > 1e-6 for _, values in carried):
            break
    else:
        raise AssertionError("no instance whose proof uses GPSibArc rows")
    assert result.certified and check_proof(s, parts, result) is None
    good = [2, 1, 3]
    bad = [[2, 2, 3], [2, 0, 3], [2, 1, 0], [2, 1, 9], [-1, 1, 3]]
    labels = {ARC_HEADS_BLOCK: (np.array([good, *bad, good]), np.ones(len(bad) + 2))}
    full = ProofProgram(s, parts, False, result.base, [labels])
    block = full.lp.con_blocks[ARC_HEADS_BLOCK]
    np.testing.assert_array_equal(block.index, [good])
    coefficients = full.lp.A.tocsr()[block.positions[0]].toarray().ravel()
    triples = full.lp.var_blocks["zgp"].find(np.array([[2, 1, 3], [3, 2, 1]]))
    sibling = full.lp.var_blocks["zsib"].find(np.array([[2, 1, 3]]))
    arc = full.lp.var_blocks["z"].find(np.array([[2, 1]]))
    held = np.concatenate([triples[triples >= 0], sibling[sibling >= 0]])
    np.testing.assert_array_equal(coefficients[held], 1.0)
    assert coefficients[arc[0]] == -1.0 and np.count_nonzero(coefficients) == held.size + 1
    with pytest.raises(ValueError, match="GPSibArc"):
        gp, sibs = _programs(s, parts, False)
        add_arc_heads(gp, sibs, [bad[0]])
