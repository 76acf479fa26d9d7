"""``lpparse experiment ppc|bounds``: the tables of Riedel, Smith & McCallum (2012) on a treebank, over every
part family of the model or score file, resumable, on local processes or a Dask cluster."""

from __future__ import annotations

import argparse
import csv

from lpparse.commands._common import report_failures, scored_run, scored_run_options
from lpparse.experiments.grandparent_tables import EXPERIMENTS, summarize
from lpparse.experiments.runner import Task, run_tasks
from lpparse.io import atomic_write
from lpparse.options import Command, Option, positive_float
from lpparse.table import markdown_table

DESCRIPTIONS = {
    "ppc": (
        "Table 1: parse-price-cut against brute force on the full LP of every part family (grandparents: all "
        "four constraint families), and exact decoding"
    ),
    "bounds": (
        "Table 2: the outer bounds martins (ArcGP+GPArc), onegp (OneGP+NoGP) and all; with siblings their "
        "presets; with sibling or consecutive-sibling parts the single- against the multi-commodity flow "
        "polytope; without PPC"
    ),
}


COMMAND = Command(
    "experiment",
    help="run the paper's experiments (Table 1: ppc, Table 2: bounds) on a treebank, every part family",
    description=(
        "Runs one experiment sentence by sentence. Each result is appended to a JSONL file as soon as it "
        "is in, so a killed run started again with the same --out resumes where it stopped (the file's "
        "header holds the settings; a run with other settings is refused, and sentences that failed or "
        "hit the time limit are computed again). Prints and writes (next to the JSONL, as .md and .csv) "
        "the paper's table overall, for sentences of 20+ tokens and by length bucket."
    ),
    options=(
        Option(
            "name", choices=sorted(EXPERIMENTS), help="; ".join(f"{k}: {v}" for k, v in DESCRIPTIONS.items())
        ),
        *scored_run_options("results JSONL (default: results/NAME-TREEBANK.jsonl)"),
        Option("--time-limit", type=positive_float, default=None, help="seconds per LP run (default: none)"),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def run(args: argparse.Namespace) -> int:
    run_ = scored_run(args, args.name, every_family=True, summary=True)
    path, source, single_root, out = run_.path, run_.source, run_.single_root, run_.out
    tasks = [
        Task(
            f"{i}:{s.sent_id}",
            {
                "sentence": s,
                "position": run_.positions[i],
                "source": source,
                "seed": args.seed + i,
                "single_root": single_root,
                "time_limit": args.time_limit,
            },
        )
        for i, s in enumerate(run_.sentences)
    ]
    records = run_tasks(
        EXPERIMENTS[args.name],
        tasks,
        out,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        desc=args.name,
        settings=run_.settings,
    )
    records, failed = report_failures(records, out)
    rows = summarize(args.name, records)
    headers = list(rows[0])
    table = markdown_table(headers, [[r[h] for h in headers] for r in rows], digits=3)
    roots = "single-root" if single_root else "multi-root"
    title = f"{DESCRIPTIONS[args.name]}\n\n{path.name}, {len(records)} sentences, {roots}; scores: {source.describe()}"
    with atomic_write(out.with_suffix(".md")) as handle:
        handle.write(f"# {args.name}\n\n{title}\n\n{table}\n")
    with atomic_write(out.with_suffix(".csv"), newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=headers)
        writer.writeheader()
        writer.writerows(rows)
    print(f"{title}\nresults: {out} (+ .md, .csv)\n\n{table}")
    uncertified = sum(not r[m]["certified"] for r in records for m in r if isinstance(r[m], dict))
    if uncertified:
        print(f"\n{uncertified} run(s) were not certified optimal (time limit or solver trouble): see {out}")
    return 0 if not (failed or uncertified) else 1
