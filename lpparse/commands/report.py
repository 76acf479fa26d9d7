"""``lpparse report``: plots and a Markdown page from experiment results."""

from __future__ import annotations

import argparse
from pathlib import Path

from lpparse.io import output_path, readable_file
from lpparse.options import Command, Option

COMMAND = Command(
    "report",
    help="write plots and a Markdown report from 'lpparse experiment' results",
    description=(
        "Reads results files of 'lpparse experiment ppc' or 'bounds', of 'lpparse dd', or a BP sweep "
        "(benchmarks/results/bp.sweep.*.json), and writes a Markdown page with the tables and PNG plots "
        "beside it: time against length (BF and PPC, log scale), triples scored and added, objective "
        "agreement and PPC iterations; the fraction of integral solutions and time per outer bound; DD "
        "certificate curves and dual-gap traces; BP UAS against iterations per training objective."
    ),
    options=(
        Option("results", nargs="+", type=Path, help="results file(s): JSONL, or a BP sweep JSON"),
        Option(
            "--out",
            type=Path,
            default=Path("report/report.md"),
            help="Markdown file (default report/report.md)",
        ),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def run(args: argparse.Namespace) -> int:
    from lpparse.experiments.report import write_report  # matplotlib is imported only when reporting

    results = [readable_file(path, "results file") for path in args.results]
    out = write_report(results, output_path(args.out, "--out", args.results))
    print(f"wrote {out} and its plots")
    return 0
