"""Command-line options that state the problem, shared by the commands and the standalone proof checker
(:mod:`lpparse.proofcheck`, which imports no command): checked numbers, the root rule and arc pruning."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

from lpparse.corpus import Sentence
from lpparse.io import UsageError
from lpparse.pruning import ArcPruning

__all__ = [
    "add_pruning_options",
    "add_root_options",
    "non_negative_float",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "pruning_options",
    "ranged",
    "resolve_single_root",
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


def add_pruning_options(
    parser: argparse.ArgumentParser, purpose: str, pruner_help: str, as_trained: bool = False
) -> None:
    """The arc-pruning group (TurboParser's pruner, :mod:`lpparse.pruning`): ``--prune``, ``--prune-threshold``,
    ``--max-heads`` and ``--pruner``, and with ``as_trained`` (decoding a model that prunes as it was trained
    by default: :func:`lpparse.pruning.decoding_pruning`) ``--no-prune``; ``purpose`` ends the
    group's description, ``pruner_help`` is the help of ``--pruner``. Read them back with
    :func:`pruning_options`."""
    group = parser.add_argument_group(
        "arc pruning",
        "Keep the arcs whose first-order posterior is at least --prune-threshold and that are among the "
        "--max-heads best heads of their word (TurboParser's pruner; the best first-order tree's arcs are "
        f"always kept). {purpose}",
    )
    group.add_argument("--prune", action="store_true", help="prune arcs (with the defaults below)")
    group.add_argument(
        "--prune-threshold",
        type=ranged(float, 0, high=1),
        default=None,
        metavar="P",
        help=f"posterior threshold (default {ArcPruning.threshold:g}); implies --prune",
    )
    group.add_argument(
        "--max-heads",
        type=positive_int,
        default=None,
        metavar="K",
        help=f"candidate heads kept per word (default {ArcPruning.max_heads}); implies --prune",
    )
    group.add_argument(
        "--pruner", type=Path, default=None, metavar="MODEL", help=f"{pruner_help}; implies --prune"
    )
    if as_trained:
        group.add_argument(
            "--no-prune",
            action="store_true",
            help="decode over every arc, even with a model trained over pruned arcs (which by default decodes "
            "over the arcs its own pruner, inside the model file, keeps at its training threshold)",
        )


def pruning_options(args: argparse.Namespace) -> ArcPruning | None:
    """The :class:`ArcPruning` that the options of :func:`add_pruning_options` ask for (None: none asked for;
    UsageError for ``--no-prune`` with another pruning option)."""
    asked = args.prune or args.prune_threshold is not None or args.max_heads is not None or args.pruner
    if getattr(args, "no_prune", False) and asked:
        raise UsageError("--no-prune decodes over every arc: give it without the other pruning options")
    if not asked:
        return None
    defaults = ArcPruning()
    return ArcPruning(
        defaults.threshold if args.prune_threshold is None else args.prune_threshold,
        defaults.max_heads if args.max_heads is None else args.max_heads,
    )


def resolve_single_root(choice: bool | None, sentences: list[Sentence]) -> bool:
    """The user's choice, else single-root iff every gold tree has exactly one root child (sentences without
    a gold tree say nothing; with none at all, single-root, as in Universal Dependencies)."""
    return all(s.single_rooted for s in sentences if s.annotated) if choice is None else choice
