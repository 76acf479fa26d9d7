"""``lpparse compare``: is parser B better than parser A? UAS (and LAS, when the gold treebank and both
outputs have labels) of two outputs against gold, each with the paired bootstrap's interval and p-value
(:mod:`lpparse.evaluation`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from lpparse.commands._common import SELECTION_OPTIONS, selected_sentences
from lpparse.corpus import Sentence, read_treebank
from lpparse.evaluation import paired_bootstrap
from lpparse.io import DataError, readable_file
from lpparse.options import Command, Option, positive_int, ranged

COMMAND = Command(
    "compare",
    help="UAS and LAS of two parser outputs against gold, with paired bootstrap intervals and p-values",
    description=(
        "Reads a gold treebank and two system outputs of the same sentences (e.g. two 'lpparse parse "
        "--out' files), prints each system's UAS and the difference B - A with its percentile interval "
        "over paired bootstrap resamples of the sentences and the one-sided p-value of 'B is no better "
        "than A' (Koehn 2004; Berg-Kirkpatrick et al. 2012); then the same for LAS (head and DEPREL "
        "right) when the gold treebank and both outputs have labels. Punctuation is left out unless "
        "--punct."
    ),
    epilog=(
        "Example: lpparse compare dev.conllu gp.conllu gp+sib.conllu --max-length 50 (the outputs of "
        "'lpparse parse --max-length 50': --limit and --max-length select the gold sentences as there)"
    ),
    options=(
        Option("gold", type=Path, help="gold treebank (CoNLL-U or CoNLL-X)"),
        Option("a", type=Path, help="output of system A, the baseline"),
        Option("b", type=Path, help="output of system B"),
        Option("--samples", type=positive_int, default=10_000, help="bootstrap resamples (default 10000)"),
        Option(
            "--level",
            type=ranged(float, 0.0, strict=True, high=0.999),
            default=0.95,
            help="interval level (default 0.95)",
        ),
        Option("--seed", type=int, default=0, help="random seed of the resamples (default 0)"),
        Option("--punct", action="store_true", help="score punctuation tokens too"),
        *SELECTION_OPTIONS,  # the gold sentences that 'lpparse parse' was given
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def _aligned(gold: list[Sentence], system: list[Sentence], path: Path) -> list[Sentence]:
    """The system's sentences, checked to be the gold ones (same count, same words)."""
    if len(system) != len(gold):
        raise DataError(f"{path}: {len(system)} sentences, the gold treebank has {len(gold)}")
    for i, (g, s) in enumerate(zip(gold, system)):
        if s.words != g.words:
            raise DataError(f"{path}: sentence {i + 1} ({s.sent_id}) has other tokens than the gold one")
    return system


def run(args: argparse.Namespace) -> int:
    gold = selected_sentences(readable_file(args.gold, "gold treebank"), args)
    a, b = (_aligned(gold, read_treebank(readable_file(p, "system output")), p) for p in (args.a, args.b))
    options = {"samples": args.samples, "level": args.level, "seed": args.seed, "punct": args.punct}
    heads = ([s.heads for s in a], [s.heads for s in b])
    results = [paired_bootstrap(gold, *heads, **options)]  # type: ignore[arg-type]
    if all(any(s.labelled for s in system) for system in (gold, a, b)):
        labels = {"labels_a": [s.labels for s in a], "labels_b": [s.labels for s in b]}
        results.append(paired_bootstrap(gold, *heads, **options, **labels))  # type: ignore[arg-type]
    else:
        print("LAS not compared: the gold treebank or an output has no labels")
    print(f"{len(gold)} sentences, {'with' if args.punct else 'without'} punctuation")
    for result in results:
        print(f"{result.metric} A {args.a}: {100 * result.uas_a:.2f}")
        print(f"{result.metric} B {args.b}: {100 * result.uas_b:.2f}")
        print(
            f"{result.metric} B - A: {100 * result.delta:+.2f} points, {100 * args.level:g}% interval "
            f"[{100 * result.low:+.2f}, {100 * result.high:+.2f}] over {args.samples} paired bootstrap "
            f"resamples; p = {result.p_value:.4f} that B is no better than A"
        )
    return 0
