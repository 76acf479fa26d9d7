"""Outputs as a careful Unix tool treats them (:func:`lpparse.io.regular_output`,
:func:`lpparse.io.output_path`): devices, FIFOs, directories and symbolic links refused before any work (exit
2, one line naming the option and the path), one file for two outputs refused, a results file's header read
in one bounded line, lock files removed after the run. In-process (:func:`lpparse.cli.main`), on synthetic
scores or a small model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lpparse.cli import main
from lpparse.corpus import sample_treebank_path
from lpparse.experiments import runner
from lpparse.experiments.runner import Task, read_header, run_tasks
from lpparse.io import UsageError, atomic_write

SAMPLE = str(sample_treebank_path())
SYNTHETIC = ["--synthetic", "--limit", "1", "--no-progress"]


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("model") / "m.npz"
    argv = ["train", "--treebank", SAMPLE, "--epochs", "1", "--limit", "5", "--out", str(path)]
    assert main([*argv, "--no-progress"]) == 0
    return str(path)


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    """Assert exit code 2 and one error line holding ``words``; return it."""
    capsys.readouterr()
    assert main(argv) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "error:" in lines[0], lines
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


def commands(model: str, out: str) -> list[list[str]]:
    """Every command that writes one ``--out`` file, writing ``out``."""
    return [
        ["experiment", "ppc", *SYNTHETIC, "--out", out],
        ["dd", *SYNTHETIC, "--out", out],
        ["scores", "export", "--model", model, "--treebank", SAMPLE, "--out", out, "--no-progress"],
        ["parse", "--model", model, "--treebank", SAMPLE, "--limit", "2", "--out", out, "--no-progress"],
    ]


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_devices_are_refused_by_every_command(
    device: str, model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``/dev/full`` was read whole looking for a resume header (22 GB); ``/dev/null`` gave "Invalid argument"
    naming no file (experiment) and exit 70 (scores export)."""
    for argv in commands(model, device):
        refused(argv, capsys, "--out", device, "not a regular file")


def test_fifos_directories_and_links_are_refused(
    tmp_path: Path, model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO (experiment hung opening it to read a header), a directory, a symbolic link (its target was
    overwritten silently; /dev/stdout is one, which replaced the file stdout was redirected to) and a dangling
    link: each refused, nothing touched."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    target = tmp_path / "target.jsonl"
    target.write_text("mine\n")
    link, dangling = tmp_path / "link.jsonl", tmp_path / "dangling.jsonl"
    link.symlink_to(target)
    dangling.symlink_to(tmp_path / "nowhere.jsonl")
    for out, words in [
        (fifo, ["not a regular file"]),
        (tmp_path, ["is a directory"]),
        (link, ["symbolic link", str(target)]),
        (dangling, ["symbolic link"]),
        (Path("/dev/stdout"), ["symbolic link"]),
    ]:
        for argv in commands(model, str(out)):
            refused(argv, capsys, "--out", str(out), *words)
    assert fifo.is_fifo() and target.read_text() == "mine\n" and not (tmp_path / "nowhere.jsonl").exists()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["dangling.jsonl", "fifo", "link.jsonl", "target.jsonl"]


def test_one_file_for_two_outputs_or_an_input_is_refused(
    tmp_path: Path, model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out X --proof X`` exited 0 with the trees lost (the proofs written over them): refused under any
    spelling, before any work; so is an experiment whose summary (.md, .csv beside --out) is an input."""
    parse = ["parse", "--model", model, "--treebank", SAMPLE, "--limit", "1", "--decoder", "exact"]
    same = tmp_path / "x.conllu"
    refused([*parse, "--out", str(same), "--proof", str(same)], capsys, "--proof", "also --out")
    spelled = str(tmp_path / "new" / ".." / "x.conllu")
    refused([*parse, "--out", str(same), "--proof", spelled], capsys, "--proof", "also --out")
    assert not same.exists()
    treebank = tmp_path / "r.md"
    treebank.write_bytes(Path(SAMPLE).read_bytes())
    argv = ["experiment", "ppc", "--treebank", str(treebank), *SYNTHETIC, "--out", str(tmp_path / "r.jsonl")]
    refused(argv, capsys, "summary", "is an input")
    assert treebank.read_bytes() == Path(SAMPLE).read_bytes()


def test_runs_leave_no_lock_file_and_write_atomically(tmp_path: Path) -> None:
    for argv in (["experiment", "ppc", *SYNTHETIC], ["dd", *SYNTHETIC]):
        assert main([*argv, "--out", str(tmp_path / f"{argv[0]}.jsonl")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dd.jsonl", "experiment.csv", "experiment.jsonl", "experiment.md"
    ]
    with pytest.raises(UsageError, match="output .* symbolic link"):
        link = tmp_path / "link"
        link.symlink_to(tmp_path / "dd.jsonl")
        with atomic_write(link) as handle:
            handle.write("lost")
    assert (tmp_path / "dd.jsonl").read_text().startswith('{"header"')


def test_a_results_file_is_read_only_as_far_as_its_first_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An existing --out that is not an lpparse results file is refused from a bounded read of its first line
    (:data:`lpparse.experiments.runner.HEADER_BYTES`), never read whole; binary data is not a header either.
    Library callers of run_tasks get the same refusals of devices and FIFOs."""
    header = '{"header": {"format": "lpparse-results", "settings": {"pad": "' + "x" * 100 + '"}}}\n'
    long = tmp_path / "long.jsonl"
    long.write_text(header)
    assert read_header(long) is not None
    monkeypatch.setattr(runner, "HEADER_BYTES", 64)
    assert read_header(long) is None  # a first line longer than the bound is no header
    other = tmp_path / "other.jsonl"
    other.write_bytes(b"x" * 10_000 + b"\n" + b"\xff" * 100)
    assert read_header(other) is None and read_header(tmp_path / "none.jsonl") is None

    def whole(self: Path, *args: object, **kwargs: object) -> None:
        pytest.fail(f"{self} read whole")

    for name in ("read_text", "read_bytes"):
        monkeypatch.setattr(Path, name, whole)
    tasks = [Task("a", 1)]
    with pytest.raises(UsageError, match="not an lpparse results file"):
        run_tasks(abs, tasks, other, progress=False, settings={"s": 1})
    monkeypatch.undo()
    assert other.stat().st_size == 10_101
    for special in ("/dev/full", "/dev/null"):
        with pytest.raises(UsageError, match="not a regular file"):
            run_tasks(abs, tasks, special, progress=False, settings={"s": 1})
