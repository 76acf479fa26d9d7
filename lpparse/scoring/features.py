"""Feature templates, token attributes and feature hashing, vectorized with numpy.

Riedel, Smith and McCallum (2012) §2.3: a part's score is a sum of template
scores, s_t = w_t · f_t(h^t_g, h^t_p, h^t_c, d^t_{g,p,c}) (eqs. 4–5), over token attributes h and, for
grandparent triples, the relation d = (I[g > p], I[g > c], I[p > c]) (eq. 6).

* Every token attribute (``word``, ``gword``, ``pos``, ``cpos``) is an integer id from a :class:`Vocabulary`
  built on the training data; ids 0, 1, 2 are ``UNK``, ``ROOT`` (token 0) and ``BOUNDARY`` (outside the
  sentence). ``gword`` is the word restricted to the most frequent words, so that grandparent bounds can
  enumerate its range (eq. 13).
* First-order templates follow McDonald, Crammer and Pereira (2005): head and modifier word and POS, their
  pairs, POS in between, POS around, each conjoined with the direction, and with direction and binned
  distance. Grandparent templates conjoin attributes of g, p and c with the relation (eq. 6). Sibling
  templates (arbitrary siblings ⟨h, m, m'⟩, m < m': Martins, Smith & Xing 2009, "Concise Integer Linear
  Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009) conjoin attributes of h, m and m' with
  the side of h (before m, between, after m') and, for some, the binned distance m' - m.
* Consecutive-sibling templates (windows ⟨h, a, b⟩ of a head automaton, :data:`CONSECUTIVE_TEMPLATES`:
  McDonald & Pereira 2006, "Online Learning of Approximate Dependency Parsing Algorithms", EACL 2006; the
  feature set of Koo & Collins 2010, "Efficient Third-order Dependency Parsers", ACL 2010, and of Martins,
  Almeida & Smith 2013, "Turning on the Turbo: Fast Third-Order Non-Projective Turbo Parsers", ACL 2013)
  conjoin attributes of h, a and b, a = h read as a ``START`` symbol and b = h as ``STOP``, with the side of
  the window, its kind (first child, between two children, last child) and, for some, the binned distance
  |b - a|.
* A feature is hashed to a slot of one weight vector of 2^bits entries (feature hashing); all hashes of a
  sentence are computed at once with uint64 arithmetic, one array per template.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.corpus import Sentence
from lpparse.trees import allowed_mask_shape

__all__ = [
    "ATTRIBUTES",
    "BOUNDARY",
    "FIRST_ORDER_TEMPLATES",
    "GRANDPARENT_TEMPLATES",
    "ROOT",
    "UNK",
    "VALID_RELATIONS",
    "ArcFeatures",
    "GPTemplate",
    "SIBLING_TEMPLATES",
    "CONSECUTIVE_TEMPLATES",
    "CSIB_START",
    "CSIB_STOP",
    "CSibTemplate",
    "SibTemplate",
    "TokenIds",
    "Vocabulary",
    "arc_features",
    "csib_code",
    "csib_slots",
    "encode",
    "hash_columns",
    "relation",
    "sibling_code",
    "sibling_slots",
    "triple_slots",
]

UNK, ROOT, BOUNDARY = 0, 1, 2
RESERVED = ("<unk>", "<root>", "<boundary>")
#: Token attributes: lower-cased form, form among the most frequent ones, fine POS, coarse POS.
ATTRIBUTES = ("word", "gword", "pos", "cpos")

#: Distance bins: |h - m| in 1, 2, 3, 4, 5, 6–7, 8–10, 11–14, 15–19, 20–29, 30+.
DISTANCE_EDGES = np.array([2, 3, 4, 5, 6, 8, 11, 15, 20, 30])

#: First-order templates (McDonald et al. 2005). Each is a tuple of fields: ``X.attr`` for token X in h, m
#: (head, modifier) or h±1, m±1 (their neighbours), and ``between`` (the coarse POS of each token strictly
#: between h and m, one feature per distinct tag). Every template is used twice: conjoined with the direction,
#: and with the direction and binned distance.
FIRST_ORDER_TEMPLATES: tuple[tuple[str, ...], ...] = (
    (),
    ("h.word", "h.pos"),
    ("h.word",),
    ("h.pos",),
    ("m.word", "m.pos"),
    ("m.word",),
    ("m.pos",),
    ("h.word", "h.pos", "m.word", "m.pos"),
    ("h.pos", "m.word", "m.pos"),
    ("h.word", "m.word", "m.pos"),
    ("h.word", "h.pos", "m.pos"),
    ("h.word", "h.pos", "m.word"),
    ("h.word", "m.word"),
    ("h.pos", "m.pos"),
    ("h.cpos", "m.cpos"),
    ("h.pos", "h+1.pos", "m-1.pos", "m.pos"),
    ("h-1.pos", "h.pos", "m-1.pos", "m.pos"),
    ("h.pos", "h+1.pos", "m.pos", "m+1.pos"),
    ("h-1.pos", "h.pos", "m.pos", "m+1.pos"),
    ("h.cpos", "h+1.cpos", "m-1.cpos", "m.cpos"),
    ("h-1.cpos", "h.cpos", "m.cpos", "m+1.cpos"),
    ("h.cpos", "between", "m.cpos"),
)


@dataclass(frozen=True)
class GPTemplate:
    """A grandparent template: one attribute (or None) for each of g, p, c, always with the relation d."""

    g: str | None
    p: str | None
    c: str | None

    def name(self) -> str:
        return " ".join([*(f"{x}.{a}" for x, a in zip("gpc", (self.g, self.p, self.c)) if a), "rel"])


#: Grandparent templates (eqs. 5–6): POS and coarse POS triples, and word variants in which one token's
#: frequent word replaces its coarse tag, plus g–c pairs (Carreras 2007).
GRANDPARENT_TEMPLATES: tuple[GPTemplate, ...] = (
    GPTemplate(None, None, None),
    GPTemplate("pos", "pos", "pos"),
    GPTemplate("cpos", "cpos", "cpos"),
    GPTemplate("gword", "cpos", "cpos"),
    GPTemplate("cpos", "gword", "cpos"),
    GPTemplate("cpos", "cpos", "gword"),
    GPTemplate("pos", None, "pos"),
    GPTemplate("gword", None, "cpos"),
    GPTemplate("cpos", None, "gword"),
    GPTemplate("gword", None, "gword"),
)


@dataclass(frozen=True)
class SibTemplate:
    """A sibling template: one attribute (or None) for each of h, m and m' (m < m'), always with the side of
    h, and with the binned distance m' - m when ``distance``."""

    h: str | None
    m: str | None
    s: str | None
    distance: bool = False

    def name(self) -> str:
        fields = (f"{x}.{a}" for x, a in zip(("h", "m", "m'"), (self.h, self.m, self.s)) if a)
        return " ".join([*fields, "side", *(["dist"] if self.distance else [])])


#: Sibling templates: tag triples with and without distance, the two siblings' tags with distance, and word
#: variants in which one token's frequent word replaces its coarse tag.
SIBLING_TEMPLATES: tuple[SibTemplate, ...] = (
    SibTemplate(None, None, None, True),
    SibTemplate("pos", "pos", "pos"),
    SibTemplate("cpos", "cpos", "cpos", True),
    SibTemplate(None, "pos", "pos", True),
    SibTemplate("gword", "cpos", "cpos"),
    SibTemplate("cpos", "gword", "cpos"),
    SibTemplate("cpos", "cpos", "gword"),
    SibTemplate(None, "gword", "cpos"),
    SibTemplate(None, "cpos", "gword"),
)


@dataclass(frozen=True)
class CSibTemplate:
    """A consecutive-sibling template over a window ⟨h, a, b⟩: one attribute (or None) for each of h, a and b
    (a = h, the first child's window, reads :data:`CSIB_START`; b = h, the last child's, :data:`CSIB_STOP`),
    always with the side and kind of the window (:func:`csib_code`), and with the binned distance |b - a| when
    ``distance``."""

    h: str | None
    a: str | None
    b: str | None
    distance: bool = False

    def name(self) -> str:
        fields = (f"{x}.{v}" for x, v in zip("hab", (self.h, self.a, self.b)) if v)
        return " ".join([*fields, "side", "kind", *(["dist"] if self.distance else [])])


#: Consecutive-sibling templates, after the sibling features of Koo & Collins (2010) and TurboParser's
#: (Martins, Almeida & Smith 2013): the tag triple (with and without the coarse tags and distance), the two
#: siblings' tags with distance, the head with the outer sibling and with the inner one (the latter, with
#: STOP, the head's valency on that side), word variants in which one token's frequent word replaces its
#: coarse tag, and the two siblings' words; the first (no token at all) is the bias of a side, a kind and a
#: distance.
CONSECUTIVE_TEMPLATES: tuple[CSibTemplate, ...] = (
    CSibTemplate(None, None, None, True),
    CSibTemplate("pos", "pos", "pos"),
    CSibTemplate("cpos", "cpos", "cpos", True),
    CSibTemplate(None, "pos", "pos", True),
    CSibTemplate("pos", None, "pos"),
    CSibTemplate("pos", "pos", None),
    CSibTemplate("gword", "cpos", "cpos"),
    CSibTemplate("cpos", "gword", "cpos"),
    CSibTemplate("cpos", "cpos", "gword"),
    CSibTemplate(None, "gword", "cpos"),
    CSibTemplate(None, "cpos", "gword"),
    CSibTemplate(None, "gword", "gword"),
)


@dataclass
class Vocabulary:
    """Per-attribute lists of strings; the position of a string is its id (ids 0–2 are reserved)."""

    strings: dict[str, list[str]]

    def __post_init__(self) -> None:
        # reserved names are not strings of the data: a token spelt "<root>" is UNK, never ROOT
        self._index = {
            a: {s: i for i, s in enumerate(v) if i >= len(RESERVED)} for a, v in self.strings.items()
        }

    def size(self, attribute: str) -> int:
        return len(self.strings[attribute])

    def ids(self, attribute: str, values: Sequence[str]) -> NDArray[np.int64]:
        index = self._index[attribute]
        return np.fromiter((index.get(v, UNK) for v in values), dtype=np.int64, count=len(values))

    @classmethod
    def build(
        cls, sentences: Iterable[Sentence], min_word_count: int = 2, gwords: int = 500, max_pos: int = 80
    ) -> Vocabulary:
        """Words seen at least ``min_word_count`` times; the ``gwords`` most frequent words; the ``max_pos``
        most frequent fine and coarse tags. Everything else maps to ``UNK``."""
        counts = {a: Counter[str]() for a in ("word", "pos", "cpos")}
        for s in sentences:
            counts["word"].update(w.lower() for w in s.words[1:])
            counts["pos"].update(_fine_tags(s)[1:])
            counts["cpos"].update(s.cpos[1:])
        ranked = {a: sorted(c.items(), key=lambda kv: (-kv[1], kv[0])) for a, c in counts.items()}
        strings = {
            "word": [w for w, k in ranked["word"] if k >= min_word_count],
            "gword": [w for w, _ in ranked["word"][:gwords]],
            "pos": [t for t, _ in ranked["pos"][:max_pos]],
            "cpos": [t for t, _ in ranked["cpos"][:max_pos]],
        }
        return cls({a: [*RESERVED, *v] for a, v in strings.items()})


def _fine_tags(s: Sentence) -> list[str]:
    """The fine tag of each token, or its coarse tag where the treebank has none (``_``)."""
    return [f if f != "_" else c for f, c in zip(s.pos, s.cpos)]


@dataclass(frozen=True)
class TokenIds:
    """Attribute ids of one sentence, padded: ``padded[a][i + 1]`` is the id of token i for i in -1..n+1
    (``BOUNDARY`` at -1 and n+1, ``ROOT`` at 0)."""

    n: int
    padded: dict[str, NDArray[np.int64]]

    def at(self, attribute: str, positions: NDArray[np.int64]) -> NDArray[np.int64]:
        return self.padded[attribute][positions + 1]


def encode(sentence: Sentence, vocab: Vocabulary) -> TokenIds:
    """Integer attribute ids of every token of ``sentence``."""
    words = [w.lower() for w in sentence.words[1:]]
    raw = {"word": words, "gword": words, "pos": _fine_tags(sentence)[1:], "cpos": sentence.cpos[1:]}
    padded = {
        a: np.concatenate([[BOUNDARY, ROOT], vocab.ids(a, values), [BOUNDARY]]) for a, values in raw.items()
    }
    return TokenIds(sentence.n, padded)


# ---------------------------------------------------------------------------------------------- hashing

_MUL = np.uint64(0x9E3779B97F4A7C15)
_FIN1 = np.uint64(0xBF58476D1CE4E5B9)
_FIN2 = np.uint64(0x94D049BB133111EB)


def _as_u64(a: int | NDArray[np.int64]) -> NDArray[np.uint64]:
    """``a`` as uint64, the same bits (a view of an int64 array)."""
    a = np.asarray(a)
    return a.view(np.uint64) if a.dtype == np.int64 and a.ndim else a.astype(np.uint64)


def hash_columns(
    seed: int | NDArray[np.int64], columns: Sequence[NDArray[np.int64]], bits: int
) -> NDArray[np.int64]:
    """Slots in [0, 2^bits) of the features whose fields are ``columns`` (broadcast together), for the
    template numbered ``seed``: a multiply-xorshift combination finished by splitmix64's mixer. ``seed`` may
    be an array that broadcasts with the columns (several templates of the same arity in one pass)."""
    # h grows by broadcasting, column by column, to the shape of all of them: an enumeration over a grid of
    # fields (the bound tables) hashes its leading fields once per combination of them, not once per cell
    h = _as_u64(seed) * _MUL + np.uint64(1)
    for col in columns:
        h = (h ^ _as_u64(col)) * _MUL
        h ^= h >> np.uint64(29)
    return _finish(h, bits)


def _finish(h: NDArray[np.uint64], bits: int) -> NDArray[np.int64]:
    """splitmix64's mixer on the combined hashes ``h``, in place, masked to ``bits`` bits."""
    h ^= h >> np.uint64(31)
    h *= _FIN1
    h ^= h >> np.uint64(29)
    h *= _FIN2
    h ^= h >> np.uint64(32)
    return (h & np.uint64((1 << bits) - 1)).astype(np.int64)


#: Batches up to this size hash all their templates in one pass (:func:`hash_templates`; the 9 sibling
#: templates: 5 parts 114 µs a call instead of 275 template by template, 1,000 parts 0.30 µs a part instead of
#: 0.55); larger ones one template at a time, which keeps the arrays in cache (20,000 parts: 0.22 µs a part
#: instead of 0.36)
_GROUPED = 2048


def hash_templates(
    seeds: Sequence[int], columns: Sequence[Sequence[NDArray[np.int64]]], bits: int, size: int
) -> NDArray[np.int64]:
    """(templates, ``size``) slots whose row t is ``hash_columns(seeds[t], columns[t], bits)`` (each column an
    array of ``size`` fields). A batch of up to :data:`_GROUPED` parts hashes every template at once: the
    templates sorted by their number of columns, the k-th columns of those that have one stacked, so that
    each step of the hash is one array operation per column position, not per template and column; a larger
    batch hashes one template at a time."""
    out = np.empty((len(seeds), size), dtype=np.int64)
    if size > _GROUPED or not seeds:
        for t, (seed, cols) in enumerate(zip(seeds, columns)):
            out[t] = hash_columns(seed, cols, bits)
        return out
    order = sorted(range(len(seeds)), key=lambda t: -len(columns[t]))
    h = np.empty((len(seeds), size), dtype=np.uint64)
    h[:] = (np.asarray(seeds, dtype=np.int64)[order].astype(np.uint64) * _MUL + np.uint64(1))[:, None]
    for k in range(len(columns[order[0]])):
        rows = [columns[t][k] for t in order if len(columns[t]) > k]
        step = h[: len(rows)]  # the templates with a k-th column come first
        step ^= np.array(rows, dtype=np.int64).view(np.uint64)  # broadcast into the rows of `step`
        step *= _MUL
        step ^= step >> np.uint64(29)
    out[order] = _finish(h, bits)
    return out


# ------------------------------------------------------------------------------------- first order


@dataclass(frozen=True)
class ArcFeatures:
    """Feature slots of every candidate arc of a sentence (m > 0, h ≠ m, in row-major order).

    ``slots[k, a]`` is the slot of fixed-arity feature k of arc a; the in-between features, of variable
    number per arc, are the pairs (``extra_arc[j]``, ``extra_slot[j]``).
    """

    n: int
    heads: NDArray[np.int64]
    mods: NDArray[np.int64]
    slots: NDArray[np.int64]
    extra_arc: NDArray[np.int64]
    extra_slot: NDArray[np.int64]

    def scores(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """(n+1, n+1) arc scores: the sum of the weights of each arc's features; -inf where no arc."""
        arc = weights[self.slots].sum(axis=0)
        arc += np.bincount(self.extra_arc, weights=weights[self.extra_slot], minlength=arc.size)
        out = np.full((self.n + 1, self.n + 1), -np.inf)
        out[self.heads, self.mods] = arc
        return out

    def gradient(self, coef: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(slots, values) of Σ_arcs coef[h, m] · f(h, m), one entry per feature occurrence (unsummed)."""
        c = coef[self.heads, self.mods]
        keep = c != 0
        idx = np.concatenate([self.slots[:, keep].ravel(), self.extra_slot[keep[self.extra_arc]]])
        val = np.concatenate(
            [
                np.broadcast_to(c[keep], (self.slots.shape[0], int(keep.sum()))).ravel(),
                c[self.extra_arc][keep[self.extra_arc]],
            ]
        )
        return idx, val


def _field(ids: TokenIds, name: str, h: NDArray[np.int64], m: NDArray[np.int64]) -> NDArray[np.int64]:
    token, attribute = name.split(".")
    base = h if token[0] == "h" else m
    offset = int(token[1:]) if len(token) > 1 else 0
    return ids.at(attribute, base + offset)


def arc_features(
    ids: TokenIds,
    bits: int,
    templates: Sequence[tuple[str, ...]] = FIRST_ORDER_TEMPLATES,
    arcs: NDArray[np.bool_] | None = None,
) -> ArcFeatures:
    """Hash every first-order feature of every candidate arc (no Python loop over arcs), or of the arcs in
    the (n+1, n+1) mask ``arcs`` alone (the others score -inf: arcs pruned before scoring); templates with
    the same number of fields are hashed in one pass, one seed per template (a sentence's arcs are few, so a
    pass per template would cost mostly call overhead)."""
    n = ids.n
    candidates = allowed_mask_shape(n + 1)
    if arcs is not None:
        if arcs.shape != candidates.shape:
            raise ValueError(f"an arc mask of shape {arcs.shape} for a sentence of {n} tokens")
        candidates = candidates & arcs
    h, m = (x.astype(np.int64) for x in np.nonzero(candidates))
    direction = (h < m).astype(np.int64)
    distance = np.searchsorted(DISTANCE_EDGES, np.abs(h - m), side="right")
    fixed = [t for t, template in enumerate(templates) if "between" not in template]
    names = {f for t in fixed for f in templates[t]}
    fields = {f: _field(ids, f, h, m) for f in names}  # every distinct field once
    # rows 2i, 2i + 1: the i-th fixed template without and with distance
    seeds = [2 * t + v for t in fixed for v in (0, 1)]
    conjunctions = ([direction], [direction, distance])
    columns = [[*(fields[f] for f in templates[t]), *conj] for t in fixed for conj in conjunctions]
    slots = hash_templates(seeds, columns, bits, h.size)
    extra_arc, extra_slot = [], []
    for t, template in enumerate(templates):
        if "between" not in template:
            continue
        arc, tag = _between(ids, h, m)
        cols = [_field(ids, f, h[arc], m[arc]) for f in template if f != "between"]
        for v, conj in enumerate(([direction[arc]], [direction[arc], distance[arc]])):
            extra_arc.append(arc)
            extra_slot.append(hash_columns(2 * t + v, [*cols, tag, *conj], bits))
    return ArcFeatures(
        n,
        h,
        m,
        slots,
        np.concatenate(extra_arc) if extra_arc else np.zeros(0, np.int64),
        np.concatenate(extra_slot) if extra_slot else np.zeros(0, np.int64),
    )


def _between(
    ids: TokenIds, h: NDArray[np.int64], m: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(arc index, coarse tag) for every distinct coarse tag strictly between h and m."""
    tags = ids.padded["cpos"][1 : ids.n + 2]  # positions 0..n
    vocab = int(tags.max()) + 1
    onehot = np.zeros((ids.n + 2, vocab), dtype=np.int32)
    onehot[np.arange(1, ids.n + 2), tags] = 1
    before = np.cumsum(onehot, axis=0)  # before[i, v] = #tokens < i with tag v
    lo, hi = np.minimum(h, m), np.maximum(h, m)
    present = (before[hi] - before[lo + 1]) > 0
    arc, tag = np.nonzero(present)
    return arc.astype(np.int64), tag.astype(np.int64)


# ------------------------------------------------------------------------------------- grandparent

#: Seeds of grandparent templates start here so that they never share a hash seed with first-order ones.
GP_SEED = 1000

#: The relation codes 4·I[g>p] + 2·I[g>c] + I[p>c] that three distinct positions can have (eq. 6):
#: (1, 0, 1) and (0, 1, 0) are contradictory orders.
VALID_RELATIONS = np.array([0, 1, 3, 4, 6, 7])


def relation(g: NDArray[np.int64], p: NDArray[np.int64], c: NDArray[np.int64]) -> NDArray[np.int64]:
    """d_{g,p,c} of eq. 6 as the code 4·I[g>p] + 2·I[g>c] + I[p>c]."""
    return 4 * (g > p) + 2 * (g > c) + (p > c)  # eq. 6


def triple_slots(
    ids: TokenIds,
    g: NDArray[np.int64],
    p: NDArray[np.int64],
    c: NDArray[np.int64],
    bits: int,
    templates: Sequence[GPTemplate] = GRANDPARENT_TEMPLATES,
) -> NDArray[np.int64]:
    """(templates, triples) slots of the grandparent features of a batch of triples (eq. 5)."""
    rel = relation(g, p, c)
    field = field_lookup(ids, {"g": g, "p": p, "c": c})
    columns = [
        [*(field(a, who) for who, a in zip("gpc", (tpl.g, tpl.p, tpl.c)) if a is not None), rel]
        for tpl in templates
    ]
    return hash_templates([GP_SEED + t for t in range(len(templates))], columns, bits, g.size)


def field_lookup(
    ids: TokenIds,
    positions: dict[str, NDArray[np.int64]],
    special: dict[str, tuple[NDArray[np.bool_], int]] | None = None,
) -> Callable[[str, str], NDArray[np.int64]]:
    """``field(attribute, who)``: the ids of ``attribute`` at the batch's ``positions[who]`` (or the value v
    where ``special[who] = (mask, v)`` says so), looked up once for all the templates of a batch."""
    seen: dict[tuple[str, str], NDArray[np.int64]] = {}

    def field(attribute: str, who: str) -> NDArray[np.int64]:
        if (attribute, who) not in seen:
            values = ids.at(attribute, positions[who])
            if special and who in special:
                mask, value = special[who]
                values = np.where(mask, value, values)
            seen[attribute, who] = values
        return seen[attribute, who]

    return field


# ------------------------------------------------------------------------------------- siblings

#: Seeds of sibling templates start here (first-order and grandparent seeds stay below).
SIB_SEED = 2000
#: Side codes of h: 0 before m, 1 between m and m', 2 after m'.
SIDES = 3
#: Distance codes: the bins of :data:`DISTANCE_EDGES`.
DISTANCES = DISTANCE_EDGES.size + 1


def sibling_code(
    h: NDArray[np.int64], m: NDArray[np.int64], m2: NDArray[np.int64], distance: bool
) -> NDArray[np.int64]:
    """The context of ⟨h, m, m'⟩ (m < m'): side + SIDES · binned distance (distance only if ``distance``)."""
    side = (h > m).astype(np.int64) + (h > m2)
    if not distance:
        return side
    return side + SIDES * np.searchsorted(DISTANCE_EDGES, m2 - m, side="right")


def sibling_slots(
    ids: TokenIds,
    h: NDArray[np.int64],
    m: NDArray[np.int64],
    m2: NDArray[np.int64],
    bits: int,
    templates: Sequence[SibTemplate] = SIBLING_TEMPLATES,
) -> NDArray[np.int64]:
    """(templates, parts) slots of the sibling features of a batch of parts."""
    field = field_lookup(ids, {"h": h, "m": m, "s": m2})
    codes = {d: sibling_code(h, m, m2, d) for d in {tpl.distance for tpl in templates}}
    columns = [
        [
            *(field(a, who) for who, a in zip("hms", (tpl.h, tpl.m, tpl.s)) if a is not None),
            codes[tpl.distance],
        ]
        for tpl in templates
    ]
    return hash_templates([SIB_SEED + t for t in range(len(templates))], columns, bits, h.size)


# ------------------------------------------------------------------------------------- consecutive siblings

#: Seeds of consecutive-sibling templates start here (the other families' seeds stay below).
CSIB_SEED = 3000
#: The attribute value of a = h (the window before the first child) and of b = h (after the last child): no
#: id of a :class:`Vocabulary` (those are >= 0), so they never collide with a token's.
CSIB_START, CSIB_STOP = -1, -2
#: Window kinds: first child ⟨h, h, b⟩, between two children ⟨h, a, b⟩, last child ⟨h, a, h⟩.
FIRST, MIDDLE, LAST = 0, 1, 2
#: Context codes without distance: side (0 left, 1 right) + 2 · kind.
CSIB_CONTEXTS = 6


def csib_code(
    h: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64], distance: bool
) -> NDArray[np.int64]:
    """The context of windows ⟨h, a, b⟩: side + 2 · kind (+ 6 · binned |b - a| when ``distance``). The side is
    right when a child is right of h (max(a, b) > h: a = h or b = h is the head itself); the distance is
    between the window's two ends, h standing for START and STOP (the first child's distance to h, the last
    child's to h, else the two siblings')."""
    side = (np.maximum(a, b) > h).astype(np.int64)
    kind = np.where(a == h, FIRST, np.where(b == h, LAST, MIDDLE))
    code = side + 2 * kind
    if not distance:
        return code
    return code + CSIB_CONTEXTS * np.searchsorted(DISTANCE_EDGES, np.abs(b - a), side="right")


def csib_slots(
    ids: TokenIds,
    h: NDArray[np.int64],
    a: NDArray[np.int64],
    b: NDArray[np.int64],
    bits: int,
    templates: Sequence[CSibTemplate] = CONSECUTIVE_TEMPLATES,
) -> NDArray[np.int64]:
    """(templates, windows) slots of the consecutive-sibling features of a batch of windows ⟨h, a, b⟩ (a = h
    reads :data:`CSIB_START`, b = h :data:`CSIB_STOP`)."""
    field = field_lookup(ids, {"h": h, "a": a, "b": b}, {"a": (a == h, CSIB_START), "b": (b == h, CSIB_STOP)})
    codes = {d: csib_code(h, a, b, d) for d in {tpl.distance for tpl in templates}}
    columns = [
        [
            *(field(x, who) for who, x in zip("hab", (tpl.h, tpl.a, tpl.b)) if x is not None),
            codes[tpl.distance],
        ]
        for tpl in templates
    ]
    return hash_templates([CSIB_SEED + t for t in range(len(templates))], columns, bits, h.size)
