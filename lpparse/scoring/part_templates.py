"""Feature templates of any part family, and the counted scorer they give a model: how a family registered
outside lpparse (:class:`lpparse.families.Family`, its ``features``) is trained and decoded with the same
hashed weights as the built-in families (feature hashing: Weinberger et al. 2009, "Feature Hashing for Large
Scale Multitask Learning", ICML 2009).

A part is a tuple of token indices (i_0, ..., i_{k-1}). A template is a tuple of fields, each one of
``"<j>.<attribute>"`` (the attribute ``word``, ``gword``, ``pos`` or ``cpos`` of token i_j; the root's and
the sentence boundary's ids where i_j is 0 or beyond the sentence), ``"dir<j><l>"`` (the sign of i_j - i_l)
or ``"dist<j><l>"`` (|i_j - i_l| in the bins of the arc features). A part's features are its templates'
field values hashed with the family's name and the template's number into the model's 2^bits weights.
"""

from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.part_values import check_part_scores
from lpparse.scoring.features import ATTRIBUTES, DISTANCE_EDGES, TokenIds, hash_templates

__all__ = ["HashedPartScorer", "PartTemplates"]

_FIELD = re.compile(r"^(?:(?P<at>\d)\.(?P<attribute>\w+)|(?P<code>dir|dist)(?P<j>\d)(?P<l>\d))$")
#: seeds of registered families' templates start here (the built-in families' stay below)
FAMILY_SEED = 1 << 20


@dataclass(frozen=True)
class PartTemplates:
    """The feature templates of the parts of the family ``name`` (module docstring), of ``arity`` indices."""

    name: str
    arity: int
    templates: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        if not self.templates:
            raise ValueError(f"the {self.name} family has no feature templates")
        for template in self.templates:
            for value in template:
                match = _FIELD.match(value)
                indices = [] if match is None else [g for g in ("at", "j", "l") if match[g] is not None]
                if match is None or any(int(match[g]) >= self.arity for g in indices):
                    raise ValueError(f"{self.name} template field {value!r} is not one of {self._help()}")
                if match["attribute"] is not None and match["attribute"] not in ATTRIBUTES:
                    raise ValueError(f"{self.name} template field {value!r}: attributes are {ATTRIBUTES}")

    def _help(self) -> str:
        return f"'<j>.<attribute>', 'dir<j><l>', 'dist<j><l>' with j, l < {self.arity}"

    @property
    def seed(self) -> int:
        """The family's first template seed: its name's CRC-32 above the built-in families' seeds."""
        return FAMILY_SEED + (zlib.crc32(self.name.encode()) << 8)

    def attributes(self) -> set[str]:
        """The token attributes its templates read."""
        return {value.split(".")[1] for template in self.templates for value in template if "." in value}

    @functools.cached_property
    def _fields(self) -> dict[str, tuple[str, int, int]]:
        """Each distinct field, parsed once: (attribute, j, -1) or ("dir" / "dist", j, l)."""
        out = {}
        for value in dict.fromkeys(v for template in self.templates for v in template):
            match = _FIELD.match(value)
            assert match is not None  # checked when the templates were made
            if match["attribute"] is not None:
                out[value] = (match["attribute"], int(match["at"]), -1)
            else:
                out[value] = (match["code"], int(match["j"]), int(match["l"]))
        return out

    def slots(self, ids: TokenIds, bits: int, *index: NDArray[np.int64]) -> NDArray[np.int64]:
        """(templates, k) weight slots of the k parts ``index`` (``arity`` arrays of token indices); each
        distinct field looked up once for all the templates."""
        parts = [np.asarray(i, dtype=np.int64) for i in index]
        if len(parts) != self.arity:
            raise ValueError(f"{self.name} parts have {self.arity} indices, got {len(parts)}")
        values = {value: _field(ids, parts, *spec) for value, spec in self._fields.items()}
        columns = [[values[value] for value in template] for template in self.templates]
        seeds = [self.seed + t for t in range(len(self.templates))]
        return hash_templates(seeds, columns, bits, parts[0].size)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arity": self.arity, "templates": [list(t) for t in self.templates]}

    @classmethod
    def from_json(cls, record: Any) -> PartTemplates:
        """The templates a model file records (TypeError or ValueError on a malformed record)."""
        if not isinstance(record, dict) or not isinstance(record.get("templates"), list):
            raise TypeError(f"{record!r} is not a family's feature templates")
        templates = tuple(tuple(str(v) for v in t) for t in record["templates"])
        return cls(str(record["name"]), int(record["arity"]), templates)


@dataclass
class HashedPartScorer:
    """Counted scoring of a family's parts on one sentence by a model's hashed ``weights`` (a scorer for
    :class:`lpparse.families.base.Parts`: ``n``, ``scored``, ``score``, and ``slots`` for training)."""

    templates: PartTemplates
    weights: NDArray[np.float64]
    ids: TokenIds
    bits: int
    _scored: int = field(default=0, init=False)

    @property
    def n(self) -> int:
        return self.ids.n

    @property
    def scored(self) -> int:
        return self._scored

    def slots(self, *index: ArrayLike) -> NDArray[np.int64]:
        parts = [np.asarray(i, dtype=np.int64) for i in index]
        if any(((p < 0) | (p > self.n)).any() for p in parts):
            raise ValueError(f"{self.templates.name} part indices must lie in 0..{self.n}")
        return self.templates.slots(self.ids, self.bits, *parts)

    def score(self, *index: ArrayLike) -> NDArray[np.float64]:
        slots = self.slots(*index)
        self._scored += slots.shape[1]
        values = self.weights[slots].sum(axis=0)
        check_part_scores(values, self.templates.name)
        return values


def _field(ids: TokenIds, parts: list[NDArray[np.int64]], kind: str, j: int, l: int) -> NDArray[np.int64]:  # noqa: E741
    """One field's values over the parts: token j's attribute ``kind``, or the direction or distance code of
    tokens j and l."""
    if l < 0:
        return ids.at(kind, np.clip(parts[j], -1, ids.n + 1))
    diff = parts[j] - parts[l]
    if kind == "dir":
        return np.sign(diff) + 1
    return np.searchsorted(DISTANCE_EDGES, np.abs(diff), side="right")
