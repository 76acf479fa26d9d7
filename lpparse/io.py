"""Errors a user can fix, checks of the files a command reads and writes, and atomic writes.

The ``lpparse`` command prints a :class:`UserError` as one line and exits with its ``exit_code``: 2 for a
:class:`UsageError` (the command line is wrong: an option, its range, or a path it names that cannot be read
or written), 1 for a :class:`DataError` (the content of an input file is wrong) and for other failures a
user must resolve (a busy results file, a full disk). Any other exception is a bug in lpparse and keeps its
traceback.

Outputs are written to a temporary file beside the target and renamed onto it once complete, so a killed
or failed command never leaves a half-written file under the name the user gave. An output is a new name or
a regular file: devices, FIFOs, directories and symbolic links are refused (:func:`regular_output` says
why), as is one file given for two outputs, or for an output and an input (:func:`output_path`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = [
    "DataError",
    "MissingFileError",
    "UsageError",
    "UserError",
    "atomic_path",
    "atomic_write",
    "file_digest",
    "output_dir",
    "output_path",
    "readable_file",
    "regular_output",
    "relative_paths",
    "writing_zip",
]


class UserError(Exception):
    """A failure the user can resolve; the command line prints its message in one line (exit code 1)."""

    exit_code = 1


class UsageError(UserError, ValueError):
    """A wrong command line: an option, its value or a path it names (exit code 2)."""

    exit_code = 2


class DataError(UserError, ValueError):
    """Wrong content in an input file; the message names the file (and line where there is one)."""


class MissingFileError(UsageError, FileNotFoundError):
    """An input path that does not exist."""


def readable_file(path: str | Path, what: str) -> Path:
    """``path`` if it is a readable regular file, else a :class:`UsageError` naming it as ``what``."""
    path = Path(path)
    if not path.exists():
        raise MissingFileError(f"{what} not found: {path}")
    if not path.is_file():
        raise UsageError(f"{what} {path} is not a file")
    if not os.access(path, os.R_OK):
        raise UsageError(f"{what} {path} is not readable (permission denied)")
    return path


def regular_output(path: str | Path, what: str) -> Path:
    """``path`` if it is a new name or an existing regular file, else a :class:`UsageError` naming it as
    ``what``. Refused: a directory, a device, FIFO or socket (``/dev/null``, ``/dev/full``, a pipe: an output
    is written to a temporary file renamed onto its name, which would replace them; a results file is read
    back to resume, which on ``/dev/full`` never ends and on a FIFO blocks) and a symbolic link, even to a
    regular file: writing through it replaces a file under another name, silently (a shared file, an input,
    or with ``/dev/stdout`` the file the shell redirected to, with the rest of the command's output), and
    replacing the link itself would break what it stands for. Refusing costs one resolved path."""
    path = Path(path)
    if path.is_symlink():
        raise UsageError(
            f"{what} {path} is a symbolic link (to {os.readlink(path)}); give the file itself or a new name"
        )
    if path.is_dir():
        raise UsageError(f"{what} {path} is a directory; give a file name")
    if path.exists() and not path.is_file():
        raise UsageError(
            f"{what} {path} is not a regular file (a device, FIFO or socket); give a file name"
        )
    return path


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode, or for a new name the same resolved path."""
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def output_path(
    path: str | Path,
    what: str,
    inputs: Iterable[str | Path | None] = (),
    outputs: Iterable[tuple[str, str | Path | None]] = (),
) -> Path:
    """Check before any work that ``path`` can be written (:func:`regular_output`): create its missing
    directories; refuse a directory, a device, FIFO, socket or symbolic link, an unwritable location, one of
    the command's ``inputs`` or one of its other ``outputs`` (``(option, path)`` pairs) under any name with a
    :class:`UsageError` naming it as ``what``."""
    path = regular_output(path, what)
    for given in inputs:
        if given is not None and Path(given).exists() and _same_file(path, Path(given)):
            raise UsageError(
                f"{what} {path} is an input of this command ({given}); writing it would destroy it"
            )
    for option, given in outputs:
        if given is not None and _same_file(path, Path(given)):
            raise UsageError(f"{what} {path} is also {option} {given}; give each output its own file")
    output_dir(path.parent, f"{what} {path}:")
    return path


def output_dir(path: str | Path, what: str) -> Path:
    """The directory ``path``, created now with its missing parents and checked writable, or a
    :class:`UsageError` that starts with ``what`` (an option, or an output's option and path)."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"{what} {path} is a file, not a directory") from None
    except OSError as err:
        raise UsageError(f"{what} cannot create directory {path} ({err.strerror})") from None
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        raise UsageError(f"{what} cannot write in directory {path} ({err.strerror})") from None
    return path


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes, in hex: names its content whatever the path."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def relative_paths(text: str, root: Path) -> str:
    """``text`` with the absolute paths of files in ``root`` or beside it written relative to ``root``
    (``/work/repo/x`` -> ``x``, ``/work/shared/y`` -> ``../shared/y``): results committed from one machine
    name no other machine's folders."""
    root = root.resolve()
    return text.replace(f"{root}/", "").replace(f"{root.parent}/", "../")


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix, for writers that go by the extension); renamed onto
    ``path`` when the block ends without error, removed otherwise. ``path`` must be a new name or a regular
    file (:func:`regular_output`: a device, FIFO, directory or symbolic link is a :class:`UsageError`)."""
    path = regular_output(path, "output")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp{path.suffix}")
    try:
        yield temporary
        os.replace(temporary, path)
    except UserError:
        raise
    except OSError as err:
        raise UserError(f"cannot write {path}: {err.strerror or err}") from err
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def atomic_write(path: str | Path, mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """``open(path, mode)`` through :func:`atomic_path`, flushed to disk before the rename."""
    if "b" not in mode:
        kwargs.setdefault("encoding", "utf-8")
    with atomic_path(path) as temporary:
        with temporary.open(mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())


@contextmanager
def writing_zip(handle: IO[bytes], compression: int = zipfile.ZIP_STORED) -> Iterator[zipfile.ZipFile]:
    """A ZIP archive written to the open binary ``handle`` (ZIP64 allowed). An exception in the block,
    an interrupt inside a member's write included, propagates as raised: :class:`zipfile.ZipFile`'s own exit
    would replace it with a ValueError ("an open writing handle") when a member was left open. The caller's
    ``handle`` (an :func:`atomic_write` one, discarded on error) is closed by the caller."""
    archive = zipfile.ZipFile(handle, "w", compression, allowZip64=True)
    try:
        yield archive
    except BaseException:
        with contextlib.suppress(ValueError):
            archive.close()
        raise
    archive.close()

def interrupted(err: BaseException) -> bool:
    """Whether ``err`` is Ctrl-C's KeyboardInterrupt or an exception raised because of one: a C extension
    whose initialisation a SIGINT interrupts (highspy's, during ``import highspy``) raises ``ImportError:
    initialization failed`` caused by the KeyboardInterrupt."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False
