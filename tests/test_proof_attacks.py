"""Adversarial tests of the proof checker (issue 54: it accepted proofs of trees that are not optimal).

A proof is only as good as the checker's arithmetic: every bound it computes from recorded duals must be an
upper bound on every tree of the node, whatever the duals are, and every row it builds from a recorded label
must hold for every tree. Three kinds of test, each against brute force over every tree of n <= 5 tokens:

1. :class:`~lpparse.proofs.check.ProofProgram` bounds, for every family combination and random node masks,
   from adversarial duals: random, sparse, huge, overflowing, non-finite, garbage labels, the node LP's own
   duals (which must give a bound) and their negation, the duals of another score vector
   (positive part scores clipped to 0: how hole 1 was found), of the program without its parts, of one
   block at ±1000, and of a small LP that spends dual mass on the wrong side of rows (with a huge dual on a
   row that costs nothing, which buys round-off allowance); rays must not prove a node with a tree
   infeasible.
2. The rows of the full program, with random and garbage labels of separated rows (NoCycle token sets,
   triangles, chains, links), hold for every tree (with some flow), and a tree holds at most
   ``max_per_tree`` parts of a family.
3. Forged proof files through the ``lpparse check-proof`` command: each must exit 1 naming the line, never 0
   (a forgery accepted) nor 70 (a crash); the checker runs without highspy.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import json
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy.optimize import linprog

from lpparse.families.base import exact_parts, tree_scores
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import GrandSiblingParts, TriSiblingParts
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer
from lpparse.lp.program import LinearProgram
from lpparse.oracles.brute_force import all_trees
from lpparse.proofs.check import LabelledDuals, ProofProgram, label_duals
from lpparse.trees import allowed_arcs, tree_problem
from lpparse.triples import DensePartScorer, DenseSiblingScorer, DenseTripleScorer

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "head_bigrams" / "head_bigrams.py"
BASES = ("cycle-cuts", "single-flow", "multi-flow")
#: family combinations, by the score cubes each holds ("full": the third-order model)
COMBOS = {
    "gp": ("gp",),
    "sib": ("sib",),
    "gp+sib": ("gp", "sib"),
    "csib": ("csib",),
    "full": ("csib", "tsib", "gsib"),
    "all five": ("csib", "tsib", "gsib", "gp", "sib"),
    "bigram": ("bigram",),
}
#: hypothesis: few examples (each checks hundreds of duals against brute force), no shrinking (a failure
#: names its instance; shrinking one against a checker with holes took minutes), the first failure only
SETTINGS = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "phases": (Phase.explicit, Phase.reuse, Phase.generate),
    "report_multiple_bugs": False,
}
#: how far below the best tree a bound may fall (round-off of a sound computation is the checker's to absorb)
TOL = 1e-9


def _head_bigrams() -> Any:
    """docs/examples/head_bigrams/head_bigrams.py, a family written outside the package, imported by its path."""
    name = "head_bigrams_attacks"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


#: the row families a proof record may name for grandparents and siblings (the checker builds what it names)
GP_ROWS = ("ArcGP", "GPArc", "OneGP", "NoGP")
SIB_ROWS = ("ArcSib", "SibArc", "SibClique", "SibTriangle")


def make_parts(
    cubes: dict[str, NDArray[np.float64]], rows: dict[str, tuple[str, ...]] | None = None
) -> list[Any]:
    """The part families of the score cubes ``cubes``, as exact decoding uses them (with their cuts), the
    grandparent and sibling ones under the row families ``rows`` names ("gp", "sib"; default: the default
    presets)."""
    rows = rows or {}
    out: list[Any] = []
    if "gp" in cubes:
        out.append(GrandparentParts(DenseTripleScorer(cubes["gp"]), rows.get("gp", "all")))
    if "sib" in cubes:
        out.append(SiblingParts(DenseSiblingScorer(cubes["sib"]), rows.get("sib", "martins")))
    if "csib" in cubes:
        out.append(ConsecutiveSiblingParts(DenseConsecutiveScorer(cubes["csib"])))
    if "tsib" in cubes:
        out.append(TriSiblingParts(DenseTriSiblingScorer(cubes["tsib"], slack=0.3)))
    if "gsib" in cubes:
        out.append(GrandSiblingParts(DenseGrandSiblingScorer(cubes["gsib"], slack=0.3)))
    if "bigram" in cubes:
        out.append(_head_bigrams().HeadBigramParts(DensePartScorer(cubes["bigram"])))
    return exact_parts(out)


@dataclass
class Instance:
    """A random sentence: arc scores, part score cubes (a few parts pruned, -inf), the root rule."""

    combo: str
    s: NDArray[np.float64]
    cubes: dict[str, NDArray[np.float64]]
    single_root: bool
    base: str
    rows: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.s.shape[0] - 1

    @cached_property
    def parts(self) -> list[Any]:
        return make_parts(self.cubes, self.rows)

    def clipped_parts(self) -> list[Any]:
        """The families with every positive part score clipped to 0 (another problem's scores)."""
        return make_parts({k: np.minimum(v, 0.0) for k, v in self.cubes.items()}, self.rows)

    def where(self) -> str:
        return f"{self.combo} {self.rows or ''}, {self.base}, single_root={self.single_root}, n={self.n}"

    @cached_property
    def trees(self) -> NDArray[np.int64]:
        return np.asarray(all_trees(self.n, self.single_root))

    @cached_property
    def values(self) -> NDArray[np.float64]:
        """Every tree's score (arcs and parts; -inf over a pruned arc or part)."""
        return tree_scores(self.s, self.parts, self.trees)

    def inside(self, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Which trees lie in ``mask`` with a finite score."""
        m = np.arange(1, self.n + 1)
        return mask[self.trees[:, 1:], m].all(axis=1) & np.isfinite(self.values)

    def best(self, mask: NDArray[np.bool_]) -> float:
        inside = self.inside(mask)
        return float(self.values[inside].max()) if inside.any() else -np.inf


def instance(combo: str, n: int, seed: int, single_root: bool, base: str, prune: bool) -> Instance | None:
    """A random instance of ``combo``, half of them under random grandparent and sibling row families (None
    when its pruning leaves no tree of finite score)."""
    rng = np.random.default_rng(seed)
    size = n + 1
    s = rng.normal(size=(size, size))
    cubes = {}
    for kind in COMBOS[combo]:
        arity = 4 if kind in ("tsib", "gsib") else 3
        cube = rng.normal(scale=rng.choice([0.5, 1.0, 3.0]), size=(size,) * arity)
        if prune:
            cube[rng.random(cube.shape) < 0.05] = -np.inf
        cubes[kind] = cube
    if prune:
        s[rng.random(s.shape) < 0.1] = -np.inf
    rows = {}
    for kind, known in (("gp", GP_ROWS), ("sib", SIB_ROWS)):
        if kind in cubes and rng.random() < 0.5:
            rows[kind] = tuple(f for f in known if rng.random() < 0.5) or known[:1]
    inst = Instance(combo, s, cubes, single_root, base, rows)
    if tree_problem(allowed_arcs(s), single_root) is not None or not np.isfinite(inst.values).any():
        return None
    return inst


def random_masks(inst: Instance, rng: np.random.Generator, count: int) -> Iterator[NDArray[np.bool_]]:
    """The root's mask, then node masks holding a tree of finite score: random arcs dropped, or the heads of
    one modifier cut down to a random subset (as a branching child's)."""
    root = allowed_arcs(inst.s)
    yield root
    made = 0
    for _ in range(40 * count):
        if made >= count:
            return
        mask = root.copy()
        if rng.random() < 0.5:
            mask &= rng.random(mask.shape) >= rng.choice([0.15, 0.3, 0.5])
        else:
            m = int(rng.integers(1, inst.n + 1))
            heads = np.flatnonzero(mask[:, m])
            keep = heads[rng.random(heads.size) < 0.5]
            mask[:, m] = False
            mask[keep, m] = True
        if inst.inside(mask).any():
            made += 1
            yield mask


# ------------------------------------------------------------------------------------------ LP helpers


def node_program(
    inst: Instance,
    mask: NDArray[np.bool_],
    parts: list[Any] | None = None,
    separated: Iterable[LabelledDuals] = (),
) -> ProofProgram:
    """The program of a node (every part over the node's arcs ``mask``), as a search would solve it; its
    duals, by label, are what a proof records."""
    return ProofProgram(
        np.where(mask, inst.s, -np.inf),
        inst.parts if parts is None else parts,
        inst.single_root,
        inst.base,
        list(separated),
    )


def implied_upper(lp: LinearProgram, parts: list[Any]) -> NDArray[np.float64]:
    """Column upper bounds that every tree meets: arcs and parts at most 1, flows at most the capacity."""
    upper = lp.col_upper.copy()
    for name in ("z", *(p.column_block for p in parts)):
        if name in lp.var_blocks:
            cols = lp.cols(name)
            upper[cols] = np.minimum(upper[cols], 1.0)
    if "phi" in lp.var_blocks:
        cols = lp.cols("phi")
        upper[cols] = np.minimum(upper[cols], float(lp.flow_capacity))
    return upper


def node_upper(full: LinearProgram, node: LinearProgram, parts: list[Any]) -> NDArray[np.float64]:
    """:func:`implied_upper` of the full program, 0 on every column the node's program lacks."""
    upper = implied_upper(full, parts)
    for name, block in full.var_blocks.items():
        held = np.zeros(len(block), bool)
        if name in node.var_blocks and len(block):
            held = node.var_blocks[name].find(block.index) >= 0
        upper[block.positions[~held]] = 0.0
    return upper


def lp_duals(
    lp: LinearProgram, cost: NDArray[np.float64] | None = None, upper: NDArray[np.float64] | None = None
) -> tuple[NDArray[np.float64], float] | None:
    """Optimal row duals (maximization: d = c - Aᵀy) and value of max cost·x over ``lp``'s rows and columns
    (``upper``: other column upper bounds), by scipy's HiGHS; None when it is not solved to optimality."""
    A = lp.A.tocsr()
    lo, hi = lp.row_lower, lp.row_upper
    c = -(lp.cost if cost is None else cost)
    eq = lo == hi
    ub = ~eq & np.isfinite(hi)
    lb = ~eq & np.isfinite(lo)
    upper = lp.col_upper if upper is None else upper
    bounds = [(lo_j, None if not np.isfinite(up_j) else up_j) for lo_j, up_j in zip(lp.col_lower, upper)]
    res = linprog(
        c,
        A_ub=sp.vstack([A[ub], -A[lb]]).tocsr() if (ub.any() or lb.any()) else None,
        b_ub=np.concatenate([hi[ub], -lo[lb]]) if (ub.any() or lb.any()) else None,
        A_eq=A[eq] if eq.any() else None,
        b_eq=lo[eq] if eq.any() else None,
        bounds=bounds,
        method="highs",
    )
    if res.status != 0:
        return None
    y = np.zeros(lp.num_rows)
    if eq.any():
        y[eq] = -res.eqlin.marginals
    if ub.any() or lb.any():
        k = int(ub.sum())
        y[ub] -= res.ineqlin.marginals[:k]
        y[lb] += res.ineqlin.marginals[k:]
    return y, -float(res.fun)


def wrong_side_duals(
    lp: LinearProgram, upper: NDArray[np.float64], mass: float, cost: NDArray[np.float64] | None = None
) -> NDArray[np.float64] | None:
    """Duals that minimize Σ_i max(y_i L_i, y_i U_i) + Σ_j max(0, d_j u_j) (d = c - Aᵀy, columns at >= 0 and
    <= ``upper``) when up to ``mass`` per row may sit on an infinite side of a row at no cost: the bound of a
    checker that reads such mass as round-off. A sound checker charges for it."""
    A = lp.A.tocsr()
    rows = lp.num_rows
    lo, hi = lp.row_lower, lp.row_upper
    c = lp.cost if cost is None else cost
    live = np.flatnonzero(upper > 0)
    # variables: a (rows, y⁺), b (rows, y⁻), t (live columns); y = a - b
    objective = np.concatenate(
        [np.where(np.isfinite(hi), hi, 0.0), -np.where(np.isfinite(lo), lo, 0.0), np.ones(live.size)]
    )
    AL = A[:, live].T.tocsr()  # (live, rows)
    u = sp.diags(upper[live])
    # t_j >= u_j (c_j - A_jᵀ(a - b))  <=>  -u_j A_jᵀ a + u_j A_jᵀ b - t_j <= -u_j c_j
    A_ub = sp.hstack([-(u @ AL), u @ AL, -sp.identity(live.size)]).tocsr()
    b_ub = -upper[live] * c[live]
    bounds = (
        [(0, None if np.isfinite(hi[i]) else mass) for i in range(rows)]
        + [(0, None if np.isfinite(lo[i]) else mass) for i in range(rows)]
        + [(0, None)] * live.size
    )
    res = linprog(objective, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        return None
    return res.x[:rows] - res.x[rows : 2 * rows]


def neutral_row(lp: LinearProgram, upper: NDArray[np.float64]) -> tuple[int, float] | None:
    """A row and a sign on which any dual, however large, adds nothing to the bound of a node whose column
    upper bounds are ``upper`` (its side on that sign is 0 and it only lowers reduced costs of live columns),
    or None."""
    A = lp.A.tocsr()
    for i in range(lp.num_rows):
        start, end = A.indptr[i], A.indptr[i + 1]
        cols, vals = A.indices[start:end], A.data[start:end]
        live = upper[cols] > 0
        if lp.row_upper[i] == 0 and (vals[live] > 0).all():
            return i, 1.0
        if lp.row_lower[i] == 0 and (vals[live] < 0).all():
            return i, -1.0
    return None


# --------------------------------------------------------------------------------- 1. bounds from any duals


def garbage_labels(n: int, rng: np.random.Generator) -> LabelledDuals:
    """Labels of separated rows as a forger may write them: NoCycle token sets (genuine ones of two tokens or
    more, and empty, single-token, all-token, non-0/1 and wrong-width rows, some repeated), triangles, chains
    and links with indices in and out of range and of the wrong arity; values random."""
    size = n + 1
    sets = [rng.integers(0, 2, size) for _ in range(4)]
    sets += [
        np.zeros(size, np.int64),
        np.eye(size, dtype=np.int64)[int(rng.integers(size))],
        np.ones(size, np.int64),
    ]
    sets += [sets[0], np.r_[2, np.ones(n, np.int64)], np.r_[-1, np.ones(n, np.int64)]]
    labels: LabelledDuals = {"NoCycle": (np.array(sets, np.int64), rng.normal(scale=5.0, size=len(sets)))}
    for name, width in (
        ("SibTriangle", 5),
        ("GPSibTriangle", 5),
        ("GPSibArc", 3),
        ("GPChain", 4),
        ("GPSibChain", 5),
        ("GSibGP", 3),
    ):
        index = rng.integers(0, size, (16, width))
        if width <= size:  # tuples of distinct tokens: many name a row
            index[6:] = [rng.permutation(size)[:width] for _ in range(10)]
        index[0] = index[1]  # repeated
        index[2, 0] = size + int(rng.integers(0, 3))  # out of range
        index[3, -1] = -1
        labels[name] = (index, rng.normal(scale=5.0, size=len(index)))
    labels["Wrong"] = (rng.integers(0, size, (3, 2)), rng.normal(size=3))
    labels["OneHead"] = (rng.integers(-2, size + 2, (3, 2)), rng.normal(size=3))  # wrong arity
    return labels


def dual_attacks(
    inst: Instance,
    full: ProofProgram,
    mask: NDArray[np.bool_],
    separated: list[LabelledDuals],
    rng: np.random.Generator,
) -> Iterator[tuple[str, LabelledDuals, float | None]]:
    """(what, duals, the node LP's value when the duals are its optimal ones) of every attack on a node."""
    lp = full.lp
    rows = lp.num_rows

    def labelled(y: NDArray[np.float64]) -> LabelledDuals:
        return label_duals(lp, y)

    for scale in (1e-3, 1.0, 1e3):
        yield f"normal {scale:g}", labelled(rng.normal(scale=scale, size=rows)), None
    for _ in range(2):
        y = np.zeros(rows)
        pick = rng.choice(rows, size=min(rows, int(rng.integers(1, 4))), replace=False)
        y[pick] = rng.normal(scale=10.0, size=pick.size)
        yield "sparse", labelled(y), None
    for _ in range(3):
        y = np.zeros(rows)
        pick = rng.choice(rows, size=int(rng.integers(1, rows + 1)), replace=False)
        y[pick] = rng.choice([-1.0, 1.0], pick.size) * 10.0 ** rng.uniform(6, 308, pick.size)
        yield "huge", labelled(y), None
    yield "overflowing", labelled(rng.choice([-1.0, 1.0], rows) * 1.7e308), None
    yield "garbage labels", separated[0], None
    for bad in (np.nan, np.inf, -np.inf):
        y = rng.normal(size=rows)
        y[rng.integers(rows)] = bad
        yield f"non-finite {bad}", labelled(y), None
    node = node_program(inst, mask, separated=separated)
    solved = lp_duals(node.lp)
    if solved is not None:
        y, value = solved
        yield "genuine", label_duals(node.lp, y), value
        yield "negated", label_duals(node.lp, -y), None
        yield "genuine x 1e300", label_duals(node.lp, 1e300 * y), None
    clipped = node_program(inst, mask, inst.clipped_parts(), separated)
    solved = lp_duals(clipped.lp)
    if solved is not None:
        yield "clipped part scores", label_duals(clipped.lp, solved[0]), None
    no_parts = implied_upper(node.lp, inst.parts)
    for part in inst.parts:
        if part.column_block in node.lp.var_blocks:
            no_parts[node.lp.cols(part.column_block)] = 0.0
    solved = lp_duals(node.lp, upper=no_parts)
    if solved is not None:
        yield "parts at 0", label_duals(node.lp, solved[0]), None
    for name, block in lp.con_blocks.items():
        for sign in (-1000.0, 1000.0):
            y = np.zeros(rows)
            y[block.positions] = sign
            yield f"{name} at {sign:g}", labelled(y), None
    upper = node_upper(lp, node.lp, inst.parts)
    free = neutral_row(lp, upper)
    if free is not None:
        y = wrong_side_duals(lp, upper, 1e2)
        if y is not None:
            y[free[0]] += free[1] * 1e13  # buys 1e-9 * 1e13 = 1e4 of round-off allowance, costs nothing
            yield f"wrong side, {lp.row_label(free[0])} at 1e13", labelled(y), None


def check_bound(
    inst: Instance,
    full: ProofProgram,
    duals: LabelledDuals,
    mask: NDArray[np.bool_],
    what: str,
    lp_value: float | None,
) -> None:
    """The bound of ``duals`` over ``mask`` is at least every tree's score there (and each arc's bound at
    least that of every tree using the arc); non-finite duals may be refused (a string or ValueError); the
    node LP's own optimal duals give a bound, at most its value."""
    finite = all(np.isfinite(values).all() for _, values in duals.values())
    best = inst.best(mask)
    where = f"{inst.where()}, {what}"
    try:
        got = full.bound(duals, mask)
    except Exception as err:  # noqa: BLE001 (any exception but a refusal of non-finite duals fails)
        assert isinstance(err, ValueError) and not finite, f"{where}: bound raised {err!r}"
        return
    if isinstance(got, str):
        assert lp_value is None, f"{where}: the node LP's optimal duals give no bound: {got}"
        return
    value, with_arc = got
    assert value >= best - TOL * (1 + abs(best)), f"{where}: bound {value!r} below the best tree {best!r}"
    if lp_value is not None:
        assert value <= lp_value + 1e-6 * (1 + abs(lp_value)), (
            f"{where}: bound {value!r} above the LP {lp_value!r}"
        )
    inside = inst.inside(mask)
    heads, values = inst.trees[inside], inst.values[inside]
    m = np.arange(1, inst.n + 1)
    best_with = np.full(mask.shape, -np.inf)
    np.maximum.at(best_with, (heads[:, 1:], np.broadcast_to(m, heads[:, 1:].shape)), values[:, None])
    h, mm = np.nonzero(np.isfinite(best_with))
    low = best_with[h, mm] - TOL * (1 + np.abs(best_with[h, mm]))
    bad = ~(with_arc[h, mm] >= low)
    assert not bad.any(), (
        f"{where}: arc {h[bad][0]}->{mm[bad][0]} bounded by {with_arc[h, mm][bad][0]!r}, a tree using it "
        f"scores {best_with[h, mm][bad][0]!r}"
    )


def check_rays(
    inst: Instance,
    full: ProofProgram,
    mask: NDArray[np.bool_],
    separated: list[LabelledDuals],
    rng: np.random.Generator,
) -> None:
    """No ray proves infeasible a node that holds a tree: random, huge, NaN, and wrong-side mass (chosen by an
    LP at zero cost) bought by a huge dual on a row that costs nothing."""
    lp = full.lp
    rows = lp.num_rows
    rays = [rng.normal(size=rows), rng.normal(size=rows) * 10.0 ** rng.uniform(6, 308, rows)]
    rays.append(rng.choice([-1.0, 1.0], rows) * 1.7e308)
    nan = rng.normal(size=rows)
    nan[0] = np.nan
    rays.append(nan)
    node = node_program(inst, mask, separated=separated)
    upper = node_upper(lp, node.lp, inst.parts)
    free = neutral_row(lp, upper)
    if free is not None:
        y = wrong_side_duals(lp, upper, 1e2, np.zeros(lp.num_cols))
        if y is not None:
            y[free[0]] += free[1] * 1e13
            rays.append(y)
    for y in rays:
        where = inst.where()
        try:
            proved = full.proves_infeasible(label_duals(lp, y), mask)
        except Exception as err:  # noqa: BLE001 (any exception but a refusal of a non-finite ray fails)
            assert isinstance(err, ValueError) and not np.isfinite(y).all(), f"{where}: raised {err!r}"
            continue
        assert proved is False, (
            f"{where}: a ray proves a node with a tree (score {inst.best(mask)!r}) infeasible"
        )


@pytest.mark.parametrize("combo", list(COMBOS))
@settings(max_examples=6, **SETTINGS)
@given(
    n=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
    single_root=st.booleans(),
    base=st.sampled_from(BASES),
    prune=st.booleans(),
)
def test_no_duals_bound_a_node_below_its_best_tree(
    combo: str, n: int, seed: int, single_root: bool, base: str, prune: bool
) -> None:
    """For random instances and node masks, every attack of :func:`dual_attacks` (random, sparse, huge,
    non-finite, negated and clipped-score duals, one block at ±1000, wrong-side mass bought by a free huge
    dual) gives a bound at least the best tree of the node by brute force, or none; the node LP's own duals
    give one; no ray proves a node with a tree infeasible."""
    inst = instance(combo, n, seed, single_root, base, prune)
    if inst is None:
        return
    rng = np.random.default_rng(seed + 1)
    separated = [garbage_labels(n, rng)]
    full = ProofProgram(inst.s, inst.parts, single_root, base, separated)
    for mask in random_masks(inst, rng, 2):
        for what, duals, lp_value in dual_attacks(inst, full, mask, separated, rng):
            check_bound(inst, full, duals, mask, what, lp_value)
        check_rays(inst, full, mask, separated, rng)


# ------------------------------------------------------------------------- 2. rows valid for every tree


def tree_vector(
    lp: LinearProgram, parts: list[Any], heads: NDArray[np.int64]
) -> tuple[NDArray[np.bool_], NDArray[np.float64]] | None:
    """(the arc and part columns, the tree's 0/1 values on them) in ``lp``; None when an arc or part of the
    tree has no column (which a tree of finite score must have: a pruned part gets none)."""
    known = np.zeros(lp.num_cols, bool)
    x = np.zeros(lp.num_cols)
    arcs = lp.var_blocks["z"]
    known[arcs.positions] = True
    m = np.arange(1, heads.size)
    cols = arcs.find(np.column_stack([heads[1:], m]))
    if (cols < 0).any():
        return None
    x[cols] = 1.0
    for part in parts:
        block = lp.var_blocks.get(part.column_block)
        if block is None:
            continue
        known[block.positions] = True
        idx = part.tree_parts(heads)
        if idx[0].size:
            found = block.find(np.column_stack(idx))
            if (found < 0).any():
                return None
            x[found] = 1.0
    return known, x


def violated_row(
    lp: LinearProgram, parts: list[Any], heads: NDArray[np.int64], tol: float = 1e-9
) -> str | None:
    """The label of a row of ``lp`` that the tree ``heads`` violates whatever its other columns (flows) are,
    within their bounds (flows at most the capacity), or None: checked directly, or by a feasibility LP over
    the other columns."""
    got = tree_vector(lp, parts, heads)
    if got is None:
        return "no column for one of its arcs or parts"
    known, x = got
    A = lp.A.tocsr()
    act = A[:, known] @ x[known]
    lo, hi = lp.row_lower - act, lp.row_upper - act
    rest = np.flatnonzero(~known)
    uses_rest = np.zeros(lp.num_rows, bool)
    if rest.size:
        uses_rest[np.unique(A[:, rest].tocoo().row)] = True
    bad = ~uses_rest & ((lo > tol) | (hi < -tol))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        return f"{lp.row_label(i)}: {act[i]!r} not in [{lp.row_lower[i]!r}, {lp.row_upper[i]!r}]"
    if not uses_rest.any():
        return None
    sub = A[uses_rest][:, rest].tocsr()
    lo, hi = lo[uses_rest], hi[uses_rest]
    eq = lo == hi
    ub, lb = ~eq & np.isfinite(hi), ~eq & np.isfinite(lo)
    upper = implied_upper(lp, parts)[rest]
    res = linprog(
        np.zeros(rest.size),
        A_ub=sp.vstack([sub[ub], -sub[lb]]).tocsr(),
        b_ub=np.concatenate([hi[ub], -lo[lb]]),
        A_eq=sub[eq] if eq.any() else None,
        b_eq=lo[eq] if eq.any() else None,
        bounds=list(zip(lp.col_lower[rest], upper)),
        method="highs",
    )
    if res.status == 0:
        return None
    blocks = sorted({lp.row_label(int(i))[0] for i in np.flatnonzero(uses_rest)})
    return f"no flow completes it among the rows {blocks}"


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("combo", list(COMBOS))
@settings(max_examples=3, **SETTINGS)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), single_root=st.booleans(), prune=st.booleans())
def test_every_row_of_the_full_program_holds_for_every_tree(
    combo: str, base: str, n: int, seed: int, single_root: bool, prune: bool
) -> None:
    """The full program built from random and garbage labels of separated rows (:func:`garbage_labels`:
    empty and single-token NoCycle sets, all-zero and non-0/1 rows, out-of-range indices, wrong arity,
    repeats) has no row that a tree of finite score violates for every flow (the empty set's 0 <= -1 of hole
    2 is one); every tree holds at most ``max_per_tree`` parts of each family."""
    inst = instance(combo, n, seed, single_root, base, prune)
    if inst is None:
        return
    rng = np.random.default_rng(seed + 2)
    labels = [garbage_labels(n, rng), garbage_labels(n, rng)]
    full = ProofProgram(inst.s, inst.parts, single_root, base, labels)
    finite = np.flatnonzero(np.isfinite(inst.values))
    sample = finite if finite.size <= 40 else rng.choice(finite, 40, replace=False)
    for t in sample:
        heads = inst.trees[t]
        problem = violated_row(full.lp, inst.parts, heads)
        assert problem is None, f"{inst.where()}: tree {heads.tolist()} violates {problem}"
    for part in inst.parts:
        counts = np.array([part.tree_parts(heads)[0].size for heads in inst.trees])
        assert counts.max() <= part.max_per_tree(n), f"{part.name}: a tree holds {counts.max()} parts"


@pytest.mark.parametrize("base", ["cycle-cuts", "single-flow"])
def test_the_row_check_sees_a_cycle(base: str) -> None:
    """:func:`violated_row` is no rubber stamp: a cycle violates a NoCycle row or leaves no flow."""
    s = np.zeros((4, 4))
    full = ProofProgram(s, [], False, base, [{"NoCycle": (np.array([[0, 1, 1, 0]]), np.ones(1))}])
    assert violated_row(full.lp, [], np.array([-1, 2, 1, 0])) is not None
    assert violated_row(full.lp, [], np.array([-1, 0, 1, 2])) is None


# ------------------------------------------------------------------------------ 3. forged proof files


#: The forged sentence (the second of the proof file): n = 4, the multi-root optimum 0 -> 1 -> 2, 0 -> 3 -> 4
#: (arcs 1 + 3 + 1 + 3, other root arcs 0.5, other arcs -1, triples N(0, 0.3)); the flat tree (every token on
#: the root) scores 3 and the best single-root tree less than the optimum
FORGED_N = 4


def _forged_scores() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    rng = np.random.default_rng(54)
    s = np.full((FORGED_N + 1,) * 2, -1.0)
    s[0, 1:] = 0.5
    s[0, 1] = s[0, 3] = 1.0
    s[1, 2] = s[3, 4] = 3.0
    return s, rng.normal(scale=0.3, size=(FORGED_N + 1,) * 3)


def _score(s: NDArray[np.float64], gp: NDArray[np.float64], heads: list[int]) -> float:
    from lpparse.families.base import tree_score

    return tree_score(s, [GrandparentParts(DenseTripleScorer(gp))], np.asarray(heads))


FLAT = [-1] + [0] * FORGED_N


def _claim_flat(record: dict[str, Any]) -> None:
    """The record claims the flat tree, with its score as objective and bound (as a forger would write)."""
    flat = _score(*_forged_scores(), FLAT)
    record.update(heads=FLAT, objective=flat, bound=flat)


@dataclass
class ProofFiles:
    """A score file (grandparent parts) and treebank of two sentences (s0 random, s1 :func:`_forged_scores`),
    the trees and proofs that ``parse --decoder exact --multi-root`` wrote, and their records."""

    dir: Path
    scores: Path
    treebank: Path
    trees: Path
    proofs: Path
    records: list[dict[str, Any]]

    def check(self, proofs: Path, *extra: str | Path, root: str = "--multi-root") -> tuple[int, str]:
        """``lpparse check-proof PROOFS`` on the same problem (in this process, through the command's entry
        point: the same argument parsing and exit statuses as the console script); (exit status, output)."""
        return cli(
            "check-proof",
            proofs,
            "--scores",
            self.scores,
            "--treebank",
            self.treebank,
            root,
            "--no-progress",
            *extra,
        )

    def write(self, name: str, records: list[Any] | None = None, text: str | bytes | None = None) -> Path:
        path = self.dir / name
        if text is None:
            text = "".join(json.dumps(r) + "\n" for r in records or [])
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def forged(self, change: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
        """The records with the second (sentence s1) changed by ``change``."""
        records = copy.deepcopy(self.records)
        change(records[1])
        return records


def cli(*args: str | Path) -> tuple[int, str]:
    """``lpparse ARGS`` through :func:`lpparse.cli.main` in this process: (exit status, stdout + stderr)."""
    from lpparse.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 2
    return code, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> ProofFiles:
    from test_cli_errors import conll

    from lpparse.scores import SentenceScores, save_scores

    tmp = tmp_path_factory.mktemp("attacks")
    rng = np.random.default_rng(7)
    s, gp = _forged_scores()
    entries = [
        SentenceScores("s0", rng.normal(size=(4, 4)), rng.normal(size=(4,) * 3)),
        SentenceScores("s1", s, gp),
    ]
    scores = tmp / "scores.npz"
    save_scores(scores, entries)
    treebank = conll(tmp / "tb.conllu", [3, FORGED_N])
    trees, proofs = tmp / "out.conllu", tmp / "proofs.jsonl"
    code, output = cli(
        "parse",
        "--scores",
        scores,
        "--treebank",
        treebank,
        "--multi-root",
        "--no-progress",
        "--decoder",
        "exact",
        "--proof",
        proofs,
        "--out",
        trees,
    )
    assert code == 0, output
    records = [json.loads(line) for line in proofs.read_text().splitlines()]
    assert [r["sent_id"] for r in records] == ["s0", "s1"]
    assert records[1]["heads"] == [-1, 0, 1, 0, 3]  # the optimum: the flat tree is not
    return ProofFiles(tmp, scores, treebank, trees, proofs, records)


def fails_at(done: tuple[int, str], line: int | str, path: Path) -> None:
    """Exit 1 (a forgery rejected: not 0, accepted; not 70, a crash) naming ``path``'s ``line``."""
    code, output = done
    assert code == 1, f"exit {code}:\n{output}"
    assert f"{path.name}:{line}" in output, output
    assert "Traceback" not in output, output


def test_genuine_proofs_check(files: ProofFiles) -> None:
    """The proofs parse wrote hold (so that a forgery's exit 1 is the forgery's), with --trees too, and a
    record's objective, bound, status, gap_tol, single_root and kept_arcs are no part of the proof: lies there
    change nothing."""
    assert files.check(files.proofs)[0] == 0, files.check(files.proofs)[1]
    assert files.check(files.proofs, "--trees", files.trees)[0] == 0
    claims = {"objective": 123.0, "bound": -5.0, "status": "time_limit", "gap_tol": 0.0, "single_root": True}
    lies = files.forged(lambda r: r.update(claims, kept_arcs=[[0, 1]]))
    done = files.check(files.write("lies.jsonl", lies))
    assert done[0] == 0, done[1]


def _onegp_duals(record: dict[str, Any]) -> None:
    """Hole 1: the flat tree "proved" by OneGP duals of -1000 (which kill every word-to-word arc and make
    every triple's reduced cost 1000 + its score, which a checker that bounds triple columns by 0 ignores)."""
    labels = [[p, c] for p in range(1, FORGED_N + 1) for c in range(1, FORGED_N + 1) if p != c]
    root = dict(
        record["nodes"][0], parent=-1, modifier=None, kept=None, closed="integral", fixed=[], ray=None
    )
    root["duals"] = {"OneGP": {"index": labels, "values": [-1000.0] * len(labels)}}
    _claim_flat(record)
    record.update(nodes=[root])


def _empty_cycle(record: dict[str, Any]) -> None:
    """Hole 2: the flat tree "proved" on the cycle-cut base by a big dual on the NoCycle row of the empty
    token set, 0 <= -1."""
    root = dict(record["nodes"][0], parent=-1, modifier=None, kept=None, closed="bound", fixed=[], ray=None)
    root["duals"] = {"NoCycle": {"index": [[0] * (FORGED_N + 1)], "values": [1e6]}}
    _claim_flat(record)
    record.update(base="cycle-cuts", nodes=[root])


def _branched(duals: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """Hole 3: the flat tree "proved" by a root branched on token 1's heads whose two children are closed
    unsolved, by the root's bound from ``duals`` (NaN, inf or overflowing: a comparison with NaN is False)."""

    def change(record: dict[str, Any]) -> None:
        heads = [h for h in range(FORGED_N + 1) if h != 1]
        root = {"parent": -1, "modifier": None, "kept": None, "closed": "branched", "fixed": [], "ray": None}
        child = {"parent": 0, "modifier": 1, "closed": "bound", "fixed": [], "duals": None, "ray": None}
        nodes = [{**root, "duals": duals}, {**child, "kept": heads[:2]}, {**child, "kept": heads[2:]}]
        _claim_flat(record)
        record.update(nodes=[dict(node, id=i) for i, node in enumerate(nodes)])

    return change


def _wrong_side(record: dict[str, Any]) -> None:
    """A hole beyond issue 54's seven: the flat tree "proved" on the cycle-cut base by duals of 1e2 per row on
    the infinite side of rows (chosen by an LP to push the bound down) that a checker reading mass within 1e-9
    of the largest dual as round-off drops, with a dual of 1e13 on the row of a one-token set, 0 <= 0, which
    costs nothing and makes the largest dual 1e13."""
    s, gp = _forged_scores()
    parts = make_parts({"gp": gp})
    full = ProofProgram(s, parts, False, "cycle-cuts")
    y = wrong_side_duals(full.lp, implied_upper(full.lp, parts), 1e2)
    assert y is not None
    duals = {
        name: {"index": index.tolist(), "values": values.tolist()}
        for name, (index, values) in label_duals(full.lp, y).items()
    }
    duals["NoCycle"] = {"index": [[0, 1] + [0] * (FORGED_N - 1)], "values": [1e13]}
    root = {"id": 0, "parent": -1, "modifier": None, "kept": None, "closed": "bound", "fixed": []}
    root.update(duals=duals, ray=None)
    _claim_flat(record)
    record.update(base="cycle-cuts", nodes=[root])


def _empty_rows(record: dict[str, Any]) -> None:
    """Every node's duals (the blocks kept) with empty label and value lists."""
    for node in record["nodes"]:
        if node["duals"]:
            node["duals"] = {name: {"index": [], "values": []} for name in node["duals"]}


ONEHEAD = [[m] for m in range(1, FORGED_N + 1)]
FORGERIES = {
    "OneGP duals of -1000": _onegp_duals,
    "empty NoCycle set": _empty_cycle,
    "wrong-side duals bought by a huge free dual": _wrong_side,
    "NaN duals": _branched({"OneHead": {"index": ONEHEAD, "values": [float("nan")] * FORGED_N}}),
    "inf duals": _branched({"OneHead": {"index": ONEHEAD, "values": [float("inf")] * FORGED_N}}),
    "-inf duals": _branched({"OneHead": {"index": ONEHEAD, "values": [-float("inf")] * FORGED_N}}),
    "1e308 duals": _branched(
        {
            "OneHead": {"index": ONEHEAD, "values": [1e308, -1e308] * (FORGED_N // 2)},
            "NoCycle": {"index": [[1] * (FORGED_N + 1)], "values": [1e308]},
        }
    ),
    "heads too short": lambda r: r.update(heads=r["heads"][:-1]),
    "heads too long": lambda r: r.update(heads=r["heads"] + [0]),
    "heads not a tree": lambda r: r.update(heads=[-1, 2, 1, 0, 0]),
    "heads not numbers": lambda r: r.update(heads="0 1 0 3"),
    "no heads": lambda r: r.pop("heads"),
    "no nodes": lambda r: r.update(nodes=[]),
    "nodes not a list": lambda r: r.update(nodes="root"),
    "empty row lists": lambda r: _empty_rows(r),
    "values longer than the labels": lambda r: r["nodes"][0].update(
        duals={"OneHead": {"index": [[1]], "values": [1.0, 2.0, 3.0]}}
    ),
    "labels of the wrong arity": lambda r: r["nodes"][0].update(
        duals={"OneHead": {"index": [[1, 2]], "values": [1.0]}}
    ),
    "values not numbers": lambda r: r["nodes"][0].update(
        duals={"OneHead": {"index": [[1]], "values": ["x"]}}
    ),
    "unknown base": lambda r: r.update(base="no-such-base"),
    "unknown family": lambda r: r.update(families={"grandparent": ["ArcGP"], "fourth-order": []}),
    "unknown row family": lambda r: r.update(families={"grandparent": ["NoSuchRows"]}),
    "kept index out of range": lambda r: _branched({})(r) or r["nodes"][1].update(kept=[99]),
    "modifier out of range": lambda r: _branched({})(r) or [n.update(modifier=99) for n in r["nodes"][1:]],
    "a node's parent after it": lambda r: _branched({})(r) or r["nodes"][1].update(parent=2),
    "a node's own parent": lambda r: _branched({})(r) or r["nodes"][1].update(parent=1),
    "fixed arc out of range": lambda r: r["nodes"][0].update(closed="branched", fixed=[[99, 99]]),
    "closed unknown": lambda r: r["nodes"][0].update(closed=5),
    "proof_version": lambda r: r.update(proof_version=99),
}


@pytest.mark.parametrize("what", list(FORGERIES))
def test_a_forged_record_fails_naming_its_line(files: ProofFiles, what: str) -> None:
    """Each forgery of :data:`FORGERIES` (holes 1-3, 5-6: bounds that are not bounds, trees of the wrong
    length, malformed records), written on the second line: exit 1 naming that line."""
    path = files.write(f"forged-{what.replace(' ', '-')}.jsonl", files.forged(FORGERIES[what]))
    fails_at(files.check(path), 2, path)


def test_a_records_gap_tolerance_is_not_the_checkers(files: ProofFiles) -> None:
    """Hole 4: the flat tree under the optimum's genuine proof, with gap_tol 1e9 in the record (and an
    objective and bound to match) fails: the tolerance is the command line's."""
    path = files.write("gap.jsonl", files.forged(lambda r: _claim_flat(r) or r.update(gap_tol=1e9)))
    fails_at(files.check(path), 2, path)


def _search_record(
    s: NDArray[np.float64], gp: NDArray[np.float64], single_root: bool, kept=None
) -> dict[str, Any]:
    """A genuine proof record of an exact search over the arcs ``kept`` (all: None) of sentence s1."""
    from lpparse.exact.search import exact_search
    from lpparse.proofs.record import proof_record

    parts = [GrandparentParts(DenseTripleScorer(gp))]
    arcs = s if kept is None else np.where(kept, s, -np.inf)
    result = exact_search(arcs, parts, single_root)
    return {"sent_id": "s1", **json.loads(json.dumps(proof_record(result, parts, kept)))}


def test_a_records_pruning_is_not_the_checkers(files: ProofFiles) -> None:
    """Hole 4: a genuine proof of the best tree over arcs that leave out the optimum's arc 1 -> 2, its
    kept_arcs in the record, fails when check-proof is told of no pruning."""
    s, gp = _forged_scores()
    kept = allowed_arcs(s)
    kept[1, 2] = False
    record = _search_record(s, gp, False, kept)
    assert record["heads"] != files.records[1]["heads"] and record["kept_arcs"] is not None
    path = files.write("kept.jsonl", [files.records[0], record])
    fails_at(files.check(path), 2, path)


def test_a_records_root_rule_is_not_the_checkers(files: ProofFiles) -> None:
    """Hole 4: a genuine single-root proof (single_root true in the record) of a tree that the multi-root
    optimum beats fails under --multi-root, holds under --single-root."""
    s, gp = _forged_scores()
    record = _search_record(s, gp, True)
    assert record["single_root"] is True and record["heads"] != files.records[1]["heads"]
    path = files.write("single.jsonl", [files.records[0], record])
    fails_at(files.check(path), 2, path)
    alone = files.write("single-alone.jsonl", [record])
    done = files.check(alone, root="--single-root")
    assert done[0] == 0, done[1]


@pytest.mark.parametrize("what", ["missing", "duplicated", "another tree in the output"])
def test_proofs_and_the_parse_output_match_one_to_one(files: ProofFiles, what: str) -> None:
    """Hole 5, with --trees: a sentence of the parse output without a proof (s1), a proof written twice (on
    line 3), or a tree there (s0's) that its proof is not about: exit 1 naming it."""
    trees = files.trees
    if what == "missing":
        path, named = files.write("missing.jsonl", files.records[:1]), "s1"
    elif what == "duplicated":
        path = files.write("duplicated.jsonl", files.records + files.records[1:])
        named = f"{path.name}:3"
    else:
        named = "s0"
        path = files.proofs
        text = files.trees.read_text().splitlines(keepends=True)
        first = next(i for i, line in enumerate(text) if line.startswith("2\t"))  # token 2 of s0 (n = 3)
        cols = text[first].split("\t")
        cols[6] = "0" if cols[6] != "0" else "1"
        text[first] = "\t".join(cols)
        trees = files.write("other.conllu", text="".join(text))
    code, output = files.check(path, "--trees", trees)
    assert code == 1, f"exit {code}:\n{output}"
    assert named in output and "Traceback" not in output, output


@pytest.mark.parametrize(
    "content",
    [
        b"\x89PNG\r\n\x1a\n\xff\xfe\x00garbage",
        b"{not json\n",
        b'["a list"]\n',
        b"null\n",
        b'{"sent_id": "s0"}\n',
    ],
    ids=["binary", "not JSON", "a list", "null", "no nodes"],
)
def test_a_malformed_file_fails_naming_its_line(files: ProofFiles, content: bytes) -> None:
    """Hole 6: a proof file of binary garbage, a line that is not JSON or not a record: exit 1 naming line
    1."""
    path = files.write("malformed.jsonl", text=content)
    fails_at(files.check(path), 1, path)


def _console(*args: str | Path, block_highspy: bool = False) -> subprocess.CompletedProcess[str]:
    """``lpparse ARGS`` as the console script runs it, in a subprocess (with highspy unimportable)."""
    code = "import sys\n"
    if block_highspy:
        code += "sys.modules['highspy'] = None\n"
    code += "from lpparse.entry import main\nsys.exit(main(sys.argv[1:]))\n"
    argv = [sys.executable, "-c", code, *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)


def test_the_console_script_without_highspy(files: ProofFiles) -> None:
    """Hole 7: ``lpparse check-proof`` runs where highspy cannot be imported: the genuine proofs hold (exit
    0), a forged one fails (exit 1) and a binary file is bad data (exit 1, not 70), as in this process."""
    check = ["--scores", files.scores, "--treebank", files.treebank, "--multi-root", "--no-progress"]
    done = _console("check-proof", files.proofs, *check, block_highspy=True)
    assert done.returncode == 0, done.stdout + done.stderr
    forged = files.write("console-onegp.jsonl", files.forged(_onegp_duals))
    done = _console("check-proof", forged, *check, block_highspy=True)
    assert done.returncode == 1 and f"{forged.name}:2" in done.stdout + done.stderr, done.stdout + done.stderr
    binary = files.write("console-binary.jsonl", text=b"\xff\xfe\x00\x01")
    done = _console("check-proof", binary, *check)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
