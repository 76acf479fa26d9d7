"""Eisner's first-order projective dependency DP, written once as a chart :class:`~lpparse.dp.chart.Program`.

Eisner (1996), "Three new probabilistic models for dependency parsing: an exploration", COLING; items as in
the BP reading note §2.3. Root 0 sits at the left edge and is never a modifier (``weights[:, 0]`` is
forbidden). Complete spans CR[s,t] (head s) and CL[s,t] (head t), incomplete spans IR[s,t] (arc s→t) and
IL[s,t] (arc t→s), over 0 ≤ s ≤ t ≤ n:

    IR[s,t] = S[s,t] ⊗ ⊕_{s≤r<t} CR[s,r] ⊗ CL[r+1,t]       IL[s,t] = S[t,s] ⊗ (the same sum)
    CR[s,t] = ⊕_{s<r≤t} IR[s,r] ⊗ CR[r,t]                   CL[s,t] = ⊕_{s≤r<t} CL[s,r] ⊗ IL[r,t]

with CR[s,s] = CL[s,s] = one. Goal: CR[0,n] (multi-root), or ⊕_m S[0,m] ⊗ CL[1,m] ⊗ CR[m,n] (single-root).

A left-headed span is a right-headed span of the mirrored sentence (position i ↦ n − i), where the CL rule
reads as the CR rule. So each item table has a leading *frame* axis, 0 for the sentence and 1 for its mirror,
and holds spans by their head-side end: CR[s,t] and IR[s,t] at frame 0, start s, width t − s; CL[s,t] and
IL[s,t] at frame 1, start n − t, width t − s. One rule then builds CR and CL of one width for every span at
once, and another IR and IL. Complete spans are stored by (start, width) in ``C_start`` and again by (end,
width) in ``C_end``, incomplete spans by (start, width) in ``I``: every split-point operand is a plain
(possibly reversed) slice, and the Python loop runs over widths only.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.dp.chart import WEIGHTS, ChartResult, Program, Ref, Rule, best, run
from lpparse.dp.semiring import Semiring
from lpparse.trees import NoTreeError, check_tree_exists, validate_scores

__all__ = ["eisner_best", "eisner_chart", "eisner_program"]


@lru_cache(maxsize=128)
def eisner_program(n: int, single_root: bool) -> Program:
    """The Eisner chart for ``n`` tokens; its weights are the (n+1, n+1) arc scores, flattened (so that
    the arcs of the spans of one width are a strided slice: S[s, s+w] and S[s+w, s] for all s)."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    size = n + 1
    every = slice(None)
    rules = []
    for w in range(1, size):
        ns = size - w
        span = (ns - 1) * (size + 1) + 1  # S[s, s+w] and S[s+w, s] for s < ns: strides of size+1
        right, left = slice(w, w + span, size + 1), slice(w * size, w * size + span, size + 1)
        mirrored = slice(n - w, None, -1)  # frame-1 start n - t of the spans [s, t = s + w], s = 0, 1, ...
        back = slice(w - 1, None, -1)  # widths w-1, ..., 0 of the second part of a split
        rules += [
            Rule(
                "span",  # CR[s, s+k] ⊗ CL[s+k+1, t], CL at frame-1 start n - t and width w - 1 - k
                (Ref("C_start", (0, slice(0, ns), slice(0, w))), Ref("C_start", (1, mirrored, back))),
                (Ref("I", (0, slice(0, ns), w)), Ref("I", (1, mirrored, w))),
                (Ref(WEIGHTS, (right,)), Ref(WEIGHTS, (left,))),
            ),
            Rule(
                "complete",  # both frames: I[a, a+k] ⊗ C[a+k, a+w], C by its end a + w and width w - k
                (
                    Ref("I", (every, slice(0, ns), slice(1, w + 1))),
                    Ref("C_end", (every, slice(w, None), back)),
                ),
                (Ref("C_start", (every, slice(0, ns), w)), Ref("C_end", (every, slice(w, None), w))),
            ),
        ]
    if single_root:
        m = np.arange(1, size)[None, :]
        frame = np.zeros_like(m)
        operands = (
            Ref(WEIGHTS, (m,)),
            Ref("C_start", (frame + 1, n - m, m - 1)),  # CL[1, m]
            Ref("C_start", (frame, m, n - m)),  # CR[m, n]
        )
    else:
        operands = (Ref("C_start", (np.array([[0]]), np.array([[0]]), np.array([[n]]))),)
    rules.append(Rule("goal", operands, (Ref("goal", (every,)),)))
    return Program(
        tables={**dict.fromkeys(("C_start", "C_end", "I"), (2, size, size)), "goal": (1,)},
        axioms=((Ref("C_start", (every, every, 0)), Ref("C_end", (every, every, 0))),),
        rules=tuple(rules),
        goal=Ref("goal", (0,)),
        weight_shape=(size * size,),
        forbidden=(slice(0, None, size),),
    )


def eisner_chart(
    scores: ArrayLike, single_root: bool, semiring: Semiring, tangent: ArrayLike | None = None
) -> ChartResult:
    """Run Eisner's chart on validated ``scores`` (with ``tangent`` as the dual part under ``DUAL_LOG``);
    the adjoints come back as (width, n+1, n+1) arrays.

    Raises ``ValueError`` on invalid scores and :class:`~lpparse.trees.NoTreeError` when no projective tree
    exists over the finite-score arcs.
    """
    s, program = _prepare(scores, single_root)
    size = s.shape[0]
    weights = s[None] if tangent is None else np.stack([s, np.asarray(tangent, dtype=np.float64)])
    result = run(program, weights.reshape(semiring.width, -1), semiring)
    _check_value(float(result.value[0]), single_root)
    return ChartResult(result.value, result.adjoints.reshape(semiring.width, size, size))


def eisner_best(scores: ArrayLike, single_root: bool) -> tuple[float, NDArray[np.float64]]:
    """``(value, arcs)`` of the best projective tree, arcs as a 0/1 (n+1, n+1) array: the back-pointer fast
    path (:func:`lpparse.dp.chart.best`) of ``eisner_chart(scores, single_root, MAX)``; same errors."""
    s, program = _prepare(scores, single_root)
    value, arcs = best(program, s.ravel())
    _check_value(value, single_root)
    return value, arcs.reshape(s.shape)


def _prepare(scores: ArrayLike, single_root: bool) -> tuple[NDArray[np.float64], Program]:
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    return s, eisner_program(s.shape[0] - 1, single_root)


def _check_value(value: float, single_root: bool) -> None:
    if value == -np.inf:
        kind = "single-root" if single_root else "multi-root"
        raise NoTreeError(f"no projective {kind} dependency tree exists over the allowed arcs")
