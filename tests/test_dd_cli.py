"""``lpparse dd`` on the shipped sample: records with traces, Table-1 summary, resume, compact-LP check."""

from __future__ import annotations

from pathlib import Path

import pytest

from lpparse.cli import main
from lpparse.corpus import sample_treebank_path
from lpparse.experiments.runner import read_results


def test_dd_command_synthetic_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "dd.jsonl"
    argv = ["dd", "--synthetic", "--max-length", "10", "--limit", "6", "--compare-lp", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "| 5-10 |" in text and "compact LP (HiGHS): solved 6/6" in text
    first = read_results(out)
    assert len(first) == 6
    for r in first:
        assert len(r["dual"]) == len(r["primal"]) == r["iterations"]
        assert min(r["dual"]) == pytest.approx(r["dd_bound"])
        assert all(d >= r["dd_objective"] - 1e-9 for d in r["dual"])  # weak duality along the trace
        assert r["lp_value"] <= r["dd_bound"] + 1e-7  # the dual bounds the LP
        if r["certified"]:
            assert r["certified_at"] == r["iterations"] and r["dd_bound"] == pytest.approx(r["dd_objective"])
            assert r["lp_value"] == pytest.approx(r["dd_objective"], abs=1e-6)
        assert 0 <= r["uas_correct"] <= r["uas_total"] <= r["n"] and len(r["heads"]) == r["n"] + 1
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:2]) + "\n")  # a run killed after two sentences resumes
    assert main([*argv, "--no-progress"]) == 0
    keep = ("key", "certified_at", "dd_bound", "dual")
    assert [{k: r[k] for k in keep} for r in read_results(out)] == [{k: r[k] for k in keep} for r in first]


def test_dd_command_with_a_trained_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "gp.npz"
    sample = str(sample_treebank_path())
    train = ["train", "--treebank", sample, "--order", "2", "--epochs", "2", "--bits", "16"]
    assert main([*train, "--trainer", "perceptron", "--out", str(model), "--no-progress"]) == 0
    out = tmp_path / "dd-model.jsonl"
    argv = [
        "dd",
        "--model",
        str(model),
        "--max-length",
        "8",
        "--limit",
        "5",
        "--step",
        "r10",
        "--out",
        str(out),
    ]
    assert main([*argv, "--max-iter", "50", "--no-progress"]) == 0
    assert "trained model" in capsys.readouterr().out and len(read_results(out)) == 5
    assert main(["dd", "--model", str(tmp_path / "none.npz"), "--out", str(tmp_path / "x.jsonl")]) == 2
    with pytest.raises(SystemExit):
        main(["dd"])  # neither --model nor --synthetic
