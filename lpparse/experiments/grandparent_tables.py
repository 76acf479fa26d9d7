"""The experiments of Riedel, Smith & McCallum (2012, §6), over every part family the scores have
(grandparent triples, arbitrary siblings, consecutive siblings):

* **Table 1** (``ppc``): per sentence, the full LP of every family solved by brute force (BF: every part
  scored and instantiated) against parse-price-cut (PPC), grandparents with all four constraint families,
  and exact decoding (:func:`lpparse.exact.search.exact_search`), which closes the fractional ones; parts
  scored and added relative to BF, per family;
* **Table 2** (``bounds``): per sentence, the full LP under each outer bound (:func:`relaxations`): the
  grandparent presets ``martins`` (ArcGP+GPArc), ``onegp`` (OneGP+NoGP) and ``all``, the arbitrary-sibling
  presets, and the arborescence polytope under every family (``single-flow`` against ``multi-flow``: for
  consecutive siblings, whose head-automaton polytope is exact per automaton, the base is where the bound
  can tighten; :mod:`lpparse.families.consecutive.rows`), without PPC.

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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.options import ColgenOptions
from lpparse.corpus import Sentence, sentence_uas
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families import binding_order, family_parts
from lpparse.families.base import Parts
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.io import UsageError
from lpparse.lp.solution import Status
from lpparse.ppc.loop import PPCResult, project_to_tree, solve_lp
from lpparse.proofcheck import sentence_scorers
from lpparse.proofs.search_tree import ExactResult
from lpparse.scores import ScoreFile, load_scores, noisy_gold_scores
from lpparse.scoring.model import Model
from lpparse.triples import TripleScorer, noisy_gold_triple_scorer

__all__ = [
    "BUCKETS",
    "EXPERIMENTS",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "ScoreSource",
    "bound_labels",
    "bounds_task",
    "load_model",
    "open_scores",
    "pooled_uas",
    "ppc_task",
    "relaxations",
    "sentence_parts",
    "sentence_scores",
    "source_families",
    "summarize",
]

PRESETS = ("martins", "onegp", "all")
#: Table 2's arbitrary-sibling presets (:data:`lpparse.families.sibling.rows.SIBLING_PRESETS`) and bases
SIBLING_RELAXATIONS = ("martins", "all")
BASES = ("single-flow", "multi-flow")
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


def source_families(source: ScoreSource) -> list[str]:
    """The part families a source scores, by name, in :func:`sentence_parts`'s order (with the windows that
    tri- and grand-siblings of a score file are bound on)."""
    if source.scores is not None:
        return binding_order(open_scores(source.scores).part_names())
    if source.model is not None:
        return binding_order(load_model(source.model).part_names())
    return [GrandparentParts.name]


def sentence_parts(
    sentence: Sentence, source: ScoreSource, seed: int, position: int | None = None
) -> tuple[NDArray[np.float64], dict[str, Any]]:
    """Arc scores and, by family name, a counted scorer of each part family the source has for one sentence
    (a model or a score file, the sentence at ``position`` in it: :func:`lpparse.proofcheck.sentence_scorers`;
    noisy gold scores: grandparent triples)."""
    if source.scores is not None or source.model is not None:
        if source.scores is not None and position is None:
            raise ValueError("a score file needs the sentence's position in it")
        held = open_scores(source.scores) if source.scores is not None else load_model(source.model)
        arcs, scorers = sentence_scorers(held, sentence, position or 0)
        if not scorers:
            raise ValueError(f"{source.scores} has arc scores only")
        return arcs, scorers
    rng = np.random.default_rng(seed)
    arcs = noisy_gold_scores(sentence.heads, noise=source.noise, rng=rng)
    triples = noisy_gold_triple_scorer(
        sentence.heads, noise=source.gp_noise, bonus=source.gp_bonus, rng=rng, slack=source.gp_slack
    )
    return arcs, {GrandparentParts.name: triples}


def sentence_scores(
    sentence: Sentence, source: ScoreSource, seed: int, position: int | None = None
) -> tuple[NDArray[np.float64], TripleScorer]:
    """Arc scores and the counted triple scorer of one sentence (:func:`sentence_parts`; the source must
    have grandparent scores)."""
    arcs, scorers = sentence_parts(sentence, source, seed, position)
    if GrandparentParts.name not in scorers:
        raise ValueError(f"{source.describe()} has no grandparent scores")
    return arcs, scorers[GrandparentParts.name]


@dataclass(frozen=True)
class Relaxation:
    """One outer bound of Table 2: the grandparent and sibling presets and the arborescence polytope."""

    label: str
    grandparent: str = "all"
    sibling: str = "martins"
    base: str = "single-flow"

    def parts(self, scorers: dict[str, Any]) -> list[Parts]:
        """The families of ``scorers`` (any registered family: :func:`lpparse.families.family_parts`), the
        grandparent and sibling families under this relaxation's presets."""
        n = next(iter(scorers.values())).n
        presets = {GrandparentParts: self.grandparent, SiblingParts: self.sibling}
        return [
            replace(part, preset=presets[type(part)]) if type(part) in presets else part
            for part in family_parts(scorers, n)
        ]


#: Table 1's LP: grandparents with all four constraint families, the decoders' sibling preset
FULL = Relaxation("all")


def relaxations(families: Sequence[str]) -> list[Relaxation]:
    """Table 2's outer bounds for the part families ``families``, each once: with grandparents their three
    presets (the paper's Table 2), with arbitrary siblings theirs (:data:`SIBLING_RELAXATIONS`, the
    grandparents at ``all``), and with any family besides grandparents the tightest presets on the
    ``single-flow`` and on the ``multi-flow`` arborescence polytope."""
    out: list[Relaxation] = []
    if GrandparentParts.name in families:
        out += [Relaxation(p, grandparent=p) for p in PRESETS]
    if SiblingParts.name in families:
        out += [Relaxation(f"sibling {p}", sibling=p) for p in SIBLING_RELAXATIONS]
    if set(families) - {GrandparentParts.name}:
        tightest = SIBLING_RELAXATIONS[-1]
        out += [Relaxation(base, "all", tightest, base) for base in BASES]
    seen: set[tuple[str, ...]] = set()
    unique = []
    for r in out:  # one run per distinct LP: a preset of a family the scores lack changes nothing
        key = (
            r.grandparent if GrandparentParts.name in families else "",
            r.sibling if SiblingParts.name in families else "",
            r.base,
        )
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return unique


#: Table 2's columns in this order (labels of :func:`relaxations`)
ORDER = (*PRESETS, *(f"sibling {p}" for p in SIBLING_RELAXATIONS), *BASES)


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


def _run(payload: dict[str, Any], methods: Sequence[tuple[str, str, Relaxation | None]]) -> dict[str, Any]:
    """One record: per (label, method, relaxation), the run on freshly scored parts (``relaxation`` None:
    the ones of Table 2 for the sentence's families, by their labels)."""
    sentence: Sentence = payload["sentence"]
    source: ScoreSource = payload["source"]
    single_root: bool = payload["single_root"]
    limit = payload.get("time_limit")
    record: dict[str, Any] = {"sent_id": sentence.sent_id, "n": sentence.n}
    for label, method, relaxation in methods:
        arcs, scorers = sentence_parts(sentence, source, payload["seed"], payload.get("position"))
        assert relaxation is not None
        parts = relaxation.parts(scorers)
        if method == "exact":
            result = exact_search(arcs, parts, single_root, limit, ExactOptions(base=relaxation.base))
            record[label] = _exact_record(sentence, result)
        else:
            options = ColgenOptions(time_limit=limit)
            result = solve_lp(arcs, parts, method, single_root, relaxation.base, options)
            record[label] = _record(sentence, result, single_root)
        if result.status is Status.TIME_LIMIT:
            record["time_limited"] = True  # computed again by the next run on the results file
    return record


def ppc_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Table 1 for one sentence: BF and PPC on the full LP of every family of the scores (:data:`FULL`), and
    exact decoding (:func:`lpparse.exact.search.exact_search`: PPC, then branch and bound where the LP optimum
    is fractional).

    ``payload``: sentence, source (:class:`ScoreSource`), seed, single_root, optional time_limit and
    position (the sentence's in a score file).
    """
    return _run(payload, (("bf", "bf", FULL), ("ppc", "ppc", FULL), ("exact", "exact", FULL)))


def bounds_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Table 2 for one sentence: the full LP (BF) under each outer bound of :func:`relaxations` for the
    families of the scores (no PPC)."""
    families = source_families(payload["source"])
    return _run(payload, tuple((r.label, "bf", r) for r in relaxations(families)))


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
        **_family_cells(bf, ppc),
        "objective = BF": f"{same}/{len(records)}",
        "% integral BF": 100 * _ratio(sum(b["integral"] for b in bf), len(bf)),
        "% integral PPC": 100 * _ratio(sum(p["integral"] for p in ppc), len(ppc)),
        "UAS PPC": pooled_uas(ppc),
        "PPC iterations": statistics.fmean(p["iterations"] for p in ppc),
        **_exact_cells([r["exact"] for r in records if "exact" in r]),
    }


def family_counts(run: dict[str, Any]) -> dict[str, dict[str, int]]:
    """A run's counts per part family (``parts``; records written before lpparse counted families by name
    hold grandparent counts only, as ``gps_scored`` and ``gps_added``)."""
    if "parts" in run:
        return run["parts"]
    return {GrandparentParts.name: {"scored": run["gps_scored"], "added": run["gps_added"]}}


def _family_cells(bf: list[dict[str, Any]], ppc: list[dict[str, Any]]) -> dict[str, float]:
    """Parts scored and added by PPC relative to BF, per family (and over all, with more than one)."""
    names = list(dict.fromkeys(name for run in bf for name in family_counts(run)))
    cells = {}
    for name in names + (["parts"] if len(names) > 1 else []):
        chosen = names if name == "parts" else [name]
        for what in ("scored", "added"):
            total = [
                sum(sum(family_counts(r).get(f, {}).get(what, 0) for f in chosen) for r in runs)
                for runs in (bf, ppc)
            ]
            cells[f"{name} {what} rel. BF"] = _ratio(total[1], total[0])
    return cells


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


#: Table 2's order checks: a relaxation's bound is at most those of the looser ones (None: every other)
TIGHTER: dict[str, tuple[str, ...] | None] = {
    "all": ("martins", "onegp"),
    "sibling all": ("sibling martins",),
    "multi-flow": None,
}


def bound_labels(record: dict[str, Any]) -> list[str]:
    """The outer bounds a Table 2 record holds, in :data:`ORDER` (others last)."""
    labels = [k for k, v in record.items() if isinstance(v, dict)]
    return sorted(labels, key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER))


def _at_most(a: float, b: float) -> bool:
    return a <= b + 1e-6 * (1 + abs(b))


def _table2_row(label: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"sentences": label, "count": len(records)}
    labels = bound_labels(records[0])
    base = sum(r[labels[0]]["time_total"] for r in records)
    for name in labels:
        runs = [r[name] for r in records]
        row[f"{name} speed rel. {labels[0]}"] = _ratio(base, sum(x["time_total"] for x in runs))
        row[f"{name} % integral"] = 100 * _ratio(sum(x["integral"] for x in runs), len(runs))
        row[f"{name} UAS"] = pooled_uas(runs)
    for tight, looser in TIGHTER.items():
        others = [x for x in (looser or labels) if x != tight and x in labels]
        if tight in labels and others:
            held = sum(
                _at_most(r[tight]["objective"], min(r[x]["objective"] for x in others)) for r in records
            )
            row[f"{tight} <= {', '.join(others)}"] = f"{held}/{len(records)}"
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
