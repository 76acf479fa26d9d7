"""``lpparse parse --text``: pre-tokenized text in (a file or standard input), CoNLL-U out (a file or standard
output, the summary then on standard error); a model whose features read tags is refused, as plain text has
none and lpparse has no tagger."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import conllu
import numpy as np
import pytest
from test_cli_errors import fails, lpparse

from lpparse.corpus import CorpusError, read_text, read_treebank, sample_treebank_path
from lpparse.scoring.features import Vocabulary
from lpparse.scoring.model import Model
from lpparse.trees import is_tree

TEXT = "The cat sat on the mat .\n\n  It   was happy  \n"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A first-order model over word forms alone (random weights), and one with the default templates."""
    folder = tmp_path_factory.mktemp("text-models")
    vocab = Vocabulary.build(read_treebank(sample_treebank_path()))
    words = Model(vocab, bits=12, first_order=(("h.word",), ("m.word",), ("h.word", "m.word"), ()))
    words.weights = np.random.default_rng(0).normal(size=1 << 12)
    tags = Model(vocab, bits=12)
    paths = {"words": folder / "words.npz", "tags": folder / "tags.npz"}
    words.save(paths["words"])
    tags.save(paths["tags"])
    return paths


def test_text_reads_one_sentence_a_line() -> None:
    sentences = read_text("-", io.StringIO(TEXT))
    assert [s.words[1:] for s in sentences] == [
        ["The", "cat", "sat", "on", "the", "mat", "."],
        ["It", "was", "happy"],
    ]
    assert [s.sent_id for s in sentences] == ["1", "3"] and [s.line for s in sentences] == [1, 3]
    assert not any(s.annotated for s in sentences) and sentences[0].source == "<stdin>"
    with pytest.raises(CorpusError, match="<stdin>:2: token '_'"):
        read_text("-", io.StringIO("fine line\nan _ here\n"))


def test_parse_text_to_standard_output(tmp_path: Path, models: dict[str, Path]) -> None:
    """From a file and from standard input, CoNLL-U on standard output: every line's tokens, a tree each, the
    root label exactly on the head-0 tokens; the summary on standard error."""
    text = tmp_path / "in.txt"
    text.write_text(TEXT)
    done = lpparse("parse", "--model", models["words"], "--text", text, "--out", "-", "--no-progress")
    assert done.returncode == 0, done.stderr
    piped = subprocess.run(
        [
            sys.executable,
            "-m",
            "lpparse",
            "parse",
            "--model",
            str(models["words"]),
            "--text",
            "-",
            "--out",
            "-",
        ],
        input=TEXT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert piped.returncode == 0 and piped.stdout == done.stdout, piped.stderr
    assert "2 sentences" in done.stderr and "2 sentences" not in done.stdout
    parsed = conllu.parse(done.stdout)
    assert [[t["form"] for t in s] for s in parsed] == [
        line.split() for line in TEXT.splitlines() if line.split()
    ]
    for sentence in parsed:
        heads = np.array([-1] + [t["head"] for t in sentence])
        assert is_tree(heads)
        assert all((t["deprel"] == "root") == (t["head"] == 0) for t in sentence)
    out = tmp_path / "out.conllu"
    done = lpparse("parse", "--model", models["words"], "--text", text, "--out", out, "--no-progress")
    assert done.returncode == 0 and out.read_text() == piped.stdout and "wrote" in done.stdout


def test_text_is_refused_where_it_cannot_serve(tmp_path: Path, models: dict[str, Path]) -> None:
    text = tmp_path / "in.txt"
    text.write_text(TEXT)
    fails(lpparse("parse", "--model", models["tags"], "--text", text), 2, "--text", "UPOS", "--treebank")
    fails(lpparse("parse", "--scores", text, "--text", text), 2, "--text", "score file")
    done = lpparse("parse", "--model", models["words"], "--text", text, "--treebank", sample_treebank_path())
    assert done.returncode == 2 and "not allowed with argument" in done.stderr
    (tmp_path / "empty.txt").write_text("\n   \n")
    fails(lpparse("parse", "--model", models["words"], "--text", tmp_path / "empty.txt"), 1, "no sentence")
