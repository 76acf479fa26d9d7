"""Where parse-price-cut starts to beat brute force: PPC and BF (Riedel, Smith & McCallum 2012, §4 and §6)
time per sentence length on the dev sets with the trained grandparent models, for the length threshold of
:func:`lpparse.ppc.solve_second_order` (:data:`lpparse.ppc.loop.BF_BELOW`).

For every length 1..``--max-n`` it samples up to ``--per-length`` dev sentences of each treebank and times
PPC and BF on the ``all`` LP back to back, each the best of ``--repeats`` runs on a fresh counted triple
scorer (scoring triples and building the LPs included, feature extraction not). The threshold is the one that
minimizes the total time of "BF below it, PPC from it on" over every sampled sentence; the table also gives
each length's PPC/BF time ratio. Run on one core: ``taskset -c 0 python benchmarks/crossover.py``. Writes
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
from lpparse.ppc import PPCResult, parse_price_cut, solve_bf
from lpparse.scoring.model import SentenceScorer
from lpparse.table import markdown_table

sys.path.insert(0, str(Path(__file__).parent))
from ppc import MULTI_ROOT, dev_files, run_header, score_source, treebank_parser, write_results

HEADERS = ("n", "sentences", "PPC ms", "BF ms", "PPC / BF", "PPC faster")


def best_time(
    solve: Callable[..., PPCResult],
    arcs: NDArray[np.float64],
    scorer: SentenceScorer,
    single_root: bool,
    repeats: int,
) -> tuple[float, PPCResult]:
    """The shortest of ``repeats`` runs of ``solve`` on the ``all`` LP, each with a fresh triple scorer, and
    the last result."""
    times = []
    for _ in range(repeats):
        triples = scorer.triples()
        start = time.perf_counter()
        result = solve(arcs, triples, "all", single_root)
        times.append(time.perf_counter() - start)
    return min(times), result


def run_treebank(path: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    name = path.parent.name
    source = score_source(name, args.models)
    if source.model is None:
        raise SystemExit(f"{name}: no trained grandparent model in {args.models}")
    model = load_model(source.model)
    single_root = name not in MULTI_ROOT
    sentences = read_treebank(path)
    rng = np.random.default_rng(0)
    records = []
    for n in range(1, args.max_n + 1):
        idx = [i for i, s in enumerate(sentences) if s.n == n]
        for i in rng.permutation(idx)[: args.per_length]:
            scorer = model.scorer(sentences[i])
            arcs = scorer.arc_scores()
            ppc_s, ppc = best_time(parse_price_cut, arcs, scorer, single_root, args.repeats)
            bf_s, bf = best_time(solve_bf, arcs, scorer, single_root, args.repeats)
            same = abs(ppc.objective - bf.objective) <= 1e-6 * (1 + abs(bf.objective))
            if not (ppc.certified and bf.certified and same):
                raise RuntimeError(f"{name} #{i}: PPC and BF disagree or are not certified")
            records.append({"treebank": name, "sentence": int(i), "n": n, "ppc": ppc_s, "bf": bf_s})
    return records


def threshold(records: list[dict[str, Any]], max_n: int) -> tuple[int, float]:
    """The length t (1..max_n+1) minimizing the total time of BF on sentences shorter than t and PPC on the
    others, and that total."""
    n = np.array([r["n"] for r in records])
    ppc, bf = np.array([r["ppc"] for r in records]), np.array([r["bf"] for r in records])
    totals = [float(np.where(n < t, bf, ppc).sum()) for t in range(1, max_n + 2)]
    best = int(np.argmin(totals))
    return best + 1, totals[best]


def by_length(records: list[dict[str, Any]], max_n: int) -> list[list[Any]]:
    rows = []
    for n in range(1, max_n + 1):
        at = [r for r in records if r["n"] == n]
        if at:
            ppc, bf = sum(r["ppc"] for r in at), sum(r["bf"] for r in at)
            faster = sum(r["ppc"] < r["bf"] for r in at)
            rows.append(
                [n, len(at), 1000 * ppc / len(at), 1000 * bf / len(at), ppc / bf, f"{faster}/{len(at)}"]
            )
    return rows


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "crossover")
    parser.add_argument("--max-n", type=int, default=20, help="longest sentence length measured")
    parser.add_argument("--per-length", type=int, default=4, help="sentences per length and treebank")
    parser.add_argument("--repeats", type=int, default=3, help="runs per method and sentence (best kept)")
    args = parser.parse_args()
    records = [r for path in dev_files(args) for r in run_treebank(path, args)]
    t, total = threshold(records, args.max_n)
    ppc, bf = sum(r["ppc"] for r in records), sum(r["bf"] for r in records)
    result = {**run_header("crossover.py"), "threshold": t, "records": records}
    rows = by_length(records, args.max_n)
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
                f"Treebanks: {', '.join(treebanks)} (trained grandparent models, preset all). "
                f"{len(records)} sentences of 1-{args.max_n} tokens."
            ),
            "",
            markdown_table(HEADERS, rows, digits=2),
            "",
            (
                f"Cheapest threshold: **BF below {t} tokens, PPC from {t} on**: {total:.2f} s in all, "
                f"against {ppc:.2f} s with PPC alone and {bf:.2f} s with BF alone."
            ),
        ]
    )
    write_results(result, args.out, text + "\n")


if __name__ == "__main__":
    main()
