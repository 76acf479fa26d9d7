"""Part families as a user hands them to lpparse's LP front end: a scorer and the family's own options.

A :class:`Parts` object describes one kind of higher-order part for one sentence (grandparent triples,
arbitrary siblings, consecutive siblings, ...). The front end (:func:`lpparse.ppc.solve_lp` for the
LP by brute force or parse-price-cut, :func:`lpparse.exact.search.exact_search` for the best tree with a proof)
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

import copy
import functools
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import PartFamily, Warm
from lpparse.colgen.options import ColgenOptions
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.trees import NoTreeError

if TYPE_CHECKING:  # the arc program every family binds to (its grandparent blocks off unless turned on)
    from lpparse.families.grandparent.rows import GrandparentProgram

Index = tuple[NDArray[np.int64], ...]


@dataclass(frozen=True)
class Binding:
    """What a family binds to for one run: the run's ``program`` (an arborescence program, as a
    :class:`~lpparse.families.grandparent.rows.GrandparentProgram` whose grandparent families only
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
    runs go on as branch-and-bound nodes on one master (:mod:`lpparse.exact.live`; absent: a program per node);
    ``probes_pay``, True when reliability branching's probes were measured to pay for themselves with this
    family (:meth:`lpparse.exact.search.ExactOptions.rule`); ``trees_parts(heads)``, the parts of a (T, n+1)
    batch of trees at once, as the tree of each part and their index arrays, tree by tree in the order of
    :meth:`tree_parts` (:func:`tree_scores`); ``for_exact()`` (or ``for_exact(parts)``, given the
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
    index = np.concatenate(
        [f.reshape(-1, width) for f in found if f.size % width == 0] or [np.zeros((0, width))]
    )
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
        owner, idx = _trees_parts(part, heads, live)
        if owner.size:
            scorer = caches[part.name].get if caches is not None else part.scorer.score
            scores = np.asarray(scorer(*idx), dtype=np.float64)
            pruned = np.isneginf(scores)
            values = values + np.bincount(owner, np.where(pruned, 0.0, scores), values.size)
            values[owner[pruned]] = -np.inf
    return values


def _trees_parts(
    part: Parts, heads: NDArray[np.int64], live: NDArray[np.int64]
) -> tuple[NDArray[np.int64], Index]:
    """The parts of the trees ``heads[live]``, tree by tree, each in the order of ``part.tree_parts``: the
    tree of each part and their index arrays (the family's ``trees_parts`` when it has one, all trees at
    once)."""
    batch = getattr(part, "trees_parts", None)
    if batch is not None:
        rows, idx = batch(heads[live])
        return live[rows], idx
    found = [part.tree_parts(heads[t]) for t in live]
    owner = np.repeat(live, [f[0].size for f in found])
    if not owner.size:
        return owner, ()
    return owner, tuple(np.concatenate([f[k] for f in found]) for k in range(len(found[0])))


def tree_score(
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    heads: NDArray[np.int64],
    caches: Mapping[str, ScoreCache] | None = None,
) -> float:
    """A tree's score: its arcs and the parts of every family, scored by each family's scorer, or through
    ``caches`` by family name (each part scored at most once). The same float as :func:`tree_scores` gives
    (each family's parts summed in order, as its ``np.bincount`` sums them): a tree found twice, by a search
    and by an enumeration, must not score two values an ulp apart, or a k-best search's subproblems bounded
    at the higher one outrank the tree listed at the lower (and are searched for nothing)."""
    m = np.arange(1, heads.size)
    value = float(arc_scores[heads[1:], m].sum())
    for part in parts:
        idx = part.tree_parts(heads)
        if idx[0].size:
            scores = caches[part.name].get(*idx) if caches is not None else part.scorer.score(*idx)
            value += sum(np.asarray(scores, dtype=np.float64).tolist(), 0.0)
    return value


def clean_tree(
    arc_scores: NDArray[np.float64],
    single_root: bool,
    tree: NDArray[np.int64],
    families: Sequence[PartFamily],
) -> NDArray[np.int64] | None:
    """A tree without pruned parts (scored -inf), to start the restricted LP from (module docstring):
    ``tree`` (the first-order best tree) while it holds one, parsed again (Chu-Liu-Edmonds) without the arcs
    that the families' ``pruned_arcs`` name, at most n + 1 times. None when that leaves no tree or no try
    succeeds (a tree without pruned parts may still exist: it avoids forbidden pairs of arcs, which no greedy
    search guarantees). Scores the parts of every tree it tries."""
    s = arc_scores.copy()
    for _ in range(s.shape[0]):
        arcs = [family.pruned_arcs(tree) for family in families]
        h = np.concatenate([a[0] for a in arcs])
        if h.size == 0:
            return tree
        s[h, np.concatenate([a[1] for a in arcs])] = -np.inf
        try:
            tree = chu_liu_edmonds(s, single_root=single_root)
        except NoTreeError:
            return None
    return None


def copy_sharing(family: Any, memo: dict[int, Any], shared: tuple[Any, ...]) -> Any:
    """A deep copy of ``family`` (through ``memo``) that shares the objects ``shared`` with it."""
    for obj in shared:
        memo.setdefault(id(obj), obj)
    twin = object.__new__(type(family))
    memo[id(family)] = twin
    for name, value in vars(family).items():
        setattr(twin, name, copy.deepcopy(value, memo))
    return twin


class Counted:
    """What a part family counts, for :class:`lpparse.colgen.PartFamily`: its ``candidates``, the parts
    scored in this run through its score ``cache`` (``scored``: counted by the cache's scorer) and the time
    the cache spent scoring (``scoring_seconds``). A family's base class."""

    def __init__(self, cache: ScoreCache, candidates: int) -> None:
        self.cache = cache
        self._scored0, self._seconds0, self._candidates = cache.scorer.scored, cache.seconds, candidates

    @property
    def candidates(self) -> int:
        return self._candidates

    @property
    def scored(self) -> int:
        return self.cache.scorer.scored - self._scored0

    @property
    def scoring_seconds(self) -> float:
        return self.cache.seconds - self._seconds0
