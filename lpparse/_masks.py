"""Answers computed from arc masks, remembered by the arc mask's bytes: the families and decoders of one
sentence ask the same questions about the same arcs many times (a window family, its program and the
search's nodes: 15-20 times a sentence for the window mask; whether a tree exists, 5-6 times)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["by_arc_mask"]

F = TypeVar("F", bound=Callable[..., Any])


def by_arc_mask(fn: F) -> F:
    """``fn(arc_mask, *args)`` remembered by the bytes of the (square, boolean) arc mask and the other
    arguments; an array answer is handed out as a fresh copy, which the caller may change."""

    @functools.lru_cache(maxsize=32)
    def remembered(key: bytes, size: int, *args: Any, **kwargs: Any) -> Any:
        out = fn(np.frombuffer(key, dtype=bool).reshape(size, size), *args, **kwargs)
        if isinstance(out, np.ndarray):
            out.flags.writeable = False
        return out

    @functools.wraps(fn)
    def call(arc_mask: NDArray[np.bool_], *args: Any, **kwargs: Any) -> Any:
        arcs = np.ascontiguousarray(arc_mask, dtype=bool)
        out = remembered(arcs.tobytes(), arcs.shape[0], *args, **kwargs)
        return out.copy() if isinstance(out, np.ndarray) else out

    return call  # type: ignore[return-value]
