"""The ``lpparse`` command: one sub-command per module in :mod:`lpparse.commands`.

Every user error is one line on stderr, ``lpparse COMMAND: error: ...``, naming the file, line or option:
exit code 2 for a wrong command line, 1 for wrong data (:mod:`lpparse.io`). ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

from lpparse import __version__
from lpparse.io import UserError

#: Sub-commands listed first by ``lpparse --help``; every other module in :mod:`lpparse.commands` follows in
#: alphabetical order. Each module has ``register(subparsers)``, which adds its parser and sets ``func`` to a
#: callable taking the parsed arguments and returning an exit code.
FIRST = ["demo", "solve", "parse", "train", "experiment", "report"]


def command_modules() -> list[str]:
    """Names of the sub-command modules, in the order ``lpparse --help`` lists them."""
    import lpparse.commands

    found = {info.name for info in pkgutil.iter_modules(lpparse.commands.__path__) if not info.name.startswith("_")}
    return [name for name in FIRST if name in found] + sorted(found - set(FIRST))


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (exit code 2) instead of the usage and a line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="lpparse",
        description=(
            "LP and ILP relaxations of structured inference for dependency parsing: exact oracles, "
            "arborescence and grandparent polytopes in Pyomo and HiGHS, parse-price-cut."
        ),
        epilog="Run 'lpparse COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"lpparse {__version__}")
    debug = "show the traceback of an error (for bug reports)"
    parser.add_argument("--debug", action="store_true", help=debug)
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(f"lpparse.commands.{name}").register(subparsers)
    for sub in subparsers.choices.values():
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=debug)
    return parser


def _run(args: argparse.Namespace) -> int:
    """Run the sub-command with its warnings as one line each (``lpparse COMMAND: warning: ...``)."""

    def show(message: Warning | str, *_: object, **__: object) -> None:
        print(f"lpparse {args.command}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        return int(args.func(args) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.debug:
        return int(args.func(args) or 0)
    try:
        return _run(args)
    except UserError as err:
        print(f"lpparse {args.command}: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print(f"lpparse {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
