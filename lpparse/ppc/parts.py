"""Part families as a user hands them to lpparse's LP front end: a scorer and the family's own options.

A :class:`Parts` object describes one kind of higher-order part for one sentence (grandparent triples,
arbitrary siblings, consecutive siblings, ...). The front end (:func:`lpparse.ppc.frontend.solve_lp` for the
LP by brute force or parse-price-cut, :func:`lpparse.ppc.exact.exact_search` for the best tree with a proof)
takes a list of them and asks each the same questions: its candidate parts over the candidate arcs (what
brute force scores and adds, and what ``auto`` counts), the parts of a given tree (to score trees), the most
parts a tree holds (for reduced-cost fixing), a score cache to share between runs, and, for one run, a bound
:class:`lpparse.colgen.PartFamily` on the run's arborescence program (:meth:`Parts.bind`), which the
column-and-row generation engine prices and separates. Results count parts per family, by :attr:`Parts.name`.

Built in: :class:`GrandparentParts` (Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column and
Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, §3-4) and :class:`SiblingParts` (Martins, Smith &
Xing 2009, "Concise Integer Linear Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009). How to
write another: ``docs/families.md``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import PartFamily, Warm
from lpparse.colgen.options import DEFER, INITS, PER_PAIR, RELEASE, SEED_HEADS, ColgenOptions
from lpparse.formulations.grandparent import GrandparentProgram, resolve_families
from lpparse.formulations.grandparent_chains import CHAINS
from lpparse.formulations.sibling import SIBLING_FAMILIES, SIBLING_PRESETS
from lpparse.triples import (
    DenseSiblingScorer,
    SiblingScorer,
    TripleScorer,
    candidate_siblings,
    candidate_triples,
    count_siblings,
    count_triples,
    tree_siblings,
)

__all__ = [
    "Binding",
    "GrandparentParts",
    "Parts",
    "SiblingParts",
    "count_candidates",
    "exact_parts",
    "named_labels",
    "tree_score",
    "tree_scores",
    "tree_triples",
]

Index = tuple[NDArray[np.int64], ...]


@dataclass(frozen=True)
class Binding:
    """What a family binds to for one run: the run's ``program`` (an arborescence program, as a
    :class:`~lpparse.formulations.grandparent.GrandparentProgram` whose grandparent families only
    :class:`GrandparentParts` turns on), the sentence's ``arc_scores`` (-inf: no candidate), its first-order
    best tree ``first_order`` (Chu-Liu-Edmonds), the engine's ``options`` and the family's ``warm`` start
    (None: a fresh cache, the first-order tree's parts). ``implied_rows``: brute force's start (every
    candidate part) adds every row of its parts, also those that the family's other rows imply (the paper's
    full LP, as the ``bf`` decoder and a proof's full program build it); False leaves those out, the same LP
    with fewer rows (``auto`` and exact decoding when they run brute force: a grandparent family under
    OneGP and GPArc leaves out its ArcGP rows)."""

    program: GrandparentProgram
    arc_scores: NDArray[np.float64]
    first_order: NDArray[np.int64]
    options: ColgenOptions
    warm: Warm | None = None
    implied_rows: bool = True


@runtime_checkable
class Parts(Protocol):
    """A part family for one sentence, as the front end uses it (module docstring).

    ``name`` keys the family in results and warm starts; ``scorer`` scores batches of parts (``n``,
    ``scored``, ``score(*index_arrays)``); ``arity``: indices per part; ``column_block``: the name of its
    column block in the program, ``pruned_block`` that of the rows a part scored -inf gets instead of a column
    (None: it gets none). Optional: ``count(arc_mask, single_root)``, how many candidates there are, without
    enumerating them (:func:`count_candidates`); ``bf_below``, the candidate part count below which ``auto``
    should run brute force on runs with this family (:func:`lpparse.ppc.loop.bf_below`; the default threshold
    when absent); ``live``, True when :meth:`bind` gives a :class:`lpparse.colgen.family.NodeFamily`, whose
    runs go on as branch-and-bound nodes on one master (:mod:`lpparse.ppc.live`; absent: a program per node);
    ``probes_pay``, True when reliability branching's probes were measured to pay for themselves with this
    family (:meth:`lpparse.ppc.exact.ExactOptions.rule`); ``for_exact()`` (or ``for_exact(parts)``, given the
    search's families), the family as exact decoding
    uses it, with cuts valid for every tree that its LP decoders leave out (:func:`exact_parts`)."""

    name: str
    arity: int
    column_block: str
    pruned_block: str | None

    @property
    def scorer(self) -> Any: ...

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        """Index arrays of every candidate part over the candidate arcs ``arc_mask``, lexicographic."""

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        """Index arrays of the parts of the tree ``heads``."""

    def max_per_tree(self, n: int) -> int:
        """The most parts a tree of n tokens holds."""

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        """A score cache of this family's scorer, for the runs of one sentence to share."""

    def bind(self, binding: Binding) -> PartFamily:
        """The family bound to one run (its columns and rows attached to ``binding.program``)."""


def count_candidates(part: Parts, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
    """How many candidate parts the family has over the candidate arcs ``arc_mask``: its ``count`` if it has
    one (nothing enumerated: a long sentence's candidate triples as index arrays take 0.6 GB at n = 290),
    else its candidates enumerated."""
    count = getattr(part, "count", None)
    if count is not None:
        return int(count(arc_mask, single_root))
    return int(part.candidates(arc_mask, single_root)[0].size)


def exact_parts(parts: Sequence[Parts]) -> list[Parts]:
    """The families as exact decoding uses them: each family's ``for_exact()`` where it has one, or
    ``for_exact(parts)`` when it takes the search's families (to choose its cuts by the company it keeps)."""
    out = []
    for p in parts:
        hook = getattr(p, "for_exact", None)
        if hook is None:
            out.append(p)
        else:
            out.append(hook(parts) if _takes_arguments(hook) else hook())
    return out


def _takes_arguments(method: Any) -> bool:
    """Whether a bound method takes arguments (its signature looked up once per function: inspect is slow)."""
    function = getattr(method, "__func__", None)
    if function is None:
        return bool(inspect.signature(method).parameters)
    return _function_takes_arguments(function)


@functools.cache
def _function_takes_arguments(function: Any) -> bool:
    return len(inspect.signature(function).parameters) > 1


def named_labels(
    duals: Iterable[Mapping[str, tuple[Any, Any]] | None], name: str, width: int, prog: GrandparentProgram
) -> NDArray[np.int64]:
    """The distinct labels ((k, ``width``) indices) of the rows of block ``name`` that labelled duals (a
    proof's) carry and the program holds no row of yet: what a family's ``add_named_rows`` may build. A label
    array of another width is skipped."""
    found = [np.asarray(d[name][0]) for d in duals if d is not None and name in d]
    index = np.concatenate([f.reshape(-1, width) for f in found if f.size % width == 0] or [np.zeros((0, width))])
    index = np.unique(index.astype(np.int64), axis=0)
    block = prog.lp.con_blocks.get(name)
    return index[block.find(index) < 0] if block is not None and len(index) else index


def tree_scores(
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    trees: Sequence[NDArray[np.int64]] | NDArray[np.int64],
    caches: Mapping[str, ScoreCache] | None = None,
) -> NDArray[np.float64]:
    """The score of every tree of ``trees`` (head arrays of one sentence) as :func:`tree_score` gives it,
    with one scorer call per family for the parts of all the trees still finite (brute force over the 16,807
    trees of a 6-token sentence with grandparents, windows and grand-siblings: 0.3 s against 5 s), or one
    look-up in ``caches`` by family name (each part scored at most once)."""
    if len(trees) == 0:
        return np.zeros(0)
    heads = np.asarray(trees, dtype=np.int64).reshape(len(trees), -1)
    m = np.arange(1, heads.shape[1])
    values = arc_scores[heads[:, 1:], m].sum(axis=1)
    for part in parts:
        live = np.flatnonzero(np.isfinite(values))  # a tree at -inf (a pruned arc or part) stays there
        found = [part.tree_parts(heads[t]) for t in live]
        owner = np.repeat(live, [f[0].size for f in found])
        if owner.size:
            idx = tuple(np.concatenate([f[k] for f in found]) for k in range(len(found[0])))
            scorer = caches[part.name].get if caches is not None else part.scorer.score
            scores = np.asarray(scorer(*idx), dtype=np.float64)
            pruned = np.isneginf(scores)
            values = values + np.bincount(owner, np.where(pruned, 0.0, scores), values.size)
            values[owner[pruned]] = -np.inf
    return values


def tree_score(
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    heads: NDArray[np.int64],
    caches: Mapping[str, ScoreCache] | None = None,
) -> float:
    """A tree's score: its arcs and the parts of every family, scored by each family's scorer, or through
    ``caches`` by family name (each part scored at most once)."""
    m = np.arange(1, heads.size)
    value = float(arc_scores[heads[1:], m].sum())
    for part in parts:
        idx = part.tree_parts(heads)
        if idx[0].size:
            scores = caches[part.name].get(*idx) if caches is not None else part.scorer.score(*idx)
            value += float(np.sum(scores))
    return value


def tree_triples(heads: NDArray[np.int64]) -> Index:
    """The grandparent triples ⟨heads[p], p, c⟩ of a tree (one per token with a word head), by c."""
    heads = np.asarray(heads, dtype=np.int64)
    c = np.flatnonzero(heads > 0)
    p = heads[c]
    return heads[p], p, c


@dataclass(frozen=True)
class GrandparentParts:
    """Grandparent triples ⟨g, p, c⟩ scored by ``scorer`` (:class:`~lpparse.triples.TripleScorer`), their
    polytope ``preset`` (``all``, ``martins``, ``onegp`` or a set of ArcGP, GPArc, OneGP, NoGP:
    :mod:`lpparse.formulations.grandparent`), and the pricing devices of parse-price-cut
    (:class:`lpparse.ppc.families.GrandparentFamily`): ``init``, ``seed_heads``: initial triples
    (:data:`~lpparse.colgen.options.INITS`, :data:`~lpparse.colgen.options.SEED_HEADS`); ``per_pair``:
    partial pricing, at most that many new triples per ⟨p,c⟩ a round (None: all); ``parent_duals``: spend arc
    slack on the GPArc rows of absent triples; ``defer``: hold back priced triples with both arcs at 0
    (:data:`~lpparse.colgen.options.DEFER`; None: never), ``release``: how many of them enter, times n, when
    nothing else prices (:data:`~lpparse.colgen.options.RELEASE`); ``lazy_arcgp``: a triple's ArcGP row enters
    only once violated in parse-price-cut (False: with its column, as Riedel, Smith & McCallum 2012 §4;
    :mod:`lpparse.ppc.loop`; the ``bf`` decoder's program has every row either way, the brute force of
    ``auto`` and exact decoding all but the ArcGP rows that OneGP and GPArc imply: :class:`Binding`);
    ``dead_arcs``: keep arcs without a triple out of HiGHS; ``chains``: the chain cuts to separate, by block
    name (GPChain, GPSibChain: :mod:`lpparse.formulations.grandparent_chains`; exact decoding separates
    GPChain, :meth:`for_exact`)."""

    scorer: TripleScorer
    preset: str | Iterable[str] = "all"
    init: str = "root"
    seed_heads: int | None = SEED_HEADS
    per_pair: int | None = PER_PAIR
    parent_duals: bool = True
    defer: float | None = DEFER
    release: float = RELEASE
    lazy_arcgp: bool = True
    dead_arcs: bool = True
    chains: tuple[str, ...] = ()

    name = "grandparent"
    arity = 3
    column_block = "zgp"
    live = True
    probes_pay = True
    pruned_block = "PrunedGP"

    def __post_init__(self) -> None:
        if self.init not in INITS:
            raise ValueError(f"unknown init {self.init!r}; choose from {INITS}")
        if not self.release > 0:
            raise ValueError(f"release must be > 0 (triples per token), got {self.release!r}")
        unknown = set(self.chains) - set(CHAINS)
        if unknown:
            raise ValueError(f"unknown chain cuts {sorted(unknown)}; choose from {sorted(CHAINS)}")
        object.__setattr__(self, "preset", resolve_families(self.preset))

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_triples(arc_mask)

    def count(self, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
        return count_triples(arc_mask)

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_triples(heads)

    def max_per_tree(self, n: int) -> int:
        return n

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        return ScoreCache(self.scorer, arc_mask.shape[0])

    def for_exact(self, parts: Sequence[Parts] = ()) -> GrandparentParts:
        """The family as exact decoding uses it among the search's families ``parts``: with the GPChain cuts,
        which tighten its node LPs beyond the LP decoders' (Hungarian grandparent model, the 34 dev sentences
        whose root LP is fractional, CPU time: 7.6 s and 94 nodes against 8.7 s and 154; with GPSibChain too,
        3 more roots close but the LPs are slower: 9.6-9.8 s and 88 nodes), unless a family of 4-index
        (third-order) parts is in the search, whose links to the triples leave the chain rows only LP work
        (Danish full model, the 32 dev sentences that branch: 13.1 s with them against 12.6 s)."""
        if any(p.arity >= 4 for p in parts):
            return self
        return replace(self, chains=tuple(dict.fromkeys((*self.chains, "GPChain"))))

    def bind(self, binding: Binding) -> PartFamily:
        from lpparse.ppc.families import GrandparentFamily

        binding.program.use_families(self.preset)
        return GrandparentFamily(binding.program, self, binding)


@dataclass(frozen=True)
class SiblingParts:
    """Arbitrary-sibling parts ⟨h, m, m'⟩ scored by ``scorer`` (:class:`~lpparse.triples.SiblingScorer`)
    under the sibling polytope ``preset`` (``martins``, ``all``, ``triangles`` or a set of ArcSib, SibArc,
    SibClique, SibTriangle; exact decoding adds SibTriangle, :meth:`for_exact`:
    :mod:`lpparse.formulations.sibling`), priced by :class:`lpparse.ppc.families.SiblingFamily`. Its shared
    cache (:meth:`cache`, for branch and bound) scores every candidate part at once into a dense table whose
    bound is exact: with trained models that took 12-32% less CPU time than pricing from the scorer's own
    bounds (:mod:`lpparse.ppc.exact`). ``lazy_arcsib``: in parse-price-cut, a part's ArcSib row enters only
    once violated (False: with its column; BF's program has every row either way). ``arc_heads``: with
    SibTriangle and grandparent triples, separate the GPSibArc cuts too
    (:mod:`lpparse.formulations.arc_heads`), as exact decoding does."""

    scorer: SiblingScorer
    preset: str | Iterable[str] = "martins"
    lazy_arcsib: bool = True
    arc_heads: bool = False

    name = "sibling"
    arity = 3
    column_block = "zsib"
    live = True
    pruned_block = "PrunedSib"

    @property
    def probes_pay(self) -> bool:
        """Reliability branching pays under Martins et al.'s rows, not with the triangle cuts (Danish grandparent
        + sibling model, pruned: 19 dev sentences branch with them, in 4.0 s with ``arc`` against 6.8 s with
        ``pseudocost``)."""
        return "SibTriangle" not in self.preset  # type: ignore[operator]

    def __post_init__(self) -> None:
        object.__setattr__(self, "preset", resolve_families(self.preset, SIBLING_FAMILIES, SIBLING_PRESETS))

    def for_exact(self) -> SiblingParts:
        """The family as exact decoding uses it: its rows and the SibTriangle cuts
        (:mod:`lpparse.formulations.triangles`; Danish grandparent + sibling model, pruned, the 23 dev
        sentences whose root LP under Martins et al.'s rows is fractional: 2.1 s and 35 nodes against 6.3 s
        and 101 nodes, 18 closed at the root; SibTriangle alone, without the rows across grandparents: 4.5 s,
        67 nodes, 9 closed)."""
        return replace(self, preset=(*self.preset, "SibTriangle"), arc_heads=True)  # type: ignore[misc]

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_siblings(arc_mask, single_root)

    def count(self, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
        return count_siblings(arc_mask, single_root)

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_siblings(heads)

    def max_per_tree(self, n: int) -> int:
        return n * (n - 1) // 2

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        size = arc_mask.shape[0]
        table = np.zeros((size,) * 3)
        h, m, m2 = candidate_siblings(arc_mask, single_root)
        table[h, m, m2] = self.scorer.score(h, m, m2)
        return ScoreCache(DenseSiblingScorer(table), size, "sibling", ("bound_hm",))

    def bind(self, binding: Binding) -> PartFamily:
        from lpparse.ppc.families import SiblingFamily

        return SiblingFamily(binding.program, self, binding)
