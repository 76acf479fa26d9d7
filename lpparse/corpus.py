"""Treebanks: reading and writing CoNLL-U and CoNLL-X, the :class:`Sentence` record, and UAS and LAS.

Both formats have ten tab-separated columns (CoNLL-X: ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD
PDEPREL; CoNLL-U: ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC). Lines are checked here, with file and
line number in every error, before the ``conllu`` package parses each sentence. Files are UTF-8, with or
without a byte-order mark; an undecodable byte is an error naming its file, line and column. Each sentence
keeps its lines as read, so that writing predicted heads back preserves every other column, comments
(between tokens too), multiword tokens (``1-2``) and empty nodes (``1.1``). Multiword tokens and empty nodes
are not part of the tree.
"""

from __future__ import annotations

import contextlib
import re
import sys
import tempfile
import unicodedata
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TextIO

import conllu
import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.io import DataError, atomic_write, readable_file
from lpparse.trees import find_cycle, is_projective

__all__ = [
    "UAS",
    "CorpusError",
    "Sentence",
    "corpus_uas",
    "is_punctuation",
    "iter_treebank",
    "read_text",
    "read_treebank",
    "sample_treebank_path",
    "sentence_uas",
    "write_treebank",
]

_RAW = {name: (lambda line, i: line[i]) for name in ("feats", "deps", "misc")}
_INT_ID = re.compile(r"^[1-9][0-9]*$")
_RANGE_ID = re.compile(r"^[1-9][0-9]*-[1-9][0-9]*$")
_EMPTY_ID = re.compile(r"^[0-9]+\.[1-9][0-9]*$")
_INT = re.compile(r"^(0|[1-9][0-9]*)$")
PUNCT_TAGS = frozenset({"PUNCT", "XP", "."})


class CorpusError(DataError):
    """Malformed treebank input; the message names the file and line."""

    def __init__(self, path: str | Path, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line
        self.reason = message


@dataclass
class Sentence:
    """One annotated sentence: n tokens, arrays indexed 1..n with the root at position 0.

    ``heads[0] = -1``; ``words[0]`` etc. hold the root pseudo-token ``<root>``. ``metadata`` holds the
    comments (``# key = value``, as ``conllu`` reads them); ``lines`` the sentence's lines as read, which
    :func:`write_treebank` writes back with new heads; :attr:`tokens` parses them in full.
    """

    words: list[str]
    lemmas: list[str]
    cpos: list[str]
    pos: list[str]
    heads: NDArray[np.int64]
    labels: list[str]
    metadata: dict[str, str | None] = field(default_factory=dict, repr=False)
    source: str = ""
    line: int = 0
    lines: list[str] = field(default_factory=list, repr=False)

    @property
    def n(self) -> int:
        """Number of tokens (the root excluded)."""
        return len(self.words) - 1

    @property
    def tokens(self) -> conllu.TokenList:
        """The sentence as a ``conllu.TokenList`` (multiword tokens and empty nodes included), parsed from
        :attr:`lines` on each call (reading a treebank does not need it)."""
        return conllu.parse_token_and_metadata("\n".join(self.lines), field_parsers=_RAW)

    @property
    def sent_id(self) -> str:
        """The ``sent_id`` comment, else ``FILE:LINE`` with the file's name only (however the path is
        spelled)."""
        return str(self.metadata.get("sent_id", f"{Path(self.source).name}:{self.line}"))

    def same_id(self, sent_id: str) -> bool:
        """Whether ``sent_id`` (e.g. from a score file) names this sentence: its ``sent_id`` comment, or
        without one (CoNLL-X) any ``FILE:LINE`` of its line, so that a copy of the treebank under another name
        still matches."""
        if "sent_id" in self.metadata:
            return sent_id == self.sent_id
        return sent_id.rpartition(":")[2] == str(self.line)

    @property
    def root_children(self) -> int:
        return int(np.sum(self.heads[1:] == 0))

    @property
    def single_rooted(self) -> bool:
        return self.root_children == 1

    @property
    def annotated(self) -> bool:
        """Whether the sentence has a gold tree (read with ``gold=False``, a sentence of HEAD ``_`` has not)."""
        return bool(self.heads[1:].min(initial=0) >= 0)

    @property
    def labelled(self) -> bool:
        """Whether the sentence has gold labels (a DEPREL other than ``_``)."""
        return any(label != "_" for label in self.labels[1:])

    @property
    def projective(self) -> bool:
        return is_projective(self.heads)

    @property
    def punct_mask(self) -> NDArray[np.bool_]:
        """Boolean mask over 0..n: True for punctuation tokens (never for the root)."""
        mask = np.array([is_punctuation(w, t) for w, t in zip(self.words, self.cpos)])
        mask[0] = False
        return mask

    def text(self) -> str:
        return " ".join(self.words[1:])


def is_punctuation(form: str, tag: str | None = None) -> bool:
    """Punctuation as the CoNLL-X evaluation counts it: a PUNCT-like tag, or a form made only of
    Unicode punctuation characters."""
    if tag in PUNCT_TAGS:
        return True
    return bool(form) and all(unicodedata.category(ch).startswith("P") for ch in form)


def sample_treebank_path() -> Path:
    """The small English treebank shipped with lpparse (CoNLL-U)."""
    return Path(__file__).with_name("data") / "sample.conllu"


def _decoded(path: Path, number: int, raw: bytes) -> str:
    """One line as text (a UTF-8 byte-order mark on line 1 is dropped); :class:`CorpusError` if not UTF-8."""
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        column = len(raw[: err.start].decode("utf-8")) + 1
        message = f"byte 0x{raw[err.start]:02x} at column {column} is not UTF-8"
        raise CorpusError(path, number, message) from None


def _blocks(path: Path) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """Yield (first line number, [(line number, line)]) for each blank-line-separated sentence."""
    block: list[tuple[int, str]] = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = _decoded(path, number, raw).rstrip("\r\n")
            if line.strip():
                block.append((number, line))
            elif block:
                yield block[0][0], block
                block = []
    if block:
        yield block[0][0], block


def _check_block(
    path: Path, block: list[tuple[int, str]], gold: bool = True
) -> tuple[list[int], list[int], list[list[str]]]:
    """Check columns, ids and heads of one sentence block; return the heads, line numbers and columns of its
    words. With ``gold`` False a sentence may have no gold tree: every HEAD ``_`` (heads -1), as in text to be
    parsed."""
    heads: list[int] = []
    lines: list[int] = []
    columns: list[list[str]] = []
    for number, line in block:
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise CorpusError(path, number, f"expected 10 tab-separated columns, found {len(cols)}")
        tid, head = cols[0], cols[6]
        if _RANGE_ID.match(tid) or _EMPTY_ID.match(tid):
            continue
        if not _INT_ID.match(tid):
            raise CorpusError(path, number, f"token id {tid!r} is not an integer, a range a-b or a decimal a.b")
        if int(tid) != len(heads) + 1:
            raise CorpusError(path, number, f"token id {tid} out of sequence (expected {len(heads) + 1})")
        if head == "_" and not gold:
            heads.append(-1)
        elif head == "_":
            raise CorpusError(
                path, number, f"head '_' of token {tid}: no gold tree (parse and scores export read such text; "
                "this command needs gold heads)"
            )
        elif not _INT.match(head):
            raise CorpusError(path, number, f"head {head!r} of token {tid} is not a non-negative integer")
        else:
            heads.append(int(head))
        lines.append(number)
        columns.append(cols)
    if not heads:
        raise CorpusError(path, block[0][0], "sentence has no tokens")
    unknown = [number for h, number in zip(heads, lines) if h < 0]
    if unknown and len(unknown) < len(heads):
        raise CorpusError(path, unknown[0], "head '_' in a sentence whose other heads are given: all or none")
    if unknown:
        return heads, lines, columns
    n = len(heads)
    for m, (h, number) in enumerate(zip(heads, lines), start=1):
        if h > n:
            raise CorpusError(path, number, f"head {h} of token {m} is out of range 0..{n}")
    cycle = find_cycle([-1, *heads])
    if cycle is not None:
        raise CorpusError(path, lines[min(cycle) - 1], f"gold heads contain a cycle through tokens {sorted(cycle)}")
    return heads, lines, columns


def _sentence(path: Path, start: int, block: list[tuple[int, str]], gold: bool = True) -> Sentence:
    heads, _, columns = _check_block(path, block, gold)
    comments = [line for _, line in block if line.startswith("#")]
    metadata = conllu.parse_token_and_metadata("\n".join(comments)).metadata if comments else {}
    column = lambda i: ["<root>"] + [cols[i] for cols in columns]  # FORM LEMMA UPOS XPOS ... DEPREL as written
    return Sentence(
        words=column(1),
        lemmas=column(2),
        cpos=column(3),
        pos=column(4),
        heads=np.array([-1, *heads], dtype=np.int64),
        labels=column(7),
        metadata=dict(metadata),
        source=str(path),
        line=start,
        lines=[line for _, line in block],
    )


def iter_treebank(
    path: str | Path, on_error: Literal["raise", "skip"] = "raise", gold: bool = True
) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U or CoNLL-X file; with ``gold`` False, sentences without a gold tree
    (every HEAD ``_``: :attr:`Sentence.annotated` False) are read too.

    ``on_error="raise"`` stops at the first malformed sentence with a :class:`CorpusError` naming file and
    line; ``"skip"`` drops such sentences and warns once at the end with their count and the first reason.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
    path = readable_file(path, "treebank")
    skipped: list[CorpusError] = []
    for start, block in _blocks(path):
        try:
            yield _sentence(path, start, block, gold)
        except CorpusError as err:
            if on_error == "raise":
                raise
            skipped.append(err)
    if skipped:
        warnings.warn(
            f"{path}: skipped {len(skipped)} malformed sentence(s); first: {skipped[0]}", stacklevel=2
        )


def read_treebank(
    path: str | Path,
    on_error: Literal["raise", "skip"] = "raise",
    limit: int | None = None,
    max_length: int | None = None,
    gold: bool = True,
) -> list[Sentence]:
    """Read a whole treebank (see :func:`iter_treebank`), optionally the first ``limit`` sentences of at
    most ``max_length`` tokens."""
    out: list[Sentence] = []
    for sentence in iter_treebank(path, on_error, gold):
        if max_length is not None and sentence.n > max_length:
            continue
        out.append(sentence)
        if limit is not None and len(out) >= limit:
            break
    return out


def write_treebank(
    path: str | Path,
    sentences: Iterable[Sentence],
    heads: Iterable[ArrayLike] | None = None,
    labels: Iterable[Sequence[str] | None] | None = None,
) -> None:
    """Write sentences in their original format, replacing HEAD (and DEPREL if given) with predictions
(``path`` ``-``: standard output).

    Every other column, comment, multiword token and empty node is kept as read. The file appears complete
    or not at all (:func:`lpparse.io.atomic_write`).
    """
    sentences = list(sentences)
    predicted = list(heads) if heads is not None else [s.heads for s in sentences]
    relabel = list(labels) if labels is not None else [None] * len(sentences)
    if not len(predicted) == len(relabel) == len(sentences):
        raise ValueError("sentences, heads and labels must have the same length")
    with _written(path) as handle:
        for sentence, pred, lab in zip(sentences, predicted, relabel):
            pred = np.asarray(pred)
            if pred.shape != sentence.heads.shape:
                raise ValueError(
                    f"sentence {sentence.sent_id}: predicted heads have shape {pred.shape}, "
                    f"expected {sentence.heads.shape}"
                )
            handle.write("".join(f"{line}\n" for line in _relabeled(sentence.lines, pred, lab)) + "\n")


@contextlib.contextmanager
def _written(path: str | Path) -> Iterator[TextIO]:
    """The file ``path`` written whole or not at all (:func:`lpparse.io.atomic_write`), or standard output
    for ``-``."""
    if str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    with atomic_write(path) as handle:
        yield handle


def _relabeled(lines: list[str], heads: NDArray[np.int64], labels: Sequence[str] | None) -> Iterator[str]:
    """A sentence's lines with HEAD (and DEPREL) of word m set to ``heads[m]`` (and ``labels[m]``)."""
    for line in lines:
        cols = line.split("\t")
        if line.startswith("#") or not _INT_ID.match(cols[0]):
            yield line
            continue
        m = int(cols[0])
        cols[6] = str(int(heads[m]))
        if labels is not None:
            cols[7] = labels[m]
        yield "\t".join(cols)


@dataclass(frozen=True)
class UAS:
    """Attachment scores: correct heads over scored tokens, with and without punctuation; when labels were
    scored too (``correct_labelled`` not None), tokens with the correct head and DEPREL (LAS; the whole label,
    subtypes included, as CoNLL-X's eval.pl compares them)."""

    correct: int
    total: int
    correct_no_punct: int
    total_no_punct: int
    correct_labelled: int | None = None
    correct_labelled_no_punct: int | None = None

    @property
    def uas(self) -> float:
        return self.correct / self.total if self.total else float("nan")

    @property
    def uas_no_punct(self) -> float:
        return self.correct_no_punct / self.total_no_punct if self.total_no_punct else float("nan")

    @property
    def labelled(self) -> bool:
        """Whether labels were scored (LAS)."""
        return self.correct_labelled is not None

    @property
    def las(self) -> float:
        """Labelled attachment score; NaN when labels were not scored."""
        return _ratio(self.correct_labelled, self.total)

    @property
    def las_no_punct(self) -> float:
        return _ratio(self.correct_labelled_no_punct, self.total_no_punct)

    def __add__(self, other: UAS) -> UAS:
        both = self.labelled and other.labelled
        a, b = (self.correct_labelled, self.correct_labelled_no_punct), (
            other.correct_labelled,
            other.correct_labelled_no_punct,
        )
        return UAS(
            self.correct + other.correct,
            self.total + other.total,
            self.correct_no_punct + other.correct_no_punct,
            self.total_no_punct + other.total_no_punct,
            *((a[0] + b[0], a[1] + b[1]) if both else (None, None)),  # type: ignore[operator]
        )


def _ratio(correct: int | None, total: int) -> float:
    return correct / total if correct is not None and total else float("nan")


def sentence_uas(sentence: Sentence, predicted: ArrayLike, labels: Sequence[str] | None = None) -> UAS:
    """UAS of predicted heads against the sentence's gold heads, and LAS with predicted ``labels`` (indexed
    by token, position 0 the root's; a gold label ``_`` is never matched)."""
    pred = np.asarray(predicted)
    if pred.shape != sentence.heads.shape:
        raise ValueError(f"predicted heads have shape {pred.shape}, expected {sentence.heads.shape}")
    if labels is not None and len(labels) != len(sentence.labels):
        raise ValueError(f"{len(labels)} predicted labels, expected {len(sentence.labels)}")
    if not sentence.annotated:  # no gold tree: nothing to score
        return UAS(0, 0, 0, 0, *((0, 0) if labels is not None else ()))
    hit = pred[1:] == sentence.heads[1:]
    keep = ~sentence.punct_mask[1:]
    labelled: tuple[int, ...] = ()
    if labels is not None:
        same = np.array([p == g != "_" for p, g in zip(labels[1:], sentence.labels[1:])], dtype=bool)
        both = hit & same
        labelled = (int(both.sum()), int(both[keep].sum()))
    return UAS(int(hit.sum()), sentence.n, int(hit[keep].sum()), int(keep.sum()), *labelled)


def corpus_uas(
    sentences: Iterable[Sentence],
    predictions: Iterable[ArrayLike],
    labels: Iterable[Sequence[str]] | None = None,
) -> UAS:
    """Micro-averaged UAS (and LAS, with predicted ``labels``) over a corpus (token counts summed over
    sentences)."""
    sentences = list(sentences)
    total = UAS(0, 0, 0, 0, *((0, 0) if labels is not None else ()))
    per = [None] * len(sentences) if labels is None else labels
    for sentence, pred, lab in zip(sentences, predictions, per, strict=True):
        total = total + sentence_uas(sentence, pred, lab)
    return total


def read_text(path: str | Path, stream: TextIO | None = None) -> list[Sentence]:
    """Pre-tokenized text as sentences without gold trees: one sentence a line, tokens separated by
    whitespace (blank lines skipped); ``stream`` (standard input, for ``-``) instead of the file ``path``.
    Each becomes a CoNLL-U sentence with its FORM alone (every other column ``_``), named by its line
    (``# sent_id = N``) with its ``# text``; :class:`CorpusError` names the line of a token that CoNLL-U
    cannot hold."""
    name = "<stdin>" if stream is not None else str(path)
    lines = (stream if stream is not None else Path(path).open(encoding="utf-8")).read().splitlines()
    blocks = []
    for number, line in enumerate(lines, 1):
        tokens = line.split()
        if not tokens:
            continue
        bad = next((t for t in tokens if "\t" in t or t == "_"), None)
        if bad is not None:
            raise CorpusError(name, number, f"token {bad!r} cannot be a CoNLL-U FORM")
        rows = [f"{i}\t{t}\t_\t_\t_\t_\t_\t_\t_\t_" for i, t in enumerate(tokens, 1)]
        blocks.append("\n".join([f"# sent_id = {number}", f"# text = {' '.join(tokens)}", *rows]) + "\n")
    with tempfile.TemporaryDirectory() as folder:
        conllu_path = Path(folder) / "text.conllu"
        conllu_path.write_text("\n".join(blocks) + "\n", encoding="utf-8")
        sentences = read_treebank(conllu_path, gold=False)
    by_line = [number for number, line in enumerate(lines, 1) if line.split()]
    return [replace(s, source=name, line=n) for s, n in zip(sentences, by_line)]
