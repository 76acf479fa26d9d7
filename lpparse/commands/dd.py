"""``lpparse dd``: dependency dual decomposition (Chu-Liu-Edmonds + grandparent head automata, Koo et al.
2010) per sentence of a treebank, resumable, with the Table-1 summary of Rush et al. (2010)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from lpparse.commands._common import ScoredRun, report_failures, scored_run, scored_run_options
from lpparse.dd.core import STEP_RULES
from lpparse.experiments.dd_table import bucket_table, dd_task, from_dict
from lpparse.experiments.grandparent_tables import pooled_uas
from lpparse.experiments.runner import Task, run_tasks
from lpparse.options import Command, Option, positive_float, positive_int, ranged
from lpparse.table import markdown_table

COMMAND = Command(
    "dd",
    help="dependency dual decomposition: certificates per sentence by iteration (Rush et al. 2010)",
    description=(
        "Runs dual decomposition between Chu-Liu-Edmonds and one grandparent head automaton per head "
        "(Koo et al. 2010) on every selected sentence, with a trained grandparent model, a score file or "
        "synthetic scores. Each sentence's record (certificate iteration, dual and primal traces, best "
        "tree, and with --compare-lp the compact LP's value and time from HiGHS) is appended to a JSONL "
        "file as soon as it is in, so a killed run started again with the same --out resumes. Prints the "
        "percentage of sentences certified per iteration bucket (Rush et al. 2010 Table 1)."
    ),
    options=(
        *scored_run_options("results JSONL (default: results/dd-TREEBANK.jsonl)"),
        Option("--max-iter", type=positive_int, default=200, help="iteration limit K (default 200)"),
        Option("--step", choices=STEP_RULES, default="tut", help="step-size rule (default tut: c/(t+1))"),
        Option("--scale", type=positive_float, default=1.0, help="step-size scale c (default 1.0)"),
        Option(
            "--arc-share",
            type=ranged(float, 0, high=1),
            default=0.5,
            help="share of each arc score given to the head automata (default 0.5; same LP, earlier agreement)",
        ),
        Option("--compare-lp", action="store_true", help="also solve each compact LP with HiGHS"),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def run(args: argparse.Namespace) -> int:
    run_ = scored_run(args, "dd")
    options = {
        "max_iter": args.max_iter,
        "step": args.step,
        "scale": args.scale,
        "compare_lp": args.compare_lp,
        "arc_share": args.arc_share,
    }
    common = {"source": run_.source, "single_root": run_.single_root, **options}
    tasks = [
        Task(
            f"{i}:{s.sent_id}",
            {"sentence": s, "position": run_.positions[i], "seed": args.seed + i, **common},
        )
        for i, s in enumerate(run_.sentences)
    ]
    records = run_tasks(
        dd_task,
        tasks,
        run_.out,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        desc="dd",
        settings={**run_.settings, **options},
    )
    records, failed = report_failures(records, run_.out)
    print(_summary(args, run_, records))
    return 1 if failed else 0


def _summary(args: argparse.Namespace, run_: ScoredRun, records: list[dict[str, Any]]) -> str:
    """The run's settings, the Table-1 buckets of certificates by iteration, and the totals (with
    --compare-lp, how the compact LP compares)."""
    runs = [from_dict(r) for r in records]
    buckets = bucket_table(runs, args.max_iter)
    table = markdown_table([b for b, _ in buckets], [[p for _, p in buckets]], digits=1)
    roots = "single-root" if run_.single_root else "multi-root"
    lines = [
        (
            f"Dependency DD (CLE + grandparent head automata), {run_.path.name}, {len(runs)} sentences, {roots}; "
            f"scores: {run_.source.describe()}; step {args.step} (scale {args.scale:g}), K = {args.max_iter}, "
            f"arc share {args.arc_share:g}"
        ),
        f"results: {run_.out}",
        "",
        "% of sentences certified at an iteration in each bucket (** = not by K; Rush et al. 2010, Table 1):",
        "",
        table,
        "",
        (
            f"certified {100 * np.mean([r.certified for r in runs]):.1f}%, median DD seconds "
            f"{np.median([r.dd_seconds for r in runs]):.3f}, mean UAS of the best tree "
            f"{pooled_uas(records):.1f}"
        ),
    ]
    if args.compare_lp:
        with_lp = [r for r in runs if r.lp_value is not None]
        match = sum(abs(r.dd_bound - r.lp_value) <= 1e-6 * max(1.0, abs(r.lp_value)) for r in with_lp)
        lines.append(
            f"compact LP (HiGHS): solved {len(with_lp)}/{len(runs)}, tight "
            f"{sum(bool(r.lp_integral) for r in with_lp)}, min dual = LP on {match}, median seconds "
            f"{np.median([r.lp_seconds for r in with_lp]) if with_lp else float('nan'):.3f}"
        )
    return "\n".join(lines)
