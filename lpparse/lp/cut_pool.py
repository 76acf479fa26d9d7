"""The rows HiGHS's MIP separates at its root node, read back in the program's own terms.

HiGHS (through highspy) reports its cut pool to a callback (``kCallbackMipGetCutPool``). With presolve off its
columns are the program's, so each cut is a row over the program's columns, which :func:`cut_terms` names by
their labels (``zgp[1,2,3]``). These rows are valid for every integer point of the program (for a dependency
program: every tree with its parts and some flow), which is what a generic MIP solver adds on top of an LP
relaxation: ``benchmarks/root_gap.py`` measures how much of the root gap they close, and ``lpparse inspect``
(:mod:`lpparse.inspect.cuts`) falls back on them for a fractional point that no row of lpparse's own cuts off.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, NamedTuple

import highspy
import numpy as np
from numpy.typing import NDArray

from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import LinearProgram

__all__ = ["PoolCut", "blocks", "column_blocks", "cut_terms", "mip_pool"]


class PoolCut(NamedTuple):
    """One cut of HiGHS's pool: lower <= Σ values·x[cols] <= upper, over program columns."""

    cols: NDArray[np.int64]
    values: NDArray[np.float64]
    lower: float
    upper: float


def mip_pool(
    lp: LinearProgram, limit: float, all_integer: bool = False
) -> tuple[float, list[PoolCut], float]:
    """HiGHS's MIP at its root node (presolve off, so that its cut pool speaks of the program's columns; every
    column integer with ``all_integer``, else the program's integer blocks) within ``limit`` seconds: its dual
    bound, its final cut pool and the CPU seconds it took."""
    start, pools = time.process_time(), []

    def keep(kind: Any, message: str, out: Any, into: Any, user: Any) -> None:
        if kind == highspy.cb.HighsCallbackType.kCallbackMipGetCutPool:
            fields = (out.cutpool_start, out.cutpool_index, out.cutpool_value, out.cutpool_lower)
            pools.append((*(np.array(a) for a in fields), np.array(out.cutpool_upper)))

    model = HighsModel(lp, mip=True, time_limit=limit, options={"presolve": "off", "mip_max_nodes": 1})
    if all_integer:
        n = model.highs.getNumCol()
        model.highs.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.ones(n, np.uint8))
    model.highs.setCallback(keep, None)
    model.highs.startCallback(highspy.cb.HighsCallbackType.kCallbackMipGetCutPool)
    model.solve(certify=False)
    cuts: list[PoolCut] = []
    if pools:
        starts, index, value, lower, upper = pools[-1]
        ends = np.append(starts[1 : lower.size], index.size)  # HiGHS's starts may end with the last cut's end
        bounds = zip(lower.tolist(), upper.tolist())
        cuts = [
            PoolCut(index[a:b].astype(np.int64), value[a:b].astype(np.float64), lo, up)
            for (a, b), (lo, up) in zip(zip(starts, ends), bounds)
        ]
    return float(model.highs.getInfo().mip_dual_bound), cuts, time.process_time() - start


def column_blocks(lp: LinearProgram) -> NDArray[np.object_]:
    """The name of each column's variable block."""
    block = np.empty(lp.num_cols, dtype=object)
    for name, b in lp.var_blocks.items():
        block[b.positions] = name
    return block


def blocks(lp: LinearProgram, cuts: list[PoolCut]) -> Counter[str]:
    """The cuts counted by the variable blocks each touches (``z + zgp``)."""
    block = column_blocks(lp)
    return Counter(" + ".join(sorted(set(block[cut.cols]))) for cut in cuts)


def cut_terms(
    lp: LinearProgram, cols: NDArray[np.int64], values: NDArray[np.float64]
) -> list[tuple[str, list[int], float]]:
    """A row's terms by column label: (block, index tuple, coefficient), in column order."""
    order = np.argsort(cols, kind="stable")
    return [
        (name, list(index), float(value))
        for (name, index), value in zip(map(lp.col_label, cols[order].tolist()), values[order].tolist())
    ]
