"""Arc-score generators for demos, tests and benchmarks, and score files: scores from any model, read lazily.

Every generator follows the convention of :mod:`lpparse.trees`: an (n+1, n+1) float64 array, ``S[h, m]`` the
score of h -> m, ``-inf`` on the diagonal and in column 0.

A score file (:func:`save_scores`, :func:`load_scores`; the README's "Bring your own scores" gives the
format) holds per sentence its arc scores and optionally grandparent and sibling scores, dense or sparse.
Scores are finite or -inf: -inf on an arc prunes the arc, on a grandparent triple or a sibling part prunes
that part alone (no tree may hold it; its arcs stay allowed, and the LPs forbid them together:
:mod:`lpparse.families.grandparent.rows`, :mod:`lpparse.families.sibling.rows`); NaN and +inf are refused.
It is an uncompressed ``.npz``, so each array is memory-mapped at its offset in the file and only the
sentence in use is read.

Label scores (any version): ``labels/<i>``, an (n+1, n+1, L) float array, ``labels/<i>[h, m, l]`` the score
of label l on the arc h -> m, the L label names in the meta's ``labels`` and the root label's name in its
``root_label``. A parse labels each arc of its tree with the best label given its head, the root label
exactly on the arcs from 0 (:func:`lpparse.scoring.labels.choose_labels`). Readers that predate labels decode
the same trees and ignore them.
"""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families import check_candidate_scores, family_parts, get_family
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer, SparseGrandSiblingScorer
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer, SparseTriSiblingScorer
from lpparse.io import DataError, atomic_write, readable_file, writing_zip
from lpparse.trees import allowed_mask_shape, check_tree, validate_scores
from lpparse.triples import (
    DenseSiblingScorer,
    DenseTripleScorer,
    check_csib_batch,
    check_gsib_batch,
    check_sibling_batch,
    check_triple_batch,
    check_tsib_batch,
)

if TYPE_CHECKING:
    from lpparse.corpus import Sentence

__all__ = [
    "SCORES_FORMAT_VERSION",
    "ScoreFile",
    "SentenceScores",
    "SparseParts",
    "check_sentence_scores",
    "load_scores",
    "noisy_gold_scores",
    "random_scores",
    "save_scores",
]


def _mask_unused(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    scores[~allowed_mask_shape(scores.shape[0])] = -np.inf
    return scores


def random_scores(
    n: int, rng: np.random.Generator | int | None = None, scale: float = 1.0, distance_bonus: float = 0.0
) -> NDArray[np.float64]:
    """N(0, scale^2) arc scores for n tokens, plus ``distance_bonus / |h - m|`` favouring short arcs."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    rng = np.random.default_rng(rng)
    scores = rng.normal(0.0, scale, size=(n + 1, n + 1))
    if distance_bonus:
        idx = np.arange(n + 1)
        dist = np.abs(idx[:, None] - idx[None, :]).astype(float)
        np.divide(distance_bonus, dist, out=dist, where=dist > 0)
        scores += dist
    return _mask_unused(scores)


def noisy_gold_scores(
    heads: ArrayLike, noise: float = 1.0, rng: np.random.Generator | int | None = None, gold_bonus: float = 1.0
) -> NDArray[np.float64]:
    """Gold arcs score ``gold_bonus``, every arc gets N(0, noise^2) on top (seeded by ``rng``).

    The stand-in for a trained first-order model: with ``noise`` around ``gold_bonus`` the best tree is
    close to, but not always, the gold tree.
    """
    gold = check_tree(heads)
    n = gold.shape[0] - 1
    rng = np.random.default_rng(rng)
    scores = rng.normal(0.0, noise, size=(n + 1, n + 1))
    scores[gold[1:], np.arange(1, n + 1)] += gold_bonus
    return _mask_unused(scores)


# ------------------------------------------------------------------------------------------- score files

SCORES_FORMAT = "lpparse-scores"
#: version 4 adds the scores of part families registered outside lpparse (meta ``families``: their names;
#: members ``<member>/i`` by each family's member prefix: :class:`lpparse.families.Family`), written only by
#: files that hold them (an older reader would decode without them);
#: version 3 adds third-order scores (``gsib``, ``tsib``: 4-index parts), written only by files that hold them;
#: version 2 adds consecutive-sibling scores (``csib``); version 1 files (arcs, grandparents, siblings) load
SCORES_FORMAT_VERSION = 4
#: the versions this lpparse reads
SCORES_FORMAT_READS = (1, 2, 3, 4)
#: Member prefixes of the parts a score file may hold besides arcs: grandparent triples, arbitrary and
#: consecutive siblings (3 indices), grand-siblings and tri-siblings (4 indices)
PART_KINDS = ("gp", "sib", "csib", "gsib", "tsib")
#: the kinds of 4-index parts, and the meta flag of each kind
THIRD_ORDER = ("gsib", "tsib")
_FLAGS = dict(zip(PART_KINDS, ("grandparent", "siblings", "consecutive", "grandsiblings", "trisiblings")))


@dataclass(frozen=True)
class SparseParts:
    """Scores of some parts of one sentence, ``default`` for every other: row k of ``index`` is a part
    (g, p, c), (h, m, m') with m < m', (h, a, b) (a consecutive-sibling window), (g, h, a, b) (a grand-sibling)
    or (h, x, a, b) (a tri-sibling), ``values[k]`` its score."""

    index: NDArray[np.int64]
    values: NDArray[np.float64]
    default: float = 0.0

    def dense(self, size: int) -> NDArray[np.float64]:
        """The (size,)*k array of every part's score (k = 3 or 4 indices)."""
        cube = np.full((size,) * np.shape(self.index)[1], float(self.default))
        cube[tuple(np.asarray(self.index, dtype=np.int64).T)] = self.values
        return cube


Parts = NDArray[np.float64] | SparseParts


@dataclass(frozen=True)
class SentenceScores:
    """One sentence's scores: ``arcs`` (n+1, n+1), optional grandparent scores ``gp`` (``gp[g, p, c]``),
    sibling scores ``sib`` (``sib[h, m, m']``, read where m < m') and consecutive-sibling scores ``csib``
    (``csib[h, a, b]``: :mod:`lpparse.families.consecutive.rows`), each a dense (n+1,)*3 array or
    :class:`SparseParts`, and third-order scores ``gsib[g, h, a, b]`` (grand-siblings:
    :mod:`lpparse.families.third_order.grandsibling`) and ``tsib[h, x, a, b]`` (tri-siblings:
    :mod:`lpparse.families.third_order.trisibling`), each a dense (n+1,)*4 array (small n) or :class:`SparseParts`
    with a 4-column index. Arrays of a loaded file are memory-mapped until a scorer is made."""

    sent_id: str
    arcs: NDArray[np.float64]
    gp: Parts | None = None
    sib: Parts | None = None
    csib: Parts | None = None
    gsib: Parts | None = None
    tsib: Parts | None = None
    #: (n+1, n+1, L) label scores (module docstring); None without labels
    labels: NDArray[np.float64] | None = None
    #: scores of other registered part families by family name (:func:`lpparse.families.registered`): a dense
    #: (n+1,)*arity array or :class:`SparseParts` each
    more: Mapping[str, Parts] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.arcs.shape[0] - 1

    def arc_scores(self) -> NDArray[np.float64]:
        """The arc scores, read into memory."""
        return np.array(self.arcs, dtype=np.float64)

    def triples(self) -> DenseTripleScorer | None:
        """A fresh counted triple scorer with exact factorized bounds (None without grandparent scores)."""
        return None if self.gp is None else DenseTripleScorer(self._cube(self.gp, "grandparent"))

    def siblings(self) -> DenseSiblingScorer | None:
        """A fresh counted sibling scorer with an exact bound (None without sibling scores)."""
        return None if self.sib is None else DenseSiblingScorer(self._cube(self.sib, "sibling"))

    def consecutive(self) -> DenseConsecutiveScorer | None:
        """A fresh counted consecutive-sibling scorer with exact bounds (None without such scores)."""
        return None if self.csib is None else DenseConsecutiveScorer(self._cube(self.csib, "consecutive sibling"))

    def grand_siblings(self) -> DenseGrandSiblingScorer | SparseGrandSiblingScorer | None:
        """A fresh counted grand-sibling scorer (None without such scores); sparse scores stay sparse."""
        return _quads(self.gsib, self.n, DenseGrandSiblingScorer, SparseGrandSiblingScorer, "grand-sibling")

    def tri_siblings(self) -> DenseTriSiblingScorer | SparseTriSiblingScorer | None:
        """A fresh counted tri-sibling scorer (None without such scores); sparse scores stay sparse."""
        return _quads(self.tsib, self.n, DenseTriSiblingScorer, SparseTriSiblingScorer, "tri-sibling")

    def window_parts(self) -> list[Any]:
        """The part families on consecutive-sibling windows this sentence has scores for, in binding order
        (windows, of zero scores when only third-order parts are scored; tri-siblings; grand-siblings)."""
        found = (
            ("consecutive", self.consecutive()),
            ("trisibling", self.tri_siblings()),
            ("grandsibling", self.grand_siblings()),
        )
        scorers = {name: scorer for name, scorer in found if scorer is not None}
        return family_parts(scorers, self.n) if scorers else []

    def part_scorers(self) -> dict[str, Any]:
        """A fresh counted scorer of every part family this sentence has scores of, by family name."""
        found = {
            "grandparent": self.triples(),
            "sibling": self.siblings(),
            "consecutive": self.consecutive(),
            "trisibling": self.tri_siblings(),
            "grandsibling": self.grand_siblings(),
        }
        return {name: scorer for name, scorer in found.items() if scorer is not None} | self.more_scorers()

    def more_scorers(self) -> dict[str, Any]:
        """A fresh counted scorer of each family of :attr:`more`, by family name."""
        out = {}
        for name, parts in self.more.items():
            family = get_family(name)
            sparse = family.sparse if isinstance(parts, SparseParts) else None
            out[name] = _quads(parts, self.n, family.dense, sparse, name, family.arity)
        return out

    def _cube(self, parts: Parts, kind: str) -> NDArray[np.float64]:
        size = self.n + 1
        cube = parts.dense(size) if isinstance(parts, SparseParts) else np.asarray(parts, dtype=np.float64)
        if cube.shape != (size,) * 3:
            raise ValueError(f"{kind} scores have shape {cube.shape}, expected {(size,) * 3}")
        return cube


def _quads(parts: Parts | None, n: int, dense: Any, sparse: Any, kind: str, arity: int = 4) -> Any:
    """A counted scorer of ``arity``-index parts: ``dense`` over an (n+1,)*arity array, ``sparse`` over listed
    parts (None: listed parts are made dense)."""
    if parts is None:
        return None
    if isinstance(parts, SparseParts):
        if sparse is not None:
            return sparse(n, np.asarray(parts.index), np.asarray(parts.values), float(parts.default))
        parts = parts.dense(n + 1)
    array = np.asarray(parts, dtype=np.float64)
    if array.shape != (n + 1,) * arity:
        raise ValueError(f"{kind} scores have shape {array.shape}, expected {(n + 1,) * arity}")
    return dense(array)


def _check_sparse(parts: SparseParts, n: int, kind: str, check_batch: Callable[..., object], arity: int = 3) -> None:
    index, values = np.asarray(parts.index), np.asarray(parts.values)
    if index.ndim != 2 or index.shape[1] != arity or index.dtype.kind not in "iu":
        got = f"{index.dtype} {index.shape}"
        raise ValueError(f"sparse {kind} index must be an integer (k, {arity}) array, got {got}")
    if values.shape != index.shape[:1]:
        raise ValueError(f"sparse {kind} values have shape {values.shape}, expected ({index.shape[0]},)")
    if np.isnan(parts.default) or np.isposinf(parts.default):
        raise ValueError(f"sparse {kind} default is {parts.default}")
    check_batch(n, *index.T)
    if np.unique(index, axis=0).shape[0] != index.shape[0]:
        raise ValueError(f"sparse {kind} index lists a part twice")


def check_sentence_scores(entry: SentenceScores) -> None:
    """ValueError unless ``entry`` is well formed: square arc scores, cubes of the same size, no NaN or
    +inf where a part can be (-inf prunes an arc or a part), sparse parts valid and listed once, label scores
    (n+1, n+1, L) without NaN or +inf."""
    validate_scores(entry.arcs, "arc scores")
    if entry.labels is not None:
        labels = np.asarray(entry.labels)
        if labels.ndim != 3 or labels.shape[:2] != entry.arcs.shape or not labels.shape[2]:
            raise ValueError(f"label scores have shape {labels.shape}, expected {entry.arcs.shape + ('L',)}")
        if np.isnan(labels).any() or np.isposinf(labels).any():
            raise ValueError("label scores hold NaN or +inf")
    for parts, scorer, check_batch, kind, arity in (
        (entry.gp, entry.triples, check_triple_batch, "grandparent", 3),
        (entry.sib, entry.siblings, check_sibling_batch, "sibling", 3),
        (entry.csib, entry.consecutive, check_csib_batch, "consecutive sibling", 3),
        (entry.gsib, entry.grand_siblings, check_gsib_batch, "grand-sibling", 4),
        (entry.tsib, entry.tri_siblings, check_tsib_batch, "tri-sibling", 4),
    ):
        if parts is None:
            continue
        if isinstance(parts, SparseParts):
            _check_sparse(parts, entry.n, kind, check_batch, arity)
        scorer()  # checks the array: shape, no NaN or +inf
    for name, parts in entry.more.items():
        family = get_family(name)
        if name in _FLAGS.values() or family.member in PART_KINDS:
            raise ValueError(f"the {name} scores have a field of their own, not a place in ``more``")
        if isinstance(parts, SparseParts):
            _check_sparse(parts, entry.n, name, family.check_index or (lambda n, *index: None), family.arity)
    for name, scorer in entry.more_scorers().items():  # the shapes checked; now every candidate part's score
        check_candidate_scores(name, scorer, entry.n)


def save_scores(
    path: str | Path,
    sentences: Iterable[SentenceScores],
    source: dict[str, Any] | None = None,
    labels: tuple[Sequence[str], str] | None = None,
) -> None:
    """Write a score file (README, "Bring your own scores"), one sentence at a time, so a treebank of long
    sentences never needs all its cubes in memory. Every sentence must have the same kinds of parts;
    ``source`` is free-form JSON about where the scores come from; ``labels``: the label names and the root
    label's of the sentences' label scores (every sentence has them then, none otherwise). ValueError names a
    malformed sentence."""
    names = list(labels[0]) if labels is not None else None
    if labels is not None and (labels[1] not in labels[0] or len(set(labels[0])) != len(labels[0])):
        raise ValueError(f"labels {names} with root label {labels[1]!r}: not a label set")
    entries: list[dict[str, Any]] = []
    kinds: tuple[Any, ...] | None = None
    with atomic_write(path, "wb") as handle, writing_zip(handle) as archive:
        for i, entry in enumerate(sentences):
            where = f"sentence {i + 1} ({entry.sent_id})"
            has = _checked_kinds(entry, names, where)
            if kinds is not None and has != kinds:
                raise ValueError(f"{where}: every sentence needs the same kinds of parts as the first")
            kinds = has
            entries.append(_write_sentence(archive, i, entry))
        if kinds is None:
            raise ValueError("no sentences to write")
        meta = {"format": SCORES_FORMAT, **_kinds_meta(kinds), "source": source or {}, "sentences": entries}
        if labels is not None:
            meta.update(labels=names, root_label=labels[1])
        _write(archive, "meta", np.array(json.dumps(meta)))


def _checked_kinds(entry: SentenceScores, names: list[str] | None, where: str) -> tuple[Any, ...]:
    """The kinds of parts a sentence has (a flag per built-in kind, then its other families' names), once
    the sentence and its label scores are checked (ValueError naming ``where``)."""
    try:
        check_sentence_scores(entry)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    if (entry.labels is None) != (names is None):
        raise ValueError(f"{where}: label scores go with the label names, in every sentence")
    if names is not None and np.shape(entry.labels)[2] != len(names):
        found = np.shape(entry.labels)[2]
        raise ValueError(f"{where}: {found} label scores an arc for {len(names)} labels")
    return (*(getattr(entry, key) is not None for key in PART_KINDS), *sorted(entry.more))


def _write_sentence(archive: zipfile.ZipFile, i: int, entry: SentenceScores) -> dict[str, Any]:
    """Write sentence i's arrays; its index record (sent_id, and how each kind of parts is stored)."""
    _write(archive, f"arcs/{i}", np.asarray(entry.arcs, dtype=np.float64))
    if entry.labels is not None:
        _write(archive, f"labels/{i}", np.asarray(entry.labels, dtype=np.float64))
    record: dict[str, Any] = {"sent_id": str(entry.sent_id)}
    named = [(key, getattr(entry, key)) for key in PART_KINDS]
    for key, parts in named + [(get_family(name).member, parts) for name, parts in entry.more.items()]:
        if isinstance(parts, SparseParts):
            _write(archive, f"{key}_index/{i}", np.asarray(parts.index, dtype=np.int64))
            _write(archive, f"{key}_value/{i}", np.asarray(parts.values, dtype=np.float64))
            record.update({key: "sparse", f"{key}_default": float(parts.default)})
        elif parts is not None:
            _write(archive, f"{key}/{i}", np.asarray(parts, dtype=np.float64))
            record[key] = "dense"
    return record


def _kinds_meta(kinds: tuple[Any, ...]) -> dict[str, Any]:
    """The meta record's version, built-in flags and other families: the lowest version that holds them,
    so that older readers take what they can read."""
    flags = dict(zip(_FLAGS.values(), kinds[: len(PART_KINDS)]))
    more = list(kinds[len(PART_KINDS) :])
    third_order = any(flags[_FLAGS[key]] for key in THIRD_ORDER)
    version = SCORES_FORMAT_VERSION if more else 3 if third_order else 2
    return {
        "version": version,
        **flags,
        **({"families": {name: get_family(name).member for name in more}} if more else {}),
    }


def _write(archive: zipfile.ZipFile, name: str, array: NDArray[Any]) -> None:
    with archive.open(f"{name}.npy", "w", force_zip64=True) as handle:
        np.lib.format.write_array(handle, array, allow_pickle=False)


@dataclass(frozen=True)
class _Member:
    """Where an uncompressed ``.npy`` member's data starts in the archive, and its header."""

    offset: int
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    fortran: bool


_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def _members(path: Path) -> dict[str, _Member]:
    """Every member's data offset and header, read from the zip directory and the local headers."""
    out = {}
    with zipfile.ZipFile(path) as archive, path.open("rb") as handle:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                raise DataError(
                    f"{path}: member {info.filename} is compressed; score files are stored uncompressed "
                    "(save_scores or numpy.savez, not savez_compressed) so that they can be memory-mapped"
                )
            handle.seek(info.header_offset)
            local = handle.read(30)
            if local[:4] != b"PK\x03\x04":
                raise zipfile.BadZipFile(f"no local header for {info.filename}")
            name_length, extra_length = struct.unpack("<HH", local[26:30])
            handle.seek(info.header_offset + 30 + name_length + extra_length)
            shape, fortran, dtype = _HEADERS[np.lib.format.read_magic(handle)](handle)
            out[info.filename.removesuffix(".npy")] = _Member(handle.tell(), shape, dtype, fortran)
    return out


class ScoreFile:
    """A score file opened by :func:`load_scores`: the index of its sentences; ``scores[i]`` memory-maps
    sentence i's arrays (nothing is read until a scorer or ``arc_scores()`` asks)."""

    def __init__(self, path: Path, meta: dict[str, Any], members: dict[str, _Member]) -> None:
        self.path = path
        self.meta = meta
        self._members = members
        self.grandparent: bool = meta["grandparent"]
        self.siblings: bool = meta["siblings"]
        self.consecutive: bool = bool(meta.get("consecutive", False))  # version 1: none
        self.grandsiblings: bool = bool(meta.get("grandsiblings", False))  # versions 1, 2: none
        self.trisiblings: bool = bool(meta.get("trisiblings", False))
        #: the other registered families it has scores of, by name, and their member prefixes (version 4)
        self.families: dict[str, str] = dict(meta.get("families") or {})
        self._entries: list[dict[str, Any]] = meta["sentences"]
        self.sent_ids = [str(e["sent_id"]) for e in self._entries]
        self.lengths = [members[f"arcs/{i}"].shape[0] - 1 for i in range(len(self._entries))]
        #: label names of the label scores, and the root label's index (None, 0: no labels)
        self.label_names: tuple[str, ...] | None = None
        self.root_label = 0
        if meta.get("labels") is not None:
            self.label_names = tuple(str(x) for x in meta["labels"])
            self.root_label = self.label_names.index(meta["root_label"])

    @property
    def training(self) -> dict[str, Any]:
        """The exporting model's dev decoder and its options, as :attr:`lpparse.scoring.Model.training` holds
        them (empty when the file does not say), so that ``bp`` decodes a score file as it decodes the model
        (:func:`lpparse.parsing.default_decoder_options`)."""
        source = self.meta.get("source") or {}
        return {k: source[k] for k in ("decoder", "decoder_options") if k in source}

    def part_names(self) -> list[str]:
        """The part families it has scores of, by registered name."""
        flags = {
            "grandparent": self.grandparent,
            "sibling": self.siblings,
            "consecutive": self.consecutive,
            "trisibling": self.trisiblings,
            "grandsibling": self.grandsiblings,
        }
        return [name for name, on in flags.items() if on] + list(self.families)

    @property
    def windows(self) -> bool:
        """Whether it has parts on consecutive-sibling windows: windows, grand-siblings or tri-siblings."""
        return self.consecutive or self.grandsiblings or self.trisiblings

    @property
    def order(self) -> int:
        """2 with grandparent, consecutive-sibling or third-order scores, else 1 (as
        :attr:`lpparse.scoring.Model.order`)."""
        return 2 if self.grandparent or self.windows else 1

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[SentenceScores]:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, i: int) -> SentenceScores:
        entry = self._entries[i]
        parts: dict[str, Parts | None] = {}
        for key in PART_KINDS:
            if entry.get(key) == "dense":
                parts[key] = self._array(f"{key}/{i}")
            elif entry.get(key) == "sparse":
                index, values = self._array(f"{key}_index/{i}"), self._array(f"{key}_value/{i}")
                parts[key] = SparseParts(index, values, entry[f"{key}_default"])
        labels = self._array(f"labels/{i}") if self.label_names is not None else None
        more = {name: self._parts(entry, member, i) for name, member in self.families.items()}
        return SentenceScores(self.sent_ids[i], self._array(f"arcs/{i}"), **parts, labels=labels, more=more)

    def _parts(self, entry: dict[str, Any], key: str, i: int) -> Parts:
        """Sentence i's scores under member prefix ``key``, dense or sparse as its index entry says."""
        if entry.get(key) == "sparse":
            index, values = self._array(f"{key}_index/{i}"), self._array(f"{key}_value/{i}")
            return SparseParts(index, values, entry[f"{key}_default"])
        if entry.get(key) != "dense":
            raise ValueError(f"the index does not say how the {key} scores are stored")
        return self._array(f"{key}/{i}")

    def _array(self, name: str) -> NDArray[Any]:
        member = self._members.get(name)
        if member is None:
            raise ValueError(f"the file has no array {name}")
        if member.dtype.kind not in "fiu":
            raise ValueError(f"array {name} has dtype {member.dtype}, not a number")
        if 0 in member.shape:
            return np.empty(member.shape, member.dtype)
        order = "F" if member.fortran else "C"
        return np.memmap(self.path, member.dtype, "r", member.offset, member.shape, order)

    def where(self, i: int) -> str:
        """Sentence i named in messages: file, number from 1, sent_id."""
        return f"{self.path}: sentence {i + 1} ({self.sent_ids[i]})"

    def validate(self) -> None:
        """Check every sentence (:func:`check_sentence_scores`), one at a time; DataError naming the first
        malformed one. First every member's bytes against their CRC-32 (:func:`_check_crcs`)."""
        _check_crcs(self.path)
        for i in range(len(self)):
            try:
                entry = self[i]
                check_sentence_scores(entry)
                names = self.label_names
                if names is not None and np.shape(entry.labels)[2] != len(names):
                    raise ValueError(f"label scores of shape {np.shape(entry.labels)}, {len(names)} labels")
            except ValueError as err:
                raise DataError(f"{self.where(i)}: {err}") from None

    def check(self, sentences: Sequence[Sentence], treebank: str | Path) -> None:
        """DataError unless the file has the sentences of ``treebank``: same count, ids and lengths, in
        order."""
        if len(sentences) != len(self):
            raise DataError(f"{self.path} holds {len(self)} sentences, {treebank} has {len(sentences)}")
        for i, sentence in enumerate(sentences):
            if not sentence.same_id(self.sent_ids[i]):
                raise DataError(
                    f"{self.where(i)}: {treebank} has sentence {sentence.sent_id!r} there (line {sentence.line})"
                )
            if sentence.n != self.lengths[i]:
                raise DataError(f"{self.where(i)}: {self.lengths[i]} tokens, {treebank} gives it {sentence.n}")


def load_scores(path: str | Path, validate: bool = True) -> ScoreFile:
    """Open a score file written by :func:`save_scores` (or ``numpy.savez`` in its format). Reads the index
    only, then (``validate``) checks every sentence's arrays one at a time through memory maps, so memory
    holds one sentence's arrays at most. DataError (naming the file and sentence) on any damage."""
    path = readable_file(path, "score file")
    _refuse_model_file(path)
    try:
        members = _members(path)
        with zipfile.ZipFile(path) as archive, archive.open("meta.npy") as handle:
            meta = json.loads(str(np.lib.format.read_array(handle, allow_pickle=False)))
    except KeyError:
        raise DataError(f"{path}: not an lpparse score file (no meta record)") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
        raise DataError(f"{path}: not an lpparse score file ({type(err).__name__}: {err})") from None
    if not isinstance(meta, dict) or meta.get("format") != SCORES_FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else meta
        raise DataError(f"{path}: not an lpparse score file (format {found!r})")
    if meta.get("version") not in SCORES_FORMAT_READS:
        raise DataError(
            f"{path}: score file version {meta.get('version')!r}; this lpparse reads versions "
            f"{', '.join(map(str, SCORES_FORMAT_READS))}"
        )
    try:
        scores = ScoreFile(path, meta, members)
    except (KeyError, TypeError, IndexError, ValueError) as err:
        raise DataError(f"{path}: damaged score file ({type(err).__name__}: {err})") from None
    if validate:
        scores.validate()
    return scores


def _refuse_model_file(path: Path) -> None:
    """DataError when ``path`` is an lpparse model file (given where a score file belongs): say so, and how to
    make a score file from it."""
    try:
        with zipfile.ZipFile(path) as archive, archive.open("meta.npy") as handle:
            meta = json.loads(str(np.lib.format.read_array(handle, allow_pickle=False)))
    except (KeyError, OSError, ValueError, EOFError, zipfile.BadZipFile):
        return  # not a model either: the score-file checks say what is wrong
    from lpparse.scoring.model import MODEL_FORMAT

    if isinstance(meta, dict) and meta.get("format") == MODEL_FORMAT:
        raise DataError(
            f"{path} is an lpparse model file, not a score file: give it as --model, or export its scores "
            "with 'lpparse scores export --model MODEL --treebank TREEBANK --out SCORES'"
        )


def _check_crcs(path: Path) -> None:
    """DataError unless every member's bytes match the CRC-32 the archive recorded for them (a flipped bit in
    a score is otherwise a valid number: memory maps never check). Reads the file once, member by member."""
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
    except (OSError, zipfile.BadZipFile) as err:
        raise DataError(f"{path}: damaged score file ({type(err).__name__}: {err})") from None
    if bad is not None:
        raise DataError(f"{path}: damaged score file: member {bad} does not match its CRC-32 (a changed byte)")
