"""Masks computed from arc masks, remembered by the arc mask's bytes: the families and decoders of one
sentence ask for the same masks over the same arcs many times (a window family, its program and the search's
nodes: 15-20 times a sentence)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["by_arc_mask"]

MaskFunction = Callable[..., NDArray[np.bool_]]


def by_arc_mask(fn: MaskFunction) -> MaskFunction:
    """``fn(arc_mask, *args)`` remembered by the bytes of the (boolean) arc mask and the other arguments; every
    call returns a fresh array, which the caller may change."""

    @functools.lru_cache(maxsize=16)
    def remembered(key: bytes, size: int, *args: Any, **kwargs: Any) -> NDArray[np.bool_]:
        out = fn(np.frombuffer(key, dtype=bool).reshape(size, size), *args, **kwargs)
        out.flags.writeable = False
        return out

    @functools.wraps(fn)
    def call(arc_mask: NDArray[np.bool_], *args: Any, **kwargs: Any) -> NDArray[np.bool_]:
        arcs = np.ascontiguousarray(arc_mask, dtype=bool)
        return remembered(arcs.tobytes(), arcs.shape[0], *args, **kwargs).copy()

    return call
