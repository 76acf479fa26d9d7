"""Reading, validating and writing treebanks; UAS."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from lpparse.corpus import (
    CorpusError,
    corpus_uas,
    is_punctuation,
    read_treebank,
    sentence_uas,
    write_treebank,
)

GOOD_U = """# sent_id = a
# text = I don't know.
1\tI\tI\tPRON\tPRP\tCase=Nom\t4\tnsubj\t4:nsubj\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t4:aux\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_
4\tknow\tknow\tVERB\tVB\tVerbForm=Inf\t0\troot\t0:root\tSpaceAfter=No
4.1\tknow\tknow\tVERB\tVB\t_\t_\t_\t4:conj\tCopyOf=4
5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_

# sent_id = b
1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_
2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_
"""

GOOD_X = """1\tDer\tder\tU\tU=\tid=1\t2\texpl\t_\t_
2\tvar\tvære\tVA\tVADA\tmood=indic\t0\tROOT\t_\t_
3\ten\ten\tPI\tPI-CSU\t_\t2\tdobj\t2\tdobj
4\t.\t.\tXP\tXP\t_\t0\tROOT\t_\t_
"""


def write(tmp_path: Path, text: str, name: str = "t.conllu") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_conllu_skipping_multiword_tokens_and_empty_nodes(tmp_path: Path) -> None:
    a, b = read_treebank(write(tmp_path, GOOD_U))
    assert a.n == 5 and b.n == 2
    assert a.words == ["<root>", "I", "do", "n't", "know", "."]
    assert a.heads.tolist() == [-1, 4, 4, 4, 0, 4]
    assert a.cpos[1:] == ["PRON", "AUX", "PART", "VERB", "PUNCT"]
    assert a.pos[1] == "PRP" and a.lemmas[3] == "not" and a.labels[4] == "root"
    assert a.sent_id == "a" and a.line == 1 and b.line == 11
    assert a.single_rooted and a.projective


def test_columns_and_comments_as_conllu_parses_them(tmp_path: Path) -> None:
    """Reading splits the columns itself; ``conllu`` (what :attr:`Sentence.tokens` returns) agrees on every
    word's FORM, LEMMA, UPOS, XPOS and DEPREL, and on the comments, in CoNLL-U (multiword tokens, empty
    nodes, ``_`` values) and CoNLL-X."""
    shown = lambda v: "_" if v is None else str(v)
    for text, name in ((GOOD_U, "t.conllu"), (GOOD_X, "t.conll")):
        for sentence in read_treebank(write(tmp_path, text, name)):
            tokens = sentence.tokens
            words = [t for t in tokens if isinstance(t["id"], int)]
            assert sentence.metadata == tokens.metadata
            for attribute, column in (("words", "form"), ("lemmas", "lemma"), ("cpos", "upos"), ("pos", "xpos"),
                                      ("labels", "deprel")):
                assert getattr(sentence, attribute) == ["<root>", *(shown(t[column]) for t in words)]
    (a, _) = read_treebank(write(tmp_path, GOOD_U))
    assert a.metadata == {"sent_id": "a", "text": "I don't know."}
    assert read_treebank(write(tmp_path, GOOD_X, "t.conll"))[0].metadata == {}


def test_reads_conllx_with_several_roots(tmp_path: Path) -> None:
    (s,) = read_treebank(write(tmp_path, GOOD_X, "t.conll"))
    assert s.heads.tolist() == [-1, 2, 0, 2, 0]
    assert s.root_children == 2 and not s.single_rooted
    assert s.punct_mask.tolist() == [False, False, False, False, True]


def test_write_back_keeps_every_other_column(tmp_path: Path) -> None:
    for text, name in ((GOOD_U, "t.conllu"), (GOOD_X, "t.conll")):
        src = write(tmp_path, text, name)
        sentences = read_treebank(src)
        out = tmp_path / ("out-" + name)
        write_treebank(out, sentences)
        assert out.read_text(encoding="utf-8").strip().splitlines() == text.strip().splitlines()
    sentences = read_treebank(write(tmp_path, GOOD_U))
    predicted = [np.array([-1, 2, 0, 2, 2, 4]), sentences[1].heads]
    out = tmp_path / "pred.conllu"
    write_treebank(out, sentences, predicted)
    lines = out.read_text(encoding="utf-8").rstrip("\n").splitlines()
    original = GOOD_U.splitlines()
    changed = [(o, n) for o, n in zip(original, lines) if o != n]
    assert len(lines) == len(original)
    # HEAD (column 7) changed on tokens 1, 2, 3 and 4 only; every other column is as read
    assert len(changed) == 4
    for old, new in changed:
        o, n = old.split("\t"), new.split("\t")
        assert o[:6] + o[7:] == n[:6] + n[7:]
    reread = read_treebank(out)
    assert reread[0].heads.tolist() == [-1, 2, 0, 2, 2, 4]


@pytest.mark.parametrize(
    ("line", "replacement", "message", "line_number"),
    [
        ("1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_", "10 tab-separated columns", 12),
        ("1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "x\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "not an integer", 12),
        ("2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_", "2\t!\t!\tPUNCT\t.\t_\t7\tpunct\t_\t_", "out of range", 13),
        ("2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_", "2\t!\t!\tPUNCT\t.\t_\t_\tpunct\t_\t_", "head '_' of token 2: no gold tree", 13),
        ("2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_", "3\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_", "out of sequence", 13),
        ("1\tGo\tgo\tVERB\tVB\t_\t0\troot\t_\t_", "1\tGo\tgo\tVERB\tVB\t_\t2\troot\t_\t_", "cycle", 12),
        ("2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_", "2\t!\t!\tPUNCT\t.\t_\t2\tpunct\t_\t_", "cycle", 13),
    ],
)
def test_malformed_input_names_file_and_line(
    tmp_path: Path, line: str, replacement: str, message: str, line_number: int
) -> None:
    assert line in GOOD_U
    path = write(tmp_path, GOOD_U.replace(line, replacement))
    with pytest.raises(CorpusError, match=message) as info:
        read_treebank(path)
    assert info.value.line == line_number
    assert str(info.value).startswith(f"{path}:{line_number}:")
    # the skip option keeps the good sentence, warns with a count, and loses nothing else
    with pytest.warns(UserWarning, match="skipped 1 malformed sentence"):
        kept = read_treebank(path, on_error="skip")
    assert [s.sent_id for s in kept] == ["a"]


def test_missing_file_and_bad_option(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_treebank(tmp_path / "nope.conllu")
    with pytest.raises(ValueError, match="on_error"):
        read_treebank(write(tmp_path, GOOD_U), on_error="ignore")  # type: ignore[arg-type]


def test_good_input_raises_no_warning(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_treebank(write(tmp_path, GOOD_U), on_error="skip")) == 2


def test_limit_and_max_length(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_U)
    assert [s.sent_id for s in read_treebank(path, limit=1)] == ["a"]
    assert [s.sent_id for s in read_treebank(path, max_length=3)] == ["b"]


def test_uas_with_and_without_punctuation(tmp_path: Path) -> None:
    a, b = read_treebank(write(tmp_path, GOOD_U))
    gold = sentence_uas(a, a.heads)
    assert (gold.uas, gold.uas_no_punct) == (1.0, 1.0)
    wrong = a.heads.copy()
    wrong[5] = 1  # the full stop
    wrong[1] = 2
    score = sentence_uas(a, wrong)
    assert (score.correct, score.total, score.correct_no_punct, score.total_no_punct) == (3, 5, 3, 4)
    total = corpus_uas([a, b], [wrong, b.heads])
    assert (total.correct, total.total, total.correct_no_punct, total.total_no_punct) == (5, 7, 4, 5)
    with pytest.raises(ValueError, match="shape"):
        sentence_uas(a, b.heads)


@pytest.mark.parametrize(
    ("form", "tag", "expected"),
    [(".", None, True), ("--", "X", True), ("«", None, True), ("a.", None, False), ("x", "PUNCT", True), ("1", None, False)],
)
def test_punctuation(form: str, tag: str | None, expected: bool) -> None:
    assert is_punctuation(form, tag) is expected


def test_byte_order_mark_undecodable_bytes_and_comments_between_tokens(tmp_path: Path) -> None:
    path = tmp_path / "bom.conllu"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD_U.encode("utf-8"))
    assert [s.sent_id for s in read_treebank(path)] == ["a", "b"]
    bad = tmp_path / "latin1.conllu"
    bad.write_bytes(GOOD_U.replace("Go\tgo", "G\u00e9\tgo").encode("latin-1"))
    with pytest.raises(CorpusError, match=r"latin1.conllu:12: byte 0xe9 at column 4 is not UTF-8"):
        read_treebank(bad)
    inner = write(tmp_path, GOOD_U.replace("2\t!\t!", "# between tokens\n2\t!\t!"))
    sentences = read_treebank(inner)
    out = tmp_path / "out.conllu"
    write_treebank(out, sentences, [s.heads for s in sentences])
    assert out.read_text() == inner.read_text() + "\n"  # the comment stays in place, every column too
    assert not list(tmp_path.glob(".*"))  # written through a temporary file, renamed


def test_sentence_ids_do_not_depend_on_how_the_path_is_spelled(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_X, "t.conll")
    (plain,) = read_treebank(path)
    (odd,) = read_treebank(tmp_path / ".." / tmp_path.name / "t.conll")
    assert plain.sent_id == odd.sent_id == "t.conll:1"
