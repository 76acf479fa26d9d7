"""Hypergraph DPs against brute force and the existing oracles; marginal polytope LP = DP optimum."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.dp.semiring import DUAL_LOG
from lpparse.formulations.marginal import marginal_polytope, r10_trigram_polytope
from lpparse.hypergraph.cfg import cky_hypergraph, cky_weights
from lpparse.hypergraph.core import Edges, hypergraph, inside, marginals, outside, viterbi
from lpparse.hypergraph.eisner import arc_weights, eisner_hypergraph, heads_from_parts
from lpparse.hypergraph.head_automata import head_automata, head_automata_weights
from lpparse.hypergraph.tagger import tagger_hypergraph, tagger_weights, tags_from_parts
from lpparse.lp.views import make_model
from lpparse.oracles import brute_force, eisner, projective_log_partition, projective_marginals
from lpparse.scores import random_scores
from lpparse.trees import is_projective, tree_score

SETTINGS = settings(deadline=None, max_examples=15)


@SETTINGS
@given(n=st.integers(1, 6), single_root=st.booleans(), seed=st.integers(0, 10**6))
def test_eisner_hypergraph_matches_oracles(n: int, single_root: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = random_scores(n, rng)
    if n > 2:
        s[rng.integers(1, n + 1), rng.integers(1, n + 1)] = -np.inf
    hg = eisner_hypergraph(n, single_root)
    theta = arc_weights(hg, s)
    d = viterbi(hg, theta)
    heads = heads_from_parts(d.parts)
    assert d.parts.sum() == n and is_projective(heads)
    assert d.value == pytest.approx(tree_score(s, eisner(s, single_root)), abs=1e-9)
    assert d.value == pytest.approx(tree_score(s, heads), abs=1e-9)
    assert d.value == pytest.approx(brute_force(s, single_root, projective=True)[1], abs=1e-9)
    log_z, _, part_marg = marginals(hg, theta)
    assert log_z == pytest.approx(projective_log_partition(s, single_root), abs=1e-9)
    np.testing.assert_allclose(
        part_marg.reshape(n + 1, n + 1), projective_marginals(s, single_root), atol=1e-9
    )


def _automaton_runs(
    mask: np.ndarray, gp: np.ndarray, sib: np.ndarray | None, w: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per automaton (head p > 0; the root too with sibling scores), the score and the in/out part
    indicators of each of its runs, enumerated: a grandparent g (none for the root) and any set of allowed
    modifiers c != g, scored by the part weights ``w``, s(g, p, c) per modifier (not for the root) and
    σ(p, c', c) for consecutive modifiers on one side (c' = p for the first, outward from p)."""
    size = mask.shape[0]
    automata = []
    for p in range(0 if sib is not None else 1, size):
        scores, parts = [], []
        for g in [0] if p == 0 else np.flatnonzero(mask[:, p]):
            mods = [c for c in np.flatnonzero(mask[p]) if c != g]
            for k in range(len(mods) + 1):
                for chosen in itertools.combinations(mods, k):
                    y = np.zeros(2 * size * size)
                    y[size * size + p * size + np.array(chosen, dtype=np.int64)] = 1.0
                    score = 0.0
                    if p > 0:
                        y[g * size + p] = 1.0
                        score += sum(gp[g, p, c] for c in chosen)
                    if sib is not None:
                        for side in ([c for c in chosen if c > p], [c for c in chosen if c < p][::-1]):
                            score += sum(sib[p, prev, c] for prev, c in zip([p, *side], side))
                    scores.append(score + w @ y)
                    parts.append(y)
        automata.append((np.array(scores), np.array(parts)))
    return automata


@SETTINGS
@given(n=st.integers(1, 4), siblings=st.booleans(), seed=st.integers(0, 10**6))
def test_head_automata_against_enumeration(n: int, siblings: bool, seed: int) -> None:
    """Viterbi, log Z with the part marginals, and their tangents (DUAL_LOG) on the head automata against
    enumerating each automaton's runs: the automata are independent, so their product sums the values."""
    rng = np.random.default_rng(seed)
    size = n + 1
    mask = np.isfinite(random_scores(n, rng)) & (rng.random((size, size)) < 0.7)
    mask[0, 1:] = True  # every automaton has a run
    gp = rng.normal(size=(size,) * 3)
    sib = rng.normal(size=(size,) * 3) if siblings else None
    w, v = rng.normal(size=(2, 2 * size * size))
    hg = head_automata(mask, siblings)
    theta = hg.weights(head_automata_weights(hg, gp, sib), w)
    best, log_z, d_log_z = 0.0, 0.0, 0.0
    best_parts, mu, d_mu = np.zeros((3, 2 * size * size))
    for scores, parts in _automaton_runs(mask, gp, sib, w):
        top = int(np.argmax(scores))
        best += scores[top]
        best_parts += parts[top]
        p = np.exp(scores - scores[top])
        log_z += scores[top] + np.log(p.sum())
        p /= p.sum()
        mu += p @ parts
        t = parts @ v
        d_log_z += p @ t
        d_mu += (p * (t - p @ t)) @ parts
    d = viterbi(hg, theta)
    assert d.value == pytest.approx(best, abs=1e-9)
    np.testing.assert_array_equal(d.parts, best_parts)
    value, edge_mu = outside(hg, np.stack([theta, hg.parts.T @ v]), DUAL_LOG)
    np.testing.assert_allclose(value, [log_z, d_log_z], atol=1e-9)
    np.testing.assert_allclose(hg.parts @ edge_mu.T, np.column_stack([mu, d_mu]), atol=1e-9)
    assert marginals(hg, theta)[0] == pytest.approx(log_z, abs=1e-9)


def _tag_sequences(theta: np.ndarray, n: int, k: int, m: int) -> tuple[float, tuple[int, ...], float]:
    best, arg, z = -np.inf, (), 0.0
    for seq in itertools.product(range(k), repeat=n):
        pad = [k] * m + list(seq)
        score = sum(theta[(i, *pad[i - 1 : i - 1 + m], seq[i - 1])] for i in range(1, n + 1))
        z += np.exp(score)
        if score > best:
            best, arg = score, seq
    return best, arg, float(np.log(z))


@SETTINGS
@given(n=st.integers(1, 5), k=st.integers(1, 3), m=st.integers(1, 3), seed=st.integers(0, 10**6))
def test_tagger_hypergraph_brute_force(n: int, k: int, m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=(n + 1,) + (k + 1,) * m + (k,))
    hg = tagger_hypergraph(n, k, m)
    w = tagger_weights(hg, theta)
    best, arg, log_z = _tag_sequences(theta, n, k, m)
    d = viterbi(hg, w)
    assert d.value == pytest.approx(best, abs=1e-9)
    assert tuple(tags_from_parts(d.parts, n, k)) == arg
    bigrams = d.parts[n * k :].reshape(max(n - 1, 0), k, k)
    for i in range(n - 1):  # bigram parts agree with the unigram tags
        assert bigrams[i, arg[i], arg[i + 1]] == 1 and bigrams[i].sum() == 1
    assert marginals(hg, w)[0] == pytest.approx(log_z, abs=1e-9)


def _parses(g: int, tags: list[int], i: int, j: int) -> list[tuple[int, list, list]]:
    """All (root symbol, tag edges, rule labels) derivations of span i..j."""
    if i == j:
        return [(a, [(i, a)], []) for a in tags]
    out = []
    for k in range(i, j):
        for b, tb, rb in _parses(g, tags, i, k):
            for c, tc, rc in _parses(g, tags, k + 1, j):
                out.extend((a, tb + tc, rb + rc + [(a, b, c, i, k, j)]) for a in range(g))
    return out


@SETTINGS
@given(n=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_cky_hypergraph_brute_force(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    g, tags = 3, [0, 1]
    rule, tag, root = (
        rng.normal(size=(g,) * 3 + (n + 1,) * 3),
        rng.normal(size=(n + 1, g)),
        rng.normal(size=g),
    )
    hg = cky_hypergraph(n, g, tags)
    w = cky_weights(hg, rule, tag, root)
    scores = [
        root[a] + sum(tag[i, t] for i, t in tl) + sum(rule[r] for r in rl)
        for a, tl, rl in _parses(g, tags, 1, n)
    ]
    d = viterbi(hg, w)
    assert d.value == pytest.approx(max(scores), abs=1e-9)
    # n-1 productions (Rush et al. 2010 §3)
    assert d.parts.sum() == n and d.edges[hg.edges_of("rule")].sum() == n - 1
    assert marginals(hg, w)[0] == pytest.approx(np.log(np.sum(np.exp(scores))), abs=1e-9)


def test_cycles_and_dead_nodes() -> None:
    with pytest.raises(ValueError, match="cycle"):
        hypergraph(
            3, 2, Edges([1, 0, 2], [np.array([0, 1, 1])], ("e",), 0, np.arange(3)), ([], []), np.empty((0, 1))
        )
    # node 1 is neither an axiom nor derivable: the goal is unreachable
    hg = hypergraph(3, 2, Edges([2], [np.array([1])], ("e",), 0, [0]), ([], []), np.empty((0, 1)), axiom=[0])
    assert viterbi(hg, [1.0]).value == -np.inf
    assert inside(hg, [1.0], "log")[0][2] == -np.inf


@pytest.mark.parametrize("view", ["highs", "pyomo"])
def test_marginal_polytope_lp_equals_dp(view: str) -> None:
    """Rush et al. 2010 Thm 5.1/5.2: the LP over the marginal polytope has the DP optimum, at an integral
    vertex."""
    rng = np.random.default_rng(5)
    s = random_scores(5, rng)
    s[2, 4] = -np.inf
    instances = [
        (eisner_hypergraph(5), None),
        (eisner_hypergraph(4, single_root=True), None),
        (cky_hypergraph(4, 3, [0, 1]), None),
        (tagger_hypergraph(5, 2, 2), None),
        (tagger_hypergraph(4, 3, 1), None),
    ]
    for trial in range(2 if view == "highs" else 1):
        for hg, _ in instances:
            if hg.name == "eisner":
                n = int(np.sqrt(hg.num_parts)) - 1
                theta = arc_weights(hg, random_scores(n, rng) if n == 4 else s)
            elif hg.name == "cky":
                theta = cky_weights(hg, rng.normal(size=(3, 3, 3, 5, 5, 5)), rng.normal(size=(5, 3)))
            else:
                theta = hg.weights(rng.normal(size=hg.num_edges))
            mp = marginal_polytope(hg, theta)
            sol = make_model(mp.lp, view).solve()
            d = viterbi(hg, theta)
            assert sol.certified, (hg.name, trial)
            assert sol.objective == pytest.approx(d.value, abs=1e-7)
            if view == "highs":
                assert sol.integral
                parts = mp.part_matrix() @ sol.x
                assert np.isin(np.round(parts, 9), [0.0, 1.0]).all()


def test_marginal_polytope_rows_and_blocks() -> None:
    """CFG rows: Rush et al. 2010 eq. 5 (Root), eq. 6 (Flow at spans), eq. 7 (Flow at words) - one row per
    live node."""
    n, g, tags = 4, 3, [0, 1]
    hg = cky_hypergraph(n, g, tags)
    lp = marginal_polytope(hg, np.zeros(hg.num_edges)).lp
    assert len(lp.var_blocks["rule"]) == g**3 * (n**3 - n) // 6  # |I| = |N|³(n³ − n)/6
    assert len(lp.var_blocks["tag"]) == n * len(tags)
    # spans of width > 1: G·(n(n−1)/2); words: G·n (non-tags are dead, their rows force 0)
    assert len(lp.con_blocks["Flow"]) == g * n * (n - 1) // 2 + g * n
    assert lp.col("tag", (2, 1)) >= 0 and lp.col("rule", (0, 1, 2, 1, 1, 2)) >= 0


def test_viterbi_derivation_is_a_flow() -> None:
    """The back-pointer derivation and the inside-outside marginals both satisfy the polytope rows."""
    rng = np.random.default_rng(2)
    hg = cky_hypergraph(4, 3, [0, 1, 2])
    theta = hg.weights(rng.normal(size=hg.num_edges))
    mp = marginal_polytope(hg, theta)
    a = mp.lp.A
    for mu in (viterbi(hg, theta).edges, marginals(hg, theta)[1]):
        x = np.zeros(mp.lp.num_cols)
        x[mp.edge_cols] = mu
        np.testing.assert_allclose(a @ x, mp.lp.row_lower, atol=1e-9)


@SETTINGS
@given(n=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_refined_cky_keeps_derivations(n: int, seed: int) -> None:
    """Refining CKY at boundaries is a bijection of derivations (same Viterbi value, same log Z); a
    refined bigram part is the product of its unigrams, and the refined marginal polytope's LP equals CKY."""
    rng = np.random.default_rng(seed)
    rule, tag, root = (
        rng.normal(size=(3,) * 3 + (n + 1,) * 3),
        rng.normal(size=(n + 1, 3)),
        rng.normal(size=3),
    )
    plain = cky_hypergraph(n, 3, [0, 1])
    w0 = cky_weights(plain, rule, tag, root)
    for bounds in [(1,), tuple(range(1, n))]:
        hg = cky_hypergraph(n, 3, [0, 1], bounds)
        w = cky_weights(hg, rule, tag, root)
        d = viterbi(hg, w)
        assert d.value == pytest.approx(viterbi(plain, w0).value, abs=1e-9)
        assert marginals(hg, w)[0] == pytest.approx(marginals(plain, w0)[0], abs=1e-9)
        uni = d.parts[: 2 * n].reshape(n, 2)
        for i in bounds:
            bi = d.parts[2 * n + 4 * (i - 1) : 2 * n + 4 * i].reshape(2, 2)
            assert np.array_equal(bi, np.outer(uni[i - 1], uni[i]))
        sol = make_model(marginal_polytope(hg, w).lp).solve()
        assert sol.objective == pytest.approx(d.value, abs=1e-7)


def _r10_viterbi(theta: np.ndarray) -> float:
    """Viterbi of Rush et al. (2010) trigram weights θ[i, A, B, C] (3 ≤ i ≤ n) on the padded tagger
    hypergraph."""
    n, k = theta.shape[0] - 1, theta.shape[1]
    padded = np.zeros((n + 1, k + 1, k + 1, k))
    padded[3:, :k, :k, :] = theta[3:]
    hg = tagger_hypergraph(n, k)
    return viterbi(hg, tagger_weights(hg, padded)).value


def test_printed_r10_trigram_polytope_is_loose() -> None:
    """Erratum E1 on fixture F3 (DD reading note, P3): the four zero-weight trigrams ⟨(a,a)→b,3⟩, ⟨(b,b)→a,3⟩,
    ⟨(a,a)→a,4⟩, ⟨(b,b)→b,4⟩ (all others −1) give the printed Fig. 3 LP the value 0 at a point whose
    two trigrams disagree on the bigram (tag 2, tag 3), while every tag sequence scores −1: the
    corrected bigram-state polytope gives −1."""
    a, b = 0, 1
    theta = np.full((5, 2, 2, 2), -1.0)
    theta[3, a, a, b] = theta[3, b, b, a] = theta[4, a, a, a] = theta[4, b, b, b] = 0.0
    assert _r10_viterbi(theta) == pytest.approx(-1.0)
    printed = r10_trigram_polytope(theta, printed=True)
    sol = make_model(printed).solve()
    assert sol.certified and sol.objective == pytest.approx(0.0, abs=1e-9)
    nu = sol.x[printed.cols("trigram")].reshape(2, 2, 2, 2)  # [i − 3, A, B, C]
    assert not np.allclose(nu[0].sum(axis=0), nu[1].sum(axis=2), atol=1e-6)  # (tag 2, tag 3) at i = 3, 4
    exact = r10_trigram_polytope(theta)
    assert set(exact.con_blocks) == {"Root", "Unigram", "Bigram"}
    assert make_model(exact).solve().objective == pytest.approx(-1.0, abs=1e-9)


@SETTINGS
@given(n=st.integers(3, 5), seed=st.integers(0, 10**6))
def test_r10_trigram_polytopes_against_viterbi(n: int, seed: int) -> None:
    """The corrected polytope's LP equals Viterbi for every θ (Rush et al. 2010 Thm 5.2); the printed one is
    an outer bound (never below)."""
    theta = np.random.default_rng(seed).normal(size=(n + 1, 2, 2, 2))
    best = _r10_viterbi(theta)
    assert make_model(r10_trigram_polytope(theta)).solve().objective == pytest.approx(best, abs=1e-7)
    assert make_model(r10_trigram_polytope(theta, printed=True)).solve().objective >= best - 1e-7
