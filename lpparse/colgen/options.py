"""Options of the column-and-row generation engine, as one dataclass, and the defaults of the pricing devices
of the grandparent family (:class:`lpparse.families.grandparent.family.GrandparentParts`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from lpparse.colgen.purge import Purge
from lpparse.lp.solution import TOL

__all__ = [
    "BF_HIGHS_OPTIONS",
    "BF_MASTER",
    "DEFAULT_MASTER",
    "DEFER",
    "RELEASE",
    "DEGENERATE_MASTER",
    "DEGENERATE_STALL_ROWS",
    "ENGINE_FIELDS",
    "HIGHS_OPTIONS",
    "INITS",
    "PER_PAIR",
    "SEED_HEADS",
    "STALL_ROWS",
    "ColgenOptions",
    "MasterSettings",
]

#: HiGHS options for PPC and BF alike: devex pricing in the dual simplex (PPC 12% faster on the Danish dev
#: set) and no scaling (the matrix is 0/±1 with flow coefficients n; measured on Danish and Hungarian sentences
#: of 20-40 tokens, CPU time: PPC -20% with fewer rounds and GPs scored, BF -10%, same BF iterations)
HIGHS_OPTIONS: dict[str, object] = {"simplex_dual_edge_weight_strategy": 1, "simplex_scale_strategy": 0}
#: HiGHS options for BF's one cold solve of the full LP: :data:`HIGHS_OPTIONS` without presolve, which
#: costs more than it saves on these programs (HiGHS time, Danish dev, grandparent LPs of 1-12 / 13-19 /
#: 20-30 tokens: 0.56x / 0.58x / 0.61x, the same simplex iterations within 1.5%; grandparent + sibling LPs over
#: pruned arcs: Danish 1-19 tokens 0.71x, Hungarian 20-34 0.86x), and with HiGHS's scaling strategy 1
#: instead of none (HiGHS time, grandparent LPs: Danish 8-15 / 16-24 tokens 0.78x / 0.65x, Hungarian,
#: English, Italian 8-18 tokens 0.67x / 0.65x / 0.67x; grandparent + sibling over pruned arcs: Danish 5-19
#: 0.75x, Hungarian 15-30 0.87x). PPC's masters keep presolve (without it their first solves take twice the
#: iterations: 1.1x the CPU time on 200 Danish sentences) and no scaling (strategy 1: 1.04x, HiGHS's
#: default 1.11x the CPU time on 150 Danish sentences of 16-40 tokens).
BF_HIGHS_OPTIONS: dict[str, object] = {**HIGHS_OPTIONS, "presolve": "off", "simplex_scale_strategy": 1}
#: PPC's warm primal re-solves run without bound perturbation (CPU time on sentences of 20-40 tokens: Danish
#: -15%, Hungarian -30%, hard English sentences -45%) but may stall on degenerate programs without it: after
#: ``STALL_ROWS`` x rows iterations a re-solve continues from where it stopped with the dual simplex, as do
#: the run's later re-solves (measured in :mod:`lpparse.colgen.engine`)
STALL_ROWS = 1.0
#: The stall limit of a degenerate master's primal re-solves (with bound perturbation on). On the longest
#: unpruned dev sentences the primal simplex took up to 18k iterations a re-solve on masters of 50-70k rows:
#: English #194 (75 tokens) 146 s, after its stall 63 s, the dual simplex throughout 53 s; #955 74 s, 69 s,
#: 77 s. On 12 dev sentences of 40-55 tokens (the first three of each dev set), where primal re-solves rarely
#: pass it: 67.2 s against 64.7 s primal throughout, 74.1 s with 0.1, 70.1 s dual throughout (each pair side
#: by side on the two cores).
DEGENERATE_STALL_ROWS = 0.2


@dataclass(frozen=True)
class MasterSettings:
    """How the engine's restricted master re-solves. ``stall_rows``: a warm primal re-solve stops after
    ``stall_rows`` x rows simplex iterations and goes on with the dual simplex, as the run's later re-solves
    (None: HiGHS's defaults, no limit); ``perturbation``: with a ``stall_rows``, whether the primal simplex
    perturbs bounds (HiGHS's default) or not; ``highs_options``: of the HiGHS master the engine builds;
    ``purge``: when columns at 0 leave it (:mod:`lpparse.colgen.purge`; None: never)."""

    stall_rows: float | None
    highs_options: Mapping[str, object]
    purge: Purge | None = None
    perturbation: bool = False


#: The master of grandparent triples (and of most families): :data:`HIGHS_OPTIONS`, :data:`STALL_ROWS`
DEFAULT_MASTER = MasterSettings(STALL_ROWS, HIGHS_OPTIONS)
#: The master of a family whose parts make it far more degenerate (``PartFamily.degenerate_master``:
#: arbitrary siblings, thousands of parts with both arcs at 0): HiGHS's own defaults, bound perturbation on
#: from the start and scaling on. On Danish dev sentences with a grandparent + sibling model: 100 sentences
#: 47 s against 187 s with :data:`DEFAULT_MASTER`'s stall rule (a 58-token sentence: 89k simplex iterations
#: against 448k); scaling on, a 53-token sentence 174 s -> 97 s, the first 100 sentences 142k -> 104k
#: simplex iterations (devex with scaling: 109 s on that sentence; an interior-point master was slower).
#: Purged from 20,000 rows on (:mod:`lpparse.colgen.purge`): unpruned grandparent + sibling models on the
#: longest dev sentences, CPU s with purging against without, Danish #173 25.4 / 40.3, #419 16.2 / 16.4,
#: Italian #6 45.8 / 55.3, #122 21.2 / 32.1, Hungarian #349 37.8 / 55.1, #328 117 / 140, English #955 370 / 415.
#: A primal re-solve that passes :data:`DEGENERATE_STALL_ROWS` x rows iterations goes on, with the rest of the
#: run, by the dual simplex (:mod:`lpparse.colgen.engine`).
DEGENERATE_MASTER = MasterSettings(DEGENERATE_STALL_ROWS, {}, Purge(), perturbation=True)
#: Brute force's one cold solve of the full LP (:data:`BF_HIGHS_OPTIONS`); it never re-solves
BF_MASTER = MasterSettings(None, BF_HIGHS_OPTIONS)
#: Initial ⟨·,h,m⟩ triples for none of the arcs: T's triples alone. With dead arcs out of the master, a small
#: start wins (CPU time vs 2 seed heads, the best before: English dev sentences of 21-30 / 31-40 / 41+ tokens
#: -17% / -15% / -9%, Hungarian 21-30 / 31-40 -16% / -14%, Italian 21-40 -10%, Danish 21-40 +2%; fewer GPs
#: scored and added on all four)
SEED_HEADS = 0
#: Partial pricing: at most 16 new triples per ⟨p,c⟩ a round (and lazy scoring of twice as many first). Against
#: 8, the default until dead arcs and the lazy ArcGP rows made rounds cheap to add columns to, on whole dev sets
#: (trained grandparent models, CPU time, one core, interleaved per sentence after a warm-up of the scorer):
#: Hungarian (every third sentence) -13%, Danish (every second) -4%, English (every fourth) -2%, Italian (every
#: second) even; GPs scored 3.9% -> 4.6%, 1.7% -> 1.8%, 7.1% -> 9.7%, 2.5% -> 3.1%. Pricing every triple
#: (None) was within 3% of 16 either way, scoring more (English 12.0%); exact search's branching sentences
#: (Hungarian, reliability branching) 12.3 s with 16 against 13.8 s priced all and 16.0 s with 8. (The earlier
#: ablation, benchmarks/results/ppc_ablation.md, had "price all" against 8 at 0.92x-1.09x.)
PER_PAIR = 16
#: Hold back priced triples with both arcs at 0 (degenerate pivots) when there are more than DEFER·n of them
#: and others to add (measured on 15 dev sentences of 20-45 tokens, CPU time: English -34% with 2.5x fewer
#: GPs added, Hungarian unchanged; DEFER = 0, always holding them back, costs Hungarian +35% in extra rounds).
DEFER = 8.0
#: When only held-back triples price, the RELEASE·n of highest reduced cost enter, not all: on unpruned
#: grandparent + sibling models a round released 5,800 at once and the next solve took 30 s (Italian dev #122,
#: 62 tokens: 72 s -> 27 s CPU with 8·n; #6: 73 s -> 50 s; Hungarian #328: 266 s -> 140 s; English #955:
#: 474 s -> 415 s). 24·n rather than 8·n, once the sibling family priced first (lpparse.colgen.engine): on
#: those models, ``ppc`` on the first three dev sentences of 40-55 tokens of each dev set, the two run side by
#: side on the two cores, 68.7 s against 78.5 s, fewer rounds on all 12 (66 -> 47 on the slowest Danish one);
#: a grandparent-only model is unaffected (Italian dev, the 60 sentences of 20+ tokens, alternating per
#: sentence: 1.36 s against 1.48 s; 64·n 1.49 s).
RELEASE = 24.0
#: initial triples: ``root`` ⟨0,h,m⟩ (§4.2) or ``tree`` ⟨head_T(h),h,m⟩
INITS = ("root", "tree")


@dataclass(frozen=True)
class ColgenOptions:
    """The options of a column-and-row generation run (:class:`lpparse.colgen.engine.Engine`); a part family's
    own options live with the family (e.g. :class:`lpparse.families.grandparent.family.GrandparentParts`).

    ``tol``: reduced costs and violations above it are priced/cut; ``certificate_tol``: the certificate's
    tolerance (and HiGHS's); ``time_limit``: seconds for the whole run (status TIME_LIMIT; a limit already
    passed stops the run before its first solve); ``max_iterations``: master solves; ``master``: how the
    master re-solves (:class:`MasterSettings`; None: :data:`DEGENERATE_MASTER` when a family says its parts
    make the master degenerate, else :data:`DEFAULT_MASTER`); ``tighten``: families may tighten duals
    (Riedel, Smith & McCallum 2012, §4.3.3, and the duals of absent parts' rows), so that fewer parts enter;
    ``cutoff``: stop (status CUTOFF) at the first round that prices nothing with the restricted LP's value at
    most this, before the families separate: its duals, extended by zeros, are dual feasible for the full LP,
    so its value bounds the full LP (rows still to separate could only lower it). A HiGHS master's dual
    simplex also stops there within a solve, once its basis's bound falls below it
    (:meth:`lpparse.lp.highs_view.HighsModel.set_cutoff`; if the families then price columns, the master is
    solved on to its optimum). A branch-and-bound node whose bound falls to the incumbent needs nothing more
    (:mod:`lpparse.exact.search`). ``purge``: False keeps
    every column in the master whatever its settings say (:mod:`lpparse.colgen.purge`). ``implied_rows``:
    brute force that ``auto`` (or exact decoding) chooses keeps the rows that a family's other rows imply, as
    the ``bf`` decoder always does (the paper's full program); by default it leaves them out, the same LP with
    fewer rows (:class:`lpparse.families.base.Binding`). ``cuts``: families separate their cuts (rows valid for
    every tree but outside the LP the certificate is about, :attr:`lpparse.colgen.family.DualState.cuts`);
    False: only the rows of the LP itself (lazy rows, NoCycle rows), as exact decoding's nodes below the root
    do (:class:`lpparse.exact.search.ExactOptions` ``node_cuts``)."""

    tol: float = 1e-7
    certificate_tol: float = TOL
    time_limit: float | None = None
    max_iterations: int = 1000
    master: MasterSettings | None = None
    tighten: bool = True
    cutoff: float | None = None
    purge: bool = True
    implied_rows: bool = False
    cuts: bool = True

    def __post_init__(self) -> None:
        if self.time_limit is not None and not self.time_limit >= 0:
            raise ValueError(f"time_limit must be >= 0 seconds or None, got {self.time_limit!r}")
        if self.max_iterations < 1:
            raise ValueError(f"max_iterations must be >= 1, got {self.max_iterations!r}")


#: the field names of :class:`ColgenOptions`
ENGINE_FIELDS = frozenset(f.name for f in fields(ColgenOptions))
