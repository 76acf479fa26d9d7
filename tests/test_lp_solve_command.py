"""The ``lpparse solve`` command on the shipped sample."""

from __future__ import annotations

import pytest

from lpparse.cli import main


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--formulation", "multi-flow", "--ilp"],
        ["--formulation", "cycle-cuts", "--view", "pyomo", "--single-root"],
    ],
)
def test_solve_command_certifies_every_sentence(extra: list[str], capsys, tmp_path) -> None:
    lp_file = tmp_path / "first.lp"
    assert main(["solve", "--limit", "3", "--write-lp", str(lp_file), *extra]) == 0
    out = capsys.readouterr().out
    assert "certified 3/3" in out
    assert "OneHead(1)" in lp_file.read_text()
