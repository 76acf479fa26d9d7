"""Hashed linear models of first and second (grandparent, and optionally sibling) order, their scorers and
their model files.

A :class:`Model` holds a vocabulary, the template lists, one weight vector of 2^bits entries and, for
grandparent models, the per-template bound tables (:mod:`lpparse.scoring.bounds`). For a sentence it gives
dense arc scores (Riedel, Smith & McCallum 2012, eq. 2 parts) and a :class:`GrandparentScorer`, the lazy and
counted :class:`lpparse.triples.TripleScorer` of eq. 4 with the factorized bounds of eqs. 12–13. A
grandparent model with sibling templates (``siblings``) also gives a :class:`SiblingModelScorer`, the
:class:`lpparse.triples.SiblingScorer` of its arbitrary-sibling parts, with per-template bounds from the
sentence's own values (:class:`lpparse.scoring.bounds.SiblingBounds`). A grandparent model with
``consecutive`` also scores consecutive-sibling windows ⟨h, a, b⟩ (:class:`ConsecutiveModelScorer`, the
``ConsecutiveSiblingScorer`` of :mod:`lpparse.families.consecutive.rows`, with the per-template bounds of
:class:`lpparse.scoring.bounds.ConsecutiveBounds`).

Model file format (``MODEL_FORMAT_VERSION``), one ``.npz`` archive (as ``numpy.savez_compressed`` writes, but
with ``weight_value`` stored uncompressed: deflate saves about 4% on weights and costs most of a load) holding:

* ``meta``: a JSON string with ``format`` ("lpparse-model"), ``version``, ``order`` (1 or 2), ``bits``,
  ``single_root``, ``first_order_templates`` (lists of field names), ``grandparent_templates`` (lists
  [g, p, c] of attribute names or null), ``sibling_templates`` (versions 2 and 3, models with sibling
  templates: lists [h, m, m', distance]), ``consecutive`` and ``consecutive_templates`` (version 3 only: true,
  and lists [h, a, b, distance]), ``vocabulary`` (attribute -> list of strings; the position is the
  id) and ``training`` (free-form: treebank, trainer, epochs, dev UAS, ...);
* ``weight_index`` (int64) and ``weight_value`` (float64): the non-zero weights;
* ``bound_pc_<t>`` and ``bound_gp_<t>`` (float64): the bound tables of grandparent template t.

* ``families`` (version 6, models of part families registered outside lpparse): each family's feature
  templates (:meth:`lpparse.scoring.part_templates.PartTemplates.to_json`: name, arity, templates), scored
  with the same weights;
* ``labels`` (version 5, labelled models): the second-stage label model's record
  (:meth:`lpparse.scoring.labels.Labeller.meta`: label names, root label index, templates, bits, training),
  with ``label_index`` (int64) and ``label_value`` (float64), its non-zero weights.

A model with registered families' templates is written as version 6 (an lpparse that would ignore them
refuses it), a labelled one as version 5 (whatever else it has: an lpparse that would ignore its labels
refuses it); an unlabelled one without sibling templates is written as version 1, one with them as version
2, one with consecutive-sibling templates as version 3, so grandparent models stay readable by earlier
lpparse, and an lpparse that would ignore consecutive siblings refuses the model instead (its version); all
load, a file without ``consecutive`` as a model without them, one without ``labels`` as an unlabelled model. Loading a file that is not a complete model of
a readable version (another version, a truncated, empty, damaged or foreign file) raises one
:class:`ModelFormatError` that says why.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import astuple, dataclass, field, replace
from pathlib import Path
from tokenize import TokenError
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.corpus import Sentence
from lpparse.io import DataError, atomic_write, readable_file, writing_zip
from lpparse.part_values import PartValues
from lpparse.scoring.bounds import (
    BoundTables,
    ConsecutiveBounds,
    RestrictedBounds,
    SiblingBounds,
    bound_tables,
    sentence_bounds,
)
from lpparse.scoring.features import (
    CONSECUTIVE_TEMPLATES,
    FIRST_ORDER_TEMPLATES,
    GRANDPARENT_TEMPLATES,
    ArcFeatures,
    CSibTemplate,
    GPTemplate,
    SibTemplate,
    TokenIds,
    Vocabulary,
    arc_features,
    csib_slots,
    encode,
    sibling_slots,
    triple_slots,
)
from lpparse.scoring.labels import Labeller
from lpparse.scoring.part_templates import HashedPartScorer, PartTemplates
from lpparse.scoring.third_order import (
    GRANDSIBLING_TEMPLATES,
    TRISIBLING_TEMPLATES,
    GrandSiblingModelScorer,
    QuadTemplate,
    TriSiblingModelScorer,
)
from lpparse.triples import check_csib_batch, check_sibling_batch, check_triple_batch

__all__ = [
    "BOUNDS",
    "MAX_BITS",
    "MODEL_FORMAT",
    "ConsecutiveModelScorer",
    "MODEL_FORMAT_VERSION",
    "GrandparentScorer",
    "Model",
    "ModelFormatError",
    "SentenceScorer",
    "SiblingModelScorer",
]

MODEL_FORMAT_VERSION = 6
#: Versions this lpparse reads: 1 (no sibling templates), 2 (sibling templates), 3 (consecutive siblings),
#: 4 (third-order parts: grand-siblings, tri-siblings), 5 (arc labels, :mod:`lpparse.scoring.labels`).
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6)
#: Largest ``bits`` a model may have (2^30 weights take 8 GB)
MAX_BITS = 30
MODEL_FORMAT = "lpparse-model"
#: Prefix of the pruner's members inside a model file (:attr:`Model.pruner`)
PRUNER = "pruner/"


class ModelFormatError(DataError):
    """A model file that is not a complete lpparse model of a readable format version."""


#: Fields of ``meta`` and their JSON types (``sibling_templates``, ``consecutive`` and
#: ``consecutive_templates``, of later versions only, are checked on use)
_META = {
    "format": str,
    "version": int,
    "order": int,
    "bits": int,
    "single_root": bool,
    "first_order_templates": list,
    "grandparent_templates": list,
    "vocabulary": dict,
    "training": dict,
}


def _write_archive(handle: Any, arrays: dict[str, NDArray[Any]], stored: tuple[str, ...] = ()) -> None:
    """An ``.npz`` archive of ``arrays`` (what :func:`numpy.load` reads), deflated except the members named in
    ``stored``: weights are nearly incompressible, and inflating them took half of a model's load time."""
    with writing_zip(handle, zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            member = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED
            with archive.open(member, "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asanyarray(array), allow_pickle=False)


def _read_archive(path: Path) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """``meta`` and every array of a model file, read in full; :class:`ModelFormatError` on any damage."""
    with path.open("rb") as handle:
        head = handle.read(4)
    if not head:
        raise ModelFormatError(f"{path}: not an lpparse model file (the file is empty)")
    if head != b"PK\x03\x04":
        raise ModelFormatError(f"{path}: not an lpparse model file (not an npz archive)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        meta = json.loads(str(arrays.pop("meta")))
    except KeyError:
        raise ModelFormatError(f"{path}: not an lpparse model file (no meta record)") from None
    except (OSError, ValueError, EOFError, SyntaxError, TokenError, zipfile.BadZipFile, zlib.error) as err:
        raise ModelFormatError(f"{path}: damaged model file ({type(err).__name__}: {err})") from None
    if not isinstance(meta, dict) or meta.get("format") != MODEL_FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else meta
        raise ModelFormatError(f"{path}: not an lpparse model file (format {found!r})")
    version = meta.get("version")
    if type(version) is not int:
        raise ModelFormatError(f"{path}: damaged model file (format version {version!r} is not an integer)")
    if version not in READABLE_VERSIONS:
        raise ModelFormatError(
            f"{path}: model format version {version} is not supported by this lpparse "
            f"(which reads versions {READABLE_VERSIONS}); retrain the model with 'lpparse train'"
        )
    for name, kind in _META.items():
        if type(meta.get(name)) is not kind:
            reason = f"meta field {name!r} is not a {kind.__name__}"
            raise ModelFormatError(f"{path}: damaged model file ({reason})")
    return meta, arrays


@dataclass
class Model:
    """Weights over hashed first-order (and, for ``order == 2``, grandparent and, if ``siblings`` is not
    empty, arbitrary-sibling, and with ``consecutive``, consecutive-sibling) features."""

    vocab: Vocabulary
    order: int = 1
    bits: int = 22
    single_root: bool = False
    first_order: tuple[tuple[str, ...], ...] = FIRST_ORDER_TEMPLATES
    grandparent: tuple[GPTemplate, ...] = GRANDPARENT_TEMPLATES
    siblings: tuple[SibTemplate, ...] = ()
    #: consecutive-sibling parts ⟨h, a, b⟩ scored by ``consecutive_templates`` (grandparent models only)
    consecutive: bool = False
    consecutive_templates: tuple[CSibTemplate, ...] = CONSECUTIVE_TEMPLATES
    #: third-order parts on the consecutive-sibling windows (models with ``consecutive`` only):
    #: grand-siblings ⟨g, h, a, b⟩ and tri-siblings ⟨h, x, a, b⟩ (:mod:`lpparse.scoring.third_order`)
    grandsiblings: bool = False
    grandsibling_templates: tuple[QuadTemplate, ...] = GRANDSIBLING_TEMPLATES
    trisiblings: bool = False
    trisibling_templates: tuple[QuadTemplate, ...] = TRISIBLING_TEMPLATES
    #: feature templates of part families registered outside lpparse (:class:`lpparse.families.Family`'s
    #: ``features``), scored with the same weights (:mod:`lpparse.scoring.part_templates`)
    families: tuple[PartTemplates, ...] = ()
    weights: NDArray[np.float64] = field(default=None)  # type: ignore[assignment]
    training: dict[str, Any] = field(default_factory=dict)
    #: the first-order model whose posteriors pruned the arcs in training (it travels inside the model file,
    #: so that decoding prunes as training did: :meth:`trained_pruning`)
    pruner: Model | None = field(default=None, repr=False)
    #: the second-stage label model (:mod:`lpparse.scoring.labels`); None: an unlabelled model
    labels: Labeller | None = field(default=None, repr=False)
    _bounds: list[BoundTables] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {self.order}")
        if self.siblings and self.order != 2:
            raise ValueError("sibling templates need a grandparent (order 2) model")
        if self.consecutive and self.order != 2:
            raise ValueError("consecutive-sibling parts need a grandparent (order 2) model")
        if self.consecutive and not self.consecutive_templates:
            raise ValueError("a model with consecutive-sibling parts needs consecutive-sibling templates")
        if self.families and self.order != 2:
            raise ValueError("part families of their own need a grandparent (order 2) model")
        names = [t.name for t in self.families]
        if len(set(names)) != len(names):
            raise ValueError(f"part families {names}: one listed twice")
        if (self.grandsiblings or self.trisiblings) and not self.consecutive:
            raise ValueError("third-order parts live on consecutive-sibling windows: they need consecutive")
        if self.weights is None:
            self.weights = np.zeros(1 << self.bits)
        if self.weights.shape != (1 << self.bits,):
            raise ValueError(f"weights must have 2^{self.bits} entries, got {self.weights.shape}")

    def trained_pruning(self) -> tuple[float, int] | None:
        """The arc pruning this model was trained over, (posterior threshold, heads a word) from its training
        record, when its pruner travels with it (:attr:`pruner`); None otherwise. Decoding prunes so by
        default: :func:`lpparse.pruning.decoding_pruning`."""
        record = ((self.training or {}).get("config") or {}).get("pruning")
        if self.pruner is None or not record:
            return None
        return float(record["threshold"]), int(record["max_heads"])

    def attributes(self) -> set[str]:
        """The token attributes its feature templates read (``word``, ``gword``, ``pos``, ``cpos``, ``between``:
        the tags between head and modifier): what an input must give (plain text gives word forms alone)."""
        rows: list[tuple[Any, ...]] = list(self.first_order)
        rows += [astuple(t) for t in (*self.templates, *self.siblings)]
        if self.consecutive:
            rows += [astuple(t) for t in self.consecutive_templates]
        rows += [t.fields for t in self.grandsibling_templates if self.grandsiblings]
        rows += [t.fields for t in self.trisibling_templates if self.trisiblings]
        found = {value.split(".")[-1] for row in rows for value in row if isinstance(value, str)}
        return found.union(*(t.attributes() for t in self.families))

    def part_names(self) -> list[str]:
        """The part families it scores, by registered name, in binding order."""
        flags = {
            "grandparent": self.order == 2,
            "sibling": bool(self.siblings),
            "consecutive": self.consecutive,
            "trisibling": self.trisiblings,
            "grandsibling": self.grandsiblings,
        }
        return [name for name, on in flags.items() if on] + [t.name for t in self.families]

    @property
    def third_order(self) -> bool:
        """Whether it scores grand-siblings or tri-siblings."""
        return self.grandsiblings or self.trisiblings

    @property
    def templates(self) -> tuple[GPTemplate, ...]:
        """The grandparent templates in use (none for a first-order model)."""
        return self.grandparent if self.order == 2 else ()

    def invalidate_bounds(self) -> None:
        """Forget the bound tables (call after changing the weights)."""
        self._bounds = None

    def bounds(self) -> list[BoundTables]:
        """Per-template bound tables (eq. 13), computed once per weight vector and cached."""
        if self._bounds is None:
            self._bounds = [
                bound_tables(self.weights, self.vocab, t, tpl, self.bits)
                for t, tpl in enumerate(self.templates)
            ]
        return self._bounds

    def with_weights(self, weights: NDArray[np.float64], training: dict[str, Any]) -> Model:
        """The same vocabulary and templates with other weights and training record (bounds recomputed)."""
        return replace(self, weights=weights, training=training, _bounds=None)

    def scorer(self, sentence: Sentence, arcs: NDArray[np.bool_] | None = None) -> SentenceScorer:
        """Features of one sentence, ready to score with the current weights; ``arcs``: the (n+1, n+1) mask
        of the arcs to score (the others score -inf, as pruned), default every candidate arc."""
        ids = encode(sentence, self.vocab)
        return SentenceScorer(self, ids, arc_features(ids, self.bits, self.first_order, arcs))

    # -------------------------------------------------------------------------------- model files

    def save(self, path: str | Path) -> None:
        """Write the model file described in the module docstring (with its pruner's, when it has one)."""
        meta, arrays = self._archive()
        if self.pruner is not None:
            pruner_meta, pruner_arrays = self.pruner._archive()
            meta["pruner"] = pruner_meta
            arrays.update({f"{PRUNER}{name}": array for name, array in pruner_arrays.items()})
        stored = tuple(name for name in arrays if name.endswith(("weight_value", "label_value")))
        with atomic_write(path, "wb") as handle:
            _write_archive(handle, {"meta": np.array(json.dumps(meta)), **arrays}, stored=stored)

    def _archive(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """The model's meta record and arrays, as its file holds them."""
        nz = np.flatnonzero(self.weights)
        meta = {
            "format": MODEL_FORMAT,
            "version": (
                6 if self.families
                else 5 if self.labels is not None
                else 4 if self.third_order
                else 3 if self.consecutive
                else 2 if self.siblings
                else 1
            ),
            "order": self.order,
            "bits": self.bits,
            "single_root": self.single_root,
            "first_order_templates": [list(t) for t in self.first_order],
            "grandparent_templates": [[t.g, t.p, t.c] for t in self.grandparent],
            "vocabulary": self.vocab.strings,
            "training": self.training,
        }
        if self.siblings:
            meta["sibling_templates"] = [[t.h, t.m, t.s, t.distance] for t in self.siblings]
        if self.consecutive:
            meta["consecutive"] = True
            meta["consecutive_templates"] = [[t.h, t.a, t.b, t.distance] for t in self.consecutive_templates]
        for name, on, templates in (
            ("grandsibling", self.grandsiblings, self.grandsibling_templates),
            ("trisibling", self.trisiblings, self.trisibling_templates),
        ):
            if on:
                meta[f"{name}s"] = True
                meta[f"{name}_templates"] = [list(t.fields) for t in templates]
        arrays: dict[str, NDArray[Any]] = {
            "weight_index": nz.astype(np.int64),
            "weight_value": self.weights[nz],
        }
        for t, table in enumerate(self.bounds()):
            arrays[f"bound_pc_{t}"] = table.pc
            arrays[f"bound_gp_{t}"] = table.gp
        if self.families:
            meta["families"] = [t.to_json() for t in self.families]
        if self.labels is not None:
            meta["labels"] = self.labels.meta()
            arrays.update(self.labels.arrays())
        return meta, arrays

    @classmethod
    def load(cls, path: str | Path) -> Model:
        """Read a model file; :class:`ModelFormatError` if it is not a complete one of a readable version."""
        path = readable_file(path, "model")
        meta, archive = _read_archive(path)
        try:
            return cls._from_archive(meta, archive)
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise ModelFormatError(f"{path}: damaged model file ({type(err).__name__}: {err})") from None

    @classmethod
    def _from_archive(cls, meta: dict[str, Any], archive: dict[str, NDArray[Any]]) -> Model:
        pruner = None
        if meta.get("pruner") is not None:
            if not isinstance(meta["pruner"], dict):
                raise TypeError("meta field 'pruner' is not a model's meta record")
            members = {name[len(PRUNER) :]: a for name, a in archive.items() if name.startswith(PRUNER)}
            pruner = cls._from_archive(meta["pruner"], members)
            if pruner.order != 1 or pruner.pruner is not None:
                raise ValueError("its pruner is not a first-order model")
        bits = meta["bits"]
        if not 1 <= bits <= MAX_BITS:
            raise ValueError(f"bits {bits} out of range")
        if not np.isfinite(archive["weight_value"]).all():
            raise ValueError("weights that are NaN or infinite")
        index = archive["weight_index"]
        if index.dtype.kind not in "iu" or index.ndim != 1 or index.shape != archive["weight_value"].shape:
            raise ValueError(
                f"weight_index of dtype {index.dtype} and shape {index.shape} does not fit its values"
            )
        if index.size and (index.min() < 0 or index.max() >= 1 << bits):
            raise ValueError(f"weight_index outside 0..2^{bits} - 1 (a negative index would wrap around)")
        seen = np.zeros(1 << bits, bool)  # a table, not np.unique: no sort or hash of millions of indices
        seen[index] = True
        if np.count_nonzero(seen) != index.size:
            raise ValueError("weight_index lists a weight twice")
        weights = np.zeros(1 << bits)
        weights[index] = archive["weight_value"]
        consecutive = meta.get("consecutive", False)  # versions 1 and 2: none
        if type(consecutive) is not bool:
            raise TypeError(f"meta field 'consecutive' is {consecutive!r}, not a bool")
        csib_templates = meta.get("consecutive_templates")
        if consecutive and csib_templates is None:
            raise KeyError("consecutive_templates")
        model = cls(
            vocab=Vocabulary({a: list(v) for a, v in meta["vocabulary"].items()}),
            order=int(meta["order"]),
            bits=bits,
            single_root=bool(meta["single_root"]),
            first_order=tuple(tuple(t) for t in meta["first_order_templates"]),
            grandparent=tuple(GPTemplate(*t) for t in meta["grandparent_templates"]),
            siblings=tuple(SibTemplate(*t) for t in meta.get("sibling_templates", ())),
            consecutive=consecutive,
            consecutive_templates=(
                tuple(CSibTemplate(*t) for t in csib_templates) if consecutive else CONSECUTIVE_TEMPLATES
            ),
            **_third_order_meta(meta),
            families=tuple(PartTemplates.from_json(t) for t in meta.get("families", ())),
            weights=weights,
            training=meta["training"],
            pruner=pruner,
            labels=None if meta.get("labels") is None else Labeller.read(meta["labels"], archive, MAX_BITS),
        )
        model._bounds = [
            BoundTables(archive[f"bound_pc_{t}"], archive[f"bound_gp_{t}"])
            for t in range(len(model.templates))
        ]
        return model


def _third_order_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The third-order fields of a model from its ``meta`` (versions 1 to 3: none)."""
    out: dict[str, Any] = {}
    for name in ("grandsibling", "trisibling"):
        on = meta.get(f"{name}s", False)
        if type(on) is not bool:
            raise TypeError(f"meta field '{name}s' is {on!r}, not a bool")
        out[f"{name}s"] = on
        if on:
            out[f"{name}_templates"] = tuple(QuadTemplate(tuple(t)) for t in meta[f"{name}_templates"])
    return out


#: Factorized bounds of a GrandparentScorer: ``offline`` (eq. 13 over each attribute's whole vocabulary, table
#: look-ups) or ``sentence`` (eq. 13 over the values the sentence has: :class:`RestrictedBounds`)
BOUNDS = ("sentence", "offline")


@dataclass
class SentenceScorer:
    """A model applied to one sentence: arc scores, and triple scores for grandparent models."""

    model: Model
    ids: TokenIds
    arcs: ArcFeatures

    @property
    def n(self) -> int:
        return self.ids.n

    def arc_scores(self) -> NDArray[np.float64]:
        """(n+1, n+1) first-order scores S[h, m]; -inf on the diagonal and column 0."""
        return self.arcs.scores(self.model.weights)

    def triples(self, bounds: str = "sentence") -> GrandparentScorer:
        """A fresh counted triple scorer (grandparent models only) with ``bounds`` from :data:`BOUNDS`."""
        if self.model.order != 2:
            raise ValueError("a first-order model has no grandparent scores")
        if bounds not in BOUNDS:
            raise ValueError(f"unknown bounds {bounds!r}; choose from {BOUNDS}")
        return GrandparentScorer(self.model, self.ids, bounds)

    def siblings(self) -> SiblingModelScorer:
        """A fresh counted sibling scorer (models with sibling templates only)."""
        if not self.model.siblings:
            raise ValueError("the model has no sibling templates")
        return SiblingModelScorer(self.model, self.ids)

    def consecutive(self) -> ConsecutiveModelScorer:
        """A fresh counted consecutive-sibling scorer (models with ``consecutive`` only)."""
        if not self.model.consecutive:
            raise ValueError("the model has no consecutive-sibling parts")
        return ConsecutiveModelScorer(self.model, self.ids)

    def grand_siblings(self) -> GrandSiblingModelScorer:
        """A fresh counted grand-sibling scorer (models with ``grandsiblings`` only)."""
        if not self.model.grandsiblings:
            raise ValueError("the model has no grand-sibling parts")
        return GrandSiblingModelScorer(self.model, self.ids)

    def tri_siblings(self) -> TriSiblingModelScorer:
        """A fresh counted tri-sibling scorer (models with ``trisiblings`` only)."""
        if not self.model.trisiblings:
            raise ValueError("the model has no tri-sibling parts")
        return TriSiblingModelScorer(self.model, self.ids)

    def part_scorers(self) -> dict[str, Any]:
        """A fresh counted scorer of every part family the model scores, by family name (the names under
        which the families are registered: :func:`lpparse.families.family_parts` makes them parts)."""
        make = {
            "grandparent": self.triples,
            "sibling": self.siblings,
            "consecutive": self.consecutive,
            "trisibling": self.tri_siblings,
            "grandsibling": self.grand_siblings,
        }
        own = {name: make[name]() for name in self.model.part_names() if name in make}
        return own | self.family_scorers()

    def family_scorers(self) -> dict[str, HashedPartScorer]:
        """A fresh counted scorer of each registered family the model has templates of, by family name."""
        model = self.model
        return {t.name: HashedPartScorer(t, model.weights, self.ids, model.bits) for t in model.families}

    def window_scorers(self) -> tuple[Any, Any, Any]:
        """The scorers of the parts on consecutive-sibling windows (None for those the model lacks): windows,
        tri-siblings, grand-siblings (:func:`lpparse.families.third_order.family.window_parts`'s order)."""
        model = self.model
        return (
            self.consecutive() if model.consecutive else None,
            self.tri_siblings() if model.trisiblings else None,
            self.grand_siblings() if model.grandsiblings else None,
        )


@dataclass
class _PartScorer:
    """Counted scoring of a batch of parts by a model's hashed features on one sentence (``slots``)."""

    model: Model
    ids: TokenIds
    _scored: int = field(default=0, init=False)
    #: the per-sentence bounds once built (by the subclass): their enumeration holds every template weight
    #: the sentence's parts can have, so scoring reads it instead of hashing (the same sums, bit for bit)
    _tables: RestrictedBounds | SiblingBounds | ConsecutiveBounds | None = field(
        default=None, init=False, repr=False
    )

    @property
    def n(self) -> int:
        return self.ids.n

    @property
    def scored(self) -> int:
        return self._scored

    def _checked(
        self, i: ArrayLike, j: ArrayLike, k: ArrayLike
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """The batch as int64 arrays; ValueError unless every item is a part of this kind."""
        raise NotImplementedError

    def _slots(self, i: NDArray[np.int64], j: NDArray[np.int64], k: NDArray[np.int64]) -> NDArray[np.int64]:
        """(templates, parts) feature slots of a checked batch."""
        raise NotImplementedError

    def slots(self, i: ArrayLike, j: ArrayLike, k: ArrayLike) -> NDArray[np.int64]:
        """(templates, parts) feature slots of a batch (not counted as scoring)."""
        return self._slots(*self._checked(i, j, k))

    def score(self, i: ArrayLike, j: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
        """Σ_t w_t · f_t (Riedel, Smith & McCallum 2012 eq. 4) for a batch of parts; counts them. By look-up
        in the bounds' enumeration once they are built (pricing asks for them first), else by hashing."""
        i, j, k = self._checked(i, j, k)
        self._scored += i.size
        if self._tables is not None:
            return self._tables.scores(i, j, k)
        return self.model.weights[self._slots(i, j, k)].sum(axis=0)  # eq. 4


@dataclass
class GrandparentScorer(_PartScorer):
    """:class:`lpparse.triples.TripleScorer` of a trained grandparent model on one sentence (eqs. 4–6, 12–13);
    ``bounds``: one of :data:`BOUNDS`."""

    bounds: str = "sentence"
    _bounds: tuple[NDArray[np.float64], NDArray[np.float64]] | None = field(
        default=None, init=False, repr=False
    )
    _per_triple: PartValues | None = field(default=None, init=False, repr=False)

    def _checked(
        self, g: ArrayLike, p: ArrayLike, c: ArrayLike
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        return check_triple_batch(self.n, g, p, c)

    def _slots(self, g: NDArray[np.int64], p: NDArray[np.int64], c: NDArray[np.int64]) -> NDArray[np.int64]:
        return triple_slots(self.ids, g, p, c, self.model.bits, self.model.templates)

    def _both(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if self._bounds is None:
            model = self.model
            if self.bounds == "offline":
                self._bounds = sentence_bounds(model.bounds(), model.templates, self.ids)
            else:
                self._bounds = self._restricted().factors()
        return self._bounds

    def _restricted(self) -> RestrictedBounds:
        if not isinstance(self._tables, RestrictedBounds):
            model = self.model
            self._tables = RestrictedBounds(model.weights, model.templates, model.bits, self.ids)
        return self._tables

    def bound_triples(self, g: ArrayLike, p: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
        """Upper bounds on s(g, p, c) for a batch, tighter than eq. 11's min of the factors (not counted as
        scoring: no feature is computed); with ``offline`` bounds, that min."""
        g, p, c = self._checked(g, p, c)
        if self.bounds == "offline":
            b_gp, b_pc = self._both()
            return np.minimum(b_gp[g, p], b_pc[p, c])
        if self._per_triple is None:  # pricing asks for the same triples round after round
            self._per_triple = PartValues(self._restricted().triples, (self.n + 1,) * 3)
        return self._per_triple.get(g, p, c)

    def bound_gp(self) -> NDArray[np.float64]:
        """B[g, p] ≥ max_c s(g, p, c) (eq. 12 with c free)."""
        return self._both()[0]

    def bound_pc(self) -> NDArray[np.float64]:
        """B[p, c] ≥ max_g s(g, p, c) (eq. 12)."""
        return self._both()[1]


@dataclass
class SiblingModelScorer(_PartScorer):
    """:class:`lpparse.triples.SiblingScorer` of a model's sibling templates on one sentence, with the
    per-template bounds of :class:`lpparse.scoring.bounds.SiblingBounds` (built on first use)."""

    def _checked(
        self, h: ArrayLike, m: ArrayLike, m2: ArrayLike
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        return check_sibling_batch(self.n, h, m, m2)

    def _slots(self, h: NDArray[np.int64], m: NDArray[np.int64], m2: NDArray[np.int64]) -> NDArray[np.int64]:
        return sibling_slots(self.ids, h, m, m2, self.model.bits, self.model.siblings)

    def _bounds(self) -> SiblingBounds:
        if not isinstance(self._tables, SiblingBounds):
            model = self.model
            self._tables = SiblingBounds(model.weights, model.siblings, model.bits, self.ids)
        return self._tables

    def bound_hm(self) -> NDArray[np.float64]:
        """B[h, m] ≥ max_{m'} s(h, {m, m'}) (m' on either side)."""
        return self._bounds().bound_hm()

    def bound_siblings(self, h: ArrayLike, m: ArrayLike, m2: ArrayLike) -> NDArray[np.float64]:
        """Per-part upper bounds, at most min(B[h, m], B[h, m']); nothing is scored or counted."""
        return self._bounds().parts(*self._checked(h, m, m2))


@dataclass
class ConsecutiveModelScorer(_PartScorer):
    """The consecutive-sibling scorer
    (:class:`lpparse.families.consecutive.rows.ConsecutiveSiblingScorer`) of a model's consecutive-sibling templates on one sentence: counted scores by feature look-up, and the
    per-template bounds of :class:`lpparse.scoring.bounds.ConsecutiveBounds` (built on first use, from the
    templates' weights on the sentence's attribute values: no window is scored, nothing is counted)."""

    def _checked(
        self, h: ArrayLike, a: ArrayLike, b: ArrayLike
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        return check_csib_batch(self.n, h, a, b)

    def _slots(self, h: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64]:
        return csib_slots(self.ids, h, a, b, self.model.bits, self.model.consecutive_templates)

    def _bounds(self) -> ConsecutiveBounds:
        if not isinstance(self._tables, ConsecutiveBounds):
            model = self.model
            self._tables = ConsecutiveBounds(model.weights, model.consecutive_templates, model.bits, self.ids)
        return self._tables

    def bound_first(self) -> NDArray[np.float64]:
        """B1[h, a] ≥ max_b s(h, a, b); -inf where no window starts at a (a = 0 ≠ h)."""
        return self._bounds().bound_first()

    def bound_second(self) -> NDArray[np.float64]:
        """B2[h, b] ≥ max_a s(h, a, b); -inf where no window ends at b (b = 0 ≠ h)."""
        return self._bounds().bound_second()
