"""The ``lpparse`` command: one sub-command per module in :mod:`lpparse.commands`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from lpparse import __version__

#: Sub-commands listed first by ``lpparse --help``; every other module in :mod:`lpparse.commands` follows in
#: alphabetical order. Each module has ``register(subparsers)``, which adds its parser and sets ``func`` to a
#: callable taking the parsed arguments and returning an exit code.
FIRST = ["demo", "solve", "parse", "train", "experiment", "report"]


def command_modules() -> list[str]:
    """Names of the sub-command modules, in the order ``lpparse --help`` lists them."""
    import lpparse.commands

    found = {info.name for info in pkgutil.iter_modules(lpparse.commands.__path__) if not info.name.startswith("_")}
    return [name for name in FIRST if name in found] + sorted(found - set(FIRST))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lpparse",
        description=(
            "LP and ILP relaxations of structured inference for dependency parsing: exact oracles, "
            "arborescence and grandparent polytopes in Pyomo and HiGHS, parse-price-cut."
        ),
        epilog="Run 'lpparse COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"lpparse {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(f"lpparse.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (FileNotFoundError, ValueError) as err:
        print(f"lpparse {args.command}: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
