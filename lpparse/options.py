"""Command-line options as data, and those that state the problem, shared by the commands and the standalone
proof checker (:mod:`lpparse.proofcheck`, which imports no command): a command's arguments are a table of
:class:`Option` (in :class:`Section` and :class:`OneOf` groups) that :func:`add_options` adds to its parser;
checked numbers, the root rule and arc pruning."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lpparse.corpus import Sentence
from lpparse.families import RegistryError, get_family
from lpparse.io import UsageError
from lpparse.pruning import ArcPruning

if TYPE_CHECKING:
    from lpparse.scoring.part_templates import PartTemplates

__all__ = [
    "PARTS_HELP",
    "part_names",
    "select_parts",
    "ROOT_OPTIONS",
    "Command",
    "OneOf",
    "Option",
    "Section",
    "Table",
    "add_options",
    "add_pruning_options",
    "add_root_options",
    "non_negative_float",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "pruning_group",
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


#: The default of an :class:`Option` that leaves it to argparse (None is a default of its own: a store_true
#: option's is False)
UNSET: Any = object()


@dataclass(frozen=True)
class Option:
    """One argument of a command line: its flag (or a positional's name) and the keywords of
    :meth:`argparse.ArgumentParser.add_argument` that it sets (the others are argparse's)."""

    flag: str
    help: str | None = None
    type: Callable[[str], Any] | None = None
    default: Any = UNSET
    choices: Sequence[Any] | None = None
    metavar: str | None = None
    action: str | None = None
    required: bool | None = None
    dest: str | None = None
    nargs: str | int | None = None

    def add_to(self, parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
        """Add the option to ``parser`` (or to a group of it) with the keywords it sets."""
        settings = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("flag", "default")}
        keywords = {k: v for k, v in settings.items() if v is not None}
        if self.default is not UNSET:
            keywords["default"] = self.default
        parser.add_argument(self.flag, **keywords)


@dataclass(frozen=True)
class OneOf:
    """Options of which at most one may be given (exactly one with ``required``)."""

    options: tuple[Option, ...]
    required: bool = False


@dataclass(frozen=True)
class Section:
    """Options listed by ``--help`` under a title and description of their own."""

    title: str
    description: str
    options: tuple[Option, ...]


#: The arguments of a command, in the order ``--help`` lists them
Table = Sequence[Option | OneOf | Section]


def add_options(parser: argparse.ArgumentParser, table: Table) -> None:
    """Add the arguments of ``table`` to ``parser``, in its order."""
    for entry in table:
        if isinstance(entry, Option):
            entry.add_to(parser)
            continue
        if isinstance(entry, OneOf):
            group: argparse._ActionsContainer = parser.add_mutually_exclusive_group(required=entry.required)
        else:
            group = parser.add_argument_group(entry.title, entry.description)
        for option in entry.options:
            option.add_to(group)


@dataclass(frozen=True)
class Command:
    """A sub-command as data: its name, its help line and page, and its arguments."""

    name: str
    help: str
    options: Table
    description: str | None = None
    epilog: str | None = None

    def add_to(
        self, subparsers: argparse._SubParsersAction, run: Callable[[argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        """The command's parser, added to ``subparsers`` with its arguments; ``run`` runs it."""
        parser = subparsers.add_parser(
            self.name, help=self.help, description=self.description, epilog=self.epilog
        )
        add_options(parser, self.options)
        parser.set_defaults(func=run)
        return parser


#: --single-root / --multi-root, default None: decided by the data (see :func:`resolve_single_root`)
ROOT_OPTIONS: Table = (
    OneOf(
        (
            Option(
                "--single-root",
                dest="single_root",
                action="store_true",
                default=None,
                help="trees whose root has exactly one child (default when every gold tree has one, as in UD)",
            ),
            Option(
                "--multi-root",
                dest="single_root",
                action="store_false",
                help="the root may take several children (default when some gold tree does, as in CoNLL-X "
                "Danish)",
            ),
        )
    ),
)


def add_root_options(parser: argparse.ArgumentParser) -> None:
    """The options of :data:`ROOT_OPTIONS`."""
    add_options(parser, ROOT_OPTIONS)


def pruning_group(purpose: str, pruner_help: str, as_trained: bool = False) -> Section:
    """The arc-pruning group (TurboParser's pruner, :mod:`lpparse.pruning`): ``--prune``, ``--prune-threshold``,
    ``--max-heads`` and ``--pruner``, and with ``as_trained`` (decoding a model that prunes as it was trained
    by default: :func:`lpparse.pruning.decoding_pruning`) ``--no-prune``; ``purpose`` ends the
    group's description, ``pruner_help`` is the help of ``--pruner``. Read them back with
    :func:`pruning_options`."""
    no_prune = Option(
        "--no-prune",
        action="store_true",
        help="decode over every arc, even with a model trained over pruned arcs (which by default decodes "
        "over the arcs its own pruner, inside the model file, keeps at its training threshold)",
    )
    return Section(
        "arc pruning",
        "Keep the arcs whose first-order posterior is at least --prune-threshold and that are among the "
        "--max-heads best heads of their word (TurboParser's pruner; the best first-order tree's arcs are "
        f"always kept). {purpose}",
        (
            Option("--prune", action="store_true", help="prune arcs (with the defaults below)"),
            Option(
                "--prune-threshold",
                type=ranged(float, 0, high=1),
                default=None,
                metavar="P",
                help=f"posterior threshold (default {ArcPruning.threshold:g}); implies --prune",
            ),
            Option(
                "--max-heads",
                type=positive_int,
                default=None,
                metavar="K",
                help=f"candidate heads kept per word (default {ArcPruning.max_heads}); implies --prune",
            ),
            Option(
                "--pruner", type=Path, default=None, metavar="MODEL", help=f"{pruner_help}; implies --prune"
            ),
            *((no_prune,) if as_trained else ()),
        ),
    )


def add_pruning_options(
    parser: argparse.ArgumentParser, purpose: str, pruner_help: str, as_trained: bool = False
) -> None:
    """The options of :func:`pruning_group`."""
    add_options(parser, (pruning_group(purpose, pruner_help, as_trained),))


def pruning_options(args: argparse.Namespace) -> ArcPruning | None:
    """The :class:`ArcPruning` that the options of :func:`pruning_group` ask for (None: none asked for;
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


def family_names(text: str) -> tuple[PartTemplates, ...]:
    """``--families``: comma-separated names of registered part families (:func:`part_names`), as their feature
    templates (argparse error for a family without templates)."""
    out = []
    for name in part_names(text) if text.strip() else ():
        family = get_family(name)
        if family.features is None:
            raise argparse.ArgumentTypeError(f"part family {name!r} has no feature templates to train")
        out.append(family.features)
    return tuple(out)


#: ``--parts``: which of a model's or score file's part families to decode with (and prove, and check)
PARTS_HELP = (
    "decode with these part families of the model or score file only, by registered name (grandparent, sibling, "
    "consecutive, trisibling, grandsibling, or a family of another package); default: all of them. A family "
    "that needs another (tri- and grand-siblings need the consecutive windows) gets it with zero scores"
)


def part_names(text: str) -> tuple[str, ...]:
    """``--parts``: comma-separated names of registered part families (argparse error naming one that is not)."""
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError("expected one or more part family names, separated by commas")
    for name in names:
        try:
            get_family(name)
        except (ValueError, RegistryError) as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return names


def select_parts(scorers: dict[str, Any], names: Sequence[str] | None, source: str) -> dict[str, Any]:
    """The scorers of the families ``names`` (None: all of them); UsageError for a name ``source`` (a model or
    score file, as the message names it) has no scores of."""
    if names is None:
        return scorers
    missing = [name for name in names if name not in scorers]
    if missing:
        raise UsageError(f"--parts: {source} has no {', '.join(missing)} scores (it has {', '.join(scorers)})")
    return {name: scorer for name, scorer in scorers.items() if name in names}
