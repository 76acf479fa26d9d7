"""The ``lpparse`` command: one sub-command per module in :mod:`lpparse.commands`, listed in :data:`COMMANDS`.
A command line that names a command imports that command's module alone (``lpparse check-proof`` then runs
without HiGHS or Pyomo, as the standalone checker does); ``lpparse --help`` imports them all.

Every user error (:class:`lpparse.io.UserError`) is one line on stderr, ``lpparse COMMAND: error: ...``,
naming the file, line or option: exit code 2 for a wrong command line, 1 for wrong data; a failing file
operation (:class:`OSError`: a full disk, a closed pipe) is one line with exit code 1 too. Any other
exception is a bug in lpparse: its traceback is printed with a line asking to report it, exit code 70
(``EX_SOFTWARE`` of BSD's sysexits). ``--debug`` shows the traceback of every error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from lpparse import __version__
from lpparse.io import UserError, interrupted

#: Sub-commands by name, in the order ``lpparse --help`` lists them: the module of each (its name, with "_"
#: for "-"). Each module declares its arguments as data (a :class:`lpparse.options.Command` table of
#: options) and has ``register(subparsers)``, which adds the parser of that name from it and sets ``func``
#: to a callable taking the parsed arguments and returning an exit code. ``lpparse --help`` imports every
#: module to show each command's help line; a module keeps its heavy imports (matplotlib, Dask) inside the
#: function that needs them, which keeps it fast.
COMMANDS: dict[str, str] = {
    name: f"lpparse.commands.{name.replace('-', '_')}"
    for name in (
        "demo",
        "solve",
        "parse",
        "inspect",
        "check-proof",
        "compare",
        "train",
        "experiment",
        "report",
        "dd",
        "scores",
    )
}
#: Exit code of an internal error (``EX_SOFTWARE`` of sysexits.h)
INTERNAL_ERROR = 70


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (exit code 2) instead of the usage and a line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def command_module(name: str) -> ModuleType:
    """The module of command ``name`` (a key of :data:`COMMANDS`), imported."""
    return importlib.import_module(COMMANDS[name])


def named_command(argv: Sequence[str]) -> str | None:
    """The command that ``argv`` names (its first argument that is not an option), if it is one."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return first if first in COMMANDS else None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of the command ``only`` alone (its module alone imported)."""
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
    for name in COMMANDS:
        if only is None or name == only:
            command_module(name).register(subparsers)
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
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(named_command(argv))
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C while the command line is read (argparse looks up gettext's locale)
        print("lpparse: interrupted", file=sys.stderr)
        return 130
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
    except OSError as err:
        where = f": {err.filename}" if err.filename else ""
        print(f"lpparse {args.command}: error: {err.strerror or err}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"lpparse {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:
        if interrupted(err):  # a C extension's import that Ctrl-C cut short (lpparse.io.interrupted)
            print(f"lpparse {args.command}: interrupted", file=sys.stderr)
            return 130
        traceback.print_exc()
        print(
            f"lpparse {args.command}: internal error (a bug in lpparse): please report it "
            "with the command line and the traceback above",
            file=sys.stderr,
        )
        return INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
