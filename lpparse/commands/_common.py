"""Options and input shared by several sub-commands: checked option values, a treebank with noisy-gold arc
scores, and the resumable runs of ``experiment`` and ``dd``."""

from __future__ import annotations

import argparse
import math
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from lpparse.corpus import Sentence, read_treebank, sample_treebank_path
from lpparse.experiments.grandparent_tables import ScoreSource, load_model
from lpparse.experiments.runner import check_scheduler
from lpparse.io import DataError, file_digest, output_path, readable_file
from lpparse.scores import noisy_gold_scores

__all__ = [
    "ScoredRun",
    "add_noisy_treebank_options",
    "add_root_options",
    "add_scored_run_options",
    "noisy_treebank",
    "non_negative_float",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "report_failures",
    "resolve_single_root",
    "scored_run",
    "selected_sentences",
]


def ranged(
    kind: type[int] | type[float], low: float, strict: bool = False, high: float | None = None
) -> Callable[[str], float]:
    """An argparse ``type``: a finite ``kind`` value >= ``low`` (> with ``strict``) and <= ``high``."""
    noun = "an integer" if kind is int else "a number"
    bound = f"{'>' if strict else '>='} {low:g}" + (f" and <= {high:g}" if high is not None else "")

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
        if (
            not math.isfinite(value)
            or value < low
            or (strict and value == low)
            or (high is not None and value > high)
        ):
            raise argparse.ArgumentTypeError(f"must be {noun} {bound}, got {text}")
        return value

    return parse


positive_int = ranged(int, 1)
non_negative_int = ranged(int, 0)
positive_float = ranged(float, 0, strict=True)
non_negative_float = ranged(float, 0)


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
    add_selection_options(parser)
    parser.add_argument(
        "--noise",
        type=non_negative_float,
        default=noise,
        help=f"std. dev. of the Gaussian noise on arc scores; gold arcs get +1 (default {noise})",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="random seed for the noise (default 0)"
    )
    add_root_options(parser)


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """--limit and --max-length (see :func:`selected_sentences`)."""
    parser.add_argument(
        "--limit",
        type=positive_int,
        default=None,
        help="use only the first LIMIT sentences (after --max-length)",
    )
    parser.add_argument(
        "--max-length", type=positive_int, default=None, help="skip sentences longer than this"
    )


def selected_sentences(
    path: Path, args: argparse.Namespace, on_error: Literal["raise", "skip"] = "raise"
) -> list[Sentence]:
    """The first ``--limit`` sentences of at most ``--max-length`` tokens; a :class:`DataError` if none."""
    sentences = read_treebank(path, on_error, limit=args.limit, max_length=args.max_length)
    if not sentences:
        longest = f" of at most {args.max_length} tokens" if args.max_length else ""
        raise DataError(f"{path}: no sentences{longest} to read")
    return sentences


def noisy_treebank(args: argparse.Namespace) -> tuple[Path, list[tuple[Sentence, NDArray[np.float64]]]]:
    """The sentences selected by the options of :func:`add_noisy_treebank_options`, each with its arc
    scores (gold arcs plus seeded Gaussian noise: the stand-in for a trained first-order model); resolves
    ``args.single_root`` from the data when it was not given."""
    path = args.treebank or sample_treebank_path()
    sentences = selected_sentences(path, args)
    args.single_root = resolve_single_root(args.single_root, sentences)
    rng = np.random.default_rng(args.seed)
    return path, [(s, noisy_gold_scores(s.heads, noise=args.noise, rng=rng)) for s in sentences]


def add_scored_run_options(parser: argparse.ArgumentParser, out_help: str) -> None:
    """Options of a resumable per-sentence run with grandparent scores: treebank, --model or --synthetic,
    --out, selection, seed, root options, --workers/--scheduler and --no-progress."""
    parser.add_argument(
        "--treebank", type=Path, default=None, help="CoNLL file (default: the shipped sample)"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", type=Path, help="grandparent model file from 'lpparse train --order 2'")
    source.add_argument(
        "--synthetic",
        action="store_true",
        help="no model: noisy-gold arc and grandparent scores with loose bounds, seeded per sentence",
    )
    parser.add_argument("--out", type=Path, default=None, help=out_help)
    add_selection_options(parser)
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="base seed of the synthetic scores (default 0)"
    )
    add_root_options(parser)
    parser.add_argument("--workers", type=positive_int, default=1, help="local worker processes (default 1)")
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
    settings: dict[str, Any]


def scored_run(args: argparse.Namespace, name: str) -> ScoredRun:
    """Check every input and output first (treebank, model, --out, --scheduler), then read the selected
    sentences, load the model (wrong order or version: a clear error) and decide the root rule (the user's,
    else the model's, else the data's). Paths are resolved, so workers and resumed runs see the same files.
    ``settings``: what the results depend on, for the header of the results file
    (:func:`lpparse.experiments.runner.run_tasks`): the contents of treebank and model, not their paths."""
    path = readable_file(args.treebank or sample_treebank_path(), "treebank").resolve()
    model = readable_file(args.model, "model").resolve() if args.model else None
    out = output_path(args.out or Path("results") / f"{name}-{path.stem}.jsonl", "--out")
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    sentences = selected_sentences(path, args)
    source = ScoreSource(model=str(model) if model else None)
    single_root = args.single_root
    if source.model is not None and single_root is None:
        single_root = load_model(source.model).single_root
    elif source.model is not None:
        load_model(source.model)
    single_root = resolve_single_root(single_root, sentences)
    settings = {
        "command": name,
        "treebank_sha256": file_digest(path),
        "model_sha256": file_digest(model) if model else None,
        "source": asdict(replace(source, model=None)),
        "max_length": args.max_length,
        "seed": args.seed,
        "single_root": single_root,
    }
    return ScoredRun(path, sentences, source, single_root, out, settings)


def report_failures(records: list[dict[str, Any]], out: Path) -> tuple[list[dict[str, Any]], int]:
    """The records of tasks that did not fail, and how many failed (each named in one line on stderr)."""
    failed = [r for r in records if r.get("failed")]
    for r in failed:
        warnings.warn(
            f"sentence {r['key']} failed ({r['failed']}); recorded in {out}, computed again on resume"
        )
    if len(failed) == len(records):
        raise DataError(f"every sentence failed; see {out}")
    return [r for r in records if not r.get("failed")], len(failed)
