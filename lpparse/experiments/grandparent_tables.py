"""The grandparent experiments of Riedel, Smith & McCallum (2012, §6):

* **Table 1** (``ppc``): per sentence, the full grandparent LP solved by brute force (BF: every triple scored
  and instantiated) against parse-price-cut (PPC), both with all four constraint families, and exact
  decoding (:func:`lpparse.ppc.exact.parse_exact`), which closes the fractional ones;
* **Table 2** (``bounds``): per sentence, the full LP under each outer bound — ``martins`` (ArcGP+GPArc),
  ``onegp`` (OneGP+NoGP) and ``all`` — without PPC.

A task scores one sentence with a trained model file, a score file (:func:`lpparse.scores.load_scores`, the
sentence at the task's ``position``) or a synthetic stand-in (noisy-gold arc and triple scores, seeded by
the task) and returns one JSON record; :func:`summarize` turns records
into the paper's tables, overall and by length bucket.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.corpus import Sentence, sentence_uas
from lpparse.io import UsageError
from lpparse.lp.solution import Status
from lpparse.ppc.exact import ExactResult, parse_exact
from lpparse.ppc.loop import PPCResult, parse_price_cut, project_to_tree, solve_bf
from lpparse.scores import ScoreFile, load_scores, noisy_gold_scores
from lpparse.scoring.model import Model
from lpparse.triples import TripleScorer, noisy_gold_triple_scorer

__all__ = [
    "BUCKETS",
    "EXPERIMENTS",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "ScoreSource",
    "bounds_task",
    "load_model",
    "open_scores",
    "pooled_uas",
    "ppc_task",
    "sentence_scores",
    "summarize",
]

PRESETS = ("martins", "onegp", "all")
BUCKETS = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 10_000))

#: Paper 001, Table 1 (test sets, CoNLL-X/2007 data): PPC relative to BF.
PAPER_TABLE1 = {
    "Italian": {"speed": 7.6, "scored": 0.06, "added": 0.05, "integral": 0.98, "uas": 0.88},
    "Hungarian": {"speed": 3.8, "scored": 0.12, "added": 0.07, "integral": 0.97, "uas": 0.81},
    "Danish": {"speed": 3.9, "scored": 0.13, "added": 0.07, "integral": 0.97, "uas": 0.88},
}
#: Paper 001, Table 2: speed relative to ``martins``, % integral, UAS.
PAPER_TABLE2 = {
    "Italian": {"martins": (1.0, 0.77, 0.87), "onegp": (10.0, 0.09, 0.85), "all": (12.0, 0.98, 0.88)},
    "Hungarian": {"martins": (1.0, 0.71, 0.80), "onegp": (1.62, 0.03, 0.77), "all": (1.05, 0.97, 0.81)},
}


@dataclass(frozen=True)
class ScoreSource:
    """Where scores come from: a trained model file, a score file (``scores``), or (neither) the synthetic
    stand-in."""

    model: str | None = None
    scores: str | None = None
    noise: float = 0.4
    gp_noise: float = 0.4
    gp_bonus: float = 0.5
    gp_slack: float = 0.5

    def describe(self) -> str:
        if self.model is not None:  # the file's name: a report names no machine's folders
            return f"trained model {Path(self.model).name}"
        if self.scores is not None:
            return f"score file {Path(self.scores).name}"
        return (
            f"synthetic: noisy-gold arcs (gold +1, noise {self.noise}) and grandparent triples (gold "
            f"+{self.gp_bonus}, noise {self.gp_noise}), bound slack U(0, {self.gp_slack})"
        )


@functools.lru_cache(maxsize=4)
def load_model(path: str) -> Model:
    """A grandparent model file, loaded once per process (tasks on a worker share it)."""
    model = Model.load(path)
    if model.order != 2:
        raise UsageError(f"{path}: a grandparent (order 2) model is needed, this one is first-order")
    return model


@functools.lru_cache(maxsize=4)
def open_scores(path: str) -> ScoreFile:
    """A score file, opened once per process and not validated again (the command did before any work)."""
    return load_scores(path, validate=False)


def sentence_scores(
    sentence: Sentence, source: ScoreSource, seed: int, position: int | None = None
) -> tuple[NDArray[np.float64], TripleScorer]:
    """Arc scores and a counted triple scorer for one sentence (with a score file: the sentence at
    ``position`` in it, which must have grandparent scores)."""
    if source.scores is not None:
        if position is None:
            raise ValueError("a score file needs the sentence's position in it")
        entry = open_scores(source.scores)[position]
        triples = entry.triples()
        if triples is None:
            raise ValueError(f"{source.scores} has no grandparent scores")
        return entry.arc_scores(), triples
    if source.model is not None:
        scorer = load_model(source.model).scorer(sentence)
        return scorer.arc_scores(), scorer.triples()
    rng = np.random.default_rng(seed)
    arcs = noisy_gold_scores(sentence.heads, noise=source.noise, rng=rng)
    triples = noisy_gold_triple_scorer(
        sentence.heads, noise=source.gp_noise, bonus=source.gp_bonus, rng=rng, slack=source.gp_slack
    )
    return arcs, triples


def _record(sentence: Sentence, result: PPCResult, single_root: bool) -> dict[str, Any]:
    out = result.stats.as_dict()
    out.update(status=result.status.value, certified=result.certified)
    if result.certified:
        out.update(_uas_counts(sentence, project_to_tree(result, single_root)))
    return out


def _uas_counts(sentence: Sentence, heads: NDArray[np.int64]) -> dict[str, int]:
    """Correct heads and scored tokens without punctuation: summed over sentences, never averaged (a sentence
    of punctuation alone has none, and its UAS is undefined)."""
    uas = sentence_uas(sentence, heads)
    return {"uas_correct": uas.correct_no_punct, "uas_total": uas.total_no_punct}


def pooled_uas(runs: Sequence[dict[str, Any]]) -> float:
    """100 x correct heads / scored tokens (no punctuation) over the runs that counted them; NaN when none
    scored a token."""
    total = sum(r.get("uas_total", 0) for r in runs)
    return 100 * sum(r.get("uas_correct", 0) for r in runs) / total if total else math.nan


def _exact_record(sentence: Sentence, result: ExactResult) -> dict[str, Any]:
    out = result.stats.as_dict()
    out.update(
        status=result.status.value,
        certified=result.certified,
        objective=result.objective,
        bound=result.bound,
    )
    if result.heads is not None:
        out.update(_uas_counts(sentence, result.heads))
    return out


def _run(payload: dict[str, Any], methods: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    sentence: Sentence = payload["sentence"]
    source: ScoreSource = payload["source"]
    single_root: bool = payload["single_root"]
    record: dict[str, Any] = {"sent_id": sentence.sent_id, "n": sentence.n}
    for label, method, preset in methods:
        arcs, triples = sentence_scores(sentence, source, payload["seed"], payload.get("position"))
        limit = payload.get("time_limit")
        if method == "exact":
            result = parse_exact(arcs, triples, preset, single_root, limit)
            record[label] = _exact_record(sentence, result)
        else:
            solve = parse_price_cut if method == "ppc" else solve_bf
            result = solve(arcs, triples, preset, single_root, time_limit=limit)
            record[label] = _record(sentence, result, single_root)
        if result.status is Status.TIME_LIMIT:
            record["time_limited"] = True  # computed again by the next run on the results file
    return record


def ppc_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Table 1 for one sentence: BF and PPC on the full (``all``) grandparent LP, and exact decoding
    (:func:`lpparse.ppc.exact.parse_exact`: PPC, then branch and bound where the LP optimum is fractional).

    ``payload``: sentence, source (:class:`ScoreSource`), seed, single_root, optional time_limit and
    position (the sentence's in a score file).
    """
    return _run(payload, (("bf", "bf", "all"), ("ppc", "ppc", "all"), ("exact", "exact", "all")))


def bounds_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Table 2 for one sentence: the full LP under each outer bound (no PPC)."""
    return _run(payload, tuple((preset, "bf", preset) for preset in PRESETS))


EXPERIMENTS = {"ppc": ppc_task, "bounds": bounds_task}


def _bucket(n: int) -> str:
    for lo, hi in BUCKETS:
        if lo <= n <= hi:
            return f"{lo}-{hi}" if hi < 10_000 else f"{lo}+"
    raise ValueError(f"sentence length {n} outside every bucket")


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


def _table1_row(label: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    bf = [r["bf"] for r in records]
    ppc = [r["ppc"] for r in records]
    both = [(b, p) for b, p in zip(bf, ppc) if b["certified"] and p["certified"]]
    same = sum(abs(b["objective"] - p["objective"]) <= 1e-6 * (1 + abs(b["objective"])) for b, p in both)
    speedups = [b["time_total"] / p["time_total"] for b, p in zip(bf, ppc) if p["time_total"] > 0]
    time_bf, time_ppc = sum(b["time_total"] for b in bf), sum(p["time_total"] for p in ppc)
    return {
        "sentences": label,
        "count": len(records),
        "BF sent/s": _ratio(len(bf), time_bf),
        "PPC sent/s": _ratio(len(ppc), time_ppc),
        "speed rel. BF": _ratio(time_bf, time_ppc),
        "median speed-up": statistics.median(speedups) if speedups else math.nan,
        "GPs scored rel. BF": _ratio(sum(p["gps_scored"] for p in ppc), sum(b["gps_scored"] for b in bf)),
        "GPs added rel. BF": _ratio(sum(p["gps_added"] for p in ppc), sum(b["gps_added"] for b in bf)),
        "objective = BF": f"{same}/{len(records)}",
        "% integral BF": 100 * _ratio(sum(b["integral"] for b in bf), len(bf)),
        "% integral PPC": 100 * _ratio(sum(p["integral"] for p in ppc), len(ppc)),
        "UAS PPC": pooled_uas(ppc),
        "PPC iterations": statistics.fmean(p["iterations"] for p in ppc),
        **_exact_cells([r["exact"] for r in records if "exact" in r]),
    }


def _exact_cells(exact: list[dict[str, Any]]) -> dict[str, Any]:
    """Table 1's exact-decoding columns: % integral at the root LP, % of the fractional ones closed (certified
    optimal) by branch and bound, the time of that stage (branching and heuristics) and UAS."""
    if not exact:
        return {}
    fractional = [e for e in exact if not e["root_integral"]]
    stage = [e["time_total"] - e["time_root"] for e in fractional]
    return {
        "% integral root": 100 * _ratio(sum(e["root_integral"] for e in exact), len(exact)),
        "% closed by exact": 100 * _ratio(sum(e["certified"] for e in fractional), len(fractional)),
        "exact stage s (median/mean/max)": (
            f"{statistics.median(stage):.3f}/{statistics.fmean(stage):.3f}/{max(stage):.3f}" if stage else "-"
        ),
        "exact certified": f"{sum(e['certified'] for e in exact)}/{len(exact)}",
        "UAS exact": pooled_uas(exact),
    }


def _table2_row(label: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"sentences": label, "count": len(records)}
    base = sum(r["martins"]["time_total"] for r in records)
    for preset in PRESETS:
        runs = [r[preset] for r in records]
        row[f"{preset} speed rel. martins"] = _ratio(base, sum(x["time_total"] for x in runs))
        row[f"{preset} % integral"] = 100 * _ratio(sum(x["integral"] for x in runs), len(runs))
        row[f"{preset} UAS"] = pooled_uas(runs)
    row["all <= martins, onegp"] = (
        f"{sum(r['all']['objective'] <= min(r['martins']['objective'], r['onegp']['objective']) + 1e-6 for r in records)}"
        f"/{len(records)}"
    )
    return row


def summarize(experiment: str, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of the paper's table for ``experiment`` (``ppc``: Table 1, ``bounds``: Table 2): all sentences,
    sentences of 20+ tokens, then each length bucket."""
    row = {"ppc": _table1_row, "bounds": _table2_row}[experiment]
    records = list(records)
    if not records:
        raise ValueError("no results to summarize")
    groups: list[tuple[str, list[dict[str, Any]]]] = [("all", records)]
    long = [r for r in records if r["n"] >= 20]
    if long:
        groups.append(("n >= 20", long))
    for lo, hi in BUCKETS:
        members = [r for r in records if lo <= r["n"] <= hi]
        if members:
            groups.append((_bucket(lo), members))
    return [row(label, members) for label, members in groups]
