"""Options and input shared by several sub-commands: a treebank with noisy-gold arc scores."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from lpparse.corpus import Sentence, read_treebank, sample_treebank_path
from lpparse.experiments.grandparent_tables import ScoreSource, load_model
from lpparse.scores import noisy_gold_scores

__all__ = [
    "ScoredRun",
    "add_noisy_treebank_options",
    "add_root_options",
    "add_scored_run_options",
    "noisy_treebank",
    "resolve_single_root",
    "scored_run",
]


def add_root_options(parser: argparse.ArgumentParser) -> None:
    """--single-root / --multi-root, default None: decided by the data (see :func:`resolve_single_root`)."""
    roots = parser.add_mutually_exclusive_group()
    roots.add_argument(
        "--single-root",
        dest="single_root",
        action="store_true",
        default=None,
        help="trees whose root has exactly one child (default when every gold tree has one, as in UD)",
    )
    roots.add_argument(
        "--multi-root",
        dest="single_root",
        action="store_false",
        help="the root may take several children (default when some gold tree does, as in CoNLL-X Danish)",
    )


def resolve_single_root(choice: bool | None, sentences: list[Sentence]) -> bool:
    """The user's choice, else single-root iff every gold tree has exactly one root child."""
    return all(s.single_rooted for s in sentences) if choice is None else choice


def add_noisy_treebank_options(parser: argparse.ArgumentParser, noise: float = 0.4) -> None:
    """--treebank, --limit, --max-length, --noise, --seed and the root options."""
    parser.add_argument(
        "--treebank", type=Path, default=None, help="CoNLL-U/CoNLL-X file (default: the shipped sample)"
    )
    parser.add_argument("--limit", type=int, default=None, help="use only the first LIMIT sentences")
    parser.add_argument("--max-length", type=int, default=None, help="skip sentences longer than this")
    parser.add_argument(
        "--noise",
        type=float,
        default=noise,
        help=f"std. dev. of the Gaussian noise on arc scores; gold arcs get +1 (default {noise})",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed for the noise (default 0)")
    add_root_options(parser)


def noisy_treebank(args: argparse.Namespace) -> tuple[Path, list[tuple[Sentence, NDArray[np.float64]]]]:
    """The sentences selected by the options of :func:`add_noisy_treebank_options`, each with its arc
    scores (gold arcs plus seeded Gaussian noise: the stand-in for a trained first-order model); resolves
    ``args.single_root`` from the data when it was not given."""
    path = args.treebank or sample_treebank_path()
    sentences = read_treebank(path, limit=args.limit, max_length=args.max_length)
    if not sentences:
        raise ValueError(f"{path}: no sentences selected")
    args.single_root = resolve_single_root(args.single_root, sentences)
    rng = np.random.default_rng(args.seed)
    return path, [(s, noisy_gold_scores(s.heads, noise=args.noise, rng=rng)) for s in sentences]


def add_scored_run_options(parser: argparse.ArgumentParser, out_help: str) -> None:
    """Options of a resumable per-sentence run with grandparent scores: treebank, --model or --synthetic,
    --out, selection, seed, root options, --workers/--scheduler and --no-progress."""
    parser.add_argument("--treebank", type=Path, default=None, help="CoNLL file (default: the shipped sample)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", type=Path, help="grandparent model file from 'lpparse train --order 2'")
    source.add_argument(
        "--synthetic",
        action="store_true",
        help="no model: noisy-gold arc and grandparent scores with loose bounds, seeded per sentence",
    )
    parser.add_argument("--out", type=Path, default=None, help=out_help)
    parser.add_argument("--limit", type=int, default=None, help="use only the first LIMIT sentences")
    parser.add_argument("--max-length", type=int, default=None, help="skip sentences longer than this")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the synthetic scores (default 0)")
    add_root_options(parser)
    parser.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    parser.add_argument("--scheduler", default=None, help="address of a Dask scheduler, e.g. tcp://host:8786")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


@dataclass(frozen=True)
class ScoredRun:
    """What :func:`scored_run` resolves from the options of :func:`add_scored_run_options`."""

    path: Path
    sentences: list[Sentence]
    source: ScoreSource
    single_root: bool
    out: Path


def scored_run(args: argparse.Namespace, name: str) -> ScoredRun:
    """Read the selected sentences, check the model early (missing, wrong order or version: a clear error)
    and decide the root rule (the user's, else the model's, else the data's)."""
    path = args.treebank or sample_treebank_path()
    sentences = read_treebank(path, limit=args.limit, max_length=args.max_length)
    if not sentences:
        raise ValueError(f"{path}: no sentences selected")
    source = ScoreSource(model=str(args.model) if args.model else None)
    single_root = args.single_root
    if source.model is not None and single_root is None:
        single_root = load_model(source.model).single_root
    elif source.model is not None:
        load_model(source.model)
    single_root = resolve_single_root(single_root, sentences)
    out = args.out or Path("results") / f"{name}-{path.stem}.jsonl"
    return ScoredRun(path, sentences, source, single_root, out)
