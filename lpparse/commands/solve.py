"""``lpparse solve``: an arborescence LP/ILP formulation on a treebank, certified and checked against CLE."""

from __future__ import annotations

import argparse
from pathlib import Path

from lpparse.commands._common import (
    SCORES_HELP,
    noisy_treebank,
    noisy_treebank_options,
    score_file_treebank,
)
from lpparse.formulations.arborescence import FORMULATIONS, solve_arborescence
from lpparse.io import atomic_path, output_path
from lpparse.lp.views import VIEWS, make_model
from lpparse.options import Command, Option, positive_float
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.table import markdown_table
from lpparse.trees import tree_score


def model_file(text: str) -> Path:
    """An argparse ``type``: a path ending in a format both views write (.lp or .mps)."""
    path = Path(text)
    if path.suffix.lower() not in (".lp", ".mps"):
        raise argparse.ArgumentTypeError(f"{text}: the file name must end in .lp or .mps")
    return path


COMMAND = Command(
    "solve",
    help="solve an arborescence LP/ILP per sentence and check it against Chu-Liu-Edmonds",
    description=(
        "Scores every sentence of a treebank (gold arcs plus seeded Gaussian noise, or the arc scores of "
        "--scores), builds the chosen "
        "arborescence formulation (single-commodity flow of Riedel, Smith & McCallum 2012 §3.1, exact "
        "multi-commodity flow, or Riedel & Clarke 2006 cycle cuts by row generation), solves its LP "
        "relaxation (or the ILP with --ilp) in the HiGHS or Pyomo view, and reports per sentence and in "
        "total: value, integrality, lpparse's own optimality certificate, and agreement with the "
        "Chu-Liu-Edmonds optimum."
    ),
    options=(
        *noisy_treebank_options(noise=1.0),
        Option("--scores", type=Path, metavar="FILE", help=f"{SCORES_HELP}; replaces --noise and --seed"),
        Option(
            "--formulation", choices=sorted(FORMULATIONS), default="single-flow", help="default single-flow"
        ),
        Option("--ilp", action="store_true", help="solve the integer program instead of the LP relaxation"),
        Option("--view", choices=VIEWS, default="highs", help="highs (highspy, fast) or pyomo (appsi_highs)"),
        Option("--time-limit", type=positive_float, default=None, help="seconds per solve"),
        Option(
            "--write-lp",
            type=model_file,
            default=None,
            metavar="FILE",
            help="write the first sentence's model, by extension in LP (.lp) or MPS (.mps) format, with symbolic "
            "names (cycle-cuts: without cuts)",
        ),
        Option("--quiet", action="store_true", help="print only the totals"),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def run(args: argparse.Namespace) -> int:
    if args.write_lp is not None:
        output_path(args.write_lp, "--write-lp")
    path, scored = score_file_treebank(args) if args.scores else noisy_treebank(args)
    sentences = [sentence for sentence, _ in scored]
    rows, certified, integral, agree, seconds, gap = [], 0, 0, 0, 0.0, 0.0
    for number, (sentence, scores) in enumerate(scored, 1):
        if args.write_lp is not None and number == 1:
            lp = FORMULATIONS[args.formulation](scores, args.single_root)
            with atomic_path(args.write_lp) as temporary:
                make_model(lp, view=args.view, mip=args.ilp).write(temporary)
            print(f"wrote {args.write_lp} ({lp})")
        best = tree_score(scores, chu_liu_edmonds(scores, single_root=args.single_root))
        sol = solve_arborescence(
            scores,
            args.formulation,
            mip=args.ilp,
            single_root=args.single_root,
            view=args.view,
            time_limit=args.time_limit,
        )
        same = sol.certified and abs(sol.objective - best) <= 1e-6 * (1 + abs(best))
        certified += sol.certified
        integral += sol.certified and sol.integral
        agree += same
        seconds += sol.time
        gap += sol.objective - best if sol.certified else 0.0
        rows.append(
            [
                number,
                sentence.n,
                sol.status.value,
                sol.objective,
                best,
                "yes" if sol.integral else "no",
                "yes" if sol.certified else "NO",
                "yes" if same else "no",
                1000 * sol.time,
            ]
        )
    kind = "ILP" if args.ilp else "LP"
    roots = "single-root" if args.single_root else "multi-root"
    source = f"score file {args.scores}"
    if not args.scores:
        source = f"noisy-gold scores (noise {args.noise}, seed {args.seed})"
    print(
        f"{path.name}: {len(sentences)} sentences; {args.formulation} {kind}, {args.view} view, {roots}; "
        f"{source}\n"
    )
    if not args.quiet:
        headers = ["sent", "n", "status", "value", "CLE value", "integral", "certified", "= CLE", "solve ms"]
        print(markdown_table(headers, rows, digits=4) + "\n")
    total = len(sentences)
    print(
        f"total: certified {certified}/{total}, integral {integral}/{total}, value = CLE {agree}/{total}, "
        f"mean LP - CLE {gap / max(certified, 1):.4g}, "
        f"solve time {seconds:.3f} s ({1000 * seconds / total:.2f} ms/sent)"
    )
    return 0 if certified == total else 1
