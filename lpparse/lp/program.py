"""LinearProgram: named variable and constraint blocks over one global column/row numbering.

A formulation emits its blocks once, as numpy arrays, writing its rows as its equations with the row builder
(:meth:`LinearProgram.var`, :class:`Terms`, :meth:`LinearProgram.constrain`): terms ``name[index]`` resolved
through each block's vectorized :class:`IndexMap`. The Pyomo view (:mod:`lpparse.lp.pyomo_view`) and the
HiGHS view (:mod:`lpparse.lp.highs_view`) are built from them. The sense is always *maximize*:

    maximize  c·x   subject to   row_lower <= A x <= row_upper,   col_lower <= x <= col_upper,
              x_j integral for the columns of integer blocks (ILP; the LP relaxation drops this).

The program only grows: columns and rows are appended (to new or existing blocks) and so are coefficients,
including coefficients of new columns in existing rows. Global positions never change, so a live solver
model can mirror the program by pushing what was appended since it last looked (see
:meth:`LinearProgram.coefficients_since`). This is what delayed column and row generation
(parse, price and cut; Riedel, Smith & McCallum 2012, §4) needs.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from lpparse.part_values import find_sorted

__all__ = ["INF", "Block", "IndexMap", "LinearProgram", "Terms"]

INF = np.inf

_GROW = 1024


def _as_index(index: ArrayLike) -> NDArray[np.int64]:
    """Index tuples as a (k, d) int64 array (a 1-d array is read as k tuples of length 1)."""
    a = np.asarray(index, dtype=np.int64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"index must be a (k, d) array of index tuples, got shape {a.shape}")
    return a


def _beyond(positions: NDArray[np.int64], size: int) -> bool:
    """Whether some of the (nonempty) ``positions`` lie outside 0..size-1 (a negative one wraps to a large
    unsigned number)."""
    return int(positions.view(np.uint64).max()) >= size


#: k values to append: one number for all, or an array (maybe a read-only view: :class:`_Vec` copies it)
_Values = float | NDArray[np.float64]


def _sides(lower: ArrayLike, upper: ArrayLike, k: int, what: str) -> tuple[_Values, _Values]:
    """``lower`` and ``upper`` as :func:`_broadcast`; ValueError (``what``) if a lower side is above its upper
    side."""
    lo, hi = _broadcast(lower, k, "lower"), _broadcast(upper, k, "upper")
    if isinstance(lo, float) and isinstance(hi, float):
        above = lo > hi
    else:
        above = bool(np.any(lo > hi))
    if above:
        raise ValueError(what)
    return lo, hi


def _broadcast(value: ArrayLike, k: int, name: str) -> _Values:
    """``value`` as k floats: a number stays a number (the usual bound), an array is broadcast to (k,)."""
    if isinstance(value, float | int):
        if math.isnan(value):
            raise ValueError(f"{name} contains NaN")
        return float(value)
    a = np.asarray(value, dtype=np.float64)
    if a.shape != (k,):
        a = np.broadcast_to(a, (k,))
    if np.isnan(a).any():
        raise ValueError(f"{name} contains NaN")
    return a


class _Vec:
    """Append-only float/int vector with amortized growth."""

    def __init__(self, dtype: type) -> None:
        self._a = np.empty(_GROW, dtype=dtype)
        self.n = 0

    def extend(self, values: NDArray | float, k: int) -> None:
        """Append k values (a number: k copies of it)."""
        n, end, a = self.n, self.n + k, self._a
        if end > a.shape[0]:
            self._a = np.empty(max(2 * a.shape[0], end), dtype=a.dtype)
            self._a[:n] = a[:n]
        self._a[n:end] = values
        self.n = end

    @property
    def view(self) -> NDArray:
        return self._a[: self.n]


#: From this many tuples on, index arrays are read column by column: numpy is slow on the short rows of a
#: (k, d) array (50,000 triples: 0.5 ms against 3.4 ms), but below it its per-call cost dominates (50: 19 us
#: against 7 us).
_COLUMNWISE = 512


def _bounds(index: NDArray[np.int64]) -> tuple[list[int], list[int]]:
    """Smallest and largest label in each column of ``index`` (k, d) (zeros when k = 0)."""
    if index.shape[0] == 0:
        return [0] * index.shape[1], [0] * index.shape[1]
    if index.shape[0] < _COLUMNWISE:
        return index.min(axis=0).tolist(), index.max(axis=0).tolist()
    return [int(c.min()) for c in index.T], [int(c.max()) for c in index.T]


class IndexMap:
    """Index tuples -> positions, vectorized: :meth:`find` maps a (k, d) array of tuples at once.

    Tuples are keyed by their raveled position in a bounding box fixed when the map is built. The map takes
    the smaller of two forms: a dense array over the box (8 bytes per cell; one fancy index per look-up) when
    the box has at most twice as many cells as tuples, as for arcs, flows and a brute-force program's parts,
    else a sorted key array searched with ``np.searchsorted`` (16 bytes per tuple), as for the few parts that
    a restricted master holds of (n+1)^3 grandparent or sibling parts, or (n+1)^4 third-order ones (a dense
    look-up is one fancy index, a sparse one a binary search: 2-4x slower on a full box at n = 60).
    """

    def __init__(self, index: NDArray[np.int64], pos: NDArray[np.int64]) -> None:
        self.lo, self.hi = _bounds(index)
        shape = [h - lo + 1 for lo, h in zip(self.lo, self.hi, strict=True)]
        #: a box of 2^62 cells or more has no int64 keys (long labels, as a NoCycle row's token set): its
        #: tuples are then keyed by their bytes in a dict, and any tuple can be added
        self.wide: dict[bytes, int] | None = {} if math.prod(shape) >= 2**62 else None
        if self.wide is not None:
            self.sparse = True
            self.add(index, pos, fresh=True)
            return
        self.strides = [math.prod(shape[j + 1 :]) for j in range(len(shape))]  # C order
        self.offset = sum(lo * st for lo, st in zip(self.lo, self.strides, strict=True))
        self._lo, self._strides = np.array(self.lo, np.int64), np.array(self.strides, np.int64)
        self._extent = np.array(shape, np.uint64) - 1
        cells = math.prod(shape)
        self.sparse = cells > 2 * index.shape[0]
        self.keys = np.empty(0, np.int64)  # sparse: sorted keys, and their positions
        self.values = np.empty(0, np.int64)
        self.table = np.empty(0, np.int64) if self.sparse else np.full(cells, -1, np.int64)
        self.add(index, pos, fresh=True)

    def covers(self, index: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Which tuples lie in the map's bounding box (only those can be added)."""
        inside = np.ones(index.shape[0], bool)
        if self.wide is not None:
            return inside
        for column, lo, hi in zip(index.T, self.lo, self.hi, strict=True):
            inside &= (column >= lo) & (column <= hi)
        return inside

    def _keys(self, index: NDArray[np.int64]) -> NDArray[np.int64]:
        if index.shape[0] < _COLUMNWISE:
            return (index - self._lo) @ self._strides
        keys = np.full(index.shape[0], -self.offset, np.int64)
        for column, stride in zip(index.T, self.strides, strict=True):
            keys += column * stride
        return keys

    def _find_keys(self, keys: NDArray[np.int64]) -> NDArray[np.int64]:
        if not self.sparse:
            return self.table[keys]
        if self.keys.size == 0:
            return np.full(keys.shape, -1, np.int64)
        at, found = find_sorted(self.keys, keys)
        return np.where(found, self.values[at], -1)

    def add(self, index: NDArray[np.int64], pos: NDArray[np.int64], fresh: bool = False) -> None:
        """Map new tuples ``index`` (k, d), all :meth:`covers`ed, to ``pos``; ValueError if one is mapped
        (``fresh``: the map is empty)."""
        if self.wide is not None:
            for row, at in zip(_rows_bytes(index), pos.tolist(), strict=True):
                if self.wide.setdefault(row, at) != at:
                    raise ValueError("duplicate index tuple")
            return
        keys = self._keys(index)
        if not fresh and (self._find_keys(keys) >= 0).any():
            raise ValueError("duplicate index tuple")
        if not self.sparse:
            self.table[keys] = pos
            if (self.table[keys] != pos).any():  # a tuple twice in the batch
                raise ValueError("duplicate index tuple")
            return
        if not (keys[1:] > keys[:-1]).all():  # parts usually come sorted: skip the sort then
            order = np.argsort(keys, kind="stable")
            keys, pos = keys[order], pos[order]
            if (keys[1:] == keys[:-1]).any():
                raise ValueError("duplicate index tuple")
        if self.keys.size == 0 or keys[0] > self.keys[-1]:
            self.keys, self.values = np.concatenate([self.keys, keys]), np.concatenate([self.values, pos])
        else:
            at = np.searchsorted(self.keys, keys)
            self.keys, self.values = np.insert(self.keys, at, keys), np.insert(self.values, at, pos)

    def find(self, index: NDArray[np.int64]) -> NDArray[np.int64]:
        """Positions of the tuples ``index`` (k, d); -1 for a tuple not in the map."""
        if self.wide is not None:
            return np.array([self.wide.get(row, -1) for row in _rows_bytes(index)], np.int64)
        if index.shape[0] < _COLUMNWISE:  # the usual case first: all in the box (< 0 wraps to > extent)
            shifted = index - self._lo
            if not (shifted.view(np.uint64) > self._extent).any():
                return self._find_keys(shifted @ self._strides)
        else:
            lo, hi = _bounds(index)
            if all(a >= b for a, b in zip(lo, self.lo, strict=True)) and all(
                a <= b for a, b in zip(hi, self.hi, strict=True)
            ):
                return self._find_keys(self._keys(index))
        out = np.full(index.shape[0], -1, np.int64)
        inside = self.covers(index)
        out[inside] = self._find_keys(self._keys(index[inside]))
        return out


def _rows_bytes(index: NDArray[np.int64]) -> list[bytes]:
    """Each tuple of ``index`` (k, d) as bytes, a dict key."""
    rows = np.ascontiguousarray(index, dtype=np.int64)
    return [row.tobytes() for row in rows]


@dataclass
class Block:
    """A named block of columns or rows: index tuples (k, d) and their global positions (k,).

    ``integer`` is meaningful for variable blocks only: the block is integral in the ILP.
    """

    name: str
    kind: str  # "var" or "con"
    arity: int
    integer: bool = False
    _index: list[NDArray[np.int64]] = field(default_factory=list, repr=False)
    _pos: list[NDArray[np.int64]] = field(default_factory=list, repr=False)
    _map: IndexMap | None = field(default=None, repr=False)
    _size: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        self._size = int(sum(p.shape[0] for p in self._pos))

    def _consolidate(self) -> None:
        if len(self._index) != 1:
            self._index = [
                np.concatenate(self._index) if self._index else np.empty((0, self.arity), np.int64)
            ]
            self._pos = [np.concatenate(self._pos) if self._pos else np.empty(0, np.int64)]

    @property
    def index(self) -> NDArray[np.int64]:
        """All index tuples of the block, in the order they were added, as a (k, d) array."""
        self._consolidate()
        return self._index[0]

    @property
    def positions(self) -> NDArray[np.int64]:
        """Global column (or row) positions of the block, aligned with :attr:`index`."""
        self._consolidate()
        return self._pos[0]

    def __len__(self) -> int:
        return self._size

    def _append(self, index: NDArray[np.int64], pos: NDArray[np.int64]) -> None:
        if index.shape[1] != self.arity:
            raise ValueError(
                f"block {self.name!r} has index tuples of length {self.arity}, got {index.shape[1]}"
            )
        if self._map is not None and index.shape[0]:
            if self._map.covers(index).all():
                try:
                    self._map.add(index, pos)
                except ValueError:
                    self._map = None  # rebuilt at the next look-up, without the rejected tuples
                    raise ValueError(f"duplicate index in block {self.name!r}") from None
            else:  # outside the map's box: rebuilt at the next look-up
                self._map = None
        self._index.append(index)
        self._pos.append(pos)
        self._size += pos.shape[0]

    def find(self, index: ArrayLike) -> NDArray[np.int64]:
        """Global positions of the index tuples ``index`` ((k, d), or (k,) when d = 1); -1 for absent ones
        (:class:`IndexMap`, built on first use, then kept up to date)."""
        if self._map is None:
            try:
                self._map = IndexMap(self.index, self.positions)
            except ValueError:
                raise ValueError(f"block {self.name!r} has duplicate index tuples") from None
        idx = _as_index(index)
        if idx.shape[1] != self.arity:
            raise ValueError(
                f"block {self.name!r} has index tuples of length {self.arity}, got {idx.shape[1]}"
            )
        return self._map.find(idx)


def _label_finder(idx: NDArray[np.int64]) -> Callable[[NDArray[np.int64]], NDArray[np.int64]]:
    """Labels (m, d) -> their positions 0..k-1 among the distinct labels ``idx`` (k, d), -1 for absent ones:
    an offset for the labels lo, lo+1, ..., lo+k-1 (d = 1: tokens, the usual row labels), else an
    :class:`IndexMap` (whose construction would cost more than the look-ups)."""
    k, d = idx.shape
    if d != 1 or k == 0 or idx[-1, 0] - idx[0, 0] != k - 1 or not (idx[1:, 0] - idx[:-1, 0] == 1).all():
        return IndexMap(idx, np.arange(k)).find
    lo = int(idx[0, 0])

    def offset(labels: NDArray[np.int64]) -> NDArray[np.int64]:
        if labels.shape[1] != 1:
            raise ValueError(f"row labels have length 1, got {labels.shape[1]}")
        r = labels[:, 0] - lo
        return np.where(r.view(np.uint64) < k, r, -1)  # r < 0 wraps to a large number

    return offset


class _Part(NamedTuple):
    cols: NDArray[np.int64]
    coefs: NDArray[np.float64]
    at: NDArray[np.int64] | None  # (k, d) row labels; None: the i-th entry in the i-th row


class Terms:
    """A batch of linear terms a·x[j] placed in rows: the row builder of :class:`LinearProgram`, after
    linopy's labelled, vectorized constraints. :meth:`LinearProgram.var` makes one term per index tuple of a
    variable block, the i-th in the i-th row of the batch; :meth:`at` sends them to the rows with the given
    labels instead (a sum over the entries with the same label); ``+``, ``-`` and scaling by a number or an
    array combine them. So a formulation writes its rows as the papers do, e.g. ``OneHead[m]``:
    Σ_h z[h,m] = 1 is ``lp.constrain("OneHead", tokens, lp.var("z", arcs).at(arcs[:, 1]), 1, 1)``.
    """

    __array_ufunc__ = None  # numpy array * Terms: Terms.__rmul__, not an object array

    def __init__(self, parts: tuple[_Part, ...]) -> None:
        self.parts = parts

    def at(self, rows: ArrayLike) -> Terms:
        """The same terms, the i-th in the row labelled ``rows[i]`` ((k, d) labels, or (k,) when d = 1)."""
        labels = _as_index(rows)
        if len(self.parts) != 1 or labels.shape[0] != self.parts[0].cols.shape[0]:
            raise ValueError("at() places the terms of one var() call, one row label per term")
        return Terms((self.parts[0]._replace(at=labels),))

    @staticmethod
    def columns(cols: ArrayLike) -> Terms:
        """Terms 1·x[j] for the global columns ``cols``, the i-th in the i-th row: for columns a formulation
        holds already (just added, or in its own dense map), which need no look-up."""
        c = np.asarray(cols, dtype=np.int64).ravel()
        return Terms((_Part(c, np.ones(c.shape[0]), None),))

    @staticmethod
    def stack(*batches: Terms) -> Terms:
        """Terms of one var() call each, without at(), for consecutive batches of rows: the rows of the
        second batch after those of the first, and so on."""
        if any(len(t.parts) != 1 or t.parts[0].at is not None for t in batches):
            raise ValueError("stack() takes the terms of single var() calls without at()")
        if len(batches) == 1:
            return batches[0]
        parts = [t.parts[0] for t in batches]
        return Terms(
            (_Part(np.concatenate([p.cols for p in parts]), np.concatenate([p.coefs for p in parts]), None),)
        )

    def __add__(self, other: Terms) -> Terms:
        return Terms(self.parts + other.parts)

    def __neg__(self) -> Terms:
        return Terms(tuple(p._replace(coefs=-p.coefs) for p in self.parts))

    def __sub__(self, other: Terms) -> Terms:
        return self + -other

    def __mul__(self, factor: ArrayLike) -> Terms:
        """Coefficients times ``factor`` (a number, or one value per term of a single var() call)."""
        a = np.asarray(factor, dtype=np.float64)
        if a.ndim and len(self.parts) != 1:
            raise ValueError("scale a sum of terms by a number only")
        return Terms(tuple(p._replace(coefs=p.coefs * a) for p in self.parts))

    __rmul__ = __mul__

    def coo(
        self, rows: Callable[[NDArray[np.int64]], NDArray[np.int64]], k: int | None
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
        """COO triplets (rows, cols, values): labelled terms through ``rows`` (labels -> row numbers, -1
        for none), the others in rows 0..k-1 of the batch (k None: every term must be labelled)."""
        out_rows = []
        batch = None  # 0..k-1, shared by the unlabelled parts
        for part in self.parts:
            if part.at is not None:
                r = rows(part.at)
                if (r < 0).any():
                    raise ValueError(f"no row labelled {tuple(part.at[np.argmax(r < 0)].tolist())}")
            elif k is None or part.cols.shape[0] != k:
                raise ValueError(f"terms without at() need one term per row ({k}), got {part.cols.shape[0]}")
            else:
                r = batch = np.arange(k, dtype=np.int64) if batch is None else batch
            out_rows.append(r)
        if len(self.parts) == 1:
            return out_rows[0], self.parts[0].cols, self.parts[0].coefs
        return (
            np.concatenate(out_rows),
            np.concatenate([p.cols for p in self.parts]),
            np.concatenate([p.coefs for p in self.parts]),
        )


class LinearProgram:
    """Maximize c·x over named, growable variable and constraint blocks (see module docstring).

    Build with :meth:`add_variables` and :meth:`add_constraints`; read the arrays through the properties
    (``cost``, ``col_lower``, ``col_upper``, ``integrality``, ``row_lower``, ``row_upper``, ``A``).
    """

    def __init__(self, name: str = "lp") -> None:
        self.name = name
        self.var_blocks: dict[str, Block] = {}
        self.con_blocks: dict[str, Block] = {}
        self._cost = _Vec(np.float64)
        self._col_lower = _Vec(np.float64)
        self._col_upper = _Vec(np.float64)
        self._integrality = _Vec(np.bool_)
        self._row_lower = _Vec(np.float64)
        self._row_upper = _Vec(np.float64)
        self._coo_r = _Vec(np.int64)
        self._coo_c = _Vec(np.int64)
        self._coo_v = _Vec(np.float64)
        self._csr: sp.csr_matrix | None = None
        self._csr_nz = -1
        # each batch of columns (rows) appended: its first position, and its (block, first slot in the block)
        self._col_starts: list[int] = []
        self._col_owner: list[tuple[Block, int]] = []
        self._row_starts: list[int] = []
        self._row_owner: list[tuple[Block, int]] = []

    # ---- sizes and arrays -------------------------------------------------------------------------
    @property
    def num_cols(self) -> int:
        return self._cost.n

    @property
    def num_rows(self) -> int:
        return self._row_lower.n

    @property
    def num_nz(self) -> int:
        return self._coo_v.n

    @property
    def cost(self) -> NDArray[np.float64]:
        return self._cost.view

    @property
    def col_lower(self) -> NDArray[np.float64]:
        return self._col_lower.view

    @property
    def col_upper(self) -> NDArray[np.float64]:
        return self._col_upper.view

    @property
    def integrality(self) -> NDArray[np.bool_]:
        """True for columns that are integral in the ILP."""
        return self._integrality.view

    @property
    def row_lower(self) -> NDArray[np.float64]:
        return self._row_lower.view

    @property
    def row_upper(self) -> NDArray[np.float64]:
        return self._row_upper.view

    @property
    def A(self) -> sp.csr_matrix:
        """Constraint matrix (num_rows x num_cols), CSR; duplicate coefficients are summed."""
        if not self._csr_current():
            self._csr = sp.csr_matrix(
                (self._coo_v.view, (self._coo_r.view, self._coo_c.view)), shape=(self.num_rows, self.num_cols)
            )
            self._csr.sum_duplicates()
            self._csr_nz = self.num_nz
        return self._csr

    def dot(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """A @ x, from the CSR when it is current, else straight from the COO triplets (a loop that grows the
        program every round would otherwise build a CSR per round for one product)."""
        if self._csr_current():
            return np.asarray(self._csr @ x)  # type: ignore[operator]
        r, c, v = self._coo_r.view, self._coo_c.view, self._coo_v.view
        return np.bincount(r, v * x[c], minlength=self.num_rows)

    def tdot(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Aᵀ @ y, as :meth:`dot`."""
        if self._csr_current():
            return np.asarray(self._csr.T @ y)  # type: ignore[union-attr]
        r, c, v = self._coo_r.view, self._coo_c.view, self._coo_v.view
        return np.bincount(c, v * y[r], minlength=self.num_cols)

    def _csr_current(self) -> bool:
        return (
            self._csr is not None
            and self._csr.shape == (self.num_rows, self.num_cols)
            and self._csr_nz == self.num_nz
        )

    def coefficients_since(self, nz: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
        """COO triplets (rows, cols, values) of the coefficients appended after the first ``nz``."""
        return self._coo_r.view[nz:], self._coo_c.view[nz:], self._coo_v.view[nz:]

    # ---- building ---------------------------------------------------------------------------------
    def _block(self, table: dict[str, Block], kind: str, name: str, arity: int, integer: bool) -> Block:
        if name in table:
            block = table[name]
        else:
            other = self.con_blocks if kind == "var" else self.var_blocks
            if name in other:
                raise ValueError(
                    f"name {name!r} is already used by a "
                    f"{'constraint' if kind == 'var' else 'variable'} block"
                )
            block = table[name] = Block(name, kind, arity, integer)
        if block.integer != integer and kind == "var":
            raise ValueError(f"block {name!r} was created with integer={block.integer}")
        return block

    @staticmethod
    def _place(
        block: Block, idx: NDArray[np.int64], start: int, starts: list[int], owner: list[tuple[Block, int]]
    ) -> NDArray[np.int64]:
        """Append ``idx`` to ``block`` at global positions start.. and record the batch for the labels."""
        k = idx.shape[0]
        pos = np.arange(start, start + k, dtype=np.int64)
        block._append(idx, pos)
        if k:
            starts.append(start)
            owner.append((block, len(block) - k))
        return pos

    def add_variables(
        self,
        name: str,
        index: ArrayLike,
        cost: ArrayLike = 0.0,
        lower: ArrayLike = 0.0,
        upper: ArrayLike = INF,
        integer: bool = False,
    ) -> NDArray[np.int64]:
        """Append columns to block ``name`` (created on first use); return their global positions.

        ``index`` is a (k, d) array of index tuples (a 1-d array means d = 1); ``cost``, ``lower``,
        ``upper`` broadcast to k. ``integer`` marks the block integral in the ILP.
        """
        idx = _as_index(index)
        k = idx.shape[0]
        block = self._block(self.var_blocks, "var", name, idx.shape[1], integer)
        lo, hi = _sides(lower, upper, k, f"variable block {name!r}: lower bound above upper bound")
        pos = self._place(block, idx, self.num_cols, self._col_starts, self._col_owner)
        self._cost.extend(_broadcast(cost, k, "cost"), k)
        self._col_lower.extend(lo, k)
        self._col_upper.extend(hi, k)
        self._integrality.extend(integer, k)
        return pos

    def add_constraints(
        self,
        name: str,
        index: ArrayLike,
        rows: ArrayLike,
        cols: ArrayLike,
        values: ArrayLike,
        lower: ArrayLike = -INF,
        upper: ArrayLike = INF,
    ) -> NDArray[np.int64]:
        """Append rows to block ``name``; return their global positions.

        The rows' coefficients are COO triplets: ``rows`` local (0..k-1, into ``index``), ``cols`` global
        column positions, ``values``. ``lower``/``upper`` broadcast to k (use ``-INF``/``INF`` for a
        missing side; equal sides make an equality).
        """
        idx = _as_index(index)
        k = idx.shape[0]
        r = np.asarray(rows, dtype=np.int64).ravel()
        if r.size and (r.min() < 0 or r.max() >= k):
            raise ValueError(f"constraint block {name!r}: local row numbers must lie in 0..{k - 1}")
        return self._add_rows(name, idx, r, cols, values, lower, upper)

    def _add_rows(
        self,
        name: str,
        idx: NDArray[np.int64],
        r: NDArray[np.int64],
        cols: ArrayLike,
        values: ArrayLike,
        lower: ArrayLike,
        upper: ArrayLike,
    ) -> NDArray[np.int64]:
        """:meth:`add_constraints` for index tuples ``idx`` (k, d) and local rows ``r`` known to lie in
        0..k-1."""
        k = idx.shape[0]
        block = self._block(self.con_blocks, "con", name, idx.shape[1], False)
        lo, hi = _sides(lower, upper, k, f"constraint block {name!r}: lower side above upper side")
        start = self.num_rows
        pos = self._place(block, idx, start, self._row_starts, self._row_owner)
        self._row_lower.extend(lo, k)
        self._row_upper.extend(hi, k)
        self._append_coefficients(r + start, cols, values)
        return pos

    def add_coefficients(self, rows: ArrayLike, cols: ArrayLike, values: ArrayLike) -> None:
        """Append coefficients A[rows, cols] += values (global positions), e.g. new columns in old rows."""
        r = np.asarray(rows, dtype=np.int64).ravel()
        if r.size and _beyond(r, self.num_rows):
            raise ValueError("coefficient outside the matrix (add the columns and rows first)")
        self._append_coefficients(r, cols, values)

    def _append_coefficients(self, r: NDArray[np.int64], cols: ArrayLike, values: ArrayLike) -> None:
        """:meth:`add_coefficients` for rows ``r`` known to lie in the matrix."""
        c = np.asarray(cols, dtype=np.int64).ravel()
        v = np.asarray(values, dtype=np.float64).ravel()
        if not r.shape == c.shape == v.shape:
            raise ValueError("rows, cols and values must have the same length")
        if r.size:
            if _beyond(c, self.num_cols):
                raise ValueError("coefficient outside the matrix (add the columns and rows first)")
            if not np.isfinite(v).all():
                raise ValueError("coefficients must be finite")
        k = r.shape[0]
        self._coo_r.extend(r, k)
        self._coo_c.extend(c, k)
        self._coo_v.extend(v, k)

    # ---- the row builder --------------------------------------------------------------------------
    def var(self, name: str, index: ArrayLike) -> Terms:
        """Terms 1·``name[t]`` for the index tuples t of ``index``, the i-th in the i-th row (see
        :class:`Terms`); KeyError if a tuple has no column (e.g. a pruned arc)."""
        cols = self.var_blocks[name].find(index)
        if (cols < 0).any():
            raise KeyError(f"{name}{tuple(_as_index(index)[np.argmax(cols < 0)].tolist())} has no column")
        return Terms.columns(cols)

    def constrain(
        self, name: str, index: ArrayLike, terms: Terms, lower: ArrayLike = -INF, upper: ArrayLike = INF
    ) -> NDArray[np.int64]:
        """Append rows ``lower <= terms <= upper`` to block ``name``, labelled by ``index`` (the labels that
        :meth:`Terms.at` refers to); return their global positions (as :meth:`add_constraints`)."""
        idx = _as_index(index)
        finder: list[Callable[[NDArray[np.int64]], NDArray[np.int64]]] = []  # for the first labelled term

        def rows(labels: NDArray[np.int64]) -> NDArray[np.int64]:
            if not finder:
                finder.append(_label_finder(idx))
            return finder[0](labels)

        return self._add_rows(name, idx, *terms.coo(rows, idx.shape[0]), lower, upper)

    def add_terms(self, name: str, terms: Terms) -> None:
        """Add labelled ``terms`` (:meth:`Terms.at`) to the existing rows of block ``name``, e.g. the
        coefficients of new columns in old rows."""
        self._append_coefficients(*terms.coo(self.con_blocks[name].find, None))

    # ---- lookups ----------------------------------------------------------------------------------
    @staticmethod
    def _position(table: dict[str, Block], name: str, index: tuple[int, ...] | int) -> int:
        key = index if isinstance(index, tuple) else (index,)
        pos = int(table[name].find(np.array([key], dtype=np.int64))[0])
        if pos < 0:
            raise KeyError(f"{name}{key}")
        return pos

    def col(self, name: str, index: tuple[int, ...] | int) -> int:
        """Global column of variable ``name[index]`` (KeyError if absent, e.g. a pruned arc)."""
        return self._position(self.var_blocks, name, index)

    def row(self, name: str, index: tuple[int, ...] | int) -> int:
        """Global row of constraint ``name[index]``."""
        return self._position(self.con_blocks, name, index)

    def cols(self, name: str) -> NDArray[np.int64]:
        """Global columns of block ``name``, aligned with ``var_blocks[name].index``."""
        return self.var_blocks[name].positions

    def rows(self, name: str) -> NDArray[np.int64]:
        """Global rows of block ``name``, aligned with ``con_blocks[name].index``."""
        return self.con_blocks[name].positions

    @staticmethod
    def _label(
        at: int, size: int, starts: list[int], owner: list[tuple[Block, int]]
    ) -> tuple[str, tuple[int, ...]]:
        """(block name, index tuple) at global position ``at`` (negative: from the end) of ``size``."""
        if not -size <= at < size:
            raise IndexError(f"position {at} outside a program of {size}")
        at %= size
        batch = bisect_right(starts, at) - 1
        block, slot0 = owner[batch]
        return block.name, tuple(block.index[slot0 + at - starts[batch]].tolist())

    def col_label(self, j: int) -> tuple[str, tuple[int, ...]]:
        """(block name, index tuple) of global column ``j``."""
        return self._label(int(j), self.num_cols, self._col_starts, self._col_owner)

    def row_label(self, i: int) -> tuple[str, tuple[int, ...]]:
        """(block name, index tuple) of global row ``i``."""
        return self._label(int(i), self.num_rows, self._row_starts, self._row_owner)

    def col_names(self, start: int = 0) -> Iterator[str]:
        """LP-file-safe names ``block(i_j_...)`` (as Pyomo's labels) of the columns from ``start`` on."""
        return (
            f"{n}({'_'.join(map(str, idx))})" for n, idx in map(self.col_label, range(start, self.num_cols))
        )

    def row_names(self, start: int = 0) -> Iterator[str]:
        """LP-file-safe names ``block(i_j_...)`` of the rows from ``start`` on."""
        return (
            f"{n}({'_'.join(map(str, idx))})" for n, idx in map(self.row_label, range(start, self.num_rows))
        )

    def values(self, name: str, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Entries of a column vector ``x`` (primal or reduced costs) for block ``name``."""
        return x[self.cols(name)]

    def __repr__(self) -> str:
        vb = ", ".join(f"{n}:{len(b)}" for n, b in self.var_blocks.items())
        cb = ", ".join(f"{n}:{len(b)}" for n, b in self.con_blocks.items())
        sizes = f"cols={self.num_cols} [{vb}], rows={self.num_rows} [{cb}], nz={self.num_nz}"
        return f"LinearProgram({self.name!r}, {sizes})"
