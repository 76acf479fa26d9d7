"""The command line: help texts and the demo on the shipped sample."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import lpparse.commands
from lpparse import __version__
from lpparse.cli import COMMANDS, build_parser, command_module, main
from lpparse.io import relative_paths


def test_every_command_module_is_listed_under_its_name() -> None:
    modules = {info.name for info in pkgutil.iter_modules(lpparse.commands.__path__)}
    # a command is its module's name, with "-" for "_" (check-proof: lpparse.commands.check_proof)
    assert {name.replace("-", "_") for name in COMMANDS} == {name for name in modules if not name.startswith("_")}
    assert all(command_module(name).__name__ == module for name, module in COMMANDS.items())
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(subparsers.choices) == list(COMMANDS)
    for name in COMMANDS:  # a command line that names a command builds its parser alone
        subparsers = next(a for a in build_parser(name)._actions if a.dest == "command")
        assert list(subparsers.choices) == [name]


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_has_a_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: lpparse {name}") and len(out.splitlines()) > 3


def test_no_command_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "commands" in capsys.readouterr().out


def test_demo_compares_the_oracles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--limit", "12", "--no-progress", "--seed", "3", "--oracles-only"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("|")[1].strip(): line.split("|") for line in out.splitlines() if line.startswith("| ")}
    for name in ("chu-liu-edmonds", "eisner", "brute-force", "matrix-tree MBR", "inside-outside MBR"):
        assert name in rows
    cle, bf = rows["chu-liu-edmonds"], rows["brute-force"]
    assert cle[3].strip() == "12" and cle[-2].strip() == "12/12"
    bf_sents = int(bf[3])
    assert bf[-2].strip() == f"{bf_sents}/{bf_sents}"  # brute force finds the CLE tree whenever it runs
    assert float(rows["eisner"][6]) <= float(cle[6]) + 1e-9  # projective trees never beat the best tree


def test_demo_showcase_trains_runs_ppc_and_reports(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["demo", "--limit", "14", "--train", "9", "--epochs", "1", "--bounds-max-length", "8"]
    assert main(argv + ["--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "held-out UAS, 5 sentences" in out
    table1 = out[out.index("Table 1") : out.index("Table 2")]
    overall = next(line for line in table1.splitlines() if line.startswith("| all "))
    assert "| 14/14 " in overall  # PPC reaches the brute-force objective on every sentence
    assert (tmp_path / "report.md").read_text().count(".png)") == 4
    assert (tmp_path / "model.npz").stat().st_size > 0
    assert main(["demo", "--limit", "5", "--train", "5", "--out", str(tmp_path)]) == 2
    assert "--train must leave held-out sentences" in capsys.readouterr().err


def test_demo_reports_a_missing_treebank(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--treebank", str(tmp_path / "missing.conllu")]) == 2
    assert "not found" in capsys.readouterr().err


def test_console_script_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "lpparse", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("lpparse ")
    assert build_parser().prog == "lpparse"


def test_committed_results_use_repository_relative_paths(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    text = f"{repo}/benchmarks/x.json {tmp_path}/shared/treebanks/da.conll"
    assert relative_paths(text, repo) == "benchmarks/x.json ../shared/treebanks/da.conll"
    results = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
    for path in results.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w.])/(work|home|root|tmp|Users)/", text), path


def test_version_answers_without_importing_the_commands() -> None:
    """``lpparse --version`` prints the version without loading numpy, HiGHS or Pyomo (it took 2.5 s)."""
    probe = "import sys; from lpparse.entry import main; main(['--version']); print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["lpparse", __version__, "False"]
