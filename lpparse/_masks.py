"""Answers computed from arc masks, remembered by the arc mask's bytes: the families and decoders of one
sentence ask the same questions about the same arcs many times (a window family, its program and the
search's nodes: 15-20 times a sentence for the window mask; whether a tree exists, 5-6 times)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

__all__ = ["by_arc_mask"]

F = TypeVar("F", bound=Callable[..., Any])


@overload
def by_arc_mask(fn: F) -> F: ...


@overload
def by_arc_mask(*, maxsize: int = 32) -> Callable[[F], F]: ...


def by_arc_mask(fn: F | None = None, *, maxsize: int = 32) -> Any:
    """``fn(arc_mask, *args)`` remembered by the bytes of the (square, boolean) arc mask and the other
    arguments (the last ``maxsize`` answers: keep it small for answers that are large); an array answer, or
    each array of a tuple answer, is handed out as a fresh copy, which the caller may change. Used bare
    (``@by_arc_mask``) or with options (``@by_arc_mask(maxsize=4)``)."""
    if fn is None:
        return functools.partial(by_arc_mask, maxsize=maxsize)

    @functools.lru_cache(maxsize=maxsize)
    def remembered(key: bytes, size: int, *args: Any, **kwargs: Any) -> Any:
        out = fn(np.frombuffer(key, dtype=bool).reshape(size, size), *args, **kwargs)
        for array in out if isinstance(out, tuple) else (out,):
            if isinstance(array, np.ndarray):
                array.flags.writeable = False
        return out

    @functools.wraps(fn)
    def call(arc_mask: NDArray[np.bool_], *args: Any, **kwargs: Any) -> Any:
        arcs = np.ascontiguousarray(arc_mask, dtype=bool)
        out = remembered(arcs.tobytes(), arcs.shape[0], *args, **kwargs)
        if isinstance(out, tuple):
            return tuple(x.copy() if isinstance(x, np.ndarray) else x for x in out)
        return out.copy() if isinstance(out, np.ndarray) else out

    return call
