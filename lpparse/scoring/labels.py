"""Arc labels (DEPREL): a second-stage labeller of the arcs a decoder predicts.

Labels are a second stage (McDonald, Lerman & Pereira 2006, "Multilingual dependency analysis with a
two-stage discriminative parser", CoNLL-X): a multiclass linear model s(h, m, l) = w · f(h, m, l), trained
over the gold arcs alone (:func:`lpparse.training.train_labels`, an averaged multiclass perceptron), then
applied to each arc of the predicted tree. Why a second stage rather than joint training with the arcs:

* every arc trainer (CLL, perceptron, hinge, relaxed LP and exact decoding, pruned or not, parallel) and every
  model order stays as it is, and a label model can be added to any trained model (``lpparse train --init M
  --labels-only``) in minutes;
* labels are arc-factored, so decoding stays exact: the structured LPs and their proofs are unlabelled and
  untouched (the arc decoders are unchanged: label scores are *not* added to arc scores), and the labelling
  of a tree is the best label of each of its arcs given its head, chosen independently per arc
  (:func:`choose_labels`). A jointly trained model would instead add max_l s(h, m, l) to each arc's score
  before decoding; the per-arc choice below is the same.

Features: the first-order machinery (:func:`lpparse.scoring.features.arc_features`: attributes of the head,
the dependent and their neighbours, the tags in between, each template conjoined with the direction and with
direction and binned distance) over :data:`LABEL_TEMPLATES`, with two attributes of their own besides the
vocabulary's (:func:`label_ids`: the FEATS column, which carries case, and the word's last three letters,
both hashed from their strings, so that a label model can be added to a model of any vocabulary), hashed
label-free to 62 bits, then each feature
is conjoined with each label by one more hashing round into the labeller's own weight vector of 2^bits
entries (:meth:`LabelFeatures.slots`), so arc weights never share a slot with label weights.

Valid UD labelling (:func:`choose_labels`): the root label (``root`` in UD, the most frequent label of
head-0 tokens in training: ``ROOT`` in the Danish DDT) goes exactly to the tokens attached to 0, and never
to any other token. A model or score file without labels writes :data:`UNLABELLED` (``root`` on head-0
tokens, ``dep`` elsewhere), never the input's DEPREL.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.corpus import Sentence
from lpparse.scoring.features import (
    BOUNDARY,
    RESERVED,
    ROOT,
    TokenIds,
    Vocabulary,
    arc_features,
    encode,
    hash_columns,
)

__all__ = [
    "LABEL_TEMPLATES",
    "UNLABELLED",
    "LabelFeatures",
    "Labeller",
    "choose_labels",
    "label_ids",
    "label_set",
    "unlabelled",
]

#: Label templates, in the field language of :data:`lpparse.scoring.features.FIRST_ORDER_TEMPLATES` (each
#: conjoined with the direction, and with direction and binned distance, then with the label): the label
#: prior, head and dependent words and tags alone and paired, the tag context of each, and the tags between.
LABEL_TEMPLATES: tuple[tuple[str, ...], ...] = (
    (),
    ("h.word",),
    ("h.pos",),
    ("h.cpos",),
    ("m.word",),
    ("m.pos",),
    ("m.cpos",),
    ("m.word", "m.pos"),
    ("h.word", "h.pos"),
    ("h.pos", "m.pos"),
    ("h.cpos", "m.cpos"),
    ("h.word", "m.pos"),
    ("h.pos", "m.word"),
    ("h.word", "m.word"),
    ("m-1.pos", "m.pos", "m+1.pos"),
    ("h.pos", "m-1.pos", "m.pos"),
    ("h.pos", "m.pos", "m+1.pos"),
    ("h-1.pos", "h.pos", "m.pos"),
    ("h.pos", "h+1.pos", "m.pos"),
    ("m-1.word", "m.pos"),
    ("m.pos", "m+1.word"),
    ("h.cpos", "between", "m.cpos"),
    ("m.feats",),
    ("m.pos", "m.feats"),
    ("h.pos", "m.feats"),
    ("h.feats", "m.feats"),
    ("m.suffix",),
    ("h.pos", "m.suffix"),
    ("h.suffix", "m.pos"),
)

#: Bits of the label-free feature hashes (the label's hashing round masks them to the labeller's bits)
RAW_BITS = 62

#: (root label, other label) of a model or score file without labels
UNLABELLED = ("root", "dep")


def _hashed(values: Sequence[str]) -> NDArray[np.int64]:
    """Stable ids of strings (CRC-32, above the reserved ids of a vocabulary)."""
    return np.fromiter((zlib.crc32(v.encode()) + len(RESERVED) for v in values), np.int64, len(values))


def label_ids(sentence: Sentence, vocab: Vocabulary) -> TokenIds:
    """The vocabulary's attribute ids of ``sentence`` (:func:`lpparse.scoring.features.encode`) and two more,
    hashed from their strings: ``feats`` (the FEATS column) and ``suffix`` (the lower-cased word's last three
    letters)."""
    ids = encode(sentence, vocab)
    tokens = [line.split("\t") for line in sentence.lines if not line.startswith("#")]
    feats = [cols[5] for cols in tokens if cols[0].isdigit()]
    if len(feats) != sentence.n:  # a sentence built in code, without its lines
        feats = ["_"] * sentence.n
    raw = {"feats": feats, "suffix": [w.lower()[-3:] for w in sentence.words[1:]]}
    extra = {a: np.concatenate([[BOUNDARY, ROOT], _hashed(v), [BOUNDARY]]) for a, v in raw.items()}
    return TokenIds(ids.n, {**ids.padded, **extra})


@dataclass(frozen=True)
class LabelFeatures:
    """Label-free feature hashes of some arcs (``heads[a]`` -> ``mods[a]``) of one sentence: ``raw[k, a]``
    of fixed-arity feature k, and the pairs (``extra_arc``, ``extra_raw``) of the tags in between."""

    heads: NDArray[np.int64]
    mods: NDArray[np.int64]
    raw: NDArray[np.int64]
    extra_arc: NDArray[np.int64]
    extra_raw: NDArray[np.int64]

    @classmethod
    def of(
        cls, ids: TokenIds, templates: Sequence[tuple[str, ...]], arcs: NDArray[np.bool_] | None = None
    ) -> LabelFeatures:
        """The features of the arcs in the (n+1, n+1) mask ``arcs`` (None: every candidate arc), in row-major
        order."""
        f = arc_features(ids, RAW_BITS, templates, arcs)
        return cls(f.heads, f.mods, f.slots, f.extra_arc, f.extra_slot)

    def slots(self, count: int, bits: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Slots of every feature conjoined with every label 0..``count`` - 1: fixed (K, arcs, count) and
        in-between (E, count)."""
        labels = np.arange(count)
        return (
            hash_columns(self.raw[..., None], [labels], bits),
            hash_columns(self.extra_raw[:, None], [labels], bits),
        )

    def labelled_slots(
        self, labels: NDArray[np.int64], bits: int
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(slots, arc of each) of every feature of arc a conjoined with ``labels[a]``."""
        fixed = hash_columns(self.raw, [labels[None, :]], bits)
        extra = hash_columns(self.extra_raw, [labels[self.extra_arc]], bits)
        arcs = np.broadcast_to(np.arange(labels.size), fixed.shape)
        return np.concatenate([fixed.ravel(), extra]), np.concatenate([arcs.ravel(), self.extra_arc])

    def scores(self, weights: NDArray[np.float64], count: int, bits: int) -> NDArray[np.float64]:
        """(arcs, ``count``) scores of every label on every arc."""
        fixed, extra = self.slots(count, bits)
        out = weights[fixed].sum(axis=0)
        cells = (self.extra_arc[:, None] * count + np.arange(count)).ravel()
        out += np.bincount(cells, weights=weights[extra].ravel(), minlength=out.size).reshape(out.shape)
        return out


def choose_labels(scores: NDArray[np.float64], heads: ArrayLike, root: int) -> NDArray[np.int64]:
    """The label of each arc (row a of ``scores``, of head ``heads[a]``): ``root`` on the arcs from 0, the
    best other label elsewhere (first on ties); the exact labelling of a tree under arc-factored labels."""
    heads = np.asarray(heads)
    best = np.where(np.arange(scores.shape[1]) == root, -np.inf, scores).argmax(axis=1)
    return np.where(heads == 0, root, best)


def unlabelled(heads: ArrayLike) -> list[str]:
    """:data:`UNLABELLED` labels of a tree (position 0, the root pseudo-token, reads ``<root>``)."""
    return ["<root>", *(UNLABELLED[0] if h == 0 else UNLABELLED[1] for h in np.asarray(heads)[1:])]


def label_set(sentences: Iterable[Sentence]) -> tuple[tuple[str, ...], int]:
    """The labels of a treebank, most frequent first (ties by name), and the index of its root label: the
    most frequent label of head-0 tokens. ValueError when no token has a label."""
    counts, roots = Counter[str](), Counter[str]()
    for s in sentences:
        labels = s.labels[1:]
        counts.update(label for label in labels if label != "_")
        roots.update(label for label, h in zip(labels, s.heads[1:]) if h == 0 and label != "_")
    if not counts:
        raise ValueError("no token has a label (DEPREL)")
    names = tuple(label for label, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    root = max(roots.items(), key=lambda kv: (kv[1], kv[0]))[0] if roots else UNLABELLED[0]
    if root not in names:
        names = (*names, root)
    return names, names.index(root)


@dataclass
class Labeller:
    """A second-stage label model (module docstring): label ``names`` (``names[root]`` the root label),
    templates, and a weight vector of 2^``bits`` entries over label-conjoined hashed features."""

    names: tuple[str, ...]
    root: int
    templates: tuple[tuple[str, ...], ...] = LABEL_TEMPLATES
    bits: int = 20
    weights: NDArray[np.float64] = field(default=None)  # type: ignore[assignment]
    training: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 <= self.root < len(self.names) or len(set(self.names)) != len(self.names):
            raise ValueError(f"labels {self.names!r} with root index {self.root}: not a label set")
        if self.weights is None:
            self.weights = np.zeros(1 << self.bits)
        if self.weights.shape != (1 << self.bits,):
            raise ValueError(f"label weights must have 2^{self.bits} entries, got {self.weights.shape}")

    @property
    def root_label(self) -> str:
        return self.names[self.root]

    def features(self, ids: TokenIds, heads: NDArray[np.int64]) -> LabelFeatures:
        """Features of the arcs of the tree ``heads`` (in the order of their dependents)."""
        arcs = np.zeros((ids.n + 1, ids.n + 1), bool)
        arcs[heads[1:], np.arange(1, ids.n + 1)] = True
        return LabelFeatures.of(ids, self.templates, arcs)

    def arc_label_scores(self, vocab: Vocabulary, sentence: Sentence) -> NDArray[np.float64]:
        """(n+1, n+1, L) score of each label on each candidate arc; -inf where no arc can be."""
        features = LabelFeatures.of(label_ids(sentence, vocab), self.templates)
        out = np.full((sentence.n + 1, sentence.n + 1, len(self.names)), -np.inf)
        out[features.heads, features.mods] = features.scores(self.weights, len(self.names), self.bits)
        return out

    def tree_labels(self, vocab: Vocabulary, sentence: Sentence, heads: ArrayLike) -> list[str]:
        """The labels of the tree ``heads`` of ``sentence`` (position 0 reads ``<root>``)."""
        heads = np.asarray(heads, dtype=np.int64)
        features = self.features(label_ids(sentence, vocab), heads)
        scores = features.scores(self.weights, len(self.names), self.bits)
        chosen = np.empty(heads.size, np.int64)
        chosen[features.mods] = choose_labels(scores, features.heads, self.root)
        return ["<root>", *(self.names[i] for i in chosen[1:])]

    # ------------------------------------------------------------------------------------ model files

    def meta(self) -> dict[str, Any]:
        """The record a model file keeps in its meta (``labels``)."""
        return {
            "names": list(self.names),
            "root": self.root,
            "templates": [list(t) for t in self.templates],
            "bits": self.bits,
            "training": self.training,
        }

    def arrays(self) -> dict[str, NDArray[Any]]:
        """The non-zero weights, as a model file stores them."""
        nz = np.flatnonzero(self.weights)
        return {"label_index": nz.astype(np.int64), "label_value": self.weights[nz]}

    @classmethod
    def read(cls, meta: dict[str, Any], arrays: dict[str, NDArray[Any]], max_bits: int) -> Labeller:
        """A labeller from a model file's ``labels`` record and arrays (KeyError, TypeError, ValueError when
        they do not make one)."""
        bits = meta["bits"]
        if type(bits) is not int or not 1 <= bits <= max_bits:
            raise ValueError(f"label bits {bits!r} out of range")
        names = meta["names"]
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise TypeError("label names are not a list of strings")
        index, value = arrays["label_index"], arrays["label_value"]
        if index.dtype.kind not in "iu" or index.shape != value.shape or index.ndim != 1:
            raise ValueError("label weights whose index does not fit their values")
        outside = index.size and (index.min() < 0 or index.max() >= 1 << bits)
        if outside or np.unique(index).size != index.size:
            raise ValueError(f"label weight index outside 0..2^{bits} - 1, or listing a weight twice")
        if not np.isfinite(value).all():
            raise ValueError("label weights that are NaN or infinite")
        weights = np.zeros(1 << bits)
        weights[index] = value
        return cls(
            tuple(names),
            int(meta["root"]),
            tuple(tuple(t) for t in meta["templates"]),
            bits,
            weights,
            dict(meta.get("training") or {}),
        )
