"""Exact second-order decoding with a proof: branch, price and cut over the grandparent LP.

Parse-price-cut (Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column and Row Generation for
Graph Based Parsers", EMNLP-CoNLL 2012, §4) solves the grandparent LP; when its optimum is fractional,
:func:`parse_exact` closes the gap by best-bound branch and bound on arcs, with parse-price-cut at every
node:

* **Nodes are arc sets.** A node keeps a subset of the candidate arcs; its trees are the trees over that
  subset. Branching on an arc h→m makes two children: one keeps h→m as the only head of m (z[h,m] = 1),
  the other drops it (z[h,m] = 0). Every tree of the parent is a tree of exactly one child.
* **Bounds.** A node's LP is the grandparent LP of the sentence with the dropped arcs pruned (score
  -inf), solved by :func:`lpparse.ppc.parse_price_cut` starting from the parent's triples and its score
  cache (no triple is scored twice), and certified on the node's *full* LP by lpparse's own check. Its
  dual objective UB bounds the score of every tree of the node. A node whose UB is within tolerance of the
  best tree found (LB) is closed; a node with an integral LP optimum is closed by that tree; a node over
  which no tree exists (:func:`lpparse.trees.tree_problem`) is closed as infeasible.
* **Cutoff.** Below the root, a node LP stops at the first round that prices nothing once its value is at
  most the incumbent's score plus half the search's gap (:class:`lpparse.colgen.ColgenOptions` ``cutoff``):
  every column is then dual feasible, so its duals bound the node by that value whatever rows are still to
  separate (the NoCycle max-flows, held-back rows), and the node is closed by bound. Its certificate is of the
  bound (kind ``ppc-bound``), and the proof checks it as any other. Hungarian dev, the sentences whose root LP is
  fractional: 35 of 77 node LPs of #152 stop there. Within a solve, HiGHS's dual simplex stops as soon as the
  bound of its (dual feasible) basis falls below the cutoff
  (:meth:`lpparse.lp.highs_view.HighsModel.set_cutoff`; ``ExactStats.lp_cutoffs``), before the node's LP
  optimum: Danish full model, dev #173 (73 tokens, 29 nodes), 13 node solves stop so, with 18-56 simplex
  iterations where their optimum took 26-170.
* **Reduced-cost fixing.** With the node's certified duals y and reduced costs d = c - Aᵀy, every tree
  x of the node satisfies c·x = yᵀAx + d·x <= UB + Σ_{j: d_j < 0} d_j x_j (dual feasibility makes yᵀAx <=
  Σ_i (U_i y_i⁺ - L_i y_i⁻), and columns with d_j > 0 contribute at most u_j d_j, which UB counts). A tree
  using arc a therefore scores at most UB + d_a + ε, where ε = n·max(0, r̄) covers the absent triples'
  reduced-cost bound r̄ <= tol of the certificate (a tree has at most n triples). Arcs with UB + d_a + ε
  <= LB cannot be in a better tree and are dropped from the node's children (recorded with d_a).
* **Primal heuristics.** Each node's LP point is rounded to the maximum arborescence under its arc values
  (§3); at the root the rounded tree is improved by hill climbing: over every head change by the move gains
  of grandparent triples when they are the only family (:func:`lpparse.exact.heuristics.improve_tree`), else,
  for any families, over the head changes the root's LP point weighs, each tree scored whole
  (:func:`lpparse.exact.heuristics.improve_along_lp`; Danish grandparent + sibling model over pruned arcs, the
  11 dev sentences that branch: the root's tree below the optimum by 104 in all instead of 562, 3 of them
  optimal at once; the full model's 47: 20 below the optimum instead of 39, by 659 instead of 4,311;
  best-bound search solves the same nodes, at 1-3% more CPU time, so the climb serves searches stopped
  by a limit). Scores of heuristic trees are recomputed from the scorers.
* **Proof.** The result records every node: its arc set (by the branching decisions and fixings from the
  root), its LP's duals by row label (a dual ray for a node infeasible by its LP), the certificate of its
  LP, and why it was closed. :func:`check_proof` re-checks it from the duals alone
  (:mod:`lpparse.proofs.check`): the tree is a tree over the candidate arcs whose recomputed score is
  ``objective``; each node's bound is recomputed from its duals over the full program of every candidate
  part (built once), as is each fixed arc's; the children of every branched node split the heads of one
  modifier; every leaf is infeasible (no tree over its arcs, or a dual ray that proves it), or bounded
  within tolerance of the tree's score, and so is the parent of a node closed unsolved. No certificate,
  stored bound or solver status is read. :func:`check_records` is the search's own faster check, which
  reads each node's certificate as the search computed it.

**Pruned parts.** A triple or sibling part scored -inf is in no tree (a tree holding it scores -inf and
is never offered). A node whose arcs still carry trees may then have an infeasible LP: parse-price-cut
starts from a tree without pruned parts, so its restricted LP is infeasible only when it found none and
started from every part (:func:`lpparse.families.base.clean_tree`), a relaxation of the node's full LP that
lacks no column. Such a node is closed as ``infeasible`` with its program and a dual ray of it
(``BranchNode.farkas``); :func:`check_exact` checks that the program holds every candidate part of the
node's arcs (a column, or a pruned part's PrunedGP/PrunedSib row) and that the ray proves it infeasible
(:func:`lpparse.lp.solution.farkas_margin`). When no tree avoids the pruned parts, :func:`parse_exact`
raises NoTreeError.

**Sibling parts.** With a ``sibling_scorer`` (arbitrary siblings ⟨h, m, m'⟩, Martins, Smith & Xing 2009,
"Concise Integer Linear Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009), every candidate
sibling part is scored once at the start into a dense table (:class:`lpparse.triples.DenseSiblingScorer`,
whose bound is exact), which parse-price-cut's sibling family prices from at every node through one shared
cache (the bound computed once), starting from its parent's sibling parts as from its triples (CPU time
against fresh caches and the first-order tree's parts alone: -12% to -32%). Pricing from the scorer's own
bounds instead, through the shared cache, scores 10-21% fewer sibling parts but takes 8-25% more CPU time
(both measured with trained grandparent + sibling models on 17-25 dev sentences each: Italian of 15-40
tokens, Danish of 15-40 and of 30-60). ε counts the n(n-1)/2 sibling parts a tree can have besides its n
triples, and the root's climb runs along its LP point (the move gains count triples only).

Search is best-bound first (the open node of largest bound is solved next, with its parent's bound until
then), so the nodes solved are those whose bound exceeds the optimum, whatever the heuristics find; the
heuristics only strengthen fixing and let the search stop at once when the root is closed.

**The node LPs' base** is the cycle-cut arborescence program (``ExactOptions.base``): OneHead rows and NoCycle
rows Σ_{h,m in S} z[h,m] <= |S| - 1 separated by max-flow (Riedel & Clarke 2006, "Incremental Integer Linear
Programming for Non-projective Dependency Parsing", EMNLP 2006), each labelled by its token set, so that a
proof's dual on it names the row it needs (:mod:`lpparse.proofs.check`). With every cut, its LP is the
arborescence polytope's, as the multi-commodity flow's, without the 2·|arcs| flow columns and rows of the
single-commodity flow base or the n·|arcs| of the multi-commodity one. On Hungarian dev #152 (49 tokens,
trained grandparent model: optimum 234.48) the root bound is 237.26 instead of 237.75, and the search takes 77
nodes and 4.9 s instead of 245 nodes and 14.2 s (``arc`` branching, live masters); over the dev sentences
whose root LP is fractional, 1.68x (Hungarian), 1.16x (Danish), 1.06x (Italian) and 1.24x (English)
(``benchmarks/results/exact_base.md``). A NoCycle row enters when the strongly connected components of the
LP's support violate it, or, in a round where nothing else enters, when a max-flow finds it; so a node LP is
certified with none violated.

**Where the time went on a hard sentence** (Hungarian dev #152 on the single-flow base: root bound 237.75,
optimum 234.48, found at the root by hill climbing): 245 nodes and 17.4 s by the ``arc`` rule, 160 nodes and
13.6 s by ``pseudocost``; probing 16-32 candidates per node to 300-1,000 iterations got 107-127 nodes but 22-26
s. A node cost about 70 ms, 4 LP solves of which HiGHS took 29 ms in all; pricing (13 ms), adding columns (5
ms), the start and rounded trees (Chu-Liu-Edmonds, 7 ms) and copying masters for forks (5 ms) most of the rest.
Stopping a node's pricing once its Lagrangian bound (LP value plus, per token c, the largest reduced cost of an
absent triple with child c) falls below the incumbent would save 13 of 557 rounds (``pseudocost``): that bound
falls below, nearly always, at the last round. What would close the root gap: the arborescence polytope (the
multi-commodity flow base, or cycle cuts) 15%; rows added to the full program over the root's arcs, cycles of
consecutive triples (Σ_i zgp[v(i-1), v(i), v(i+1)] <= k - 2 around a cycle of k tokens, valid as k - 1 of them
make the cycle) 1.9%, 2-cycles, triangles of triples and a triple with the arc closing its path 0%; HiGHS's MIP
over the root's arcs closes 45% with 751 cuts in 70 s at its root (30.5% with presolve off:
``benchmarks/results/root_gap.md``) and does not finish in 150 s. Most of the gap is thus in the linearization
of the triples.
"""

from __future__ import annotations

import copy
import heapq
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen import ColgenOptions, Warm
from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.engine import Closer
from lpparse.colgen.family import OutsideDuals
from lpparse.exact.branching import PseudoCosts
from lpparse.exact.heuristics import improve_along_lp, improve_tree
from lpparse.exact.live import LiveMaster
from lpparse.families.base import Parts, exact_parts, tree_score
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.pricing import gp_duals
from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.lp.basis import LabelledBasis
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.solution import TOL, Status, farkas_margin
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc.loop import METHODS, PPCResult, _validated, solve_lp
from lpparse.proofs.check import check_proof, children_problem, claim_problem, label_duals, signed
from lpparse.proofs.search_tree import BranchNode, ExactResult, ExactStats, child_mask, gap_abs
from lpparse.trees import NoTreeError, allowed_arcs, check_tree_exists, tree_problem

__all__ = [
    "BranchNode",
    "ExactOptions",
    "ExactResult",
    "ExactStats",
    "check_proof",
    "check_records",
    "exact_search",
    "verify_by_default",
]


#: reliability branching: fractional arcs probed per node, dual simplex iterations per probed child, and the
#: records per direction after which an arc's pseudo-costs are trusted without probing (1: the Hungarian dev
#: sentences whose root LP is fractional took 10.7 s against 11.5 s with 2, the same 205 nodes; 4 candidates
#: 11.4 s and 223 nodes, 6 10.3 s and 199 nodes; 50 iterations 12.1 s, 200 14.6 s)
STRONG_CANDIDATES = 8
STRONG_ITERATIONS = 100
RELIABLE = 1
#: the branching rules of :func:`_split`, and ``auto`` (:meth:`ExactOptions.rule`)
BRANCHING = ("auto", "arc", "pseudocost", "gub", "multi")


@dataclass(frozen=True)
class ExactOptions:
    """Settings of :func:`parse_exact` besides the problem itself.

    ``gap_tol``: the search stops when bound - objective <= gap_tol·(1 + |objective|); ``max_nodes``: LPs
    solved at most (root included); ``fixing``: reduced-cost fixing; ``local_search``: hill climbing from the
    root's rounded tree (module docstring); ``keep_results``: keep each node's :class:`PPCResult` (its program
    can be read in Pyomo, :mod:`lpparse.lp.pyomo_view`); ``branching``: the rule of :func:`_split`
    (``pseudocost``: reliability branching, :mod:`lpparse.exact.branching`, probing on each node's master;
    ``auto``: by the families, :meth:`rule`); ``base``: the arborescence program under the node LPs (module
    docstring: ``cycle-cuts``, or a flow base of :data:`lpparse.families.grandparent.rows.BASES`); ``ppc``: the
    parse-price-cut options of every node (:class:`lpparse.colgen.ColgenOptions`: tolerances, pricing devices,
    sibling preset; its time limit is replaced by what is left of the search's); ``method``: how a node LP
    solved on a program of its own (the root; every node without live masters) is solved, as
    :func:`lpparse.ppc.solve_lp`'s ``method``: ``auto`` (brute force below
    :func:`lpparse.ppc.loop.bf_below` candidate parts, else parse-price-cut), ``ppc`` (a family's pricing runs
    at every node, as the family kit forces it on small sentences: :func:`lpparse.family_kit.check_exact`)
    or ``bf``; ``verify``: certify by :func:`check_proof` (the proof re-checked from its duals over the full
    program, built once, trusting no record of the search) instead of :func:`check_records` (the search's own
    certificates, which trust each family's pricing); None (the default) decides by the families
    (:func:`verify_by_default`): the standalone check for any family or scorer not shipped with lpparse, so
    that a pricing bug in a family written elsewhere cannot certify a wrong tree; ``warm_basis``: a node's
    first LP solve starts from its parent's final basis, by label (:mod:`lpparse.lp.basis`), instead of cold;
    ``live_master``: with families that support it (``Parts.live``: all of lpparse's), the LP of every node
    below the root is bound changes on its parent's master, handed down or copied (:mod:`lpparse.exact.live`;
    off, a program per node takes 1.07x, 0.97x, 1.17x and 1.13x the time on the Hungarian, Danish, Italian and
    English dev sets with grandparent models, 1.7x on random scores of n = 28, 1.36x on the Danish full
    model's branching sentences; ``keep_results`` then copies each node's program). ``node_cuts``: the node
    LPs below the root separate the families' cuts too (GPChain, SibTriangle, GSibGP:
    :attr:`lpparse.colgen.ColgenOptions.cuts`); by default only the root does, and its cut rows stay in the
    live masters of the nodes below, whose LPs separate only their own rows (NoCycle, lazy rows). Grandparent
    models, CPU time, one core, the sentences whose root LP is fractional: 50 train sentences of the four
    treebanks 31.0-31.4 s against 34.6-34.7 s, the slowest (Italian train #1280, 62 tokens: 13 node LPs of 0.3
    s against 11 of 0.5 s with GPChain rounds at every node) 7.3 s against 9.8 s; the 42 dev sentences
    9.9-10.0 s against 9.7-9.9 s. Danish grandparent + sibling model over pruned arcs, the 11 dev sentences
    that branch: the same 44 nodes, 1.76-1.81 s against 1.72-1.75 s; the full model's 47: 12.1 s either way
    (its GSibGP rows all enter at the root).
    """

    base: str = "cycle-cuts"
    gap_tol: float = TOL
    max_nodes: int = 10_000
    fixing: bool = True
    local_search: bool = True
    keep_results: bool = False
    branching: str = "auto"
    ppc: ColgenOptions = field(default_factory=ColgenOptions)
    method: str = "auto"
    verify: bool | None = None
    warm_basis: bool = True
    live_master: bool = True
    node_cuts: bool = False

    def __post_init__(self) -> None:
        if self.branching not in BRANCHING:
            raise ValueError(f"unknown branching rule {self.branching!r}; choose from {', '.join(BRANCHING)}")
        if self.method not in METHODS:
            raise ValueError(f"unknown node LP method {self.method!r}; choose from {', '.join(METHODS)}")

    def rule(self, parts: Sequence[Parts]) -> str:
        """The branching rule for these families: ``branching``, or for ``auto`` reliability branching
        (``pseudocost``) when every family's nodes solve on live masters (:mod:`lpparse.exact.live`) and says its
        probes pay (``probes_pay``: grandparent and sibling families), else the most fractional arc
        (``arc``). Measured:

        * grandparent models, the dev sentences whose root LP is fractional (CPU, both proofs re-checked;
          benchmarks/results/exact_branching_rules.md): ``pseudocost`` 1.23x ``arc`` on Hungarian (#152: 2.8 s
          against 4.5 s), 1.13x Danish, 0.87x English, 0.71x Italian (searches of 3-17 nodes pay for their
          probes); 19.3 s against 21.2 s in all;
        * Danish grandparent + sibling model over pruned arcs: 352 against 330 tokens/s, all 578 proved,
          under Martins et al.'s rows; with the triangle cuts 431 against 490 tokens/s
          (benchmarks/results/exact_siblings-da_ddt.md), so the sibling family's probes pay without them only;
        * Danish full model (consecutive siblings, grand- and tri-siblings) on live masters: 336 against 504
          tokens/s over the dev set, 578/578 proved either way (benchmarks/results/exact_full-da_ddt.md).

        (``arc`` against ``gub``: exact_branching.md.)"""
        if self.branching != "auto":
            return self.branching
        probes_pay = all(getattr(p, "probes_pay", False) for p in parts)
        return "pseudocost" if LiveMaster.supports(parts) and probes_pay else "arc"


def _rounded(result: PPCResult, mask: NDArray[np.bool_], single_root: bool) -> NDArray[np.int64]:
    """The LP's tree if integral, else the maximum arborescence under its arc values within ``mask``."""
    if result.heads is not None:
        return result.heads
    return chu_liu_edmonds(np.where(mask, result.arc_values(), -np.inf), single_root=single_root)


def _arc_bounds(
    result: PPCResult, mask: NDArray[np.bool_], parts: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """Per arc of the node's arcs ``mask``, a bound on every tree of the node that uses it by reduced costs,
    UB + d_a + ε (module docstring; +inf for an arc without a column, -inf outside ``mask``); d_a; and the
    slack ε used (``parts``: the most absent parts a tree can use, each with reduced cost at most the
    certificate's bound). What reduced-cost fixing drops, and what closes k-best subproblems unsolved
    (:mod:`lpparse.exact.kbest`)."""
    assert result.certificate is not None
    prog = result.program
    slack = parts * max(float(result.info.get("max_reduced_cost", 0.0)), 0.0)
    has = (prog.z_col >= 0) & mask
    d = np.full(mask.shape, np.inf)
    d[has] = result.reduced_costs()[prog.z_col[has]]
    bounds = np.where(mask, result.certificate.dual_objective + d + slack, -np.inf)
    return bounds, d, slack


def _fixings(
    result: PPCResult, mask: NDArray[np.bool_], lower: float, parts: int
) -> tuple[list[tuple[int, int, float]], float]:
    """Arcs (h, m, d) of the node's arcs ``mask`` that no tree scoring above ``lower`` can use, by reduced
    costs (:func:`_arc_bounds`), and the slack ε used."""
    bounds, d, slack = _arc_bounds(result, mask, parts)
    h, m = np.nonzero(mask & (bounds <= lower))
    return [(int(a), int(b), float(d[a, b])) for a, b in zip(h, m)], slack


def _split(
    result: PPCResult,
    mask: NDArray[np.bool_],
    scores: NDArray[np.float64],
    rule: str,
    pseudo: PseudoCosts | None = None,
    arc: tuple[int, int] | None = None,
) -> tuple[int, list[NDArray[np.bool_]]]:
    """A modifier m and a partition of its candidate heads into the children's head sets.

    ``arc``: the most fractional arc h→m (ties: the higher score) against the rest of m's heads;
    ``pseudocost``: the arc of best pseudo-cost score (:class:`lpparse.exact.branching.PseudoCosts`,
    ``pseudo``; or the ``arc`` that probing chose), split alike, the kept arc first; ``gub``: the modifier
    whose LP head distribution is most spread, its heads split by LP mass, largest first, into two sets of
    about half each (generalized upper bound branching on OneHead[m]); ``multi``: that modifier's heads with
    LP mass, one child each, and one child for the others."""
    z = np.where(mask, result.arc_values(), 0.0)
    shared = (mask.sum(axis=0) > 1)[None, :]
    if rule in ("arc", "pseudocost"):
        if arc is None and rule == "pseudocost" and pseudo is not None:
            arc = pseudo.choose(z, mask & shared, scores)
        if arc is None:  # the most fractional arc (also pseudocost's choice when none is fractional)
            dist = np.where(mask & shared, np.abs(z - np.round(z)), -1.0)
            hs, ms = np.nonzero(dist >= dist.max() - 1e-9)
            i = int(np.argmax(scores[hs, ms]))
            arc = int(hs[i]), int(ms[i])
        h, m = arc
        keep = np.zeros(mask.shape[0], bool)
        keep[h] = True
        return m, [keep, mask[:, m] & ~keep]
    spread = np.where(shared[0], 1.0 - z.max(axis=0), -1.0)
    m = int(np.argmax(spread))
    heads = np.flatnonzero(mask[:, m])
    order = heads[np.argsort(-z[heads, m], kind="stable")]
    mass = z[order, m]
    if rule == "multi":
        on = mass > 1e-6
        parts = [order[i : i + 1] for i in np.flatnonzero(on)] + [order[~on]]
    else:
        cut = int(np.searchsorted(np.cumsum(mass), 0.5 * mass.sum(), side="left")) + 1
        cut = min(max(cut, 1), order.size - 1)
        parts = [order[:cut], order[cut:]]
    sets = []
    for part in parts:
        if part.size:
            keep = np.zeros(mask.shape[0], bool)
            keep[part] = True
            sets.append(keep)
    return m, sets


#: the row blocks of a master whose LPs over subsets of its arcs (k-best subproblems, :class:`RootStart`
#: ``live``) keep their proofs when checked over the subset's arcs alone: a row over a part the subset
#: excludes (its label then names no row, and its dual counts 0) holds at most one column the subset keeps,
#: so that dropping its dual y moves R by y·side and that column's reduced cost by the same, never loosening
#: the bound. A cut over several parts (GPChain, the sibling triangles) may hold two: its master is not
#: handed on (a sibling model's proof failed so: its bound recomputed 5.14 against the tree's 4.53)
SUBSET_ROWS = frozenset({"OneHead", "OneRoot", "NoCycle", "OneGP", "NoGP", "GPArc", "ArcGP", "PrunedGP"})
#: triples scored a call when every candidate triple is (:func:`tree_costs`): the model's scorer holds
#: temporaries per triple and template (Italian dev, 45-68 tokens: 72 MB more peak RSS in one call)
SCORE_BATCH = 16_384


@dataclass
class TreeCosts:
    """A root LP's reduced costs for bounding trees of subsets of its arcs (k-best children,
    :class:`lpparse.proofs.kbest.ClosingBound` as the search estimates it): ``ub`` its certified dual objective,
    ``arcs`` d of each arc (n+1, n+1; -inf outside its arcs), ``triples`` d of every candidate triple (n+1)³
    (-inf where none): the restricted program's, and for an absent triple s(g,p,c) - μ_OneGP(p,c) -
    μ_NoGP(g,p) - λ (:mod:`lpparse.families.grandparent.pricing`, eq. 8, λ the dual tightening's on its
    GPArc rows)."""

    ub: float
    arcs: NDArray[np.float64]
    triples: NDArray[np.float64]


def tree_costs(
    result: PPCResult,
    mask: NDArray[np.bool_],
    parts: _Parts,
    sentence: Callable[[], NDArray[np.float64]] | None = None,
) -> TreeCosts | None:
    """The :class:`TreeCosts` of a certified root LP over the arcs ``mask`` when the grandparent family is
    the search's only one (every candidate triple scored once, through the shared cache; or read from the
    sentence's ``sentence()``, :func:`triples_over`), else None."""
    family = _grandparent_only(parts)
    prog = result.program
    if family is None or result.row_dual is None or (mask & (prog.z_col < 0)).any():
        return None
    assert result.certificate is not None
    scores = _triple_scores(family, mask, parts) if sentence is None else triples_over(sentence(), mask)
    ub = float(result.certificate.dual_objective)
    return dual_costs(prog, result.row_dual, result.reduced_costs(), result.outside, ub, mask, scores)


def dual_costs(
    prog: GrandparentProgram,
    y: NDArray[np.float64],
    d: NDArray[np.float64],
    outside: OutsideDuals,
    ub: float,
    mask: NDArray[np.bool_],
    scores: NDArray[np.float64],
) -> TreeCosts:
    """The :class:`TreeCosts` of duals ``y`` of the grandparent program ``prog`` (its columns' reduced costs
    ``d``, the duals of its absent rows ``outside``, a dual objective ``ub`` that holds R) over the arcs
    ``mask``: each arc's d, each triple's (its column's, else its score in ``scores``, (n+1)³ and -inf over
    arcs outside ``mask``, less its OneGP and NoGP duals and its GPArc rows' tightened duals); -inf over arcs
    outside ``mask`` (a live master's columns there too)."""
    size = mask.shape[0]
    arcs = np.full((size, size), -np.inf)
    arcs[mask] = d[prog.z_col[mask]]
    one, no = gp_duals(prog, y)
    triples = scores - one[None, :, :]
    triples -= no[:, :, None]
    if "GPArc" in outside:  # rows z[g,p] - zgp >= 0 of absent triples, duals -λ (dual tightening)
        index, values = outside["GPArc"]
        np.add.at(triples, tuple(np.asarray(index)[:, :3].T), values)
    g, p, c = prog.triples()
    if g.size:
        inside = mask[g, p] & mask[p, c]
        triples[g[inside], p[inside], c[inside]] = d[prog.lp.cols("zgp")[inside]]
    return TreeCosts(ub, arcs, triples)


def score_costs(
    mask: NDArray[np.bool_], parts: _Parts, sentence: Callable[[], NDArray[np.float64]] | None = None
) -> TreeCosts | None:
    """The :class:`TreeCosts` of no duals over the arcs ``mask`` (y = 0: each arc and candidate triple its
    score, ``ub`` 0) when the grandparent family is the search's only one, else None: what
    :func:`lpparse.proofs.kbest.score_bound` recomputes. ``sentence``: as :func:`tree_costs`'s."""
    family = _grandparent_only(parts)
    if family is None:
        return None
    scores = _triple_scores(family, mask, parts) if sentence is None else triples_over(sentence(), mask)
    return TreeCosts(0.0, np.where(mask, parts.s, -np.inf), scores)


def _grandparent_only(parts: _Parts) -> GrandparentParts | None:
    """The search's family when it is the grandparent family alone (tree bounds know no other), else None."""
    family = parts.parts[0] if len(parts.parts) == 1 else None
    return family if type(family) is GrandparentParts else None


def triples_over(scores: NDArray[np.float64], mask: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The scores of every candidate triple over the arcs ``mask`` (:func:`lpparse.triples.triple_mask`), from
    ``scores``, those over a superset of its arcs: -inf where g→p or p→c is not in ``mask``."""
    out = scores.copy()
    out[~mask] = -np.inf
    out[:, ~mask] = -np.inf
    return out


def _triple_scores(family: GrandparentParts, mask: NDArray[np.bool_], parts: _Parts) -> NDArray[np.float64]:
    """The scores of every candidate triple over the arcs ``mask``, (n+1)³ (-inf where none), each scored
    once a sentence through the shared cache."""
    size = mask.shape[0]
    g, p, c = family.candidates(mask, False)
    triples = np.full((size,) * 3, -np.inf)
    cache = parts.caches[family.name]
    for at in range(0, g.size, SCORE_BATCH):  # the scorer's temporaries grow with its batch
        i, j, l = g[at : at + SCORE_BATCH], p[at : at + SCORE_BATCH], c[at : at + SCORE_BATCH]
        triples[i, j, l] = cache.get(i, j, l)
    return triples


@dataclass
class RootStart:
    """Where a search's root LP starts and what it hands back, for searches over subsets of one sentence's arcs
    that go on from each other (k-best subproblems, :mod:`lpparse.exact.kbest`). ``warm``: the columns the
    root LP starts from (None: the score caches only); ``lower``: a score no tree the search returns need beat
    (the K-th best of the trees found so far): nodes bounded by it are closed as by an incumbent, and a search
    that finds no tree above it returns none, its nodes proving every tree at most it (within the gap); set by
    the search: ``arc_bounds``, its root LP's bound on the trees that use each arc (:func:`_arc_bounds`),
    ``columns``, its root LP's columns (a later search's ``warm``), and ``basis``, its root LP's final basis
    by label (where a later search's root LP starts: English dev, 8 sentences of 15-30 tokens, K = 5: simplex
    iterations 36k -> 19k; the first 30 dev sentences of the four treebanks: 2,179 -> 2,052 subproblems
    searched, the children's duals bounding more of theirs, CPU time -3% to -13%, placing the basis by label
    included); ``live``: the master of another search's root (:mod:`lpparse.exact.live`) whose copy this
    search's root LP solves on as bound changes (a program of its own when it cannot start there), and set by
    the search, its own root's master for the searches that go on from it, when its rows are all
    :data:`SUBSET_ROWS` (whose duals a proof checked over a subset of the arcs may lose harmlessly). Hungarian
    dev, the first 30 sentences, K = 5: the 72 child searches 0.89 -> 0.69 s (no program nor basis placed;
    copying the master 2 ms). (One master shared by all later roots was no faster on Italian dev.)
    ``pseudo``: the pseudo-costs the search learns and branches by
    (:class:`lpparse.exact.branching.PseudoCosts`; None: its own), which the searches of one sentence share:
    its arcs' bound changes are much the same in every subproblem (Hungarian dev, 60 sentences of 31 tokens or
    more, K = 5: -5% CPU time, the slowest sentence -12%; no change on shorter ones). ``closer``: a bound on
    every tree over the root's arcs from a round's duals (:attr:`lpparse.colgen.engine.Engine.closer`) that
    may stop the root LP at ``lower`` before it ends; the root is then closed as ``tree`` (its proof: that
    bound of its duals, recomputed, :func:`lpparse.proofs.kbest.no_tree_problem`), for a search that returns
    no tree only."""

    warm: dict[str, Warm] | None = None
    lower: float = -math.inf
    arc_bounds: NDArray[np.float64] | None = None
    columns: dict[str, Warm] | None = None
    basis: LabelledBasis | None = None
    live: LiveMaster | None = None
    pseudo: PseudoCosts | None = None
    closer: Closer | None = None


class _Parts:
    """The families of a search, with the scores every node shares: one score cache per family (each part
    scored at most once; :meth:`lpparse.families.base.Parts.cache`), and a tree's score recomputed from them."""

    def __init__(self, s: NDArray[np.float64], parts: Sequence[Parts], single_root: bool) -> None:
        arc = allowed_arcs(s)
        self.s, self.parts = s, list(parts)
        self._counted = {p.name: p.scorer.scored for p in parts}
        self.caches = {p.name: p.cache(arc, single_root) for p in parts}

    def newly_scored(self) -> dict[str, int]:
        """Parts scored per family since the last call (the first: since the caches were made, their own
        scoring included; views of :meth:`over` count together), the families' scorers counting."""
        now = {p.name: p.scorer.scored for p in self.parts}
        new = {name: count - self._counted[name] for name, count in now.items()}
        self._counted.update(now)
        return new

    def warm(self, result: PPCResult | None = None) -> dict[str, Warm]:
        """The shared caches, with the parts of a solved node's LP (``result``) for its children to start
        from (None: the root's, caches only)."""
        if result is None:
            return {name: Warm(cache) for name, cache in self.caches.items()}
        # a family of the base (no cache: the NoCycle rows of cycle cuts) hands on what it has as it is
        return {name: replace(f.warm(), cache=self.caches.get(name)) for name, f in result.families.items()}

    def over(self, mask: NDArray[np.bool_]) -> _Parts:
        """The same families and score caches over the arcs ``mask`` alone (a subproblem of the sentence:
        :mod:`lpparse.exact.kbest`), so that its search scores no part the sentence's searches scored."""
        view = copy.copy(self)
        view.s = np.where(mask, self.s, -np.inf)
        return view

    def value(self, heads: NDArray[np.int64]) -> float:
        """The tree's score: its arcs and the parts of every family."""
        return tree_score(self.s, self.parts, heads, self.caches)

    def max_parts(self, n: int) -> int:
        """The most parts a tree of n tokens has outside the arcs (for reduced-cost fixing's ε)."""
        return sum(p.max_per_tree(n) for p in self.parts)

    @property
    def climbing(self) -> ScoreCache | None:
        """The triple cache when the grandparent family is the only one (hill climbing's move gains count
        triples only), else None."""
        if len(self.parts) == 1 and isinstance(self.parts[0], GrandparentParts):
            return self.caches[GrandparentParts.name]
        return None


class _Search:
    """The state of one :func:`parse_exact` run (best-bound branch and bound, module docstring)."""

    def __init__(
        self,
        parts: _Parts,
        single_root: bool,
        options: ExactOptions,
        deadline: float | None,
        start: RootStart | None = None,
    ) -> None:
        s = parts.s
        self.s, self.single_root = s, single_root
        self.options, self.deadline = options, deadline
        self.parts = parts
        self.nodes: list[BranchNode] = []
        self.results: dict[int, PPCResult] = {}
        #: the warm start of each solved node whose children are not all solved yet: their starting columns
        self.warm: dict[int, dict[str, Warm]] = {}
        #: the final basis of each such node (by label): its children's first solves start from it
        self.bases: dict[int, LabelledBasis | None] = {}
        self.unsolved_children: dict[int, int] = {}
        self.heap: list[tuple[float, int]] = []
        #: where the root starts, and what it hands back (None: a search of its own)
        self.start = start
        self.best: NDArray[np.int64] | None = None
        #: the incumbent's score, or before one a score the search need not beat (RootStart.lower)
        self.lower = -np.inf if start is None else start.lower
        self.stats = ExactStats(s.shape[0] - 1)
        #: ExactOptions.live_master: the master of each branched node whose children are not all solved (they
        #: solve on it or on a copy)
        self.masters: dict[int, LiveMaster] = {}
        #: pseudo-costs (branching ``pseudocost``), and the arc (h, m, LP value) each branched node split on
        #: the branching rule (ExactOptions.rule)
        self.rule = options.rule(parts.parts)
        #: the parse-price-cut options of the nodes below the root (ExactOptions.node_cuts)
        self.node_ppc = replace(options.ppc, cuts=options.ppc.cuts and options.node_cuts)
        self.pseudo: PseudoCosts | None = None
        if self.rule == "pseudocost":  # the searches that go on from each other learn them together
            shared = None if start is None else start.pseudo
            self.pseudo = PseudoCosts(s.shape[0]) if shared is None else shared
        self.branched: dict[int, tuple[int, int, float]] = {}

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def offer(self, heads: NDArray[np.int64]) -> None:
        """Make ``heads`` the incumbent if its recomputed score beats the incumbent's."""
        value = self.parts.value(heads)
        if value > self.lower:
            self.best, self.lower = heads.copy(), value

    def new_node(
        self, parent: BranchNode | None, modifier: int | None = None, kept: NDArray[np.bool_] | None = None
    ) -> BranchNode:
        if parent is None:
            mask, depth, bound, pid = allowed_arcs(self.s), 0, np.inf, -1
        else:
            assert modifier is not None and kept is not None
            mask = child_mask(parent.base_mask(), modifier, kept)
            depth, bound, pid = parent.depth + 1, parent.bound, parent.id
        node = BranchNode(len(self.nodes), pid, depth, modifier, kept, mask, bound)
        self.nodes.append(node)
        if tree_problem(mask, self.single_root) is not None:
            node.closed, node.bound = "infeasible", -np.inf
        else:
            heapq.heappush(self.heap, (-bound, node.id))
        return node

    def _lp(self, node: BranchNode, time_limit: float | None) -> tuple[PPCResult, LiveMaster | None]:
        """The node's LP, and the live master it was solved on (None: a program of its own). On its own
        program, by ``ExactOptions.method``: under ``auto`` as the LP decoders choose, brute force where the
        node's arcs allow fewer than :func:`lpparse.ppc.loop.bf_below` candidate parts, else parse-price-cut
        from its parent's parts; the scores shared. (Hungarian dev, grandparent model over pruned arcs, 40
        fractional sentences, 466 nodes: 14.9 s of branching against 24.3 s with parse-price-cut at every
        node.)"""
        cutoff = self.cutoff()
        closer = self.start.closer if node.parent < 0 and self.start is not None else None
        if node.parent < 0 and self.start is not None and self.start.live is not None:
            master = self.start.live.fork()  # another search's root master: its LP as bound changes
            result = master.solve(node.mask, time_limit, cutoff, closer)
            if result is not None and not self._short(result):
                return result, master
        if node.parent in self.masters:
            master = self._master(node)
            result = master.solve(node.mask, time_limit, cutoff)
            if result is not None and not self._short(result):
                return result, master
            if result is not None:  # the bound missed the cutoff by the certificate's tolerance: go on
                result = master.solve(node.mask, time_limit)
                assert result is not None
                return result, master
        if node.parent >= 0:
            warm = self.warm[node.parent]
        else:
            warm = self.start.warm if self.start is not None and self.start.warm else self.parts.warm()
        ppc = self.options.ppc if node.parent < 0 else self.node_ppc
        for cut in (cutoff, None):
            result = solve_lp(
                np.where(node.mask, self.s, -np.inf),
                self.parts.parts,
                self.options.method,
                self.single_root,
                self.options.base,
                replace(ppc, time_limit=time_limit, cutoff=cut),
                warm,
                basis=self._basis(node) if self.options.warm_basis else None,
                keep_master=self.options.warm_basis or self.options.live_master,
                closer=closer,
            )
            if not self._short(result):
                break
        return result, None

    def _basis(self, node: BranchNode) -> LabelledBasis | None:
        """The basis a node's LP on a program of its own starts from: its parent's final one, or for the root
        its start's (another search's root, :class:`RootStart`)."""
        if node.parent < 0:
            return None if self.start is None else self.start.basis
        return self.bases.get(node.parent)

    def _short(self, result: PPCResult) -> bool:
        """Whether a node LP stopped at the cutoff without a certified bound that closes the node (the
        certificate's tolerance is the search gap's order: rare)."""
        if result.status is not Status.CUTOFF:
            return False
        if "closer_bound" in result.info:  # closed by RootStart.closer's bound, not its master's
            return not self.closes(float(result.info["closer_bound"]))  # type: ignore[arg-type]
        cert = result.certificate
        return cert is None or not cert.ok or not self.closes(cert.dual_objective)

    def closes(self, bound: float) -> bool:
        """Whether a node of this bound is closed by the incumbent (within the search's gap)."""
        return bound <= self.lower + gap_abs(self.lower, self.options.gap_tol)

    def cutoff(self) -> float | None:
        """The value below which a node LP may stop (status CUTOFF, its duals a bound: rows left unseparated
        would only lower it; :class:`lpparse.colgen.ColgenOptions`): half the search's gap above the
        incumbent (or RootStart's ``lower``), so that its certified bound closes the node. None before
        either."""
        if not np.isfinite(self.lower):
            return None
        return self.lower + 0.5 * gap_abs(self.lower, self.options.gap_tol)

    def _master(self, node: BranchNode) -> LiveMaster:
        """The master a node solves on: its parent's master itself when it is the last of its siblings to be
        solved, else a copy (:meth:`lpparse.exact.live.LiveMaster.fork`); either way its basis is the parent's
        final one, so no basis is placed."""
        if self.unsolved_children[node.parent] == 1:
            return self.masters.pop(node.parent)
        return self.masters[node.parent].fork()

    def solve(self, node: BranchNode) -> tuple[PPCResult, LiveMaster | None]:
        """The node's LP (:meth:`_lp`), counted in the stats and kept for its children."""
        left = self.left()
        result, master = self._lp(node, None if left is None else max(left, 1e-3))
        self.stats.nodes += 1
        self.stats.max_depth = max(self.stats.max_depth, node.depth)
        for name, counts in result.counts.items():
            self.stats.added[name] = self.stats.added.get(name, 0) + counts.added
        self.stats.priced += result.stats.priced
        self.stats.cut += result.stats.cut
        self.stats.lp_cutoffs += int(result.info.get("solves_cut_off", 0))
        self.stats.time_solving += result.stats.time_solving
        node.rounds, node.added = result.stats.iterations, result.stats.added
        self.warm[node.id] = self.parts.warm(result)
        if node.parent >= 0:
            self.unsolved_children[node.parent] -= 1
            if self.unsolved_children[node.parent] == 0:
                self._forget(node.parent)
        if node.id == 0 or self.options.keep_results:
            if master is not None and self.options.keep_results:  # later nodes change the live program
                LiveMaster.snapshot(result)
            self.results[node.id] = result
        return result, master

    def expand(self, node: BranchNode, result: PPCResult, live: LiveMaster | None = None) -> None:
        """Close a solved node or branch it; a branched node keeps the live master it was solved on (``live``),
        or with ExactOptions.live_master makes one of its own program's, for its children."""
        closer = result.info.get("closer_bound")  # closed by RootStart.closer's bound of its duals (_lp)
        assert result.certificate is not None or closer is not None
        bound = float(closer) if closer is not None else result.certificate.dual_objective  # type: ignore
        self._learn(node, bound)
        master, result.master = result.master, None  # the result lets go of its HiGHS model either way
        node.certificate, node.bound = result.certificate, bound
        assert result.row_dual is not None
        node.duals = label_duals(
            result.program.lp, signed(result.program.lp, result.row_dual), result.outside
        )
        if node.id == 0 and self.start is not None:  # for the searches that go on from it
            most = self.parts.max_parts(node.mask.shape[0] - 1)
            self.start.arc_bounds, self.start.columns = _arc_bounds(result, node.mask, most)[0], self.warm[0]
            if isinstance(master, HighsModel) and result.status is not Status.CUTOFF:  # (cut off: no tree)
                self.start.basis = LabelledBasis.of(result.program.lp, *master.program_basis())
        if result.status is Status.CUTOFF:  # its certified bound closes it, or its tree bound (_lp)
            node.closed = "bound" if closer is None else "tree"
            return
        t0 = time.perf_counter()
        if result.heads is not None:
            node.closed, node.tree = "integral", result.heads
            self.offer(result.heads)
        else:
            rounded = _rounded(result, node.mask, self.single_root)
            self.offer(rounded)
            if node.id == 0 and self.options.local_search:
                self._climb(rounded, np.where(node.mask, result.arc_values(), 0.0))
        self.stats.time_heuristics += time.perf_counter() - t0
        closed = node.closed == "integral" or self.closes(node.bound)
        if closed and node.id == 0 and self.start is not None:  # its master, for the searches that go on
            self.start.live = self._handed(result, master, live)
        if node.closed == "integral":
            return
        if closed:
            node.closed = "bound"
            return
        self._branch(node, result, master, live)

    def _branch(self, node: BranchNode, result: PPCResult, master: object, live: LiveMaster | None) -> None:
        """Branch a node its LP leaves open (:meth:`expand`): fix arcs by reduced costs, keep its master for its
        children (and a copy for the searches that go on from the root), choose the split, make the
        children."""
        if self.options.fixing:
            node.fixed, node.fix_slack = _fixings(
                result, node.mask, self.lower, self.parts.max_parts(node.mask.shape[0] - 1)
            )
            self.stats.arcs_fixed += len(node.fixed)
        decisive = None
        if isinstance(master, HighsModel):  # its children start from its final basis
            self.bases[node.id] = LabelledBasis.of(result.program.lp, *master.program_basis())
            if self.options.live_master and LiveMaster.supports(self.parts.parts):
                if node.id == 0 and live is not None:  # its children change the master it was solved on
                    LiveMaster.snapshot(result)
                self.masters[node.id] = live or LiveMaster.adopt(
                    result, master, self.s, self.single_root, self.node_ppc
                )
                if node.id == 0 and self.start is not None:  # a copy: its children change the master
                    handed = self._handed(result, master, self.masters[node.id])
                    self.start.live = None if handed is None else handed.fork()
            if self.pseudo is not None:
                decisive = self._strong(result, master, node.base_mask())
        modifier, parts = _split(result, node.base_mask(), self.s, self.rule, self.pseudo, decisive)
        if self.pseudo is not None:  # the children learn the pseudo-costs of the arc kept by the first
            h = int(np.flatnonzero(parts[0])[0])
            self.branched[node.id] = (h, modifier, float(result.arc_values()[h, modifier]))
        node.closed = "branched"
        node.children = tuple(self.new_node(node, modifier, kept).id for kept in parts)
        self.unsolved_children[node.id] = sum(self.nodes[i].closed == "open" for i in node.children)
        if self.unsolved_children[node.id] == 0:
            self._forget(node.id)

    def _handed(self, result: PPCResult, master: object, live: LiveMaster | None) -> LiveMaster | None:
        """The master a closed root hands to the searches that go on from it (:class:`RootStart` ``live``):
        the live master it was solved on, or one over its own program and HiGHS model (None without live
        masters, or when its program holds rows outside :data:`SUBSET_ROWS`)."""
        if not (self.options.live_master and LiveMaster.supports(self.parts.parts)):
            return None
        if not set(result.program.lp.con_blocks) <= SUBSET_ROWS:
            return None
        if live is not None:
            return live
        if not isinstance(master, HighsModel):
            return None
        families = list(result.families.values())
        return LiveMaster(self.s, self.single_root, self.node_ppc, result.program, families, master)

    def _climb(self, rounded: NDArray[np.int64], arc_values: NDArray[np.float64]) -> None:
        """Hill climbing from the root's rounded tree, its best offered: over every head change with the move
        gains of grandparent triples when they are the only family (:func:`improve_tree`; it needs a tree
        without pruned parts), else over the head changes the root's LP point weighs, each tree scored whole
        (:func:`lpparse.exact.heuristics.improve_along_lp`)."""
        parts = self.parts
        cache = parts.climbing
        if cache is None:
            improved, moves = improve_along_lp(
                self.s,
                parts.parts,
                parts.caches,
                rounded,
                arc_values,
                self.single_root,
                deadline=self.deadline,
            )
        elif parts.value(rounded) > -np.inf:
            improved, moves = improve_tree(self.s, cache, rounded, self.single_root)
        else:
            return
        self.stats.heuristic_moves += moves
        self.offer(improved)

    def _strong(
        self, result: PPCResult, master: HighsModel, mask: NDArray[np.bool_]
    ) -> tuple[int, int] | None:
        """Reliability branching (Achterberg, Koch & Martin 2005, §3): the fractional arcs of best
        pseudo-cost score whose pseudo-costs rest on fewer than :data:`RELIABLE` records in a direction are
        probed on the node's restricted master (:meth:`lpparse.lp.highs_view.HighsModel.probe`, at most
        :data:`STRONG_ITERATIONS` dual simplex iterations per child), and what each child's value fell by
        is recorded as a pseudo-cost. A child probed below the incumbent counts as falling to it; an arc
        both of whose children do is returned at once, unprobed candidates left (no arc can score more at
        this node), else None: the pseudo-costs choose. Probing stops at the search's deadline, as node LPs
        do."""
        assert self.pseudo is not None
        t0 = time.perf_counter()
        prog, z = result.program, np.where(mask, result.arc_values(), 0.0)
        shared = (mask.sum(axis=0) > 1)[None, :]
        arcs = self.pseudo.ranked(z, mask & shared)[:STRONG_CANDIDATES]
        value = float(result.solution.objective)
        for h, m in arcs:
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                break  # out of time: the pseudo-costs choose (the search stops before the next node)
            if self.pseudo.count[:, h, m].min() >= RELIABLE:
                continue
            others = np.flatnonzero(mask[:, m] & (prog.z_col[:, m] >= 0))
            others = others[others != h]
            closed = 0
            for up, cols in ((True, prog.z_col[others, m]), (False, prog.z_col[[h], m])):
                child = master.probe(cols, np.zeros(cols.size), STRONG_ITERATIONS)
                if np.isnan(child):
                    continue
                self.pseudo.record(h, m, float(z[h, m]), up, value, max(child, self.lower))
                self.stats.strong_probes += 1
                closed += self.closes(child)
            if closed == 2:
                self.stats.time_strong += time.perf_counter() - t0
                return h, m
        self.stats.time_strong += time.perf_counter() - t0
        return None

    def _learn(self, node: BranchNode, bound: float) -> None:
        """Record a solved child's bound in the pseudo-costs of its parent's branching arc."""
        arc = self.branched.get(node.parent) if self.pseudo is not None else None
        if arc is None:
            return
        assert self.pseudo is not None
        h, m, value = arc
        parent = self.nodes[node.parent]
        self.pseudo.record(h, m, value, node.id == parent.children[0], parent.bound, bound)

    def _forget(self, i: int) -> None:
        """Drop what node ``i`` kept for its children (every child is solved or closed)."""
        del self.warm[i]
        self.bases.pop(i, None)
        self.masters.pop(i, None)

    def close_infeasible(self, node: BranchNode, result: PPCResult) -> bool:
        """Close a node whose LP is infeasible (pruned parts) by a dual ray of its program that proves it
        (module docstring); False when HiGHS gives none that does."""
        lp = result.program.lp
        model = HighsModel(lp, tol=self.options.ppc.certificate_tol, options={"presolve": "off"})
        if model.solve(certify=False).status is not Status.INFEASIBLE:
            return False
        ray = model.dual_ray()
        if ray is None or not farkas_margin(lp, ray) > 0:
            return False
        node.closed, node.bound, node.farkas = "infeasible", -np.inf, (lp, ray)
        node.ray = label_duals(lp, ray)
        return True

    def run(self) -> Status:
        """Best-bound search until the bound meets the incumbent; the status says why it stopped."""
        while self.heap:
            neg, i = heapq.heappop(self.heap)
            node = self.nodes[i]
            if -neg <= self.lower + gap_abs(self.lower, self.options.gap_tol):
                heapq.heappush(self.heap, (neg, i))  # every open node is within the gap: done
                break
            if self.stats.nodes >= self.options.max_nodes:
                heapq.heappush(self.heap, (neg, i))
                return Status.ITERATION_LIMIT
            left = self.left()
            if left is not None and left <= 0:
                heapq.heappush(self.heap, (neg, i))
                return Status.TIME_LIMIT
            result, live = self.solve(node)
            if result.status is Status.INFEASIBLE and self.close_infeasible(node, result):
                continue
            if not (result.certified or result.status is Status.CUTOFF):
                heapq.heappush(self.heap, (neg, i))
                status = result.status
                return Status.NUMERICAL_TROUBLE if status is Status.OPTIMAL else status
            if i == 0:
                self.stats.time_root = result.stats.time_total
            self.expand(node, result, live)
        for _, i in self.heap:  # closed by the incumbent, unsolved
            self.nodes[i].closed = "bound"
        self.heap.clear()
        return Status.OPTIMAL

    def bound(self) -> float:
        """The proved bound: the best tree's score and the bounds of the leaves, open ones included."""
        leaves = [nd.bound for nd in self.nodes if nd.closed in ("integral", "bound", "open")]
        return float(max([self.lower, *leaves]))


def built_in(part: Parts) -> bool:
    """Whether a family is one of lpparse's own, with a scorer of lpparse's own: both classes defined in a
    module under ``lpparse`` (a scorer's bounds steer pricing, so a scorer from elsewhere counts as well)."""
    return all(type(x).__module__.startswith("lpparse.") for x in (part, part.scorer))


def verify_by_default(parts: Sequence[Parts]) -> bool:
    """Whether exact decoding certifies by :func:`check_proof` when ``ExactOptions.verify`` is None: when any
    family is not :func:`built_in`. A node's own certificate trusts its families' pricing
    (``Priced.max_reduced_cost``); the standalone check trusts no family's pricing, so a family written
    elsewhere with a pricing bug cannot certify a wrong tree (issue 54: a head-bigram family with its reduced
    costs' sign flipped was certified in 16 of 16 searches at n = 18, one with a wrong tree). lpparse's
    families are checked by the kit (:mod:`lpparse.family_kit`, with their pricing inside exact
    search) and keep :func:`check_records`: the standalone check would cost 4-17% of the search's CPU time
    on random scores (searches that branch) but 0.62x on the Italian dev set with a grandparent model over
    pruned arcs, nearly every root integral (``benchmarks/results/verify_cost.md``)."""
    return not all(built_in(p) for p in parts)


def exact_search(
    arc_scores: ArrayLike,
    parts: Sequence[Parts],
    single_root: bool = False,
    time_limit: float | None = None,
    options: ExactOptions | None = None,
) -> ExactResult:
    """The best non-projective tree under the arcs and every part family of ``parts``
    (:class:`lpparse.families.base.Parts`, as exact decoding uses them: :func:`lpparse.families.base.exact_parts`),
    with a proof (module docstring).

    ``time_limit`` in seconds for the whole search; when it (or ``options.max_nodes``) is hit, the status
    says so and the result holds the best tree and the proved bound so far. Raises ValueError (NaN scores)
    or NoTreeError, as :func:`lpparse.ppc.solve_lp`."""
    start = time.perf_counter()
    parts = exact_parts(parts)
    s = _validated(arc_scores, parts)
    check_tree_exists(s, single_root)
    result = search_over(_Parts(s, parts, single_root), single_root, time_limit, options, clock=start)
    if result.heads is None:
        raise NoTreeError("every tree over the candidate arcs holds a pruned part (a part scored -inf)")
    return result


def search_over(
    shared: _Parts,
    single_root: bool,
    time_limit: float | None,
    options: ExactOptions | None,
    clock: float | None = None,
    start: RootStart | None = None,
) -> ExactResult:
    """:func:`exact_search` over the scores and families ``shared`` (validated; one sentence's score caches,
    over a subset of its arcs: :meth:`_Parts.over`), its root LP started and handed back by ``start``
    (:class:`RootStart`); ``clock``: when the clock started. When no tree of finite score exists, or none
    above ``start.lower`` (status OPTIMAL), heads is None and the nodes prove it
    (:func:`lpparse.proofs.kbest.no_tree_problem`)."""
    start_time = time.perf_counter() if clock is None else clock
    opts = options or ExactOptions()
    s, parts = shared.s, shared.parts
    deadline = None if time_limit is None else start_time + time_limit
    search = _Search(shared, single_root, opts, deadline, start)
    search.new_node(None)
    status = search.run()
    stats = search.stats
    root = search.results.get(0)
    if root is not None and root.certificate is not None:
        stats.root_integral = root.heads is not None
        stats.root_bound = root.certificate.dual_objective
    no_tree = search.best is None and status is Status.OPTIMAL  # every tree holds a pruned part, or is low
    if search.best is None and not no_tree:  # stopped before the root LP: the first-order best tree
        search.offer(chu_liu_edmonds(s, single_root=single_root))
    stats.root_objective = search.lower
    stats.scored = shared.newly_scored()
    stats.time_total = time.perf_counter() - start_time
    stats.time_branch = max(stats.time_total - stats.time_root - stats.time_heuristics, 0.0)
    if no_tree:
        nodes, tol = search.nodes, opts.gap_tol
        return ExactResult(status, None, math.nan, -math.inf, single_root, tol, nodes, stats, base=opts.base)
    result = ExactResult(
        status,
        search.best,
        float(search.lower) if search.best is not None else float("nan"),
        search.bound(),
        single_root,
        opts.gap_tol,
        search.nodes,
        stats,
        root,
        node_results=search.results if opts.keep_results else {},
        base=opts.base,
    )
    if verify_by_default(parts) if opts.verify is None else opts.verify:
        problem = check_proof(s, parts, result, single_root, opts.gap_tol)
    else:
        problem = check_records(s, parts, result, shared.caches)
    result.certified = status is Status.OPTIMAL and problem is None
    return result


def check_records(
    arc_scores: ArrayLike,
    parts: Sequence[Parts],
    result: ExactResult,
    caches: Mapping[str, ScoreCache] | None = None,
) -> str | None:
    """Why ``result`` is not a proof by the search's own records (None when it is): the module docstring's
    checks, with each node's certificate as the search computed it (lpparse's check of its LP at solve
    time). Re-scores the tree's parts (or reads them from the search's score ``caches``: each part scored
    once, through the same scorers; the search itself passes them, re-scoring cost 8% of full-model exact
    decoding) and re-checks infeasible leaves. :func:`check_proof` trusts no record and re-scores."""
    s = np.asarray(arc_scores, dtype=np.float64)
    problem = claim_problem(s, parts, result, caches)
    if problem is not None:
        return problem
    for node in result.nodes:
        problem = _node_problem(node, result.nodes, result.objective, result, parts)
        if problem is not None:
            return f"node {node.id}: {problem}"
    return None


def _farkas_problem(node: BranchNode, single_root: bool, parts: Sequence[Parts]) -> str | None:
    """Why a node closed as infeasible with trees over its arcs is not proved so by its ``farkas`` record:
    a program over its arcs with every candidate part of every family (a column, or the row of a part scored
    -inf, or for a family whose pruned parts get no row, nothing: then the part must score -inf) and a dual
    ray that proves the program infeasible (None when it is). Scores the pruned parts."""
    if node.farkas is None:
        return "a tree exists over its arcs"
    lp, ray = node.farkas
    size = node.mask.shape[0]
    arcs = np.zeros_like(node.mask)
    arcs[tuple(lp.var_blocks["z"].index.T)] = True
    if not np.array_equal(arcs, node.mask):
        return "its infeasible program is not over its arcs"
    for part in parts:
        shape = (size,) * part.arity
        candidates = np.ravel_multi_index(part.candidates(node.mask, single_root), shape)
        block = lp.var_blocks.get(part.column_block)
        columns = block.index if block is not None else np.empty((0, part.arity), np.int64)
        pruned = part.pruned_block
        rows = lp.con_blocks[pruned].index if pruned in lp.con_blocks else np.empty((0, part.arity), np.int64)
        held = np.ravel_multi_index(tuple(np.concatenate([columns, rows]).T), shape)
        if not np.isin(held, candidates).all():
            return f"its infeasible program holds {part.name} parts that are not candidates"
        missing = np.setdiff1d(candidates, held)
        if pruned is not None and missing.size:
            return f"its infeasible program lacks some {part.column_block} parts"
        cut = np.concatenate([rows, np.column_stack(np.unravel_index(missing, shape)).astype(np.int64)])
        if cut.size and not np.isneginf(part.scorer.score(*cut.T)).all():
            return f"its program leaves out {part.name} parts that are not pruned"
    if not farkas_margin(lp, ray) > 0:
        return "its dual ray does not prove its program infeasible"
    return None


def _node_problem(
    node: BranchNode,
    nodes: list[BranchNode],
    value: float,
    result: ExactResult,
    parts: Sequence[Parts],
) -> str | None:
    """Why one node's record does not hold (None when it does); ``parts``: the families."""
    if node.closed == "infeasible":
        if tree_problem(node.mask, result.single_root) is not None:
            return None
        return _farkas_problem(node, result.single_root, parts)
    if node.closed == "open":
        return "left open"
    if node.closed == "bound" and node.certificate is None:  # closed unsolved: its parent's bound
        return None if node.bound <= result.bound else "its parent's bound exceeds the bound"
    cert = node.certificate
    if cert is None or not cert.ok:
        return "no valid LP certificate"
    if node.bound != cert.dual_objective:
        return "its bound is not its certificate's dual objective"
    if node.closed in ("integral", "bound"):
        return None if node.bound <= result.bound else f"its bound {node.bound!r} exceeds the bound"
    if node.closed != "branched":
        return f"closed as {node.closed!r} with children {node.children}"
    for h, m, d in node.fixed:
        if node.bound + d + node.fix_slack > value:
            return f"arc {h}->{m} fixed with reduced cost {d!r}, too weak against the tree's score"
    return children_problem(node, nodes)
