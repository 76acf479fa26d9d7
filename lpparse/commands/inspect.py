"""``lpparse inspect``: see inside a sentence's LP relaxations, against exact decoding and a generic MIP solver
(:mod:`lpparse.inspect`)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from lpparse.commands._common import SCORES_HELP, SELECTION_OPTIONS
from lpparse.io import UsageError, atomic_write, output_dir, output_path, readable_file
from lpparse.options import (
    PARTS_HELP,
    ROOT_OPTIONS,
    Command,
    OneOf,
    Option,
    part_names,
    positive_float,
    positive_int,
    pruning_group,
    pruning_options,
    resolve_single_root,
)
from lpparse.pruning import decoding_pruning

if TYPE_CHECKING:
    from lpparse.corpus import Sentence
    from lpparse.inspect.report import Inspection
    from lpparse.pruning import ArcPruning
    from lpparse.scores import ScoreFile
    from lpparse.scoring import Model

#: exit status when an inspection found a disagreement or a broken order of bounds (a bug somewhere)
DISAGREEMENT = 3
#: the module that draws the pages (``--html``)
PAGE_MODULE = "lpparse.inspect.page"


COMMAND = Command(
    "inspect",
    help="see inside a sentence's LP relaxations: bounds, fractional parts, binding rows, a cut, a generic "
    "MIP solver's verdict",
    description=(
        "For each sentence and relaxation: the certified LP optimum of every candidate part (brute force), "
        "whether it is integral, its fractional arcs and parts, the rows binding at the optimum with their "
        "duals, the gap to the best tree (exact decoding, with a proof), a valid row that cuts the "
        "fractional point off (lpparse's own rows, else HiGHS's root cuts) and the bound after it, and the "
        "same program solved as a MIP by HiGHS (highspy) and by a Pyomo solver. Relaxations are named "
        "FAMILY:PRESET (grandparent:all|martins|onegp, sibling:martins|all|triangles), base:BASE "
        "(single-flow, multi-flow, cycle-cuts) and cuts (exact decoding's cuts), joined by '+'. Exit "
        f"status {DISAGREEMENT} when a MIP disagrees with the proved tree or the bounds break their order."
    ),
    epilog="Example: lpparse inspect --model gp.npz --treebank dev.conllu --sentence 12 --json out.jsonl",
    options=(
        OneOf(
            (
                Option("--model", type=Path, help="model file written by 'lpparse train' (second order)"),
                Option("--scores", type=Path, metavar="FILE", help=SCORES_HELP),
            ),
            required=True,
        ),
        Option("--treebank", type=Path, required=True, help="treebank (CoNLL-U or CoNLL-X)"),
        OneOf(
            (
                Option(
                    "--sentence",
                    action="append",
                    metavar="ID",
                    help="a sentence by sent_id or 1-based position (repeatable)",
                ),
                Option(
                    "--fractional",
                    type=positive_int,
                    metavar="N",
                    help="the N sentences whose first relaxation has the largest gap to the best tree (among --limit and "
                    "--max-length)",
                ),
            ),
            required=True,
        ),
        Option(
            "--relaxations",
            nargs="+",
            metavar="NAME",
            default=None,
            help="relaxations to compare (default: the families' own presets, each family's other presets, and "
            "exact decoding's cuts), e.g. grandparent:all grandparent:martins base:multi-flow",
        ),
        Option(
            "--mip-time-limit",
            type=positive_float,
            default=60.0,
            metavar="S",
            help="seconds per MIP solve (default 60)",
        ),
        Option(
            "--pyomo-solver",
            default="appsi_highs",
            metavar="NAME",
            help="the Pyomo solver of the MIP check (default appsi_highs; any name Pyomo knows; 'none': no Pyomo run)",
        ),
        Option(
            "--pyomo-every",
            action="store_true",
            help="the Pyomo MIP on every relaxation (default: the first only)",
        ),
        Option("--no-mip", action="store_true", help="no MIP solves (and no HiGHS root cuts)"),
        Option(
            "--exact-time-limit",
            type=positive_float,
            default=None,
            metavar="S",
            help="seconds for exact decoding",
        ),
        Option(
            "--lp-solver",
            choices=("simplex", "ipm"),
            default="simplex",
            help="HiGHS's method for the relaxations' LPs (default simplex; ipm: interior point and crossover, "
            "faster on the degenerate LPs of loose presets such as grandparent:martins)",
        ),
        Option(
            "--write-lp", type=Path, metavar="DIR", help="write each relaxation's program as .mps and .lp"
        ),
        Option("--json", type=Path, metavar="FILE", help="write one JSON line per sentence"),
        Option("--html", type=Path, metavar="DIR", help="write a page per sentence and an index"),
        pruning_group(
            "The LPs, MIPs and exact decoding then see the kept arcs only.",
            "model whose arc scores give the posteriors (default: the pruner a model was trained with, inside its "
            "file, else the model's or score file's own arc scores); a model trained over pruned arcs is inspected "
            "over the arcs it was trained on unless told otherwise, as parse decodes it",
            as_trained=True,
        ),
        Option("--parts", type=part_names, default=None, metavar="NAME[,NAME...]", help=PARTS_HELP),
        *SELECTION_OPTIONS,
        *ROOT_OPTIONS,
        Option("--no-progress", action="store_true", help="hide the progress bar"),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def run(args: argparse.Namespace) -> int:
    from lpparse.inspect.mip import MipOptions
    from lpparse.inspect.relaxations import parse_relaxation
    from lpparse.inspect.sentence import InspectOptions
    from lpparse.inspect.sources import TreebankInspector, find_sentences, load_source

    try:
        relaxations = [parse_relaxation(r) for r in args.relaxations] if args.relaxations else None
    except ValueError as err:
        raise UsageError(f"--relaxations: {err}") from None
    if args.html is not None and importlib.util.find_spec(PAGE_MODULE) is None:
        raise UsageError(f"--html needs {PAGE_MODULE}, which this lpparse does not have yet")
    inputs = (args.treebank, args.model, args.scores, args.pruner)
    out = output_path(args.json, "--json", inputs) if args.json else None
    write_lp = output_dir(args.write_lp, "--write-lp") if args.write_lp is not None else None
    html = output_dir(args.html, "--html") if args.html is not None else None
    source, sentences = load_source(args.treebank, args.model, args.scores)
    single_root, pruning, pruner = _problem(args, source, sentences)
    pyomo = None if args.no_mip or args.pyomo_solver.lower() == "none" else args.pyomo_solver
    mip = MipOptions(
        args.mip_time_limit,
        highs=not args.no_mip,
        pyomo_solver=pyomo,
        pyomo_every=args.pyomo_every,
        root_cuts=not args.no_mip,
    )
    options = InspectOptions(
        exact_time_limit=args.exact_time_limit, write_lp=write_lp, lp_solver=args.lp_solver
    )
    inspector = TreebankInspector(
        source, sentences, single_root, pruning, pruner, relaxations, mip, options, args.parts
    )
    if args.sentence:
        positions = find_sentences(sentences, args.sentence, args.treebank)
    else:
        candidates = [i for i, s in enumerate(sentences) if args.max_length is None or s.n <= args.max_length]
        positions = inspector.most_fractional(candidates[: args.limit], args.fractional, not args.no_progress)
        if not positions:
            print(f"{args.treebank.name}: no selected sentence has a relaxation with a gap to the best tree")
            return 0
    inspections = []
    for inspection in inspector.inspect(positions, not args.no_progress):
        tqdm.write(inspection.table() + "\n", file=sys.stdout)
        inspections.append(inspection)
    return _write(inspections, out, write_lp, html)


def _problem(
    args: argparse.Namespace, source: Model | ScoreFile, sentences: list[Sentence]
) -> tuple[bool, ArcPruning | None, Model | None]:
    """The root rule (a model's own, else the options', else the data's), the arc pruning and its pruner, as
    parse decides them: a model is inspected as it was trained."""
    from lpparse.scoring import Model

    if isinstance(source, Model):
        if args.single_root is not None:
            raise UsageError(
                "--single-root and --multi-root apply to --scores only (a model has its own root rule)"
            )
        single_root = source.single_root
    else:
        single_root = resolve_single_root(args.single_root, sentences)
    pruner = Model.load(readable_file(args.pruner, "--pruner model")) if args.pruner else None
    pruning = pruning_options(args)
    if isinstance(source, Model):
        pruning = decoding_pruning(source, pruning, args.no_prune)
        pruner = pruner if pruner is not None or pruning is None else source.pruner
    elif args.no_prune:
        pruning = None
    return single_root, pruning, pruner


def _write(inspections: list[Inspection], out: Path | None, write_lp: Path | None, html: Path | None) -> int:
    """Write the inspections as JSON lines to ``out`` and as pages to ``html`` (if given); the exit status:
    :data:`DISAGREEMENT` when one of them is not ``ok`` (a disagreement or a broken order of bounds)."""
    if out is not None:
        with atomic_write(out) as handle:
            handle.writelines(i.to_json() + "\n" for i in inspections)
        print(f"wrote {out}")
    if write_lp is not None:
        print(f"wrote the programs to {write_lp}")
    if html is not None:
        importlib.import_module(PAGE_MODULE).write_pages(inspections, html)
        print(f"wrote the pages to {html}")
    bad = [i.sent_id for i in inspections if not i.ok]
    if bad:
        print(
            f"lpparse inspect: {len(bad)} of {len(inspections)} sentences have disagreements or broken orders of "
            f"bounds: {', '.join(bad)}",
            file=sys.stderr,
        )
        return DISAGREEMENT
    return 0
