"""``lpparse.inspect`` and ``lpparse inspect`` (issue 55): on random instances of every family combination, the
MIP's optimum (highspy and Pyomo) equals brute force and the proved tree, every reported cut is valid (no tree
violates it, by enumeration) and violated by the point it was made for, the bounds come in the order their rows
imply; the command on the shipped sample treebank with a small trained model."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.corpus import sample_treebank_path
from lpparse.families.base import Parts, tree_scores
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import window_parts
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer
from lpparse.family_kit import random_arc_scores
from lpparse.inspect.cuts import pool_cut, row_text
from lpparse.inspect.mip import MipOptions
from lpparse.inspect.relaxations import order_claims, parse_relaxation
from lpparse.inspect.report import Inspection
from lpparse.inspect.sentence import inspect_sentence
from lpparse.oracles.brute_force import all_trees
from lpparse.ppc import solve_lp
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer

SAMPLE = sample_treebank_path()
#: part families of the random instances: grandparents, siblings, windows alone, each third-order family, all
COMBOS = ("gp", "sib", "gp+sib", "csib", "trisib", "grandsib", "full")
TOL = 1e-5


def families(combo: str, n: int, rng: np.random.Generator) -> list[Parts]:
    """Random dense scorers (a few parts pruned: -inf) of the families of ``combo``."""
    size = n + 1

    def cube(dims: int, scale: float = 1.0) -> np.ndarray:
        out = rng.normal(scale=scale, size=(size,) * dims)
        out[rng.random(out.shape) < 0.05] = -np.inf
        return out

    out: list[Parts] = []
    if combo in ("gp", "gp+sib", "full"):
        out.append(GrandparentParts(DenseTripleScorer(cube(3))))
    if combo in ("sib", "gp+sib", "full"):
        out.append(SiblingParts(DenseSiblingScorer(cube(3, 0.5))))
    if combo in ("csib", "trisib", "grandsib", "full"):
        tri = DenseTriSiblingScorer(cube(4), slack=0.3) if combo in ("trisib", "full") else None
        grand = DenseGrandSiblingScorer(cube(4), slack=0.3) if combo in ("grandsib", "full") else None
        out += window_parts(n, DenseConsecutiveScorer(cube(3)), tri, grand)
    return out


def tree_columns(parts: Sequence[Parts], trees: np.ndarray) -> list[set[tuple[str, tuple[int, ...]]]]:
    """Each tree's columns at 1, as (block, index) pairs: its arcs and every family's parts."""
    out = []
    for heads in trees:
        on = {("z", (int(h), m)) for m, h in enumerate(heads.tolist()) if m > 0}
        for p in parts:
            on |= {(p.column_block, tuple(map(int, i))) for i in zip(*p.tree_parts(heads))}
        out.append(on)
    return out


def point_values(record: dict[str, Any], parts: Sequence[Parts]) -> dict[tuple[str, tuple[int, ...]], float]:
    """A relaxation's LP point from its JSON record, by (block, index)."""
    block = {p.name: p.column_block for p in parts}
    values = {("z", (h, m)): v for h, m, v in record["arcs"]}
    for family, rows in record["parts"].items():
        values.update({(block[family], tuple(r[:-1])): r[-1] for r in rows})
    return values


def check(inspection: Inspection, s: np.ndarray, parts: list[Parts], single_root: bool) -> None:
    """The must-show of issue 55 on one instance, against brute force over every tree."""
    record = json.loads(inspection.to_json())
    n = s.shape[0] - 1
    trees = all_trees(n, single_root)
    scores = tree_scores(s, parts, trees)
    trees = trees[np.isfinite(scores)]  # a tree with a pruned arc or part is no solution: rows may exclude it
    best = float(scores.max())
    assert inspection.ok, (inspection.disagreements, inspection.order_checks)
    tree = record["best_tree"]
    assert tree["certified"] and abs(tree["score"] - best) <= TOL * (1 + abs(best))
    columns = None
    for r in record["relaxations"]:
        assert r["bound"] >= best - TOL * (1 + abs(best)), r["name"]
        for run in (r["mip"], r["pyomo_mip"]):
            if run is not None and run["status"] != "skipped":
                assert run["status"] == "optimal" and run["agrees"], (r["name"], run)
                assert abs(run["objective"] - best) <= TOL * (1 + abs(best))
        if r["integral"]:
            assert r["cut"] is None and abs(r["bound"] - best) <= TOL * (1 + abs(best))
            continue
        cut = r["cut"]
        if r["gap"] > TOL * (1 + abs(best)):
            assert cut is not None, f"{r['name']}: no cut for a fractional point above the best tree"
        if cut is None:
            continue
        lower = -np.inf if cut["lower"] is None else cut["lower"]
        upper = np.inf if cut["upper"] is None else cut["upper"]
        assert cut["bound_after"] is None or cut["bound_after"] <= r["bound"] + TOL * (1 + abs(r["bound"]))
        if cut["source"] == "objective":  # c·x <= OPT: valid as the tree is optimal, violated above it
            assert abs(upper - best) <= TOL * (1 + abs(best)) and cut["violation"] > 0
            continue
        terms = [(b, tuple(i), c) for b, i, c in cut["terms"]]
        assert row_text(cut["terms"], lower, upper) == cut["text"]
        if any(b == "phi" for b, *_ in terms):
            continue  # a HiGHS cut over flows: a tree does not fix them
        values = point_values(r, parts)
        at = sum(c * values.get((b, i), 0.0) for b, i, c in terms)
        excess = max(at - upper, lower - at)
        assert excess > 1e-7 and abs(excess - cut["violation"]) <= 1e-6, (cut, at)
        columns = columns if columns is not None else tree_columns(parts, trees)
        for on in columns:
            activity = sum(c for b, i, c in terms if (b, i) in on)
            assert lower - 1e-7 <= activity <= upper + 1e-7, (cut["text"], on)


@st.composite
def instances(draw: st.DrawFn, combo: str, max_n: int) -> tuple[np.ndarray, list[Parts], bool]:
    n = draw(st.integers(2, max_n))
    single_root = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    while True:  # some tree holds no pruned part
        s, parts = random_arc_scores(n, rng, 0.1, single_root), families(combo, n, rng)
        if np.isfinite(tree_scores(s, parts, all_trees(n, single_root))).any():
            return s, parts, single_root


#: the largest n per combination (the MIPs and brute force stay fast)
MAX_N = {"gp": 5, "sib": 5, "gp+sib": 5, "csib": 4, "trisib": 4, "grandsib": 4, "full": 4}


@pytest.mark.parametrize("combo", COMBOS)
def test_random_instances_against_brute_force(combo: str) -> None:
    @settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
    @given(instances(combo, MAX_N[combo]))
    def run(instance: tuple[np.ndarray, list[Parts], bool]) -> None:
        s, parts, single_root = instance
        names = None
        if combo == "gp+sib":  # every base, so that multi-flow <= single-flow and == cycle-cuts are checked
            names = ["grandparent:all", "grandparent:martins", "base:multi-flow", "base:cycle-cuts", "cuts"]
        inspection = inspect_sentence(
            s, parts, names, single_root, MipOptions(time_limit=60, root_time_limit=5)
        )
        check(inspection, s, parts, single_root)

    run()


def test_a_fractional_instance_in_detail() -> None:
    """Seeded n = 6 grandparent instance whose ``martins`` LP is fractional: its cut is one of lpparse's rows,
    the tighter presets' bounds are below, both MIPs and every relaxation's program agree."""
    rng = np.random.default_rng(3)
    s = random_arc_scores(6, rng, 0.0)
    parts: list[Parts] = [GrandparentParts(DenseTripleScorer(rng.normal(size=(7, 7, 7))))]
    names = ["grandparent:martins", "grandparent:all", "grandparent:onegp"]
    inspection = inspect_sentence(s, parts, names, mip=MipOptions(time_limit=60, pyomo_every=True))
    check(inspection, s, parts, False)
    martins = inspection.relaxations[0]
    assert not martins.integral and martins.cut is not None and martins.cut.source == "lpparse"
    claims = {c.claim for c in inspection.order_checks}
    assert {"grandparent:all <= grandparent:martins", "grandparent:all <= grandparent:onegp"} <= claims
    assert all(r.pyomo_mip is not None and r.pyomo_mip.agrees for r in inspection.relaxations)


def test_highs_root_cuts_are_valid() -> None:
    """HiGHS's root cuts (:func:`lpparse.inspect.cuts.pool_cut`) at the fractional ``martins`` and ``onegp``
    points of a seeded grandparent + sibling instance: violated by the point and kept by every tree
    (enumeration); the pool's row that only trees better than HiGHS's incumbent keep is refused."""
    rng = np.random.default_rng(0)
    s, parts = random_arc_scores(5, rng, 0.0), families("gp+sib", 5, np.random.default_rng(0))
    trees = all_trees(5)
    columns = tree_columns(parts, trees[np.isfinite(tree_scores(s, parts, trees))])
    refused = 0
    for name in ("grandparent:martins", "grandparent:onegp"):
        relaxation = parse_relaxation(name)
        family_parts = relaxation.parts(parts)
        result = solve_lp(s, family_parts, "bf", False, relaxation.base)
        x = result.solution.x
        assert not result.integral and x is not None
        cut = pool_cut(result.program, x, 10.0, family_parts, False)
        assert cut is not None and cut.source == "mip-root" and cut.violation > 1e-6
        assert all(block != "phi" for block, *_ in cut.terms)
        for on in columns:
            activity = sum(c for b, i, c in cut.terms if (b, tuple(i)) in on)
            assert cut.lower - 1e-7 <= activity <= cut.upper + 1e-7, cut.text
        refused += cut.found.get("HiGHSCut (not valid for every tree)", 0)
    assert refused


def test_relaxation_names_and_claims() -> None:
    assert parse_relaxation("cuts+base:multi-flow+grandparent:martins").name == (
        "grandparent:martins+base:multi-flow+cuts"
    )
    for bad in ("grandparent:tight", "base:flow", "siblings:all", ""):
        with pytest.raises(ValueError):
            parse_relaxation(bad)
    parts: list[Parts] = [GrandparentParts(DenseTripleScorer(np.zeros((4, 4, 4))))]
    with pytest.raises(ValueError, match="no sibling parts"):
        parse_relaxation("sibling:all").parts(parts)
    names = ["grandparent:all", "grandparent:martins", "grandparent:onegp", "base:multi-flow", "cuts"]
    claims = order_claims([parse_relaxation(r) for r in names], parts)
    assert ("grandparent:all", "<=", "grandparent:martins") in claims
    assert ("grandparent:all", "<=", "grandparent:onegp") in claims
    assert ("base:multi-flow", "<=", "grandparent:all") in claims
    assert ("cuts", "<=", "grandparent:all") in claims
    assert not {
        ("grandparent:martins", "<=", "grandparent:onegp"),
        ("grandparent:onegp", "<=", "grandparent:martins"),
    } & set(claims)


def lpparse(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lpparse", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def gp_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small grandparent model trained on the sample treebank (as tests/test_cli_errors.py trains one)."""
    out = tmp_path_factory.mktemp("models") / "gp.npz"
    train = ["train", "--treebank", SAMPLE, "--order", "2", "--epochs", "1", "--bits", "14"]
    done = lpparse(*train, "--trainer", "perceptron", "--limit", "20", "--out", out, "--no-progress")
    assert done.returncode == 0, done.stderr
    return out


def test_command_on_the_sample(tmp_path: Path, gp_model: Path) -> None:
    out, lps, pages = tmp_path / "inspect.jsonl", tmp_path / "lps", tmp_path / "pages"
    relaxations = ["--relaxations", "grandparent:all", "grandparent:onegp"]
    done = lpparse(
        "inspect",
        "--model",
        gp_model,
        "--treebank",
        SAMPLE,
        "--sentence",
        "sample-10",
        "--sentence",
        "4",
        *relaxations,
        "--json",
        out,
        "--write-lp",
        lps,
        "--html",
        pages,
        "--mip-time-limit",
        "30",
        "--no-progress",
    )
    assert done.returncode == 0, done.stderr
    assert "sentence sample-10 (7 tokens)" in done.stdout and "grandparent:onegp" in done.stdout
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["sent_id"] for r in records] == ["sample-10", "sample-04"]
    for r in records:
        assert r["n"] == len(r["tokens"]) and len(r["best_tree"]["heads"]) == r["n"] + 1
        assert r["best_tree"]["certified"] and not r["disagreements"]
        assert [x["name"] for x in r["relaxations"]] == ["grandparent:all", "grandparent:onegp"]
        for x in r["relaxations"]:
            assert x["mip"]["agrees"] and {"binding", "fractional_arcs", "cut", "pyomo_mip"} <= set(x)
    files = sorted(p.name for p in lps.iterdir())
    assert "sample-10.grandparent_onegp.mps" in files and len(files) == 8
    assert (pages / "index.html").exists()


def test_command_errors(tmp_path: Path, gp_model: Path) -> None:
    base = ["inspect", "--model", gp_model, "--treebank", SAMPLE]
    done = lpparse(*base, "--sentence", "1", "--relaxations", "grandparent:tight")
    assert done.returncode == 2 and "--relaxations" in done.stderr and "Traceback" not in done.stderr
    done = lpparse(*base, "--sentence", "nope")
    assert done.returncode == 1 and "no sentence 'nope'" in done.stderr and "Traceback" not in done.stderr
    done = lpparse(*base, "--sentence", "1", "--relaxations", "sibling:all")
    assert done.returncode == 2 and "no sibling parts" in done.stderr and "Traceback" not in done.stderr
