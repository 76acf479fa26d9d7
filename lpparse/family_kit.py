"""A kit that checks a part family against brute force and against its own full program.

A family's author calls :func:`check_parts` from a test with a function that makes the families for a random
sentence (the family under test, alone or with others). On random small sentences (n tokens, some arcs pruned,
single and multiple roots) it checks what the engine and the front end take on trust:

1. **valid rows**: every tree (brute-force enumeration, :func:`lpparse.oracles.brute_force.enumerate_trees`)
   without a pruned part satisfies every row the families add, with its arcs and its parts at 1 and every
   other part at 0 (a row over other columns of the base, such as flows, cannot be checked this way and is
   reported); every tree holds at most ``max_per_tree(n)`` parts of each family (reduced-cost fixing and the
   proof checker's node bounds count on it); ``candidates()`` names exactly the parts brute force seeds
   (a column each, or none for a part scored -inf: ``auto`` counts them, the proof checker bounds nodes by
   them);
2. **relaxation**: the full LP (every candidate part: brute force, bound as the ``bf`` decoder binds it, with
   every row) is >= the best tree's score, and the ILP of the same program equals it (the rows say "tree",
   nothing more, nothing less); brute force as ``auto`` and exact decoding bind it
   (``Binding.implied_rows`` False), when it leaves rows out: its rows hold on every tree, its LP value is
   the full program's (what it leaves out is implied) and its ILP the best tree;
3. **exact-only cuts** (``Parts.for_exact``), separated on brute force's program until none is violated:
   every tree satisfies every cut, and the LP with them lies between the best tree and the full LP;
4. **pricing**: in every round of a parse-price-cut run, with the round's duals extended to the full program
   (absent rows 0, except the duals a family gives absent rows), every part that enters is either priced
   (its reduced cost d = c - Aᵀy in the full program is > tol) or cut (the round's point, extended by zeros,
   violates one of its rows), and every absent part that stays out has d <= the family's reported
   ``max_reduced_cost`` (+ tol): a family that over-estimates reduced costs adds parts the duals do not ask
   for, one that under-estimates them leaves a wrong bound;
5. **separation and certificate**: the run ends OPTIMAL, its solution extended by zeros is certified on the
   full program (primal feasible: separation found every violated row; dual feasible; no gap), and its value
   equals brute force's;
6. **below the root**: the two children of a branch on the full LP's most fractional arc (kept as its
   modifier's only head, and left out), each solved by parse-price-cut from the root's parts and score caches
   (``Warm``, bound as ``auto`` binds it) and audited as in 4-5 against the child's own full program; and,
   when every family is ``live``, on the root's restricted master by bound changes
   (:class:`lpparse.exact.live.LiveMaster`: the first child on a fork, the second on the master itself),
   certified with the child's full LP value.

:func:`check_exact` takes the same function and checks exact decoding with the family's pricing inside it:
on random sentences of n = 4..6, :func:`lpparse.exact.search.exact_search` with parse-price-cut at every node
(``ExactOptions(method="ppc")``: under ``auto`` nodes this small are solved by brute force, and a family's
pricing runs in exact search only from :func:`lpparse.ppc.loop.bf_below` candidate parts, n of 16-18 for
cubic families) must end certified by its own records, with brute force's best tree score, and its proof must
pass the standalone check (:func:`lpparse.proofs.check.check_proof`, which trusts no family's pricing).

The conventions (maximization, d = c - Aᵀy, duals of <= rows >= 0 and of >= rows <= 0, absent rows and
``outside_duals``) are those of :mod:`lpparse.colgen.family` and ``docs/families.md``. References: Riedel,
Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column and Row Generation for Graph Based Parsers",
EMNLP-CoNLL 2012, §4 (the certificate of an extension by zeros).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from lpparse.colgen.engine import Engine
from lpparse.colgen.family import DualState, PartFamily, Priced, Separated, Warm
from lpparse.colgen.options import ColgenOptions, MasterSettings
from lpparse.colgen.purge import Purge
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import Solution, Status

__all__ = [
    "PURGE_EVERY_ROUND",
    "FamilyCheckError",
    "KitReport",
    "check_exact",
    "check_parts",
    "random_arc_scores",
]

#: Engine options that purge the master after every round, every family column at 0 with a negative reduced
#: cost (:mod:`lpparse.colgen.purge`): a test's run of a family through purges and returns on small sentences
PURGE_EVERY_ROUND = ColgenOptions(master=MasterSettings(None, {}, Purge(min_rows=0, every=1, margin=0.0)))

#: (arc scores, single_root, rng) -> the families of one sentence
MakeParts = Callable[[NDArray[np.float64], bool, np.random.Generator], Sequence[Any]]


class FamilyCheckError(AssertionError):
    """A family broke one of the kit's checks (module docstring); the message says which, on what."""


@dataclass
class KitReport:
    """What :func:`check_parts` checked: sentences, trees, rounds and entering parts looked at, how many full
    LPs were fractional (a kit whose instances are all integral checks little: see ``fractional``), the
    sentences whose brute force without implied rows left rows out (``lean``), the exact-only cut rows
    checked against every tree (``cuts``), and the branch-and-bound children solved from a warm start
    (``nodes``) and on a live master (``live``); for :func:`check_exact`, the nodes solved and how many
    searches branched (``fractional``: root LPs)."""

    sentences: int = 0
    trees: int = 0
    rounds: int = 0
    entered: int = 0
    fractional: int = 0
    lean: int = 0
    cuts: int = 0
    nodes: int = 0
    live: int = 0
    branched: int = 0
    notes: list[str] = field(default_factory=list)


def random_arc_scores(
    n: int, rng: np.random.Generator, prune: float = 0.2, single_root: bool = False
) -> NDArray[np.float64]:
    """N(0,1) arc scores of n tokens with about ``prune`` of the arcs removed (-inf), over which a tree
    still exists."""
    from lpparse.trees import tree_problem

    while True:
        s = rng.normal(size=(n + 1, n + 1))
        s[:, 0] = -np.inf
        np.fill_diagonal(s, -np.inf)
        s[rng.random(s.shape) < prune] = -np.inf
        if tree_problem(np.isfinite(s), single_root) is None:
            return s


def cuts_close_a_root(
    instance: Callable[[int], tuple[NDArray[np.float64], list[Any]]],
    seeds: Iterable[int],
    single_root: bool = False,
) -> Iterator[tuple[int, NDArray[np.float64], list[Any], Any, Any]]:
    """The seeded instances ``instance(seed) -> (arc scores, part families)`` whose LP is fractional under
    the families as the LP decoders use them and integral, strictly lower, under the families as exact decoding
    uses them (the cuts of :func:`lpparse.families.base.exact_parts` close the root): (seed, arc scores, families,
    plain LP result, LP result with the cuts)."""
    from lpparse.families.base import exact_parts
    from lpparse.ppc.loop import solve_lp

    for seed in seeds:
        s, parts = instance(seed)
        plain = solve_lp(s, parts, "ppc", single_root)
        if plain.integral:
            continue
        cut = solve_lp(s, exact_parts(parts), "ppc", single_root)
        if cut.integral and cut.objective < plain.objective - 1e-3:
            yield seed, s, parts, plain, cut


def _sentences(
    sizes: Sequence[int], per_size: int, seed: int
) -> Iterator[tuple[NDArray[np.float64], bool, str, np.random.Generator]]:
    """The kit's random sentences: (arc scores, single_root, where, rng), ``per_size`` of each length,
    multiple and single root alternating."""
    rng = np.random.default_rng(seed)
    for n in sizes:
        for k in range(per_size):
            single_root = bool(k % 2)
            s = random_arc_scores(n, rng, single_root=single_root)
            yield s, single_root, f"n={n}, single_root={single_root}, sentence {k} of seed {seed}", rng


def _trees(s: NDArray[np.float64], single_root: bool) -> Iterator[NDArray[np.int64]]:
    from lpparse.oracles.brute_force import enumerate_trees

    n = s.shape[0] - 1
    m = np.arange(1, n + 1)
    for heads in enumerate_trees(n, single_root):
        if np.isfinite(s[heads[1:], m]).all():
            yield heads


@dataclass(frozen=True)
class _Case:
    """One LP the kit checks: a sentence's arc scores (a node's: -inf outside its arcs), whether it is single
    rooted, its families, the base they sit on, the tolerance, and where it is (for messages)."""

    s: NDArray[np.float64]
    single_root: bool
    parts: list[Any]
    base: str
    tol: float
    where: str

    def node(self, mask: NDArray[np.bool_], what: str) -> _Case:
        """The same sentence over the arcs ``mask`` alone (a branch-and-bound node)."""
        return replace(self, s=np.where(mask, self.s, -np.inf), where=f"{self.where}, {what}")

    def close(self, value: float, reference: float) -> bool:
        """Whether ``value`` equals ``reference`` within the tolerance, relative to ``reference``."""
        return abs(value - reference) <= self.tol * (1 + abs(reference))


class _Program(NamedTuple):
    """Brute force's program (every candidate part of every family), the names of its base's row blocks and
    its bound families."""

    prog: Any
    base_rows: set[str]
    families: list[PartFamily]


def _full_program(
    case: _Case, implied_rows: bool = True, parts: Sequence[Any] | None = None, seed: bool = True
) -> _Program:
    """Brute force's program of ``parts`` (the case's by default), bound with ``implied_rows``
    (:class:`lpparse.families.base.Binding`: True as the ``bf`` decoder and a proof's full program bind it);
    ``seed`` False leaves the seeding to an engine's run."""
    from lpparse.families.base import Binding
    from lpparse.families.grandparent.rows import arc_program
    from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds

    prog = arc_program(case.s, case.single_root, case.base)
    base_rows = set(prog.lp.con_blocks)
    tree = chu_liu_edmonds(case.s, single_root=case.single_root)
    binding = Binding(prog, case.s, tree, ColgenOptions(), implied_rows=implied_rows)
    families = [part.bind(binding) for part in (case.parts if parts is None else parts)]
    for family in families:
        family.tree = None
        if seed:
            family.seed()
    return _Program(prog, base_rows, families)


def _same_program(a: LinearProgram, b: LinearProgram) -> bool:
    """Whether two programs have the same columns, rows and coefficients, in the same order."""
    if (a.num_rows, a.num_cols) != (b.num_rows, b.num_cols):
        return False
    sides = (
        (a.cost, b.cost),
        (a.col_upper, b.col_upper),
        (a.row_lower, b.row_lower),
        (a.row_upper, b.row_upper),
    )
    return all(np.array_equal(u, v) for u, v in sides) and (a.A != b.A).nnz == 0


def _check_candidates(case: _Case, full: _Program) -> None:
    """Each family's ``candidates`` are the parts brute force seeds: those with a column, and the ones scored
    -inf (which get none). ``auto`` counts them, and the proof checker bounds a node by them
    (:meth:`lpparse.proofs.check.ProofProgram.node_upper`)."""
    for part in case.parts:
        _check_family_candidates(case, part, full.prog)


def _check_family_candidates(case: _Case, part: Any, prog: Any) -> None:
    """:func:`_check_candidates` for one family ``part`` on brute force's program ``prog``."""
    shape = (prog.arc_mask.shape[0],) * part.arity
    named = np.ravel_multi_index(part.candidates(prog.arc_mask, case.single_root), shape)
    block = prog.lp.var_blocks.get(part.column_block)
    columns = block.index if block is not None and len(block) else np.empty((0, part.arity), np.int64)
    seeded = np.ravel_multi_index(tuple(columns.T), shape)

    def differ(found: NDArray[np.int64], why: str) -> None:
        if found.size:
            label = tuple(int(i) for i in np.unravel_index(found[0], shape))
            raise FamilyCheckError(
                f"{case.where}: {part.name!r} part {label} of brute force's program {why}: candidates() and "
                "the parts the family seeds differ"
            )

    differ(np.setdiff1d(seeded, named), "is not among its candidates()")
    missing = np.setdiff1d(named, seeded)  # pruned parts only: scored -inf
    scores = part.scorer.score(*np.unravel_index(missing, shape))
    differ(missing[~np.isneginf(scores)], "has no column and is not pruned")


class _TreeParts(NamedTuple):
    """The trees of a sentence and the parts of each, per family's column block: the parts of all the trees
    (one row each) and the tree each belongs to."""

    trees: list[NDArray[np.int64]]
    parts: dict[str, tuple[NDArray[np.int64], NDArray[np.int64]]]


def _tree_parts(case: _Case) -> _TreeParts:
    """The trees over the case's arcs (brute-force enumeration) and their parts, by family."""
    trees = list(_trees(case.s, case.single_root))
    parts = {}
    for part in case.parts:
        found = [part.tree_parts(heads) for heads in trees]
        owner = np.repeat(np.arange(len(trees)), [f[0].size for f in found])
        index = np.column_stack([np.concatenate([f[k] for f in found]) for k in range(part.arity)])
        parts[part.column_block] = index.astype(np.int64), owner
    return _TreeParts(trees, parts)


def _check_counts(case: _Case, trees: _TreeParts) -> None:
    """Every tree holds at most ``max_per_tree(n)`` parts of each family: reduced-cost fixing's slack
    (:mod:`lpparse.exact.search`) and the proof checker's node bounds (:mod:`lpparse.proofs.check`) count on
    it."""
    n = case.s.shape[0] - 1
    for part in case.parts:
        most = part.max_per_tree(n)
        held = np.bincount(trees.parts[part.column_block][1], minlength=len(trees.trees))
        if held.max(initial=0) > most:
            t = int(np.argmax(held))
            raise FamilyCheckError(
                f"{case.where}: tree {trees.trees[t].tolist()} holds {held[t]} {part.name!r} parts, but "
                f"max_per_tree({n}) is {most}: reduced-cost fixing and the proof checker's node bounds count "
                "too few"
            )


def _indicators(case: _Case, lp: LinearProgram, trees: _TreeParts) -> tuple[sp.csc_matrix, NDArray[np.bool_]]:
    """Each tree's indicator in ``lp`` (a column per tree: its arcs and parts at 1) and whether the tree holds
    a pruned part (one without a column, scored -inf; a tree's part without a column otherwise is an
    error)."""
    heads = np.asarray(trees.trees, dtype=np.int64)
    k, m = heads.shape[0], np.arange(1, heads.shape[1])
    cols = [lp.var_blocks["z"].find(np.column_stack([heads[:, 1:].ravel(), np.tile(m, k)]))]
    owners = [np.repeat(np.arange(k), m.size)]
    pruned = np.zeros(k, bool)
    for part in case.parts:
        index, owner = trees.parts[part.column_block]
        found = lp.var_blocks[part.column_block].find(index) if len(index) else np.empty(0, np.int64)
        lost = np.flatnonzero(found < 0)
        if lost.size:
            live = lost[~np.isneginf(part.scorer.score(*index[lost].T))]
            if live.size:
                tree = trees.trees[owner[live[0]]].tolist()
                raise FamilyCheckError(
                    f"{case.where}: tree {tree} has {part.column_block} parts without a column"
                )
            pruned[owner[lost]] = True
        cols.append(found[found >= 0])
        owners.append(owner[found >= 0])
    c, t = np.concatenate(cols), np.concatenate(owners)
    x = sp.csc_matrix((np.ones(c.size), (c, t)), shape=(lp.num_cols, k))
    x.sum_duplicates()
    x.data[:] = 1.0
    return x, pruned


def _check_rows(case: _Case, full: _Program, trees: _TreeParts, first: int = 0) -> int:
    """Check every tree's indicator against the families' rows (from row ``first`` on); return how many trees
    were checked (those without a pruned part)."""
    lp: LinearProgram = full.prog.lp
    rows = np.concatenate(
        [np.empty(0, np.int64)]
        + [b.positions for name, b in lp.con_blocks.items() if name not in full.base_rows]
    )
    rows = rows[rows >= first]
    if rows.size == 0:
        return 0
    known = np.zeros(lp.num_cols, bool)
    known[lp.cols("z")] = True
    for part in case.parts:
        known[lp.cols(part.column_block)] = True
    A = lp.A[rows]
    other = np.flatnonzero(~known)
    if other.size and A[:, other].nnz:
        raise FamilyCheckError(
            f"{case.where}: the families' rows use base columns other than arcs (cannot check)"
        )
    x, pruned = _indicators(case, lp, trees)
    keep = np.flatnonzero(~pruned)
    lo, up = lp.row_lower[rows], lp.row_upper[rows]
    for start in range(0, keep.size, 256):  # the activities of 256 trees at a time
        at = keep[start : start + 256]
        act = (A @ x[:, at]).toarray()
        bad = (act < lo[:, None] - case.tol) | (act > up[:, None] + case.tol)
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            i = int(np.flatnonzero(bad[:, j])[0])
            raise FamilyCheckError(
                f"{case.where}: tree {trees.trees[at[j]].tolist()} violates row "
                f"{lp.row_label(int(rows[i]))}: "
                f"{act[i, j]:.6g} not in [{lo[i]:.6g}, {up[i]:.6g}] (a row that cuts off a tree is not valid)"
            )
    return int(keep.size)


class _Watch:
    """A family that delegates to ``inner`` and records, per round, what entered (new columns of the
    program) and the family's claims, for :class:`_Auditor` to check against the full program."""

    def __init__(self, inner: PartFamily, auditor: _Auditor) -> None:
        self.inner, self.auditor = inner, auditor
        self.priced: Priced | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def price(self, state: DualState) -> Priced:
        self.priced = self.inner.price(state)
        return self.priced

    def separate(self, state: DualState) -> Separated:
        found = self.inner.separate(state)
        if self is self.auditor.watches[-1]:  # every family has priced: the round's duals are final
            self.auditor.observe(state)
        return found

    def commit(self, model: Any) -> None:
        cols = self.auditor.lp.num_cols
        self.inner.commit(model)
        self.auditor.entered_by(self, cols)


class _Auditor:
    """Checks each round's entering parts and reduced-cost bounds on the full program (module docstring,
    check 3)."""

    def __init__(
        self, lp: LinearProgram, full: LinearProgram, parts: Sequence[Any], tol: float, where: str
    ) -> None:
        self.lp, self.full, self.tol, self.where = lp, full, tol, where
        self.blocks = {part.name: part.column_block for part in parts}
        self.state: DualState | None = None
        self.watches: list[_Watch] = []
        self.rounds = self.entered = 0

    def _full_point(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        from lpparse.ppc.certificate import extend_solution

        assert self.state is not None
        outside: dict[str, Any] = {}
        for watch in self.watches:
            outside.update(watch.inner.outside_duals())
        x, y = extend_solution(self.full, self.lp, self.state.x, self.state.y, outside)
        d = self.full.cost - self.full.A.T @ y
        return x, y, d

    def observe(self, state: DualState) -> None:
        """A round's point and duals (after every family priced): its reduced costs and violated rows on the
        full program, and each family's absent parts. The round before is audited first."""
        self.finish()
        self.state = state
        self._x, _, self._d = self._full_point()
        self._violated = self._violated_columns()
        self._absent: dict[str, NDArray[np.int64]] = {}
        self._entered: dict[str, NDArray[np.int64]] = {}
        for w in self.watches:
            name = self.blocks[w.inner.name]
            full = self.full.var_blocks[name]
            present = np.zeros(self.full.num_cols, bool)
            if len(self.lp.var_blocks[name]):
                at = full.find(self.lp.var_blocks[name].index)
                present[at[at >= 0]] = True
            self._absent[w.inner.name] = full.positions[~present[full.positions]]
        self._pending = True

    def entered_by(self, watch: _Watch, cols: int) -> None:
        """What ``watch``'s family added in its commit (columns from ``cols`` on): each part is priced or cut."""
        name = self.blocks[watch.inner.name]
        block = self.lp.var_blocks[name]
        mine = block.positions >= cols
        at = self.full.var_blocks[name].find(block.index[mine]) if mine.any() else np.empty(0, np.int64)
        if (at < 0).any():
            raise FamilyCheckError(f"{self.where}: {watch.inner.name!r} added a part that is not a candidate")
        self.entered += at.size
        self._entered[watch.inner.name] = at
        for col in at:
            if self._d[col] > self.tol or self._violated[col]:
                continue
            raise FamilyCheckError(
                f"{self.where}: family {watch.inner.name!r} added {self.full.col_label(int(col))}, whose reduced "
                f"cost in the full program is {self._d[col]:.6g} <= tol and whose rows the point satisfies: "
                "its pricing over-estimates reduced costs (check the signs of the duals)"
            )

    def finish(self) -> None:
        """Audit the last observed round: every absent part that stayed out is within its family's bound."""
        if not getattr(self, "_pending", False):
            return
        self._pending = False
        self.rounds += 1
        for watch in self.watches:
            assert watch.priced is not None
            name = watch.inner.name
            stay = np.setdiff1d(self._absent[name], self._entered.get(name, np.empty(0, np.int64)))
            claim = max(watch.priced.max_reduced_cost, self.tol)
            worst = float(self._d[stay].max(initial=-np.inf))
            if worst > claim + self.tol:
                col = int(stay[np.argmax(self._d[stay])])
                raise FamilyCheckError(
                    f"{self.where}: family {name!r} bounds the reduced costs of the parts it leaves out by "
                    f"{watch.priced.max_reduced_cost:.6g}, but {self.full.col_label(col)} has {worst:.6g} in "
                    "the full program: its pricing under-estimates reduced costs"
                )

    def _violated_columns(self) -> NDArray[np.bool_]:
        """Columns of the full program with a row that the round's point (extended by zeros) violates."""
        act = self.full.A @ self._x
        bad = (act < self.full.row_lower - self.tol) | (act > self.full.row_upper + self.tol)
        return np.asarray((self.full.A[np.flatnonzero(bad)] != 0).sum(axis=0)).ravel() > 0


def check_parts(
    make_parts: MakeParts,
    sizes: Sequence[int] = (2, 3, 4, 5),
    per_size: int = 4,
    seed: int = 0,
    base: str = "single-flow",
    tol: float = 1e-6,
) -> KitReport:
    """Run the kit's checks (module docstring) on ``per_size`` random sentences of each length in
    ``sizes`` (multiple and single root alternating; about a fifth of the arcs pruned), with the families
    ``make_parts(arc_scores, single_root, rng)`` returns. Raises :class:`FamilyCheckError` at the first
    failure, naming the sentence, the path, the tree, row or part; returns a :class:`KitReport` of what it
    checked."""
    report = KitReport()
    for s, single_root, where, rng in _sentences(sizes, per_size, seed):
        _check_sentence(
            _Case(s, single_root, list(make_parts(s, single_root, rng)), base, tol, where), report
        )
    return report


def _check_sentence(case: _Case, report: KitReport) -> None:
    """Every check of :func:`check_parts` on one sentence, counted in ``report``."""
    from lpparse.families.base import tree_scores

    trees = _tree_parts(case)
    _check_counts(case, trees)
    full = _full_program(case)
    _check_candidates(case, full)
    report.trees += _check_rows(case, full, trees)
    best = float(tree_scores(case.s, case.parts, trees.trees).max())
    lp = HighsModel(full.prog.lp).solve()
    if lp.status is Status.INFEASIBLE and np.isneginf(best):
        report.notes.append(f"{case.where}: every tree holds a pruned part; the LP is infeasible")
        return
    _check_bounds(case, full.prog.lp, lp, best, "brute force")
    report.fractional += not lp.integral
    report.lean += _check_lean(case, full, trees, lp.objective, best)
    report.cuts += _check_cuts(case, full, trees, lp.objective, best)
    _check_run(case, full.prog.lp, lp.objective, report)
    _check_nodes(case, full.prog, lp, report)
    report.sentences += 1


def _check_bounds(case: _Case, program: LinearProgram, lp: Solution, best: float, what: str) -> None:
    """``lp``, the LP of ``program`` (``what`` it is), was solved and is >= the best tree, and the ILP of
    ``program`` equals the best tree: the rows say "tree", nothing more, nothing less."""
    if not lp.certified:
        raise FamilyCheckError(f"{case.where}: {what}: the LP was not solved ({lp.status.value})")
    if lp.objective < best - case.tol * (1 + abs(best)):
        raise FamilyCheckError(
            f"{case.where}: {what}: LP value {lp.objective:.9g} < best tree {best:.9g}: not a relaxation"
        )
    mip = HighsModel(program, mip=True).solve()
    if mip.status is not Status.OPTIMAL or not case.close(mip.objective, best):
        raise FamilyCheckError(
            f"{case.where}: {what}: ILP value {mip.objective:.9g} ({mip.status.value}) != best tree "
            f"{best:.9g}: the rows do not describe the trees exactly"
        )


def _check_lean(case: _Case, full: _Program, trees: _TreeParts, value: float, best: float) -> int:
    """Brute force as ``auto`` and exact decoding bind it (``Binding.implied_rows`` False: a family may leave
    out rows that its other rows imply): its rows hold on every tree, its LP is the full program's ``value``
    (what it leaves out is implied) and its ILP the ``best`` tree. Returns 1 when its program differs from
    the full one (0: nothing to check)."""
    lean = _full_program(case, implied_rows=False)
    if _same_program(lean.prog.lp, full.prog.lp):
        return 0
    what = "brute force without implied rows (Binding.implied_rows False, as auto and exact decoding bind it)"
    _check_rows(case, lean, trees)
    lp = HighsModel(lean.prog.lp).solve()
    if lp.certified and not case.close(lp.objective, value):
        raise FamilyCheckError(
            f"{case.where}: {what}: LP value {lp.objective:.9g}, but {value:.9g} with every row: a row it "
            "leaves out is not implied by the others"
        )
    _check_bounds(case, lean.prog.lp, lp, best, what)
    return 1


def _check_cuts(case: _Case, full: _Program, trees: _TreeParts, value: float, best: float) -> int:
    """Exact decoding's cuts (``Parts.for_exact``: :func:`lpparse.families.base.exact_parts`), separated on
    brute force's program until none is violated: every tree satisfies every cut, and the LP with them lies
    between the ``best`` tree and the full LP's ``value``. Returns the cut rows checked (0: no family has
    cuts, or none was violated)."""
    from lpparse.families.base import exact_parts

    parts = exact_parts(case.parts)
    if all(mine is theirs for mine, theirs in zip(parts, case.parts)):
        return 0
    cut = _full_program(case, parts=parts, seed=False)
    first = full.prog.lp.num_rows  # what the cut families seed: the full program's rows
    run = Engine(cut.prog.lp, cut.families, ColgenOptions()).run()
    what = "brute force with exact decoding's cuts (Parts.for_exact)"
    if run.status is not Status.OPTIMAL:
        raise FamilyCheckError(f"{case.where}: {what} ended {run.status.value}")
    _check_rows(case, cut, trees, first)
    got = run.solution.objective
    if got > value + case.tol * (1 + abs(value)) or got < best - case.tol * (1 + abs(best)):
        raise FamilyCheckError(
            f"{case.where}: {what}: LP value {got:.9g} outside [best tree {best:.9g}, full LP {value:.9g}]"
        )
    return cut.prog.lp.num_rows - first


def _check_run(
    case: _Case,
    full: LinearProgram,
    value: float,
    report: KitReport,
    warm: Mapping[str, Warm] | None = None,
    implied_rows: bool = True,
) -> None:
    """A parse-price-cut run of the case's families (from the ``warm`` starts when given, bound with
    ``implied_rows``), watched round by round (:class:`_Auditor`), then its certificate checked on the
    ``full`` program and its value against the full LP's ``value``."""
    from lpparse.families.base import Binding, clean_tree
    from lpparse.families.grandparent.rows import arc_program
    from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
    from lpparse.ppc.certificate import certify_full

    s, single_root, where = case.s, case.single_root, case.where
    prog = arc_program(s, single_root, case.base)
    tree = chu_liu_edmonds(s, single_root=single_root)
    warm = warm or {}
    options = ColgenOptions()
    families = [p.bind(Binding(prog, s, tree, options, warm.get(p.name), implied_rows)) for p in case.parts]
    start = clean_tree(s, single_root, tree, families)
    for family in families:
        family.tree = start
    auditor = _Auditor(prog.lp, full, case.parts, case.tol, where)
    auditor.watches = [_Watch(f, auditor) for f in families]
    run = Engine(prog.lp, auditor.watches, options).run()  # type: ignore[arg-type]
    auditor.finish()
    report.rounds += auditor.rounds
    report.entered += auditor.entered
    if run.status is not Status.OPTIMAL or run.certificate is None or not run.certificate.ok:
        raise FamilyCheckError(f"{where}: parse-price-cut ended {run.status.value}, not certified")
    outside: dict[str, Any] = {}
    for family in families:
        outside.update(family.outside_duals())
    sol: Solution = run.solution
    assert sol.x is not None and run.row_dual is not None
    cert = certify_full(full, prog.lp, sol.x, run.row_dual, case.tol, outside)
    if not cert.ok:
        raise FamilyCheckError(f"{where}: the run's certificate fails on the full program: {cert}")
    if not case.close(sol.objective, value):
        raise FamilyCheckError(f"{where}: parse-price-cut {sol.objective:.9g} != full LP {value:.9g}")


def _children(prog: Any, x: NDArray[np.float64]) -> list[tuple[NDArray[np.bool_], str]]:
    """The root's two children as exact search branches on an arc (:mod:`lpparse.exact.search`): the most
    fractional arc h→m of the LP point ``x`` (among modifiers with another candidate head) kept as m's only
    head, and left out."""
    mask = prog.arc_mask
    shared = mask & (mask.sum(axis=0) > 1)[None, :]
    if not shared.any():
        return []
    z = prog.arc_values(x)
    h, m = np.unravel_index(np.argmax(np.where(shared, np.abs(z - np.round(z)), -1.0)), mask.shape)
    keep, drop = mask.copy(), mask.copy()
    keep[:, m] = False
    keep[h, m] = True
    drop[h, m] = False
    return [(keep, f"node {h}→{m} kept"), (drop, f"node {h}→{m} left out")]


def _check_nodes(case: _Case, prog: Any, lp: Solution, report: KitReport) -> None:
    """Exact decoding's paths below the root, on the root's two children (:func:`_children`): parse-price-cut
    from the root's parts and score caches (``Warm``, bound as ``auto`` binds it), audited as the root's run;
    and, when every family is ``live``, the node's LP as bound changes on the root's restricted master
    (:class:`lpparse.exact.live.LiveMaster`: the first child on a fork, the last on the master itself). Each
    must end certified with the node's full LP value (brute force over its arcs)."""
    from lpparse.exact.live import LiveMaster
    from lpparse.ppc.loop import solve_lp
    from lpparse.trees import tree_problem

    live = LiveMaster.supports(case.parts)
    root = solve_lp(case.s, case.parts, "ppc", case.single_root, case.base, keep_master=live)
    warm = {name: family.warm() for name, family in root.families.items()}
    master = None
    if live:
        assert isinstance(root.master, HighsModel)
        master = LiveMaster.adopt(root, root.master, case.s, case.single_root, ColgenOptions(cuts=False))
    assert lp.x is not None
    children = _children(prog, lp.x)
    for i, (mask, what) in enumerate(children):
        if tree_problem(mask, case.single_root) is not None:
            continue
        node = case.node(mask, what)
        full = _full_program(node).prog.lp
        node_lp = HighsModel(full).solve()
        if not node_lp.certified:  # every tree of the node holds a pruned part
            continue
        _check_run(node, full, node_lp.objective, report, warm, implied_rows=False)
        report.nodes += 1
        if master is not None:
            on = master if i == len(children) - 1 else master.fork()
            report.live += _check_live(node, on.solve(mask, None), node_lp.objective)


def _check_live(node: _Case, result: Any, value: float) -> int:
    """A node's LP solved on a live master (``result``; None: no tree without pruned parts to start from, so
    exact search solves it on a program of its own) is certified with its full LP's ``value``. Returns 1 when
    checked."""
    if result is None:
        return 0
    what = "on a live master (bound changes on its parent's master, lpparse.exact.live)"
    if result.status is not Status.OPTIMAL or result.certificate is None or not result.certificate.ok:
        raise FamilyCheckError(
            f"{node.where}: {what}: the node's LP ended {result.status.value}, not certified"
        )
    if not node.close(result.solution.objective, value):
        raise FamilyCheckError(
            f"{node.where}: {what}: the node's LP is {result.solution.objective:.9g}, its full LP (brute "
            f"force over its arcs) {value:.9g}"
        )
    return 1


def check_exact(
    make_parts: MakeParts,
    sizes: Sequence[int] = (4, 5, 6),
    per_size: int = 4,
    seed: int = 0,
    tol: float = 1e-6,
) -> KitReport:
    """Exact decoding of ``per_size`` random sentences of each length in ``sizes`` (as :func:`check_parts`'s)
    with the families ``make_parts(arc_scores, single_root, rng)`` returns, parse-price-cut at every node
    (module docstring): the search must end OPTIMAL and certified by its own records (``verify=False``: what
    its nodes' certificates claim), its tree must score brute force's best, and its proof must pass
    :func:`lpparse.proofs.check.check_proof`. Raises :class:`FamilyCheckError` naming the sentence; returns the
    nodes solved and the searches that branched (those whose root LP is fractional)."""
    from lpparse.exact.search import ExactOptions, exact_search
    from lpparse.families.base import exact_parts, tree_scores
    from lpparse.proofs.check import check_proof

    report = KitReport()
    options = ExactOptions(method="ppc", verify=False)
    for s, single_root, where, rng in _sentences(sizes, per_size, seed):
        parts = list(make_parts(s, single_root, rng))
        trees = list(_trees(s, single_root))
        best = float(tree_scores(s, parts, trees).max())
        if np.isneginf(best):
            report.notes.append(f"{where}: every tree holds a pruned part")
            continue
        result = exact_search(s, parts, single_root, options=options)
        report.nodes += result.stats.nodes
        report.branched += len(result.nodes) > 1
        report.fractional += not result.stats.root_integral
        if not result.certified:
            raise FamilyCheckError(f"{where}: exact search ended {result.status.value}, not certified")
        if abs(result.objective - best) > tol * (1 + abs(best)):
            raise FamilyCheckError(
                f"{where}: exact search certified tree {result.heads.tolist()} scoring "
                f"{result.objective:.9g}, but the best tree scores {best:.9g}: its nodes' certificates trust "
                "pricing that misses parts"
            )
        problem = check_proof(s, exact_parts(parts), result, single_root)
        if problem is not None:
            raise FamilyCheckError(
                f"{where}: exact search's proof fails the standalone check ({problem}): a node's bound holds "
                "only for the parts its pricing looked at"
            )
        report.sentences += 1
    return report


def check_rows(
    make: Callable[[NDArray[np.float64], bool], tuple[LinearProgram, PartFamily]],
    make_full: Callable[[NDArray[np.float64], bool], LinearProgram],
    sizes: Sequence[int] = (2, 3, 4, 5),
    per_size: int = 4,
    seed: int = 0,
    tol: float = 1e-6,
) -> KitReport:
    """The kit for a family that only separates rows over the arcs (such as cycle cuts): ``make`` gives a
    sentence's restricted program and its family, ``make_full`` the program with every row of the family
    (the same columns). On random small sentences: every tree satisfies every row of the full program; the
    engine's run ends certified; its point satisfies every row of the full program (separation missed none;
    absent rows keep dual 0, so the certificate extends); its value is the full LP's; the full ILP's value is
    the best tree's. Raises :class:`FamilyCheckError`; returns what it checked."""
    from lpparse.formulations.arborescence import arc_matrix

    report = KitReport()
    for s, single_root, where, _ in _sentences(sizes, per_size, seed):
        lp, family = make(s, single_root)
        full = make_full(s, single_root)
        arcs = full.var_blocks["z"]
        if len(arcs) != full.num_cols:
            raise FamilyCheckError(f"{where}: check_rows needs a program of arc columns only")
        trees = list(_trees(s, single_root))
        best = -np.inf
        for heads in trees:
            x = np.zeros(full.num_cols)
            x[arcs.find(np.column_stack([heads[1:], np.arange(1, heads.size)]))] = 1.0
            act = full.A @ x
            bad = np.flatnonzero((act < full.row_lower - tol) | (act > full.row_upper + tol))
            if bad.size:
                raise FamilyCheckError(
                    f"{where}: tree {heads.tolist()} violates row {full.row_label(int(bad[0]))}"
                )
            best = max(best, float(full.cost @ x))
        report.trees += len(trees)
        run = Engine(lp, [family], ColgenOptions()).run()
        report.rounds += run.iterations
        if run.status is not Status.OPTIMAL or run.certificate is None or not run.certificate.ok:
            raise FamilyCheckError(f"{where}: the run ended {run.status.value}, not certified")
        assert run.solution.x is not None
        zm = arc_matrix(lp, run.solution.x)  # type: ignore[arg-type]
        x = zm[arcs.index[:, 0], arcs.index[:, 1]]
        act = full.A @ x
        bad = np.flatnonzero((act < full.row_lower - tol) | (act > full.row_upper + tol))
        if bad.size:
            raise FamilyCheckError(
                f"{where}: the run's point violates {full.row_label(int(bad[0]))}: separation missed it"
            )
        value = HighsModel(full).solve()
        if abs(value.objective - run.solution.objective) > tol * (1 + abs(value.objective)):
            raise FamilyCheckError(
                f"{where}: run {run.solution.objective:.9g} != full LP {value.objective:.9g}"
            )
        report.fractional += not value.integral
        mip = HighsModel(full, mip=True).solve()
        if abs(mip.objective - best) > tol * (1 + abs(best)):
            raise FamilyCheckError(f"{where}: full ILP {mip.objective:.9g} != best tree {best:.9g}")
        report.sentences += 1
    return report
