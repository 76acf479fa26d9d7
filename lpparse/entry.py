"""The ``lpparse`` console script: ``lpparse --version`` answers at once, without importing the commands
(numpy, scipy, HiGHS, Pyomo: about 1.5 s); everything else goes to :func:`lpparse.cli.main`."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from lpparse import __version__


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        print(f"lpparse {__version__}")
        return 0
    from lpparse.cli import main as run

    return run(args)
