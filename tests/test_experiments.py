"""The paper's grandparent experiments end to end on the shipped sample: tables, resume, report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lpparse.cli import main
from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.experiments.grandparent_tables import ScoreSource, bounds_task, ppc_task, summarize
from lpparse.experiments.report import experiment_kind, load_results, write_report
from lpparse.experiments.runner import read_results


@pytest.fixture(scope="module")
def short_sentences():
    return read_treebank(sample_treebank_path(), max_length=9)[:8]


def payload(sentence, seed: int) -> dict:
    return {"sentence": sentence, "source": ScoreSource(), "seed": seed, "single_root": True}


def test_ppc_matches_bf_on_every_sentence(short_sentences) -> None:
    records = [ppc_task(payload(s, i)) for i, s in enumerate(short_sentences)]
    for r in records:
        assert r["bf"]["certified"] and r["ppc"]["certified"]
        assert r["ppc"]["objective"] == pytest.approx(r["bf"]["objective"], abs=1e-6)
        assert r["ppc"]["parts"]["grandparent"]["scored"] <= r["bf"]["parts"]["grandparent"]["scored"]
        assert r["ppc"]["parts"]["grandparent"]["added"] <= r["bf"]["parts"]["grandparent"]["added"]
    (overall, *_) = summarize("ppc", records)
    assert overall["objective = BF"] == f"{len(records)}/{len(records)}"
    assert 0 < overall["grandparent added rel. BF"] <= overall["grandparent scored rel. BF"] <= 1


def test_all_is_never_looser_than_its_parts(short_sentences) -> None:
    records = [bounds_task(payload(s, i)) for i, s in enumerate(short_sentences)]
    for r in records:
        assert r["all"]["objective"] <= min(r["martins"]["objective"], r["onegp"]["objective"]) + 1e-6
    (overall, *_) = summarize("bounds", records)
    assert overall["all <= martins, onegp"] == f"{len(records)}/{len(records)}"
    assert overall["martins speed rel. martins"] == pytest.approx(1.0)


def _objectives(records: list[dict]) -> list[dict]:
    """What a resumed run must reproduce exactly: keys, lengths and both objectives."""
    return [{"key": r["key"], "n": r["n"], "bf": r["bf"]["objective"], "ppc": r["ppc"]["objective"]} for r in records]


def test_experiment_command_resumes_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ppc.jsonl"
    argv = ["experiment", "ppc", "--synthetic", "--max-length", "8", "--limit", "5", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    first = read_results(out)
    assert len(first) == 5 and experiment_kind(first) == "ppc"
    assert "Table 1" in capsys.readouterr().out
    assert out.with_suffix(".md").read_text().count("|") > 20
    assert out.with_suffix(".csv").read_text().startswith("sentences,count,")
    # a run that stopped after two sentences resumes to the same records
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:2]) + "\n")
    assert main(argv) == 0
    assert _objectives(read_results(out)) == _objectives(first)
    report = tmp_path / "report" / "r.md"
    assert main(["report", str(out), "--out", str(report)]) == 0
    text = report.read_text()
    images = re.findall(r"\]\(([^()]+\.png)\)", text)
    assert len(images) == 3 and all((report.parent / name).stat().st_size > 5000 for name in images)
    # two results files of one name: two sets of plots; a bad later input leaves no plot behind
    copy = tmp_path / "b" / "ppc.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(out.read_bytes())
    both = tmp_path / "both" / "r.md"
    assert main(["report", str(out), str(copy), "--out", str(both)]) == 0
    images = re.findall(r"\]\(([^()]+\.png)\)", both.read_text())
    assert len(images) == len(set(images)) == 6
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    failed = tmp_path / "failed" / "r.md"
    assert main(["report", str(out), str(empty), "--out", str(failed)]) == 1
    assert not failed.parent.exists() or not any(failed.parent.iterdir())


def test_experiment_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "ppc", "--model", str(tmp_path / "none.npz"), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "model not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["experiment", "ppc"])  # neither --model nor --synthetic
    assert main(["report", str(tmp_path / "missing.jsonl")]) == 2
    bad = tmp_path / "odd.jsonl"
    bad.write_text(json.dumps({"key": "a", "n": 3, "something": {}}) + "\n")
    with pytest.raises(ValueError, match="unknown experiment"):
        write_report([bad], tmp_path / "r.md")


def test_report_dd_and_bp_sweep(tmp_path: Path) -> None:
    """DD results (``lpparse dd``) and a BP sweep JSON (bp_sweep's ``{"meta", "rows"}``) are recognized and
    get their table and figure: the certificate curve with dual-gap traces, and UAS against K."""
    dd = tmp_path / "dd.jsonl"
    assert (
        main(["dd", "--synthetic", "--max-length", "8", "--limit", "4", "--out", str(dd), "--no-progress"])
        == 0
    )
    assert experiment_kind(read_results(dd)) == "dd"
    rows = [
        {
            "iterations": k,
            "objective": o,
            "uas_bp": 0.7 + 0.01 * k,
            "uas_exact": 0.75,
            "losses": [1.0],
            "train_seconds": 1.0,
        }
        for k in (1, 2, 4)
        for o in ("cll", "l2")
    ]
    sweep = tmp_path / "bp.sweep.toy.json"
    sweep.write_text(json.dumps({"meta": {"max_length": 15}, "rows": rows}))
    assert experiment_kind(load_results(sweep)) == "bp-sweep"
    report = tmp_path / "report" / "r.md"
    assert main(["report", str(dd), str(sweep), "--out", str(report)]) == 0
    text = report.read_text()
    assert "Rush et al. 2010, Table 1" in text and "5-10" in text and "l2 exact" in text
    images = re.findall(r"\]\(([^()]+\.png)\)", text)
    assert len(images) == 2 and all((report.parent / name).stat().st_size > 5000 for name in images)


def test_experiment_markdown_names_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The summary names the model by its file name: a committed report holds no machine's absolute paths."""
    model = tmp_path / "deep" / "m.npz"
    argv = ["train", "--treebank", str(sample_treebank_path()), "--order", "2", "--epochs", "1", "--bits", "12"]
    assert main([*argv, "--max-length", "8", "--limit", "5", "--no-progress", "--out", str(model)]) == 0
    out = tmp_path / "r.jsonl"
    assert main(["experiment", "ppc", "--model", str(model), "--limit", "2", "--out", str(out), "--no-progress"]) == 0
    text = out.with_suffix(".md").read_text()
    assert "trained model m.npz" in text and str(tmp_path) not in text
