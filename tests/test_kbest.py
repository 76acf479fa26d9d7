"""The k best trees with proof (Murty's partition over exact decoding's arc sets), against brute-force
enumeration of every tree, with grandparent, arbitrary-sibling and consecutive-sibling parts, pruned parts
(scored -inf) among them; their proof records (:mod:`lpparse.proofs.kbest`) through JSON, and forged."""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen import ColgenOptions
from lpparse.exact.heuristics import move_gains
from lpparse.exact.kbest import PAIRED, SCORE_FREE, _neighbours, _OwnDuals, check_kbest, k_best_search
from lpparse.exact.search import _Parts as _SearchParts
from lpparse.exact.search import _triple_scores, triples_over
from lpparse.exact.second_order import parse_exact
from lpparse.families.base import tree_score, tree_scores
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import synthetic_csib_scorer
from lpparse.families.grandparent.family import GrandparentFamily, GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.lp.solution import Status
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.ppc.loop import solve_lp
from lpparse.proofs.check import check_proof, label_duals, signed
from lpparse.proofs.kbest import (
    ENUMERATE,
    REFINE_BRANCHES,
    VERSION,
    ClosingBound,
    KBest,
    PairedBound,
    _Refinement,
    check_kbest_record,
    closing_bounds,
    is_kbest_record,
    kbest_record,
    no_tree_problem,
    score_bound,
)
from lpparse.proofs.search_tree import BranchNode, ExactResult, ExactStats
from lpparse.trees import NoTreeError, allowed_arcs, rooted
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer

GAP_TOL = 1e-6


def _scores(rng: np.random.Generator, size: int, pruned: float) -> np.ndarray:
    """Gaussian part scores of shape (size,)*3, a share ``pruned`` of them -inf."""
    scores = rng.normal(size=(size,) * 3)
    scores[rng.random(scores.shape) < pruned] = -np.inf
    return scores


def _parts(kind: str, n: int, rng: np.random.Generator, pruned: float = 0.0) -> list:
    size = n + 1
    gp = DenseTripleScorer(_scores(rng, size, pruned))
    if kind == "grandparent":
        return [GrandparentParts(gp)]
    if kind == "siblings":
        return [GrandparentParts(gp), SiblingParts(DenseSiblingScorer(_scores(rng, size, pruned)))]
    return [GrandparentParts(gp), ConsecutiveSiblingParts(synthetic_csib_scorer(n, rng))]


def _ranked(s: np.ndarray, parts: list, single_root: bool) -> list[tuple[float, np.ndarray]]:
    """Every tree of finite score with its score, best first (brute force)."""
    heads = list(enumerate_trees(s.shape[0] - 1, single_root))
    ranked = sorted(zip(tree_scores(s, parts, heads).tolist(), heads), key=lambda t: -t[0])
    return [(value, tree) for value, tree in ranked if np.isfinite(value)]


def _round_trip(kbest, parts: list) -> dict:
    return json.loads(json.dumps(kbest_record(kbest, parts)))


def _check_record(record: dict, scores: np.ndarray, parts: list) -> str | None:
    """The checker's verdict on a record read back from JSON (multi-root, the tests' gap tolerance)."""
    return check_kbest_record(json.loads(json.dumps(record)), scores, parts, False, GAP_TOL)


def _with_entry(record: dict, i: int, **entry) -> dict:
    """A copy of ``record`` with subproblem i's entries replaced by ``entry``."""
    out = copy.deepcopy(record)
    out["kbest"]["subproblems"][i].update(entry)
    return out


@settings(deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 5),
    st.integers(0, 2**32 - 1),
    st.booleans(),
    st.sampled_from(["grandparent", "siblings", "consecutive"]),
    st.integers(1, 5),
    st.sampled_from([0, ENUMERATE]),
    st.sampled_from([-1, 0, SCORE_FREE]),
)
def test_k_best_equals_brute_force(
    n: int, seed: int, single_root: bool, kind: str, k: int, enumerate_below: int, score_free: int
) -> None:
    """The K = 1..5 best scores and trees (Gaussian scores: distinct), in order, and the proof checks; every
    tree of a small sentence when K exceeds their number; with small subproblems enumerated or searched, and
    closed by their scores' bound or not."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n + 1, n + 1))
    parts = _parts(kind, n, rng)
    ranked = _ranked(s, parts, single_root)
    result = k_best_search(s, parts, k, single_root, enumerate_below=enumerate_below, score_free=score_free)
    assert len(result.trees) == min(k, len(ranked))
    for (heads, score), (value, best) in zip(result.trees, ranked):
        assert score == pytest.approx(value, abs=1e-7)
        np.testing.assert_array_equal(heads, best)
    assert check_kbest(s, parts, result, single_root) is None


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 5),
    st.integers(0, 2**32 - 1),
    st.booleans(),
    st.sampled_from(["grandparent", "siblings"]),
    st.integers(1, 6),
)
def test_k_best_with_pruned_parts(n: int, seed: int, single_root: bool, kind: str, k: int) -> None:
    """With 30% of the triples (and sibling parts) scored -inf, the K best trees are brute force's best of
    finite score, every tree when K exceeds their number (NoTreeError when there is none); check_kbest and
    the record's check through JSON accept the proof, subproblems whose every tree holds a pruned part
    proved empty (issue 54: check_kbest refused them)."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n + 1, n + 1))
    parts = _parts(kind, n, rng, pruned=0.3)
    ranked = _ranked(s, parts, single_root)
    if not ranked:
        with pytest.raises(NoTreeError):
            k_best_search(s, parts, k, single_root)
        return
    result = k_best_search(s, parts, k, single_root)
    assert [float(score) for _, score in result.trees] == pytest.approx([v for v, _ in ranked[:k]], abs=1e-7)
    assert check_kbest(s, parts, result, single_root) is None
    assert check_kbest_record(_round_trip(result, parts), s, parts, single_root, GAP_TOL) is None


def test_enumerated_subproblems_and_forgeries() -> None:
    """Small subproblems proved by enumerating their trees: the K best equal brute force and the record
    checks. Forged: a listed enumerated subproblem's tree swapped for a worse tree of it, the root (3,125 head
    choices) claimed enumerated, an enumerated subproblem that also carries a proof or is closed by its
    parent's bound, an unlisted one whose tree is raised above the K-th in the scores checked against, and
    an ``enumerated`` entry that is not true."""
    rng = np.random.default_rng(5)
    n = 5
    s = rng.normal(size=(n + 1, n + 1))
    parts = _parts("grandparent", n, rng)
    kbest = k_best_search(s, parts, 4)
    ranked = _ranked(s, parts, False)
    assert [h.tolist() for h, _ in kbest.trees] == [t.tolist() for _, t in ranked[:4]]
    assert kbest.enumerated >= 2 and check_kbest(s, parts, kbest, False) is None
    record = _round_trip(kbest, parts)
    assert check_kbest_record(record, s, parts, False, GAP_TOL) is None
    subs = record["kbest"]["subproblems"]
    listed = next(i for i, e in enumerate(subs) if e.get("enumerated") and e["rank"] is not None)
    unlisted = next(
        sub.id
        for sub in kbest.subproblems
        if sub.enumerated and sub.rank is None and sub.enumerated[0] is not None
    )

    def check(forged: dict, scores: np.ndarray = s) -> str | None:
        return check_kbest_record(json.loads(json.dumps(forged)), scores, parts, False, GAP_TOL)

    def forged(change) -> dict:
        out = copy.deepcopy(record)
        change(out["kbest"])
        return out

    rank = subs[listed]["rank"]
    mask = kbest.subproblems[listed].mask
    worse = next(t for _, t in ranked[rank + 1 :] if mask[t[1:], np.arange(1, n + 1)].all())

    def swapped(d: dict) -> None:
        d["trees"][rank] = worse.tolist()

    assert check(forged(swapped)) is not None
    assert "more than 256" in check(forged(lambda d: d["subproblems"][0].update(enumerated=True, proof=None)))
    assert "with a proof" in check(
        forged(lambda d: d["subproblems"][listed].update(proof=copy.deepcopy(subs[0]["proof"])))
    )
    assert check(forged(lambda d: d["subproblems"][unlisted].update(closed="parent"))) is not None
    raised = s.copy()  # the unlisted subproblem's best tree: every arc 10 more
    tree = kbest.subproblems[unlisted].enumerated[0]
    raised[tree[1:], np.arange(1, n + 1)] += 10.0
    assert check(record, raised) is not None
    for value in (1, "true", False, 1.0):
        with pytest.raises(ValueError, match="enumerated"):
            check(forged(lambda d, v=value: d["subproblems"][listed].update(enumerated=v)))


@functools.cache  # two tests read it; neither changes it
def _pruned_instance() -> tuple[np.ndarray, list, list, object]:
    """n = 5, half the triples pruned: K = 4 trees whose partition holds a subproblem proved empty by a
    search that branches (a dual ray among its nodes), and a subproblem left waiting with a tree: the first
    seed from 255 whose search makes both (which subproblems branch follows the search's choices)."""
    n = 5
    for seed in range(255, 455):
        rng = np.random.default_rng(seed)
        s = rng.normal(size=(n + 1, n + 1))
        parts = [GrandparentParts(DenseTripleScorer(_scores(rng, n + 1, 0.5)))]
        kbest = k_best_search(s, parts, 4, False, enumerate_below=0, score_free=-1)
        results = [sub.result for sub in kbest.subproblems if sub.result is not None]
        empty = any(
            r.heads is None
            and any(nd.closed == "branched" for nd in r.nodes)
            and any(nd.ray for nd in r.nodes)
            for r in results
        )
        waiting = any(
            sub.rank is None and sub.result is not None and sub.result.heads is not None
            for sub in kbest.subproblems
        )
        if empty and waiting:
            return s, parts, _ranked(s, parts, False), kbest
    raise AssertionError("no seed from 255 to 454 makes the instance")


def test_k_best_pruned_partition_and_record() -> None:
    """The instance's 4 best trees, a no-tree proof whose search branches, and the record round trip."""
    s, parts, ranked, kbest = _pruned_instance()
    assert [h.tolist() for h, _ in kbest.trees] == [t.tolist() for _, t in ranked[:4]]
    record = _round_trip(kbest, parts)
    assert is_kbest_record(record) and not is_kbest_record(kbest_record(kbest, parts)["kbest"])
    subs = record["kbest"]["subproblems"]
    proofs = [sub["proof"] for sub in subs if sub["proof"] is not None]
    assert any(node["closed"] == "branched" for p in proofs if p["heads"] is None for node in p["nodes"])
    assert any(sub["rank"] is None and sub["proof"] is not None and sub["proof"]["heads"] for sub in subs)
    assert "mask" not in json.dumps(record) and "score" not in json.dumps(record["kbest"])
    assert check_kbest(s, parts, kbest, False) is None
    assert check_kbest_record(record, s, parts, False, GAP_TOL) is None


def _drop(record: dict, i: int) -> dict:
    """The record without subproblem ``i`` (its later subproblems' parents renumbered)."""
    out = copy.deepcopy(record)
    subs = out["kbest"]["subproblems"]
    del subs[i]
    for sub in subs:
        sub["parent"] -= sub["parent"] > i
    return out


def test_forged_k_best_records_fail() -> None:
    """A tree swapped for a worse one, a subproblem dropped, a subproblem's proof replaced by another's (a
    tree's or a no-tree proof), the (K+1)-th tree's arc raised in the scores checked against (a waiting
    subproblem then holds a tree above the K-th), NaN in a dual or a ray, trees out of order (their ranks
    swapped with them), more trees claimed than exist, a wrong root rule: each fails the check. Scores and
    bounds in the record are not read; malformed records raise."""
    s, parts, ranked, kbest = _pruned_instance()
    record = _round_trip(kbest, parts)
    data = record["kbest"]
    subs = data["subproblems"]

    def check(forged: dict, scores: np.ndarray = s, single_root: bool = False) -> str | None:
        return check_kbest_record(json.loads(json.dumps(forged)), scores, parts, single_root, GAP_TOL)

    def rejected(forgery: dict) -> bool:  # a verdict against it, or unreadable (both exit 1)
        try:
            return check(forgery) is not None
        except (ValueError, KeyError, TypeError):
            return True

    def forged(change) -> dict:
        out = copy.deepcopy(record)
        change(out["kbest"])
        return out

    proved = [i for i, sub in enumerate(subs) if sub["proof"] is not None]
    waiting = next(i for i in proved if subs[i]["rank"] is None and subs[i]["proof"]["heads"] is not None)
    empty = next(  # a proof that no tree of finite score exists (a dual ray among its nodes)
        i
        for i in proved
        if subs[i]["proof"]["heads"] is None and any(nd["ray"] for nd in subs[i]["proof"]["nodes"])
    )
    listed = {sub["rank"]: i for i, sub in enumerate(subs) if sub["rank"] is not None}
    worse = ranked[6][1].tolist()

    def swap_tree(d: dict) -> None:
        d["trees"][3] = worse

    problem = check(forged(swap_tree))  # a subproblem closed or waiting may then exceed the 4th score first
    assert any(why in problem for why in ("not tree 4", "above the K-th tree's score", "above tree 4"))
    for i in (waiting, empty):  # its later siblings' arcs change with it (its modifier is no longer fixed)
        assert rejected(_drop(record, i))  # or its children name a parent that is no longer there
    lasts = [
        max(i for i, sub in enumerate(subs) if sub["parent"] == p)
        for p in listed.values()
        if p in {sub["parent"] for sub in subs}
    ]
    # a split's last child, neither listed nor split: dropping it leaves its parent's Murty children short
    last = next(i for i in lasts if subs[i]["rank"] is None and all(sub["parent"] != i for sub in subs))
    assert "Murty" in check(_drop(record, last))

    def order_changed(i: int, j: int):  # two children of one subproblem swap places in the order
        def change(d: dict) -> None:
            a, b = d["subproblems"][i], d["subproblems"][j]
            a["modifier"], b["modifier"] = b["modifier"], a["modifier"]

        return change

    siblings = [i for i, sub in enumerate(subs) if sub["parent"] == 0]
    assert check(forged(order_changed(siblings[0], siblings[1]))) is not None

    def doubled(d: dict) -> None:  # one modifier twice, another never
        d["subproblems"][siblings[1]]["modifier"] = d["subproblems"][siblings[0]]["modifier"]

    assert check(forged(doubled)) is not None

    def proof_of(i: int, j: int):
        def change(d: dict) -> None:
            d["subproblems"][i]["proof"] = copy.deepcopy(subs[j]["proof"])

        return change

    assert check(forged(proof_of(waiting, listed[3]))) is not None
    assert check(forged(proof_of(listed[3], waiting))) is not None
    assert check(forged(proof_of(waiting, empty))) is not None  # a no-tree proof of a subproblem with trees
    assert check(forged(proof_of(empty, waiting))) is not None
    fifth, fourth = ranked[4][1], ranked[3][1]
    raised = s.copy()  # the 5th tree's arcs that the 4th lacks: 10 more each
    differ = np.flatnonzero(fifth != fourth)
    raised[fifth[differ], differ] += 10.0
    assert check(record, raised) is not None

    def nan_dual(d: dict) -> None:
        duals = d["subproblems"][waiting]["proof"]["nodes"][0]["duals"]
        next(iter(duals.values()))["values"][0] = float("nan")

    def nan_ray(d: dict) -> None:
        ray = next(nd["ray"] for nd in d["subproblems"][empty]["proof"]["nodes"] if nd["ray"])
        next(iter(ray.values()))["values"][0] = float("nan")

    assert rejected(forged(nan_dual))
    assert rejected(forged(nan_ray))

    def reorder(d: dict) -> None:
        d["trees"][:2] = d["trees"][1::-1]
        d["subproblems"][listed[0]]["rank"], d["subproblems"][listed[1]]["rank"] = 1, 0

    assert "above tree 1" in check(forged(reorder))
    assert check(forged(lambda d: d.update(k=5))) is not None  # fewer than K: every other subproblem empty
    assert check(record, single_root=True) is not None

    def scores_raised(d: dict) -> None:  # not read: the verdict stands on the scores checked against
        for sub in d["subproblems"]:
            if sub["proof"] is not None and sub["proof"]["heads"] is not None:
                sub["proof"]["objective"] += 100.0
                sub["proof"]["bound"] += 100.0

    assert check(forged(scores_raised)) is None
    malformed = [
        lambda d: d.update(kbest_version=VERSION + 1),
        lambda d: d["subproblems"][1].update(parent=1.0),
        lambda d: d["subproblems"][1].update(parent=5),
        lambda d: d["subproblems"][1].update(proof=[]),
        lambda d: d["subproblems"][1].pop("proof"),
        lambda d: d["trees"][0].pop(),
        lambda d: d["subproblems"][empty]["proof"]["nodes"][0].update(kept=[99]),
    ]
    for change in malformed:
        with pytest.raises((ValueError, KeyError, TypeError)):
            check(forged(change))


def test_k_best_through_parse_exact_and_tampering() -> None:
    """``parse_exact(..., k_best=K)`` returns the best tree's search with ``kbest``; a result with a tree
    swapped, reordered, a child's modifier changed, the K-th score raised or an unlisted subproblem above the
    last tree fails the check."""
    rng = np.random.default_rng(3)
    n = 5
    s = rng.normal(size=(n + 1, n + 1))
    gp = rng.normal(size=(n + 1,) * 3)
    result = parse_exact(s, DenseTripleScorer(gp), "all", False, k_best=4)
    kbest = result.kbest
    parts = [GrandparentParts(DenseTripleScorer(gp))]
    ranked = _ranked(s, parts, False)
    assert result.certified and np.array_equal(result.heads, ranked[0][1])
    assert [t[1] for t in kbest.trees] == pytest.approx([r[0] for r in ranked[:4]])
    assert check_kbest(s, parts, kbest, False) is None
    swapped = dataclasses.replace(kbest, trees=[kbest.trees[1], kbest.trees[0], *kbest.trees[2:]])
    assert check_kbest(s, parts, swapped, False) is not None
    other = dataclasses.replace(kbest, trees=[*kbest.trees[:3], (ranked[5][1], ranked[5][0])])
    assert check_kbest(s, parts, other, False) is not None
    fourth = (kbest.trees[3][0], kbest.trees[3][1] + 1.0)
    raised = dataclasses.replace(kbest, trees=[*kbest.trees[:3], fourth])
    assert "recomputed" in check_kbest(s, parts, raised, False)
    child = next(sub for sub in kbest.subproblems if sub.parent >= 0)
    subs = [dataclasses.replace(sub) for sub in kbest.subproblems]
    subs[child.id] = dataclasses.replace(child, modifier=child.modifier % n + 1)
    assert check_kbest(s, parts, dataclasses.replace(kbest, subproblems=subs), False) is not None
    shorter = dataclasses.replace(kbest, k=3, trees=kbest.trees[:3])  # the 4th tree's subproblem waits above
    assert check_kbest(s, parts, shorter, False) is not None
    with pytest.raises(ValueError, match="at least 1"):
        k_best_search(s, parts, 0)


def test_parse_k_best_writes_ranked_copies_and_proofs(tmp_path) -> None:
    """``lpparse parse --decoder exact --k-best 3 --proof P`` on a score file with 30% of its triples pruned:
    three copies of each sentence, best first, whose trees and score comments are brute force's three best of
    finite score, and one k-best record per sentence that :func:`check_kbest_record` accepts, with the trees
    written; other decoders refuse --k-best."""
    from test_cli_errors import fails, lpparse

    from lpparse.corpus import read_treebank, sample_treebank_path, write_treebank
    from lpparse.scores import SentenceScores, save_scores

    sentences = [s for s in read_treebank(sample_treebank_path()) if 3 <= s.n <= 5][:3]
    treebank = tmp_path / "short.conllu"
    write_treebank(treebank, sentences)
    rng = np.random.default_rng(5)
    entries = [
        SentenceScores(s.sent_id, rng.normal(size=(s.n + 1,) * 2), _scores(rng, s.n + 1, 0.3))
        for s in sentences
    ]
    scores = tmp_path / "scores.npz"
    save_scores(scores, entries)
    out, proofs = tmp_path / "k.conllu", tmp_path / "k.proofs"
    argv = ["parse", "--scores", scores, "--treebank", treebank, "--decoder", "exact", "--no-progress"]
    done = lpparse(*argv, "--k-best", "3", "--out", out, "--proof", proofs, "--single-root")
    assert done.returncode == 0, done.stderr
    copies = read_treebank(out)
    assert len(copies) == 3 * len(sentences)
    records = [json.loads(line) for line in proofs.read_text().splitlines()]
    assert [r["sent_id"] for r in records] == [e.sent_id for e in entries]
    for i, (entry, record) in enumerate(zip(entries, records)):
        parts = [GrandparentParts(DenseTripleScorer(entry.gp))]
        ranked = _ranked(entry.arcs, parts, True)
        for rank in range(3):
            written = copies[3 * i + rank]
            assert written.sent_id == entry.sent_id
            assert written.tokens.metadata["k_best_rank"] == str(rank + 1)
            assert float(written.tokens.metadata["k_best_score"]) == pytest.approx(ranked[rank][0], abs=1e-7)
            np.testing.assert_array_equal(written.heads, ranked[rank][1])
            assert record["kbest"]["trees"][rank] == written.heads.tolist()
        assert check_kbest_record(record, entry.arcs, parts, True, GAP_TOL) is None
        assert check_kbest_record(record, entry.arcs, parts, False, GAP_TOL) is not None
    check = ["check-proof", proofs, "--scores", scores, "--treebank", treebank, "--no-progress"]
    done = lpparse(*check, "--single-root", "--trees", out)
    assert done.returncode == 0 and "3 proofs checked" in done.stdout and "k-best" in done.stdout, done.stdout
    assert lpparse(*check, "--multi-root").returncode == 1  # proved under the other root rule
    copies[1], copies[2] = copies[2], copies[1]  # the trees written out of order: not what was proved
    write_treebank(tmp_path / "swapped.conllu", copies)
    done = lpparse(*check, "--single-root", "--trees", tmp_path / "swapped.conllu")
    assert done.returncode == 1 and "of other trees" in done.stdout, done.stdout + done.stderr
    fails(lpparse(*argv[:-3], "--decoder", "ppc", "--k-best", "2"), 2, "--k-best", "exact")


def test_lazy_subproblems_closed_soundly() -> None:
    """A lazy search closes most subproblems unsolved, each by its nearest searched ancestor's root duals
    (recomputed from that proof, :func:`closing_bounds`, refined where the plain bound is above the K-th
    score), and keeps no LP; its record checks through JSON. Forged closures
    fail: a solved subproblem's proof dropped for a closure by a parent's bound above the K-th score, the root
    closed, a closure that also carries a proof, a closure with fewer than K trees listed, the closed arcs'
    scores raised, an unknown closure."""
    rng = np.random.default_rng(12)
    n = 6  # arcs N(0, 4), triples N(0, 0.01): trained models' scale, where most children close unsolved
    s = 2.0 * rng.normal(size=(n + 1, n + 1))
    parts = [GrandparentParts(DenseTripleScorer(0.1 * rng.normal(size=(n + 1,) * 3)))]
    kbest = k_best_search(s, parts, 3, enumerate_below=0, score_free=-1)
    assert [t[1] for t in kbest.trees] == pytest.approx([v for v, _ in _ranked(s, parts, False)[:3]])
    assert kbest.closed >= 5 and kbest.solved + kbest.closed <= len(kbest.subproblems)
    kept = [sub.result for sub in kbest.subproblems if sub.result is not None]
    assert all(r.root is None and not r.node_results for r in kept)  # no LP kept
    assert check_kbest(s, parts, kbest, False) is None
    record = _round_trip(kbest, parts)
    assert check_kbest_record(record, s, parts, False, GAP_TOL) is None
    subs = record["kbest"]["subproblems"]
    kth = kbest.trees[-1][1]

    def check(forged: dict, scores: np.ndarray = s) -> str | None:
        return _check_record(forged, scores, parts)

    def forged(i: int, **entry) -> dict:
        return _with_entry(record, i, **entry)

    def closes(i: int) -> bool:  # what closes subproblem i at the K-th score, recomputed as the check does
        a = sub = kbest.subproblems[i]
        while a.id == i or a.result is None:  # its nearest searched ancestor
            a = kbest.subproblems[a.parent]
        bound = closing_bounds(np.where(a.mask, s, -np.inf), parts, a.result, False)
        cap = kth + 1e-6
        return bound.child(sub.mask, sub.modifier) <= cap or bound.refined(sub.mask, cap, REFINE_BRANCHES)

    closed = [i for i, sub in enumerate(subs) if sub.get("closed") == "parent" and sub["rank"] is None]
    assert all(closes(i) for i in closed)
    solved = [i for i, e in enumerate(subs) if e["rank"] is None and e["proof"]]  # a tree, or none above
    above = [i for i in solved if not closes(i)]
    assert above  # solved because its ancestor's bound did not close it
    assert "above the K-th tree's score" in check(forged(above[0], proof=None, closed="parent"))
    assert "root" in check(forged(0, closed="parent"))
    assert "a proof of its own" in check(forged(solved[0], closed="parent"))
    shorter = copy.deepcopy(record)
    shorter["kbest"]["k"] = 4
    assert "fewer than K" in check(shorter)
    raised = s.copy()  # every head of a closed subproblem's modifier but the parent tree's: 10 more
    sub = kbest.subproblems[closed[0]]
    raised[sub.mask[:, sub.modifier], sub.modifier] += 10.0
    assert check(record, raised) is not None
    with pytest.raises(ValueError, match="closed"):
        check(forged(closed[0], closed="bound"))


def _lazy_instance(
    seed: int, n: int = 6, k: int = 3, score_free: int = -1
) -> tuple[np.ndarray, list, object]:
    """Arcs N(0, 4), triples N(0, 0.01) (trained models' scale), the lazy search's K best (no enumeration;
    by default no closure by scores either: every subproblem that no ancestor's duals close is searched)."""
    rng = np.random.default_rng(seed)
    s = 2.0 * rng.normal(size=(n + 1, n + 1))
    parts = [GrandparentParts(DenseTripleScorer(0.1 * rng.normal(size=(n + 1,) * 3)))]
    return s, parts, k_best_search(s, parts, k, enumerate_below=0, score_free=score_free)


@pytest.mark.parametrize("kind", ["grandparent", "siblings"])
@pytest.mark.parametrize("single_root", [False, True])
def test_tree_bound_holds_for_any_duals(kind: str, single_root: bool) -> None:
    """:meth:`ClosingBound.tree` bounds every tree of each Murty child (brute force) from the parent's root
    duals, and from forged ones: scaled, negated, random, of other labels, huge (reduced costs that overflow
    to +-inf); a NaN dual gives no bound (fails closed). The families beside the grandparent one count as the
    check counts them. :meth:`ClosingBound.refined` never proves a child's trees at most a score below its
    best tree's, whatever the duals and however many branches it may take; under the single-root rule too,
    where a branch's best arborescence may find at once that no tree exists (two tokens whose only head is
    the root: :func:`lpparse.oracles.chu_liu_edmonds.chu_liu_edmonds_valid`)."""
    rng = np.random.default_rng(11)
    n = 5
    s = rng.normal(size=(n + 1, n + 1))
    parts = _parts(kind, n, rng)
    kbest = k_best_search(s, parts, 4, single_root=single_root, enumerate_below=0, score_free=-1)
    ranked = _ranked(s, parts, single_root)
    checked = 0
    for parent in (sub for sub in kbest.subproblems if sub.children and sub.result is not None):  # searched
        masked = np.where(parent.mask, s, -np.inf)
        root = parent.result.nodes[0]
        labels = list(root.duals.items())
        forged = [
            root.duals,
            {name: (index, 10.0 * values) for name, (index, values) in labels},
            {name: (index, -values) for name, (index, values) in labels},
            {name: (index, rng.normal(size=values.shape)) for name, (index, values) in labels},
            {"OneHead": (np.arange(1, n + 1)[:, None], rng.normal(size=n))},
            {name: (index, 1e308 * np.sign(rng.normal(size=v.shape))) for name, (index, v) in labels},
        ]
        for duals in forged:
            nodes = [dataclasses.replace(root, duals=duals), *parent.result.nodes[1:]]
            result = dataclasses.replace(parent.result, nodes=nodes)
            bound = closing_bounds(masked, parts, result, single_root)
            if isinstance(bound, str):  # no bound at all (a number overflowed): fails closed
                continue
            for child in (kbest.subproblems[i] for i in parent.children):
                inside = [v for v, t in ranked if child.mask[t[1:], np.arange(1, n + 1)].all()]
                best = max(inside, default=-np.inf)
                assert bound.tree(child.mask) >= best - 1e-9
                assert bound.child(child.mask, child.modifier) >= best - 1e-9
                if np.isfinite(best):
                    assert not bound.refined(child.mask, best - 1e-6, 10**5)
                checked += 1
        name, (index, values) = labels[0]
        nan = {**root.duals, name: (index, np.where(np.arange(values.size) == 0, np.nan, values))}
        result = dataclasses.replace(parent.result, nodes=[dataclasses.replace(root, duals=nan)])
        assert isinstance(closing_bounds(masked, parts, result, single_root), str)
    assert checked >= 20


def test_refined_bounds_close_and_prove_subproblems() -> None:
    """At trained models' scale (arcs N(0, 4), triples N(0, 0.01)), n = 6, K = 5, no enumeration: the tree
    bound refined by branching closes subproblems that the plain tree bound leaves open, and proves the best
    trees of others, never searched; the K best equal brute force and the record checks. Forged: such a
    subproblem's listed tree swapped for a worse tree of it, or for a tree not over its arcs, its arcs'
    scores raised, and a closure under no ancestor with a proof."""
    s, parts, kbest = _lazy_instance(1, n=6, k=5)
    ranked = _ranked(s, parts, False)
    assert [h.tolist() for h, _ in kbest.trees] == [t.tolist() for _, t in ranked[:5]]
    assert kbest.bounded >= 1 and check_kbest(s, parts, kbest, False) is None
    record = _round_trip(kbest, parts)
    assert check_kbest_record(record, s, parts, False, GAP_TOL) is None
    kth = kbest.trees[-1][1]

    def parent_bound(i: int) -> float:  # the plain bound of subproblem i by its nearest searched ancestor
        a = kbest.subproblems[i].parent
        while kbest.subproblems[a].result is None:
            a = kbest.subproblems[a].parent
        ancestor = kbest.subproblems[a]
        masked = np.where(ancestor.mask, s, -np.inf)
        sub = kbest.subproblems[i]
        return closing_bounds(masked, parts, ancestor.result, False).child(sub.mask, sub.modifier)

    closed = [sub.id for sub in kbest.subproblems if sub.closed]
    assert any(parent_bound(i) > kth + 1e-6 for i in closed)  # closed by the refined bound alone
    root = kbest.subproblems[0].result.nodes[0]
    brute = np.array([v for v, _ in ranked])
    trees = np.array([t for _, t in ranked])
    m = np.arange(1, s.shape[0])
    for scale in (1.0, 3.0, -1.0, 1e300):  # the root's duals, forged ones, huge ones: never below a best tree
        duals = {name: (index, scale * values) for name, (index, values) in root.duals.items()}
        result = dataclasses.replace(
            kbest.subproblems[0].result, nodes=[dataclasses.replace(root, duals=duals)]
        )
        bound = closing_bounds(s, parts, result, False)
        if isinstance(bound, str):  # no bound at all (a number overflowed): fails closed
            continue
        for sub in kbest.subproblems[1:]:
            inside = sub.mask[trees[:, 1:], m].all(axis=1)
            if inside.any():
                assert not bound.refined(sub.mask, float(brute[inside].max()) - 1e-6, 10**4)
        if scale < 1e300:  # weak duality for each tree: its own reduced costs bound its score
            own = np.array([bound.tree_value(t) for t in trees])
            assert (own >= brute - 1e-6).all()
    empty = kbest.subproblems[0].mask.copy()
    empty[:, 2] = False  # no head for token 2: no tree, the bound -inf and every limit proved
    assert bound.tree(empty) == -np.inf and bound.refined(empty, -1e300, 1)

    def check(forged: dict, scores: np.ndarray = s) -> str | None:
        return check_kbest_record(json.loads(json.dumps(forged)), scores, parts, False, GAP_TOL)

    bounded = next(sub for sub in kbest.subproblems if sub.bounded is not None)
    worse = next(t for v, t in ranked[5:] if bounded.mask[t[1:], m].all())
    outside = next(t for v, t in ranked[5:] if not bounded.mask[t[1:], m].all())
    for tree in (worse, outside):
        forged = copy.deepcopy(record)
        forged["kbest"]["trees"][bounded.rank] = tree.tolist()
        assert check(forged) is not None
    raised = s.copy()  # every arc of the bounded subproblem's modifier but its tree's: 10 more
    raised[bounded.mask[:, bounded.modifier], bounded.modifier] += 10.0
    raised[bounded.bounded[0][bounded.modifier], bounded.modifier] -= 10.0
    assert check(record, raised) is not None
    orphan = copy.deepcopy(record)  # the root's proof gone: nothing closes its descendants
    orphan["kbest"]["subproblems"][0]["proof"] = None
    assert check(orphan) is not None


def test_subproblems_bounded_by_the_kth_tree() -> None:
    """A lazy search closes the searches of some subproblems at the K-th best score of the trees found so far:
    their proofs hold no tree, their leaves bounded by the K-th tree's score. The record checks; with K
    raised (fewer trees than K listed, so every subproblem must be empty) or with the arcs of such a
    subproblem raised in the scores checked against, it fails; such a proof given to a listed subproblem
    fails."""
    s, parts, kbest = _lazy_instance(7)
    assert [t[1] for t in kbest.trees] == pytest.approx([v for v, _ in _ranked(s, parts, False)[:3]])
    bounded = [
        sub.id
        for sub in kbest.subproblems
        if sub.result is not None
        and sub.result.heads is None
        and any(node.closed != "infeasible" for node in sub.result.nodes)
    ]
    assert bounded
    assert check_kbest(s, parts, kbest, False) is None
    record = _round_trip(kbest, parts)
    assert record["kbest"]["kbest_version"] == VERSION
    assert check_kbest_record(record, s, parts, False, GAP_TOL) is None

    def check(forged: dict, scores: np.ndarray = s) -> str | None:
        return check_kbest_record(json.loads(json.dumps(forged)), scores, parts, False, GAP_TOL)

    more = copy.deepcopy(record)
    more["kbest"]["k"] = 4
    assert check(more) is not None
    raised = s.copy()  # the heads of its modifier that its parent's tree lacks: 5 more
    sub = kbest.subproblems[bounded[0]]
    raised[sub.mask[:, sub.modifier], sub.modifier] += 5.0
    assert check(record, raised) is not None
    listed = next(i for i, e in enumerate(record["kbest"]["subproblems"]) if e["rank"] == 1)
    moved = copy.deepcopy(record)
    moved["kbest"]["subproblems"][listed]["proof"] = copy.deepcopy(
        record["kbest"]["subproblems"][bounded[0]]["proof"]
    )
    assert check(moved) is not None


def _closures_check_and_resist(
    s: np.ndarray, parts: list, kbest: KBest, kind: str, bound: ClosingBound | PairedBound
) -> None:
    """The checks of :func:`test_subproblems_closed_by_their_scores` and its paired twin, for the closures of
    ``kind`` (``"scores"`` or ``"paired"``, version 5 or 6) whose ``bound`` is given: the K best equal brute
    force, the record checks with as many such entries, the bound never below a subproblem's best tree (every
    subproblem, brute force), and the forgeries fail (a tree it proves swapped for a worse tree of it, the
    closed arcs' scores raised or one to 1e300, the root closed so, such a closure with a proof of its own, K
    raised, the entry in a record of the version before)."""
    ranked = _ranked(s, parts, False)
    assert [h.tolist() for h, _ in kbest.trees] == [t.tolist() for _, t in ranked[:5]]
    closed = [sub for sub in kbest.subproblems if getattr(sub, kind) and sub.closed]
    solved = [sub for sub in kbest.subproblems if getattr(sub, kind) and sub.bounded is not None]
    count = kbest.by_scores if kind == "scores" else kbest.paired
    assert closed and solved and count == len(closed) + len(solved)
    assert check_kbest(s, parts, kbest, False) is None
    record = _round_trip(kbest, parts)
    assert check_kbest_record(record, s, parts, False, GAP_TOL) is None
    assert sum(sub.get("closed") == kind for sub in record["kbest"]["subproblems"]) == count
    values, trees = np.array([v for v, _ in ranked]), np.array([t for _, t in ranked])
    m = np.arange(1, s.shape[0])
    for sub in kbest.subproblems:
        inside = sub.mask[trees[:, 1:], m].all(axis=1)
        if inside.any():
            assert not bound.refined(sub.mask, float(values[inside].max()) - 1e-6, 10**5)

    def check(forged: dict, scores: np.ndarray = s) -> str | None:
        return _check_record(forged, scores, parts)

    worse = next(t for _, t in ranked[5:] if solved[0].mask[t[1:], m].all())
    swapped = copy.deepcopy(record)
    swapped["kbest"]["trees"][solved[0].rank] = worse.tolist()
    assert check(swapped) is not None
    sub = closed[0]
    for raise_by in (10.0, 1e300):
        raised = s.copy()
        raised[sub.mask[:, sub.modifier], sub.modifier] += raise_by
        assert check(record, raised) is not None
    assert "root" in check(_with_entry(record, 0, closed=kind))
    root_proof = copy.deepcopy(record["kbest"]["subproblems"][0]["proof"])
    assert "a proof of its own" in check(_with_entry(record, sub.id, proof=root_proof))
    more = copy.deepcopy(record)
    more["kbest"]["k"] = 6
    assert check(more) is not None
    version = 5 if kind == "scores" else 6
    older = copy.deepcopy(record)
    older["kbest"]["kbest_version"] = version - 1
    with pytest.raises(ValueError, match=f"version {version}"):
        check(older)


def test_subproblems_closed_by_their_scores() -> None:
    """With no enumeration, subproblems of few free tokens that no ancestor's duals close are closed (or their
    best tree proved) by the bound of their scores alone, refined by branching, with no LP; the K best equal
    brute force, the record checks, the bound is never below a subproblem's best tree, forgeries fail
    (:func:`_closures_check_and_resist`)."""
    s, parts, kbest = _lazy_instance(2, n=6, k=5, score_free=SCORE_FREE)
    _closures_check_and_resist(
        s, parts, kbest, "scores", score_bound(s, parts, kbest.subproblems[0].result, False)
    )


def test_subproblems_closed_by_duals_and_scores_together() -> None:
    """With no enumeration and no closure by the scores alone (``score_free`` 0), subproblems that their
    nearest searched ancestor's duals leave open are closed (or their best tree proved) by those duals and
    their scores together, the smaller bound at every branch (:class:`PairedBound`, here with the root's
    duals, valid for any subproblem): as :func:`test_subproblems_closed_by_their_scores`; and a paired closure
    relabelled as closed by its scores or its parent's duals alone fails."""
    s, parts, kbest = _lazy_instance(2, n=6, k=5, score_free=0)
    root = kbest.subproblems[0]
    duals = closing_bounds(np.where(root.mask, s, -np.inf), parts, root.result, False)
    paired = PairedBound(duals, score_bound(s, parts, root.result, False))
    _closures_check_and_resist(s, parts, kbest, "paired", paired)
    record = _round_trip(kbest, parts)
    closed = [sub for sub in kbest.subproblems if sub.paired and sub.closed]
    relabelled = [_with_entry(record, c.id, closed=alone) for c in closed for alone in ("scores", "parent")]
    assert any(_check_record(forged, s, parts) for forged in relabelled)


def test_refinement_stays_within_its_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """:meth:`ClosingBound.refine` never bounds (nor builds) more branches than it may: the scores' bound of a
    9-token sentence refined to its best tree's score (only branching gets there), for every budget the
    branches bounded number at most the budget, the answer is False below the budget the proof needs and True
    from it on (the parts bounded do not depend on the order); the same for :class:`PairedBound` with the
    root's duals, its parts built counted."""
    rng = np.random.default_rng(1)
    n = 9
    s = 2.0 * rng.normal(size=(n + 1, n + 1))
    parts = [GrandparentParts(DenseTripleScorer(0.1 * rng.normal(size=(n + 1,) * 3)))]
    kbest = k_best_search(s, parts, 1, enumerate_below=0, score_free=-1)
    bound = score_bound(s, parts, kbest.subproblems[0].result, False)
    mask, limit = kbest.subproblems[0].mask, kbest.trees[0][1] + 1e-6
    seen: list[int] = []  # the branches bounded, and built, a level at a time
    built: list[int] = []
    branch_tokens, build = ClosingBound._branch_tokens, _Refinement._built

    def bounded(self, w, *args):  # noqa: ANN001, ANN002, ANN202 - the methods' own signatures
        seen.append(w.shape[0])
        return branch_tokens(self, w, *args)

    def made(w, parts):  # noqa: ANN001, ANN202
        built.append(parts.node.size)  # the parts kept, each built once for every bound
        return build(w, parts)

    monkeypatch.setattr(ClosingBound, "_branch_tokens", bounded)
    monkeypatch.setattr(_Refinement, "_built", staticmethod(made))
    needed = None
    for budget in (1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 10**5):
        seen.clear()
        built.clear()
        done = bound.refined(mask, limit, budget)
        assert sum(seen) <= budget and 1 + sum(built) <= budget
        if done and needed is None:
            needed = budget
        assert done == (needed is not None)
    assert needed is not None and 1 < needed <= 1024
    assert not bound.refined(mask, kbest.trees[0][1] - 1e-6, 10**5)  # below the best tree: never
    root = kbest.subproblems[0]
    paired = PairedBound(closing_bounds(np.where(mask, s, -np.inf), parts, root.result, False), bound)
    for budget in (1, 2, 4, 8, 16, 32, 64, 128, 256, 1024):
        built.clear()
        paired.refined(mask, limit, budget)
        assert 1 + sum(built) <= budget
    assert paired.refined(mask, limit, 10**5) and not paired.refined(mask, kbest.trees[0][1] - 1e-6, 10**5)


@pytest.mark.parametrize("huge", [0.0, 1e12, 1e300, -1e300])
def test_score_bound_holds_for_any_scores(huge: float) -> None:
    """:func:`score_bound` refined never proves a subproblem's trees at most a score below its best tree's
    (brute force over every tree), for every subproblem of a partition, with one triple and one arc of its
    scores set huge (as large as floats go, either sign): round-off or overflow makes it fail, never pass; nor
    with the root's duals beside it (:class:`PairedBound`)."""
    s, parts, kbest = _lazy_instance(3, n=6, k=4, score_free=SCORE_FREE)
    cube = parts[0].scorer.scores.copy()
    big = s.copy()
    best = kbest.trees[0][0]
    p, m = int(best[2]), 2  # token 2's arc in the best tree, and a triple over it
    if huge:
        big[p, m] = huge
        if p > 0:
            cube[int(best[p]), p, m] = huge
    changed = [GrandparentParts(DenseTripleScorer(cube))]
    ranked = _ranked(big, changed, False)
    bound = score_bound(big, changed, kbest.subproblems[0].result, False)
    if isinstance(bound, str):  # the bound overflowed: none at all, so nothing is closed by it
        assert huge and abs(huge) >= 1e300
        return
    values = np.array([v for v, _ in ranked])
    trees = np.array([t for _, t in ranked])
    at = np.arange(1, s.shape[0])
    root = kbest.subproblems[0]
    duals = closing_bounds(np.where(root.mask, big, -np.inf), changed, root.result, False)
    paired = None if isinstance(duals, str) else PairedBound(duals, bound)
    checked = 0
    for sub in kbest.subproblems:
        inside = sub.mask[trees[:, 1:], at].all(axis=1)
        if inside.any():
            top = float(values[inside].max())
            assert not bound.refined(sub.mask, top - 1e-6 * (1.0 + abs(top)), 10**4)
            assert paired is None or not paired.refined(sub.mask, top - 1e-6 * (1.0 + abs(top)), 10**4)
            checked += 1
    assert checked >= 5


@settings(deadline=None, max_examples=60)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1), st.sampled_from([1e-3, 1.0, 1e6, 1e12]))
def test_rounding_bound_holds_exactly(n: int, seed: int, scale: float) -> None:
    """The rounding-safe sum of a tree bound (:meth:`lpparse.proofs.kbest._Rounding.totals`) is never below
    R plus the chosen weights summed exactly (rational arithmetic), for weights of the bound's own arcs and
    triples over mixed signs and magnitudes, R of many terms: what lets the check compare a bound with a
    score within no tolerance but the gap's."""
    from fractions import Fraction

    rng = np.random.default_rng(seed)
    size = n + 1
    big = lambda shape: scale * rng.normal(size=shape) * 10.0 ** rng.integers(-8, 3, size=shape)  # noqa: E731
    arc_d, triple_d = big((size, size)), big((size,) * 3)
    terms = big(3 * size).tolist()
    bound = ClosingBound(np.full((size, size), np.inf), terms, arc_d, [triple_d], False)
    w = bound.weights(np.ones((size, size), bool))  # every arc: each its best triple
    chosen = w[rng.integers(0, size, size=(8, n)), np.arange(1, size)]
    got = bound._rounding.totals(chosen)
    for row, value in zip(chosen, got):
        exact = sum((Fraction(t) for t in terms), Fraction(0)) + sum((Fraction(x) for x in row), Fraction(0))
        assert Fraction(float(value)) >= exact


@pytest.mark.parametrize("single_root", [False, True])
def test_tree_bound_of_weights_past_the_float_range_closes_nothing(single_root: bool) -> None:
    """Reduced costs whose largest sizes sum past the float range (forged duals of 1e308): the bound is built
    (no OverflowError out of the checker), and neither it nor its refinement bounds any set of arcs at a
    finite limit: it fails closed."""
    size = 5
    arc_d = np.full((size, size), 1e308)
    np.fill_diagonal(arc_d, -np.inf)
    bound = ClosingBound(
        np.full((size, size), np.inf), [1.0], arc_d, [np.full((size,) * 3, 1e308)], single_root
    )
    mask = np.isfinite(arc_d)
    assert not bound.tree(mask) <= 1e300
    assert not bound.refined(mask, 1e300, REFINE_BRANCHES)
    assert not bound.child(mask, 1) <= 1e300


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_neighbours_are_the_best_trees_one_or_two_changes_away(seed: int, single_root: bool) -> None:
    """The trees a listed tree's neighbours seed the K-th best score with: each a tree of its recomputed
    score, the best ``k`` of one head change (by brute force over every tree), and the trees of two of the
    best :data:`PAIRED` changes at two tokens, every one of them that is a tree."""
    rng = np.random.default_rng(seed)
    n = 5
    s = rng.normal(size=(n + 1, n + 1))
    parts = _parts("grandparent", n, rng)
    ranked = _ranked(s, parts, single_root)
    heads = ranked[0][1]
    shared = _SearchParts(s, parts, single_root)
    gains = move_gains(s, shared.climbing, heads, single_root)
    k = PAIRED + 2  # as k-best asks: more single changes than are paired
    got = _neighbours(shared, heads, gains, k, single_root)
    for tree, value in got:
        assert rooted(tree, single_root)
        assert value == tree_score(s, parts, tree)
    changed = [int((tree[1:] != heads[1:]).sum()) for tree, _ in got]
    assert set(changed) <= {1, 2}
    ones = sorted(((v, t) for v, t in ranked if (t[1:] != heads[1:]).sum() == 1), key=lambda x: -x[0])
    assert sorted(v for (_, v), c in zip(got, changed) if c == 1) == sorted(v for v, _ in ones[:k])
    moves = [(int(np.flatnonzero(t[1:] != heads[1:])[0]) + 1, t) for _, t in ones[:PAIRED]]
    pairs = set()
    for (a, one), (b, other) in itertools.combinations(moves, 2):
        tree = heads.copy()
        tree[a], tree[b] = one[a], other[b]
        if a != b and rooted(tree, single_root):
            pairs.add(tuple(tree.tolist()))
    assert pairs, "the instance has no pair of changes that makes a tree"
    assert {tuple(t.tolist()) for (t, _), c in zip(got, changed) if c == 2} == pairs


def _round_bounds(n: int, seed: int, single_root: bool) -> tuple[np.ndarray, list, list]:
    """A random grandparent instance's parse-price-cut LP with a cutoff far above it, and per round that still
    priced columns the search's estimate of its duals' tree bound (:class:`_OwnDuals`, each arborescence
    exact) with those duals labelled as a node's (the run goes on to its optimum)."""
    rng = np.random.default_rng(seed)
    s = 2.0 * rng.normal(size=(n + 1, n + 1))
    parts = [GrandparentParts(DenseTripleScorer(rng.normal(size=(n + 1,) * 3)))]
    mask = allowed_arcs(s)
    closer = _OwnDuals(mask, _triple_scores(parts[0], mask, _SearchParts(s, parts, single_root)), single_root)
    rounds = []

    def recording(state, families, enough: float) -> float:  # noqa: ANN001 - the Closer's own signature
        lp = next(f for f in families if isinstance(f, GrandparentFamily)).prog.lp
        outside: dict = {}
        for family in families:
            outside.update(family.outside_duals())
        rounds.append((closer(state, families, -np.inf), label_duals(lp, signed(lp, state.y), outside)))
        return np.inf

    solve_lp(s, parts, "ppc", single_root, options=ColgenOptions(cutoff=1e9), closer=recording)
    return s, parts, rounds


def _tree_closed(s: np.ndarray, duals: dict, bound: float, single_root: bool) -> ExactResult:
    """A search's proof of no tree: its root closed by the tree bound of ``duals``."""
    mask = allowed_arcs(s)
    node = BranchNode(0, -1, 0, None, None, mask, bound, closed="tree", duals=duals)
    stats = ExactStats(s.shape[0] - 1)
    return ExactResult(Status.CUTOFF, None, -np.inf, bound, single_root, GAP_TOL, [node], stats)


@pytest.mark.parametrize("single_root", [False, True])
def test_a_rounds_own_duals_bound_every_tree(single_root: bool) -> None:
    """Before an LP converges (columns still price), the tree bound of its round's duals (what stops a Murty
    child's search, :class:`lpparse.exact.kbest._OwnDuals`) is at least every tree's score (brute force), and
    the check, recomputing it from the duals as a node closed by ``tree``, accepts that node at the search's
    estimate and refuses it at any limit below the best tree; a node so closed with a NaN dual or no duals, or
    in the proof of a search that claims a tree (:func:`check_proof`), fails."""
    asked = 0
    for n, seed in itertools.product((4, 5, 6), range(3)):
        s, parts, rounds = _round_bounds(n, seed, single_root)
        best = _ranked(s, parts, single_root)[0][0]
        for bound, duals in rounds:
            assert bound >= best - 1e-9
            proof = _tree_closed(s, duals, bound, single_root)
            assert no_tree_problem(s, parts, proof, single_root, bound + 1e-7 * (1.0 + abs(bound))) is None
            assert "tree bound" in no_tree_problem(s, parts, proof, single_root, best - 1e-6)
        asked += len(rounds)
        if rounds:
            bound, duals = rounds[0]
            name, (index, values) = next(iter(duals.items()))
            nan = {**duals, name: (index, np.where(np.arange(values.size) == 0, np.nan, values))}
            assert no_tree_problem(s, parts, _tree_closed(s, nan, bound, single_root), single_root, 1e9)
            bare = _tree_closed(s, duals, bound, single_root)
            bare.nodes[0].duals = None
            assert "without duals" in no_tree_problem(s, parts, bare, single_root, 1e9)
            heads = _ranked(s, parts, single_root)[0][1]
            claimed = dataclasses.replace(proof, status=Status.OPTIMAL, heads=heads, objective=best)
            assert "k-best" in check_proof(s, parts, claimed, single_root=single_root, gap_tol=GAP_TOL)
    assert asked >= 10


def test_children_closed_by_their_own_duals() -> None:
    """On trained-model scores (Hungarian-Szeged dev sentences dev-265, dev-327 and dev-373 of 23, 19 and 21
    tokens, single root: ``lpparse scores export`` with the grandparent model of
    ``benchmarks/train_treebanks.sh``, arcs and triples kept), K = 5: Murty children whose searches stop at
    the K-th best score found by their own LP's duals before it converges (a node closed as ``tree``); the
    lists are those of the search without that closure, the results and their records check, and forged
    records fail: the closing node's duals zeroed, halved, doubled, negated, made huge (1e300: the bound
    overflows) or NaN (its tree bound then above the K-th score, or none), the record said of version 6."""
    data = np.load(Path(__file__).parent / "data" / "kbest_hu_dev.npz")
    closed = 0
    for i in range(3):
        s, parts = data[f"arcs{i}"], [GrandparentParts(DenseTripleScorer(data[f"gp{i}"]))]
        kbest = k_best_search(s, parts, 5, single_root=True)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_OwnDuals, "__call__", lambda self, state, families, enough: np.inf)
            plain = k_best_search(s, parts, 5, single_root=True)
        assert [t.tolist() for t, _ in kbest.trees] == [t.tolist() for t, _ in plain.trees]
        assert check_kbest(s, parts, kbest, True) is None
        record = json.loads(json.dumps(kbest_record(kbest, parts)))
        assert check_kbest_record(record, s, parts, True, GAP_TOL) is None
        subs = [
            sub.id
            for sub in kbest.subproblems
            if sub.result is not None and any(node.closed == "tree" for node in sub.result.nodes)
        ]
        closed += len(subs)
        for j in subs:
            nodes = record["kbest"]["subproblems"][j]["proof"]["nodes"]
            at = next(x for x, node in enumerate(nodes) if node["closed"] == "tree")

            def forged(change) -> dict:  # noqa: ANN001
                out = copy.deepcopy(record)
                change(out["kbest"]["subproblems"][j]["proof"]["nodes"][at])
                return out

            def scaled(node: dict, by: float) -> None:
                for entry in node["duals"].values():
                    entry["values"] = [by * v for v in entry["values"]]

            for by in (0.0, 0.5, 2.0, -1.0, 1e300, math.nan):  # a verdict against it, or unreadable
                change = functools.partial(scaled, by=by)
                try:
                    assert check_kbest_record(forged(change), s, parts, True, GAP_TOL) is not None
                except ValueError as err:
                    assert "not finite" in str(err)
            older = copy.deepcopy(record)
            older["kbest"]["kbest_version"] = 6
            with pytest.raises(ValueError, match="version 7"):
                check_kbest_record(older, s, parts, True, GAP_TOL)
    assert closed >= 3


def test_no_pairing_after_the_duals_ran_out_of_branches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A subproblem whose ancestor's duals ran out of branches refining its bound is searched, never bounded by
    those duals and its scores together (they run out too: module docstring of :mod:`lpparse.exact.kbest`):
    with every refinement by duals alone out of branches, on the instance whose subproblems are otherwise paired
    (:func:`test_subproblems_closed_by_duals_and_scores_together`), none of those refined is paired (the
    others still are), and the K best are brute force's, proved."""
    s, parts, kbest = _lazy_instance(2, n=6, k=5, score_free=0)
    original, refined = ClosingBound.refine, []

    def out_of_branches(self: ClosingBound, mask: np.ndarray, limit: float, branches: int) -> tuple:
        refined.append(mask.copy())
        return False, None

    monkeypatch.setattr(ClosingBound, "refine", out_of_branches)
    out = k_best_search(s, parts, 5, enumerate_below=0, score_free=0)
    monkeypatch.setattr(ClosingBound, "refine", original)
    paired = [sub.mask for sub in out.subproblems if sub.paired]
    assert refined and paired and kbest.paired > 0
    assert not any(np.array_equal(a, b) for a in refined for b in paired)
    assert [h.tolist() for h, _ in out.trees] == [t.tolist() for _, t in _ranked(s, parts, False)[:5]]
    assert check_kbest(s, parts, out, False) is None


@settings(deadline=None, max_examples=25)
@given(st.integers(2, 7), st.integers(0, 2**32 - 1), st.floats(0.0, 0.8))
def test_sentence_triples_masked_are_the_subsets_candidates(n: int, seed: int, drop: float) -> None:
    """The sentence's triple scores masked to a subset of its arcs (:func:`triples_over`, what the k-best tree
    bounds read) are the candidate triples of that subset scored through the cache (``_triple_scores``):
    -inf exactly where the subset has no candidate, the scores elsewhere."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n + 1, n + 1))
    parts = [GrandparentParts(DenseTripleScorer(rng.normal(size=(n + 1,) * 3)))]
    shared = _SearchParts(s, parts, False)
    root = allowed_arcs(s)
    subset = root & (rng.random(root.shape) >= drop)
    whole = _triple_scores(parts[0], root, shared)
    np.testing.assert_array_equal(triples_over(whole, subset), _triple_scores(parts[0], subset, shared))
