"""``lpparse experiment ppc|bounds``: the grandparent tables of Riedel, Smith & McCallum (2012) on a treebank,
resumable, on local processes or a Dask cluster."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from lpparse.commands._common import add_root_options, resolve_single_root
from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.experiments.grandparent_tables import EXPERIMENTS, ScoreSource, _load, summarize
from lpparse.experiments.runner import Task, run_tasks
from lpparse.table import markdown_table

DESCRIPTIONS = {
    "ppc": "Table 1: parse-price-cut against brute force on the full grandparent LP (all four families)",
    "bounds": "Table 2: the outer bounds martins (ArcGP+GPArc), onegp (OneGP+NoGP) and all, without PPC",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="run the paper's grandparent experiments (Table 1: ppc, Table 2: bounds) on a treebank",
        description=(
            "Runs one experiment sentence by sentence. Each result is appended to a JSONL file as soon as it "
            "is in, so a killed run started again with the same --out resumes where it stopped. Prints and "
            "writes (next to the JSONL, as .md and .csv) the paper's table overall, for sentences of 20+ "
            "tokens and by length bucket."
        ),
    )
    parser.add_argument("name", choices=sorted(EXPERIMENTS), help="; ".join(f"{k}: {v}" for k, v in DESCRIPTIONS.items()))
    parser.add_argument("--treebank", type=Path, default=None, help="CoNLL file (default: the shipped sample)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", type=Path, help="grandparent model file from 'lpparse train --order 2'")
    source.add_argument(
        "--synthetic",
        action="store_true",
        help="no model: noisy-gold arc and grandparent scores with loose bounds, seeded per sentence",
    )
    parser.add_argument("--out", type=Path, default=None, help="results JSONL (default: results/NAME-TREEBANK.jsonl)")
    parser.add_argument("--limit", type=int, default=None, help="use only the first LIMIT sentences")
    parser.add_argument("--max-length", type=int, default=None, help="skip sentences longer than this")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the synthetic scores (default 0)")
    add_root_options(parser)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per LP run (default: none)")
    parser.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    parser.add_argument("--scheduler", default=None, help="address of a Dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = args.treebank or sample_treebank_path()
    sentences = read_treebank(path, limit=args.limit, max_length=args.max_length)
    if not sentences:
        raise ValueError(f"{path}: no sentences selected")
    source = ScoreSource(model=str(args.model) if args.model else None)
    single_root = args.single_root
    if source.model is not None:
        model = _load(source.model)  # fail early, with a clear message, on a missing or first-order model
        single_root = model.single_root if single_root is None else single_root
    single_root = resolve_single_root(single_root, sentences)
    out = args.out or Path("results") / f"{args.name}-{path.stem}.jsonl"
    tasks = [
        Task(
            f"{i}:{s.sent_id}",
            {"sentence": s, "source": source, "seed": args.seed + i, "single_root": single_root, "time_limit": args.time_limit},
        )
        for i, s in enumerate(sentences)
    ]
    records = run_tasks(
        EXPERIMENTS[args.name], tasks, out, workers=args.workers, scheduler=args.scheduler,
        progress=not args.no_progress, desc=args.name,
    )
    rows = summarize(args.name, records)
    headers = list(rows[0])
    table = markdown_table(headers, [[r[h] for h in headers] for r in rows], digits=3)
    roots = "single-root" if single_root else "multi-root"
    title = f"{DESCRIPTIONS[args.name]}\n\n{path.name}, {len(records)} sentences, {roots}; scores: {source.describe()}"
    out.with_suffix(".md").write_text(f"# {args.name}\n\n{title}\n\n{table}\n", encoding="utf-8")
    with out.with_suffix(".csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=headers)
        writer.writeheader()
        writer.writerows(rows)
    print(f"{title}\nresults: {out} (+ .md, .csv)\n\n{table}")
    failed = sum(not r[m]["certified"] for r in records for m in r if isinstance(r[m], dict))
    if failed:
        print(f"\n{failed} run(s) were not certified optimal (time limit or solver trouble): see {out}")
    return 0 if not failed else 1
