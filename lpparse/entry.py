"""The ``lpparse`` console script: ``lpparse --version`` answers at once, without importing the commands
(numpy, scipy, HiGHS, Pyomo: about 1.5 s); everything else goes to :func:`lpparse.cli.main`.

SIGTERM and SIGHUP end a command as Ctrl-C does (exit code 128 + the signal's number), through every
``finally``: a half-written output's temporary file is removed, finished results are kept, worker processes
are stopped. Ctrl-C while the commands load prints one line, not a traceback."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from lpparse import __version__
from lpparse.io import interrupted


class Terminated(SystemExit):
    """SIGTERM or SIGHUP, raised in the main thread so that every ``finally`` runs."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated(128 + signum)


def _done(argv: Sequence[str] | None) -> None:
    """The console script's command is over: a Ctrl-C from now on (while Python shuts down) is ignored, instead
    of killing the process with no message. Callers that pass ``argv`` keep their own SIGINT handling."""
    if argv is None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        print(f"lpparse {__version__}")
        return 0
    try:
        for name in ("SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), _terminate)
        from lpparse.cli import main as run

        code = run(args)
    except Terminated as stop:
        code = int(stop.code or 1)
    except SystemExit:  # --help, --version of a command, a wrong command line: done, whatever comes now
        _done(argv)
        raise
    except (KeyboardInterrupt, Exception) as err:
        # Ctrl-C while the commands load (also as the ImportError of a C extension it cut short), or before a
        # command's own handler (lpparse.cli.main) is in place: nothing to clean up yet. Leave with os._exit
        # (below): a KeyboardInterrupt that went through code run by PyRun_String inside an import marks
        # itself unhandled, and Python would then exit killed by SIGINT.
        if not interrupted(err):
            raise
        print("lpparse: interrupted", file=sys.stderr)
        code = 130
    else:
        if code != 130:
            _done(argv)
            return code
    # Interrupted: every finally has run (outputs written whole or removed, finished records kept, worker
    # processes terminated). Leave at once: at a normal exit concurrent.futures joins the bookkeeping thread of
    # a process pool whose workers were terminated, which can wait for ever.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
