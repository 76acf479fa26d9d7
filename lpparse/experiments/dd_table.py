"""Rush et al. 2010 Table 1 for dependency dual decomposition (Koo et al. 2010 head automata +
Chu-Liu-Edmonds): % of sentences certified per iteration bucket, and the time to a certificate against solving
the compact LP (:mod:`lpparse.dd.compact`) with HiGHS and against parse-price-cut on the same model.

Scores come from a trained grandparent model (:mod:`lpparse.scoring`) or, without one, from noisy-gold arc
scores plus a synthetic grandparent scorer (:func:`lpparse.triples.synthetic_triple_scorer`); the report
says which. :func:`dd_task` is the per-sentence task of ``lpparse dd`` (resumable through
:func:`lpparse.experiments.runner.run_tasks`), with the scores of ``lpparse experiment``
(:func:`~lpparse.experiments.grandparent_tables.sentence_scores`) and the dual and primal traces.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np

from lpparse.corpus import Sentence, sentence_uas
from lpparse.dd.compact import compact_lp
from lpparse.dd.core import StepRule, dual_decomposition
from lpparse.dd.problems import dependency
from lpparse.experiments.grandparent_tables import ScoreSource, sentence_scores
from lpparse.lp.views import make_model
from lpparse.scores import noisy_gold_scores
from lpparse.triples import DenseTripleScorer, TripleScorer, synthetic_triple_scorer

__all__ = [
    "BUCKETS",
    "DDSettings",
    "SentenceRun",
    "as_dicts",
    "bucket_table",
    "dd_task",
    "from_dict",
    "run_sentence",
    "run_treebank",
]

#: Iteration buckets of Rush et al. 2010 Table 1 (erratum E8 of the DD reading note: "20-50" read as 21-50),
#: extended past K = 50.
BUCKETS = (
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 4),
    (5, 10),
    (11, 20),
    (21, 50),
    (51, 100),
    (101, 200),
    (201, 500),
    (501, 1000),
)


@dataclass
class SentenceRun:
    n: int
    certified: bool
    iterations: int
    dd_seconds: float  #: building the problem (scoring every triple) plus the subgradient run
    dd_objective: float  #: best primal (the certified optimum when certified)
    dd_bound: float  #: min dual
    lp_value: float | None = None
    lp_integral: bool | None = None
    lp_seconds: float | None = None  #: build + HiGHS solve of the compact LP
    ppc_objective: float | None = None
    ppc_seconds: float | None = None
    ppc_triples: int | None = None
    dd_triples: int = 0
    dual: list[float] = field(default_factory=list)  #: L(u(k−1)) per iteration k (with ``traces``)
    primal: list[float] = field(default_factory=list)  #: the round's tree objective per iteration
    heads: list[int] = field(default_factory=list)  #: the best primal tree (with ``traces``)


@dataclass(frozen=True)
class DDSettings:
    """How :func:`run_sentence` runs DD on a sentence: at most ``max_iter`` iterations of the ``step`` rule,
    ``arc_share`` of the arc scores to the head automata; ``lp``: also the compact LP; ``traces``: keep the
    dual and primal per iteration and the best tree."""

    max_iter: int = 200
    step: StepRule = field(default_factory=lambda: StepRule("tut", 1.0))
    lp: bool = True
    arc_share: float = 0.0
    traces: bool = False


def run_sentence(
    arc_scores: np.ndarray,
    triples: TripleScorer,
    single_root: bool,
    settings: DDSettings,
    ppc: TripleScorer | None = None,
) -> SentenceRun:
    """One sentence: DD (always), the compact LP (``settings.lp``), PPC on a fresh scorer ``ppc`` (if given)."""
    n = arc_scores.shape[0] - 1
    before = triples.scored
    start = time.perf_counter()
    problem = dependency(arc_scores, triples, single_root=single_root, arc_share=settings.arc_share)
    r = dual_decomposition(problem, max_iter=settings.max_iter, step=settings.step)
    run = SentenceRun(
        n,
        r.certified,
        r.iterations,
        time.perf_counter() - start,
        r.best_primal,
        r.best_dual,
        dd_triples=triples.scored - before,
    )
    if settings.traces:
        run.dual, run.primal = r.dual.tolist(), r.primal.tolist()
        run.heads = [int(h) for h in r.best_solution]
    if settings.lp:
        start = time.perf_counter()
        c = compact_lp(problem)
        sol = make_model(c.lp).solve()
        run.lp_seconds = time.perf_counter() - start
        run.lp_value = sol.objective if sol.certified else None
        arcs = c.parts(sol.x)[0] if sol.certified else np.zeros(1)
        run.lp_integral = bool(sol.certified and np.allclose(arcs, np.round(arcs), atol=1e-6))
    if ppc is not None:
        from lpparse.decoding import decode

        start = time.perf_counter()
        res = decode("ppc", arc_scores, ppc, single_root)
        run.ppc_seconds = time.perf_counter() - start
        run.ppc_objective = res.objective
        run.ppc_triples = int(res.stats.get("triples_scored", ppc.scored))
    return run


def run_treebank(
    sentences: Sequence[Sentence],
    model_path: str | None = None,
    single_root: bool = False,
    settings: DDSettings | None = None,
    ppc: bool = True,
    seed: int = 0,
    noise: float = 1.0,
) -> tuple[list[SentenceRun], str]:
    """Run every sentence (``settings``: None for the defaults of :class:`DDSettings`); returns the runs and a
    description of the score model."""
    settings = settings or DDSettings()
    rng = np.random.default_rng(seed)
    model = None
    if model_path:
        from lpparse.scoring import Model

        model = Model.load(model_path)
        if model.order != 2:
            raise ValueError(f"{model_path} is a first-order model; dependency DD needs grandparent scores")
        single_root = model.single_root
        described = f"trained grandparent model {model_path} ({'single' if single_root else 'multi'}-root)"
    else:
        described = f"noisy-gold arc scores (gold +1, N(0, {noise}²)) + synthetic normal grandparent scorer (scale 0.5), seed {seed}"
    runs = []
    for s in sentences:
        if model is not None:
            scorer = model.scorer(s)
            arcs, triples = scorer.arc_scores(), scorer.triples()
            fresh = scorer.triples() if ppc else None
        else:
            arcs = noisy_gold_scores(s.heads, noise=noise, rng=rng)
            triples = synthetic_triple_scorer(len(s.heads) - 1, rng, scale=0.5)
            fresh = DenseTripleScorer(triples.scores, triples.slack_gp, triples.slack_pc) if ppc else None
        runs.append(run_sentence(arcs, triples, single_root, settings, fresh))
    return runs, described


def dd_task(payload: dict[str, Any]) -> dict[str, Any]:
    """One sentence of ``lpparse dd``: payload ``sentence``, ``source`` (:class:`ScoreSource`), ``seed``,
    ``single_root``, ``max_iter``, ``step`` and ``scale`` (:class:`StepRule`), ``compare_lp``,
    ``arc_share``, optional ``position`` (the sentence's in a score file).
    The record is a :class:`SentenceRun` with traces, plus ``sent_id`` and the UAS of the
    best tree (``certified_at`` is the certificate's iteration, None without one)."""
    sentence: Sentence = payload["sentence"]
    source: ScoreSource = payload["source"]
    arcs, triples = sentence_scores(sentence, source, payload["seed"], payload.get("position"))
    step = StepRule(payload["step"], payload["scale"])
    settings = DDSettings(payload["max_iter"], step, payload["compare_lp"], payload["arc_share"], traces=True)
    run = run_sentence(arcs, triples, payload["single_root"], settings)
    uas = sentence_uas(sentence, np.asarray(run.heads))
    return {
        "sent_id": sentence.sent_id,
        **asdict(run),
        "certified_at": run.iterations if run.certified else None,
        "uas_correct": uas.correct_no_punct,
        "uas_total": uas.total_no_punct,
    }


def from_dict(record: dict[str, Any]) -> SentenceRun:
    """The :class:`SentenceRun` of a record (extra fields such as ``key`` are dropped)."""
    return SentenceRun(**{f.name: record[f.name] for f in fields(SentenceRun) if f.name in record})


def bucket_table(runs: Sequence[SentenceRun], max_iter: int) -> list[tuple[str, float]]:
    """(bucket, % of sentences certified at an iteration in it); the last row ``**`` is uncertified."""
    its = np.array([r.iterations for r in runs if r.certified])
    rows = [
        (
            f"{lo}" if lo == hi else f"{lo}-{hi}",
            100.0 * float(np.sum((its >= lo) & (its <= hi))) / max(len(runs), 1),
        )
        for lo, hi in BUCKETS
        if lo <= max_iter
    ]
    rows.append(("**", 100.0 * sum(not r.certified for r in runs) / max(len(runs), 1)))
    return rows


def as_dicts(runs: Sequence[SentenceRun]) -> list[dict]:
    return [asdict(r) for r in runs]
