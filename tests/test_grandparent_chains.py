"""GPChain and GPSibChain cuts on grandparent triples: valid on every tree, separation against a plain loop, exact decoding
with them against brute force, and proofs whose checker rebuilds them from their labels."""

from __future__ import annotations

import dataclasses
import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen import ColgenOptions
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.base import Binding, exact_parts, tree_scores
from lpparse.families.grandparent.chains import (
    CHAIN,
    CHAINS,
    SIBLING_CHAIN,
    add_chain_rows,
    chain_known,
    violated_chains,
)
from lpparse.families.grandparent.family import GrandparentFamily, GrandparentParts, tree_triples
from lpparse.families.grandparent.rows import arc_program
from lpparse.family_kit import cuts_close_a_root, random_arc_scores
from lpparse.oracles import all_trees
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc import solve_lp
from lpparse.proofs.check import ProofProgram, check_proof
from lpparse.triples import DenseTripleScorer


def _triples(rng: np.random.Generator, n: int, pruned: float = 0.05, scale: float = 1.0) -> np.ndarray:
    out = rng.normal(scale=scale, size=(n + 1,) * 3)
    out[rng.random(out.shape) < pruned] = -np.inf
    return out


def _family(
    s: np.ndarray, cube: np.ndarray, single_root: bool, keep: np.ndarray | None = None
) -> GrandparentFamily:
    """The grandparent family of a program with every candidate triple (or those ``keep`` marks)."""
    prog = arc_program(s, single_root, "single-flow")
    binding = Binding(prog, s, chu_liu_edmonds(s, single_root=single_root), ColgenOptions(), None)
    family = GrandparentParts(DenseTripleScorer(cube)).bind(binding)
    family.tree = None
    if keep is None:
        family.seed()
    else:
        g, p, c = GrandparentParts(DenseTripleScorer(cube)).candidates(prog.arc_mask, single_root)
        g, p, c = g[keep[: g.size]], p[keep[: g.size]], c[keep[: g.size]]
        family.prog.add_triples(g, p, c, family.cache.get(g, p, c))
    return family  # type: ignore[return-value]


@pytest.mark.parametrize("rows", [CHAIN, SIBLING_CHAIN], ids=lambda r: r.block)
@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [4, 5])
def test_every_chain_row_holds_on_every_tree(n: int, single_root: bool, rows) -> None:  # type: ignore[no-untyped-def]
    """Over every candidate triple (pruned ones and a pruned arc included), every row the checker accepts
    holds on every tree of the program, and some row is tight on some tree."""
    rng = np.random.default_rng(n)
    s = np.zeros((n + 1, n + 1))
    s[:, 0] = -np.inf
    np.fill_diagonal(s, -np.inf)
    s[2, 3] = -np.inf
    family = _family(s, _triples(rng, n, 0.1), single_root)
    gp = family.prog
    labels = np.array(list(itertools.product(range(n + 1), repeat=rows.width)))
    labels = labels[chain_known(rows, gp, labels)]
    assert len(labels) and gp.pruned.any()
    added = add_chain_rows(rows, gp, labels)
    lp = gp.lp
    z_at = {tuple(k): c for k, c in zip(lp.var_blocks["z"].index.tolist(), lp.cols("z"))}
    gp_at = {tuple(k): c for k, c in zip(lp.var_blocks["zgp"].index.tolist(), lp.cols("zgp"))}
    A = lp.A.tocsr()[added]
    tight = 0
    for heads in all_trees(n, single_root):
        triples = list(zip(*(v.tolist() for v in tree_triples(heads))))
        arcs = [(int(heads[m]), m) for m in range(1, n + 1)]
        if any(a not in z_at for a in arcs) or any(gp.pruned[t] for t in triples):
            continue  # not a tree of the program
        x = np.zeros(lp.num_cols)
        x[[z_at[a] for a in arcs]] = 1.0
        x[[gp_at[t] for t in triples]] = 1.0
        activity = A @ x
        assert (activity <= 1e-12).all()
        tight += int((activity > -1e-12).sum())
    assert tight


def _loop_violations(rows, gp, x: np.ndarray, tol: float) -> dict:  # type: ignore[no-untyped-def]
    """What a plain loop over every label finds: the rows over the present triples at ``x`` whose triples made
    of the right-hand side's arcs (the chain's, the siblings') are above ``tol``."""
    value = dict(zip(zip(*(v.tolist() for v in gp.triples())), gp.triple_values(x)))
    z = gp.arc_values(x)
    out = {}
    for label in itertools.product(range(gp.n + 1), repeat=rows.width):
        if not chain_known(rows, gp, [label])[0]:
            continue
        triples = [tuple(label[i] for i in t) for t in rows.triples]
        arcs = {tuple(label[i] for i in a) for a in rows.arcs}
        if any(value.get(t, 0.0) <= tol for t in triples if t[:2] in arcs and t[1:] in arcs):
            continue
        excess = sum(value.get(t, 0.0) for t in triples) - sum(z[a] for a in arcs)
        if excess > tol:
            out[label] = excess
    return out


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 5), st.integers(0, 2**32 - 1), st.floats(0.0, 0.6), st.sampled_from(sorted(CHAINS)))
def test_separation_finds_every_violated_row_over_present_triples(
    n: int, seed: int, absent: float, name: str
) -> None:
    """On a program holding a random subset of the triples, at a random point (not one of the LP: any term
    may exceed its arc), separation finds exactly the rows with positive triples on the right-hand side's
    arcs that a plain loop finds, with their violations, each once; a row the program holds is not found
    again."""
    rows = CHAINS[name]
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng)
    keep = rng.random((n + 1) ** 3) >= absent
    gp = _family(s, _triples(rng, n), False, keep).prog
    x = rng.random(gp.lp.num_cols) * (rng.random(gp.lp.num_cols) < 0.8)
    index, excess = violated_chains(rows, gp, x, 1e-6)
    expected = _loop_violations(rows, gp, x, 1e-6)
    found = dict(zip(map(tuple, index.tolist()), excess))
    assert len(found) == len(index) and found.keys() == expected.keys()
    for key, value in expected.items():
        assert found[key] == pytest.approx(value)
    if len(index):
        add_chain_rows(rows, gp, index)
        again, _ = violated_chains(rows, gp, x, 1e-6)
        assert len(again) == 0


def _instance(n: int, seed: int, single_root: bool) -> tuple[np.ndarray, list]:
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng, single_root=single_root)
    return s, [GrandparentParts(DenseTripleScorer(_triples(rng, n, scale=2.0)))]


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 6), st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from([(), ("GPSibChain",)]))
def test_exact_with_chains_is_brute_force_with_a_proof(
    n: int, seed: int, single_root: bool, more: tuple
) -> None:
    """Exact decoding (which turns GPChain on: ``for_exact``; GPSibChain too when the family asks for it)
    finds brute force's optimum with a proof that the standalone check accepts; the LP with the cuts lies
    between the best tree and the LP without, which is the LP of a run that separates no cuts."""
    s, parts = _instance(n, seed, single_root)
    parts = [dataclasses.replace(parts[0], chains=more)]
    best = float(tree_scores(s, parts, all_trees(n, single_root)).max())
    if np.isneginf(best):
        return
    assert set(exact_parts(parts)[0].chains) == {"GPChain", *more} and parts[0].chains == more
    result = exact_search(s, parts, single_root, options=ExactOptions(verify=True))
    assert result.certified and result.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, parts, result) is None
    plain = solve_lp(s, [dataclasses.replace(parts[0], chains=())], "ppc", single_root)
    chained = solve_lp(s, exact_parts(parts), "ppc", single_root)
    assert plain.certified and chained.certified
    assert best - 1e-6 <= chained.objective <= plain.objective + 1e-6
    uncut = solve_lp(s, exact_parts(parts), "ppc", single_root, options=ColgenOptions(cuts=False))
    assert uncut.certified and uncut.objective == pytest.approx(plain.objective, abs=1e-6)
    assert CHAIN.block not in uncut.program.lp.con_blocks


def test_unknown_chain_cuts_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown chain cuts"):
        GrandparentParts(DenseTripleScorer(np.zeros((3, 3, 3))), chains=("GPChains",))


def test_chains_close_a_fractional_root_and_the_proof_carries_their_duals() -> None:
    """On a seeded instance whose LP without the cuts is fractional and whose root they close, the root's
    duals sit on GPChain rows; the checker rebuilds those rows from their labels and accepts the proof, and
    its bound with them is at most its bound without them (a dual on a row it lacks counts as 0)."""
    for _, s, parts, _, _ in cuts_close_a_root(lambda seed: _instance(7, seed, False), range(500)):
        result = exact_search(s, parts, False)
        root = result.nodes[0].duals
        if (
            result.stats.nodes == 1
            and root
            and np.abs(root.get(CHAIN.block, (None, np.zeros(1)))[1]).max() > 1e-6
        ):
            break
    else:
        raise AssertionError("no instance where the cuts close a fractional root")
    assert result.certified and check_proof(s, parts, result) is None
    node = result.nodes[0]
    full = ProofProgram(s, parts, False, result.base, [node.duals])
    assert len(full.lp.con_blocks[CHAIN.block]) == len(np.unique(node.duals[CHAIN.block][0], axis=0))
    with mock.patch.object(GrandparentFamily, "add_named_rows", lambda self, duals: None):
        bare = ProofProgram(s, parts, False, result.base, [node.duals])
    assert CHAIN.block not in bare.lp.con_blocks
    assert full.bound(node.duals, node.mask)[0] <= bare.bound(node.duals, node.mask)[0] + 1e-9  # type: ignore[index]
    assert full.bound(node.duals, node.mask)[0] <= result.objective + 1e-6  # type: ignore[index]


@pytest.mark.parametrize(
    ("rows", "good", "bad"),
    [
        (
            CHAIN,
            [1, 2, 4, 5],
            [
                [1, 2, 4, 1],
                [2, 2, 4, 5],
                [1, 0, 4, 5],
                [1, 2, 4, 0],
                [1, 2, 4, 7],
                [1, 2, 3, 5],
                [-1, 2, 4, 5],
            ],
        ),
        (
            SIBLING_CHAIN,
            [1, 2, 4, 5, 3],
            [
                [1, 2, 5, 4, 3],
                [1, 2, 4, 4, 3],
                [1, 0, 4, 5, 3],
                [1, 2, 4, 5, 0],
                [1, 2, 4, 9, 3],
                [1, 2, 3, 5, 4],
            ],
        ),
    ],
    ids=["GPChain", "GPSibChain"],
)
def test_the_checker_builds_only_the_rows_that_labels_name(rows, good: list, bad: list) -> None:  # type: ignore[no-untyped-def]
    """A label that names no row (a repeated token, the root where a word must be, siblings out of order,
    beyond the sentence, an arc that is no candidate, a negative token) adds none; a good label adds its row
    once, over every candidate triple: +1 on its triples, -1 on its arcs."""
    n = 5
    s = np.zeros((n + 1, n + 1))
    s[:, 0] = -np.inf
    np.fill_diagonal(s, -np.inf)
    s[2, 3] = -np.inf  # 2 -> 3 is no candidate
    parts = [GrandparentParts(DenseTripleScorer(np.zeros((n + 1,) * 3)))]
    labels = {rows.block: (np.array([good, *bad, good]), np.ones(len(bad) + 2))}
    full = ProofProgram(s, parts, False, "single-flow", [labels])
    block = full.lp.con_blocks[rows.block]
    np.testing.assert_array_equal(block.index, [good])
    coefficients = full.lp.A.tocsr()[block.positions[0]].toarray().ravel()
    triples = full.lp.var_blocks["zgp"].find(np.array([[good[i] for i in t] for t in rows.triples]))
    arcs = full.lp.var_blocks["z"].find(np.array([[good[i] for i in a] for a in rows.arcs]))
    assert (triples >= 0).all() and (arcs >= 0).all()
    np.testing.assert_array_equal(coefficients[triples], 1.0)
    np.testing.assert_array_equal(coefficients[arcs], -1.0)
    assert np.count_nonzero(coefficients) == len(triples) + len(arcs)
    assert full.lp.row_upper[block.positions[0]] == 0.0
    with pytest.raises(ValueError, match=rows.block):
        add_chain_rows(rows, _family(s, np.zeros((n + 1,) * 3), False).prog, [bad[0]])


def test_exact_decoding_leaves_chains_out_next_to_third_order_parts() -> None:
    """``for_exact(parts)`` sees the search's families: GPChain with grandparents alone or with siblings, none
    next to a family of 4-index parts (whose links tie the triples to the windows)."""
    from lpparse.families.consecutive.family import ConsecutiveSiblingParts
    from lpparse.families.consecutive.rows import DenseConsecutiveScorer
    from lpparse.families.sibling.family import SiblingParts
    from lpparse.families.third_order.family import GrandSiblingParts
    from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer
    from lpparse.triples import DenseSiblingScorer

    n = 4
    gp = GrandparentParts(DenseTripleScorer(np.zeros((n + 1,) * 3)))
    sib = SiblingParts(DenseSiblingScorer(np.zeros((n + 1,) * 3)))
    csib = ConsecutiveSiblingParts(DenseConsecutiveScorer(np.zeros((n + 1,) * 3)))
    gsib = GrandSiblingParts(DenseGrandSiblingScorer(np.zeros((n + 1,) * 4)))
    assert exact_parts([gp])[0].chains == ("GPChain",)
    assert exact_parts([gp, sib])[0].chains == ("GPChain",)
    full = exact_parts([gp, csib, gsib])
    assert full[0].chains == () and full[2].link_grandparents


def _chain_rows(result) -> int:  # type: ignore[no-untyped-def]
    block = result.program.lp.con_blocks.get(CHAIN.block)
    return 0 if block is None else len(block)


def test_node_lps_separate_cuts_at_the_root_only_unless_asked() -> None:
    """By default (``ExactOptions.node_cuts`` False) the nodes below the root separate no GPChain rows: each
    node's program holds at most the root's chain rows (all of them on a live master, none on a program of its
    own). With ``node_cuts`` some node adds its own (on a
    seeded instance found by search). Both searches find brute force's optimum with proofs that the
    standalone check accepts."""
    for seed in range(400):
        s, parts = _instance(7, seed, False)
        best = float(tree_scores(s, parts, all_trees(7, False)).max())
        if np.isneginf(best):
            continue
        asked = exact_search(s, parts, False, options=ExactOptions(node_cuts=True, keep_results=True))
        root = _chain_rows(asked.node_results[0])
        if any(_chain_rows(r) > root for i, r in asked.node_results.items() if i > 0):
            break
    else:
        raise AssertionError("no instance whose nodes separate chain rows")
    default = exact_search(s, parts, False, options=ExactOptions(keep_results=True, verify=True))
    assert len(default.node_results) > 1
    root = _chain_rows(default.node_results[0])
    # all of the root's rows on a live master, none on a program of its own
    assert all(_chain_rows(r) <= root for r in default.node_results.values())
    for result in (asked, default):
        assert result.certified and result.objective == pytest.approx(best, abs=1e-6)
        assert check_proof(s, parts, result) is None
