"""Proof records (``parse --decoder exact --proof``) read back and re-checked by ``lpparse check-proof`` from
the scores alone; tampered records fail, naming the sentence and the node."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from test_cli_errors import conll, fails, lpparse
from test_exact import _fractional_instance

from lpparse.exact.second_order import parse_exact
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.proofs.check import check_proof
from lpparse.proofs.record import proof_record, read_proof_record
from lpparse.scores import SentenceScores, save_scores
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer


def test_a_record_reads_back_and_checks() -> None:
    """Through JSON and back, a branched search's proof still holds over the same scores, not over others."""
    s, t, single_root = _fractional_instance()
    sib = np.random.default_rng(4).normal(scale=0.3, size=t.shape)
    parts = [
        GrandparentParts(DenseTripleScorer(t)),
        SiblingParts(DenseSiblingScorer(sib)),
    ]
    result = parse_exact(s, DenseTripleScorer(t), "all", single_root, sibling_scorer=DenseSiblingScorer(sib))
    assert result.certified and len(result.nodes) > 1
    record = json.loads(json.dumps(proof_record(result, parts)))
    assert "SibTriangle" in record["families"]["sibling"]  # the rows the search used: its cuts too
    again = read_proof_record(record, s)
    assert check_proof(s, parts, again) is None
    other = [
        GrandparentParts(DenseTripleScorer(t + 0.3)),
        SiblingParts(DenseSiblingScorer(sib)),
    ]
    assert check_proof(s, other, again) is not None


#: What the standalone checker must not need: the solvers, the column-generation engine, the LP decoders
#: and the branch and bound that wrote the proofs (made unimportable in its process)
NOT_TRUSTED = (
    "highspy",
    "pyomo",
    "lpparse.lp.highs_view",
    "lpparse.lp.pyomo_view",
    "lpparse.colgen.engine",
    "lpparse.ppc.loop",
    "lpparse.exact.search",
    "lpparse.commands",
)


def standalone(*args: object) -> subprocess.CompletedProcess[str]:
    """``python -m lpparse.proofcheck ARGS`` in a process where :data:`NOT_TRUSTED` cannot be imported."""
    code = (
        f"import sys; sys.modules.update(dict.fromkeys({NOT_TRUSTED!r}))\n"
        "from lpparse.proofcheck import main; sys.exit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=300
    )


def _tamper(path: Path, out: Path, change) -> Path:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    change(lines)
    out.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return out


def test_check_proof_command_and_tampering(tmp_path: Path) -> None:
    """parse --proof on a score file whose first sentence needs branching; check-proof, and the standalone
    checker without the solvers or the engine: exit 0, then exit 1 naming the sentence and node for halved
    duals, a branched node rewritten as closed unsolved, another tree, or a dropped leaf; exit 2 for --proof
    with another decoder."""
    s, t, _ = _fractional_instance()
    n = s.shape[0] - 1
    rng = np.random.default_rng(8)
    treebank = conll(tmp_path / "tb.conllu", [n, 5, 6])
    entries = [SentenceScores("s0", s, t)] + [
        SentenceScores(f"s{k}", rng.normal(size=(m + 1,) * 2), rng.normal(size=(m + 1,) * 3))
        for k, m in ((1, 5), (2, 6))
    ]
    scores = tmp_path / "scores.npz"
    save_scores(scores, entries)
    proofs = tmp_path / "p.jsonl"
    parse = ["parse", "--scores", scores, "--treebank", treebank, "--multi-root", "--no-progress"]
    done = lpparse(*parse, "--decoder", "exact", "--proof", proofs)
    assert done.returncode == 0, done.stderr
    check = ["check-proof", "--scores", scores, "--treebank", treebank, "--no-progress"]
    done = lpparse(*check[:1], proofs, *check[1:])
    assert done.returncode == 0 and "3 proofs checked" in done.stdout, done.stdout + done.stderr
    alone = standalone(proofs, *check[1:])
    assert alone.returncode == 0 and "3 proofs checked" in alone.stdout, alone.stdout + alone.stderr
    records = [json.loads(line) for line in proofs.read_text().splitlines()]
    branched = next(i for i, node in enumerate(records[0]["nodes"]) if node["closed"] == "branched")

    def halve(lines):
        for node in lines[0]["nodes"]:
            for entry in (node["duals"] or {}).values():
                entry["values"] = [0.5 * v for v in entry["values"]]

    def unsolved(lines):
        node = lines[0]["nodes"][branched]
        node.update(closed="bound", duals=None)  # its children stay: they no longer matter to the proof

    def other_tree(lines):
        heads = lines[1]["heads"]
        heads[1], heads[2] = (0, 1) if heads[2] != 1 else (2, 0)
        lines[1]["heads"] = heads

    def dropped_leaf(lines):
        lines[0]["nodes"][-1]["closed"] = "open"

    def families(value):  # the record's row families by part family, forged
        return lambda lines: lines[0].__setitem__("families", value)

    for name, change in (
        ("halved", halve),
        ("unsolved", unsolved),
        ("tree", other_tree),
        ("leaf", dropped_leaf),
        ("unregistered family", families({"grandparent": ["GPArc"], "nope": []})),
        ("no family", families({})),
        ("a family the scores lack", families({"grandparent": ["GPArc"], "sibling": ["ArcSib"]})),
        ("families not by name", families(["grandparent"])),
        ("rows not a list", families({"grandparent": "GPArc"})),
    ):
        bad = _tamper(proofs, tmp_path / f"{name}.jsonl", change)
        done = lpparse(*check[:1], bad, *check[1:])
        assert done.returncode == 1, (name, done.stdout, done.stderr)
        assert "does not hold" in done.stdout and "sentence s" in done.stdout, (name, done.stdout)
        alone = standalone(bad, *check[1:])
        assert alone.returncode == 1 and alone.stdout == done.stdout, (name, alone.stdout, alone.stderr)
    fails(lpparse(*parse, "--decoder", "ppc", "--proof", proofs), 2, "--proof", "exact")


def test_parse_branching_rules_give_the_same_trees_and_proofs_that_check(tmp_path: Path) -> None:
    """parse --decoder exact --branching pseudocost: the same trees as the default rule on sentences that
    branch, proofs that check-proof accepts; other decoders refuse the option."""
    s, t, _ = _fractional_instance()
    n = s.shape[0] - 1
    treebank = conll(tmp_path / "tb.conllu", [n])
    scores = tmp_path / "scores.npz"
    save_scores(scores, [SentenceScores("s0", s, t)])
    parse = ["parse", "--scores", scores, "--treebank", treebank, "--multi-root", "--no-progress", "--decoder"]
    outs = {}
    for rule in ("arc", "pseudocost"):
        outs[rule], proofs = tmp_path / f"{rule}.conllu", tmp_path / f"{rule}.jsonl"
        done = lpparse(*parse, "exact", "--branching", rule, "--out", outs[rule], "--proof", proofs)
        assert done.returncode == 0, done.stderr
        record = json.loads(proofs.read_text())
        assert any(node["closed"] == "branched" for node in record["nodes"]), rule
        done = lpparse("check-proof", proofs, "--scores", scores, "--treebank", treebank, "--no-progress")
        assert done.returncode == 0 and "1 proofs checked" in done.stdout, done.stdout + done.stderr
    assert outs["arc"].read_text() == outs["pseudocost"].read_text()
    done = lpparse(*parse, "ppc", "--branching", "pseudocost")
    assert done.returncode == 2 and "--branching" in done.stderr


def test_trees_without_sentence_ids_are_matched_in_order(tmp_path: Path) -> None:
    """A treebank without ``sent_id`` comments (CoNLL-X Danish): its sentences are named by line, which
    differs in the parse output, so ``check-proof --trees`` matches written sentences to the treebank's in
    order by their words; a tree changed in the output fails, a sentence left out of it does not."""
    treebank = conll(tmp_path / "tb.conllu", [4, 5, 3])
    kept = [line for line in treebank.read_text().splitlines() if not line.startswith("#")]
    treebank.write_text("".join(line + "\n" for line in kept))
    rng = np.random.default_rng(2)
    lines = [i + 1 for i, line in enumerate(treebank.read_text().splitlines()) if line.startswith("1\t")]
    entries = [
        SentenceScores(f"tb.conllu:{line}", rng.normal(size=(n + 1,) * 2), rng.normal(size=(n + 1,) * 3))
        for line, n in zip(lines, (4, 5, 3))
    ]
    scores = tmp_path / "scores.npz"
    save_scores(scores, entries)
    out, proofs = tmp_path / "out.conllu", tmp_path / "p.jsonl"
    parse = ["parse", "--scores", scores, "--treebank", treebank, "--multi-root", "--decoder", "exact"]
    done = lpparse(*parse, "--out", out, "--proof", proofs, "--no-progress")
    assert done.returncode == 0, done.stderr
    check = ["check-proof", proofs, "--scores", scores, "--treebank", treebank, "--multi-root", "--no-progress"]
    done = lpparse(*check, "--trees", out)
    assert done.returncode == 0 and "every tree of out.conllu has its proof" in done.stdout, done.stdout
    blocks = out.read_text().strip().split("\n\n")
    (tmp_path / "two.conllu").write_text("\n\n".join(blocks[1:]) + "\n\n")  # the first left out
    assert lpparse(*check, "--trees", tmp_path / "two.conllu").returncode == 0
    rows = [line.split("\t") for line in blocks[2].splitlines()]
    other = ["0", "0", "0"] if [row[6] for row in rows] != ["0", "0", "0"] else ["0", "1", "2"]
    for row, head in zip(rows, other):  # another tree for the third sentence
        row[6] = head
    blocks[2] = "\n".join("\t".join(row) for row in rows)
    (tmp_path / "other.conllu").write_text("\n\n".join(blocks) + "\n\n")
    done = lpparse(*check, "--trees", tmp_path / "other.conllu")
    assert done.returncode == 1 and "is of other trees" in done.stdout, done.stdout
