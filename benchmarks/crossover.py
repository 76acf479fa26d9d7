"""Where parse-price-cut starts to beat brute force: PPC and BF (Riedel, Smith & McCallum 2012, §4 and §6)
time per sentence on the dev sets with trained models, for the threshold of
:func:`lpparse.ppc.solve_second_order` on the number of candidate second-order parts
(:data:`lpparse.ppc.loop.BF_BELOW_PARTS`, :func:`lpparse.ppc.candidate_parts`). With ``--siblings`` the
grandparent + sibling models (``-2s``) and their sibling parts; with ``--prune`` the arcs that the first-order
model's posteriors keep (:mod:`lpparse.pruning`; the model's own without a ``-1`` model).

For every length 1..``--max-n`` it samples up to ``--per-length`` dev sentences of each treebank and times
PPC and BF on the ``all`` LP back to back, each the best of ``--repeats`` runs on fresh counted part
scorers (scoring parts and building the LPs included, feature extraction not). The thresholds, on the length
and on the candidate parts, are those that minimize the total time of "BF below it, PPC from it on" over
every sampled sentence; the tables give the PPC/BF time ratio by length and by part count. Run on one core: ``taskset -c 0 python benchmarks/crossover.py``. Writes
``benchmarks/results/crossover.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.corpus import read_treebank
from lpparse.experiments.grandparent_tables import load_model
from lpparse.ppc import PPCResult, candidate_parts, parse_price_cut, second_order_parts, solve_bf
from lpparse.pruning import ArcPruning, prune_arcs
from lpparse.scoring.model import Model, SentenceScorer
from lpparse.table import markdown_table

sys.path.insert(0, str(Path(__file__).parent))
from ppc import MULTI_ROOT, dev_files, run_header, score_source, treebank_parser, write_results

HEADERS = ("n", "sentences", "PPC ms", "BF ms", "PPC / BF", "PPC faster")
PART_HEADERS = ("candidate parts", "sentences", "PPC ms", "BF ms", "PPC / BF", "PPC faster")
PART_BINS = (0, 250, 500, 1000, 1500, 2000, 2500, 3000, 4000, 6000, 10**9)


def best_time(
    solve: Callable[..., PPCResult],
    arcs: NDArray[np.float64],
    scorer: SentenceScorer,
    single_root: bool,
    siblings: bool,
    repeats: int,
) -> tuple[float, PPCResult]:
    """The shortest of ``repeats`` runs of ``solve`` on the ``all`` LP, each with fresh part scorers, and the
    last result."""
    times = []
    for _ in range(repeats):
        triples, sibs = scorer.triples(), scorer.siblings() if siblings else None
        start = time.perf_counter()
        result = solve(arcs, triples, "all", single_root, sibling_scorer=sibs)
        times.append(time.perf_counter() - start)
    return min(times), result


def run_treebank(path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    name = path.parent.name
    stem = args.models / f"{name}-2s.npz"
    if args.siblings:
        if not stem.exists():
            raise SystemExit(f"{name}: no {stem}")
        model = load_model(str(stem))
    else:
        source = score_source(name, args.models)
        if source.model is None:
            raise SystemExit(f"{name}: no trained grandparent model in {args.models}")
        model = load_model(source.model)
    pruner = args.models / f"{name}-1.npz"
    first = Model.load(pruner) if args.prune and pruner.exists() else None
    single_root = name not in MULTI_ROOT
    sentences = read_treebank(path)
    rng = np.random.default_rng(0)
    records = []
    for n in range(1, args.max_n + 1):
        idx = [i for i, s in enumerate(sentences) if s.n == n]
        for i in rng.permutation(idx)[: args.per_length]:
            scorer = model.scorer(sentences[i])
            arcs = scorer.arc_scores()
            if args.prune:
                own = first.scorer(sentences[i]).arc_scores() if first is not None else None
                arcs, _ = prune_arcs(arcs, ArcPruning(), single_root, own)
            sibs = scorer.siblings() if args.siblings else None
            ppc_s, ppc = best_time(parse_price_cut, arcs, scorer, single_root, args.siblings, args.repeats)
            bf_s, bf = best_time(solve_bf, arcs, scorer, single_root, args.siblings, args.repeats)
            same = abs(ppc.objective - bf.objective) <= 1e-6 * (1 + abs(bf.objective))
            if not (ppc.certified and bf.certified and same):
                raise RuntimeError(f"{name} #{i}: PPC and BF disagree or are not certified")
            parts = candidate_parts(arcs, second_order_parts(scorer.triples(), "all", sibs), single_root)
            records.append(
                {"treebank": name, "sentence": int(i), "n": n, "parts": parts, "ppc": ppc_s, "bf": bf_s}
            )
    return records


def threshold(records: list[dict[str, Any]], key: str) -> tuple[int, float]:
    """The value t of ``key`` (``n`` or ``parts``) minimizing the total time of BF on the sentences below t
    and PPC on the others, and that total."""
    value = np.array([r[key] for r in records])
    ppc, bf = np.array([r["ppc"] for r in records]), np.array([r["bf"] for r in records])
    candidates = np.unique(np.r_[value, value.max() + 1])
    totals = [float(np.where(value < t, bf, ppc).sum()) for t in candidates]
    best = int(np.argmin(totals))
    return int(candidates[best]), totals[best]


def _row(label: Any, at: list[dict[str, Any]]) -> list[Any]:
    ppc, bf = sum(r["ppc"] for r in at), sum(r["bf"] for r in at)
    faster = sum(r["ppc"] < r["bf"] for r in at)
    return [label, len(at), 1000 * ppc / len(at), 1000 * bf / len(at), ppc / bf, f"{faster}/{len(at)}"]


def by_parts(records: list[dict[str, Any]]) -> list[list[Any]]:
    rows = []
    for lo, hi in zip(PART_BINS, PART_BINS[1:]):
        at = [r for r in records if lo <= r["parts"] < hi]
        if at:
            rows.append(_row(f"{lo}-{hi - 1}" if hi < PART_BINS[-1] else f"{lo}+", at))
    return rows


def by_length(records: list[dict[str, Any]], max_n: int) -> list[list[Any]]:
    return [_row(n, at) for n in range(1, max_n + 1) if (at := [r for r in records if r["n"] == n])]


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "crossover")
    parser.add_argument("--max-n", type=int, default=20, help="longest sentence length measured")
    parser.add_argument("--per-length", type=int, default=4, help="sentences per length and treebank")
    parser.add_argument("--repeats", type=int, default=3, help="runs per method and sentence (best kept)")
    parser.add_argument("--siblings", action="store_true", help="grandparent + sibling models (-2s) and parts")
    parser.add_argument("--prune", action="store_true", help="prune arcs by first-order posteriors first")
    args = parser.parse_args()
    records = [r for path in dev_files(args) for r in run_treebank(path, args)]
    t, total = threshold(records, "n")
    t_parts, total_parts = threshold(records, "parts")
    ppc, bf = sum(r["ppc"] for r in records), sum(r["bf"] for r in records)
    result = {**run_header("crossover.py"), "threshold": t, "parts_threshold": t_parts, "records": records}
    rows = by_length(records, args.max_n)
    kind = "grandparent + sibling" if args.siblings else "grandparent"
    treebanks = sorted({r["treebank"] for r in records})
    text = "\n".join(
        [
            "# PPC against BF by sentence length: the length threshold of solve_second_order",
            "",
            __doc__.split("\n\n")[1],
            "",
            f"Command: `{result['command']}`",
            "",
            (
                f"Treebanks: {', '.join(treebanks)} (trained {kind} models, preset all"
                f"{', arcs pruned by first-order posteriors' if args.prune else ''}). "
                f"{len(records)} sentences of 1-{args.max_n} tokens."
            ),
            "",
            markdown_table(HEADERS, rows, digits=2),
            "",
            markdown_table(PART_HEADERS, by_parts(records), digits=2),
            "",
            (
                f"Cheapest thresholds: **BF below {t} tokens** ({total:.2f} s in all) and **BF below {t_parts} "
                f"candidate parts** ({total_parts:.2f} s), against {ppc:.2f} s with PPC alone and {bf:.2f} s "
                "with BF alone."
            ),
        ]
    )
    write_results(result, args.out, text + "\n")


if __name__ == "__main__":
    main()
