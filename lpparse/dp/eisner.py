"""Eisner's first-order projective dependency DP, written once as a chart :class:`~lpparse.dp.chart.Program`.

Eisner (1996), "Three new probabilistic models for dependency parsing: an exploration", COLING; items as in
the BP reading note §2.3. Root 0 sits at the left edge and is never a modifier (``weights[:, 0]`` is
forbidden). Complete spans CR[s,t] (head s) and CL[s,t] (head t), incomplete spans IR[s,t] (arc s→t) and
IL[s,t] (arc t→s), over 0 ≤ s ≤ t ≤ n:

    IR[s,t] = S[s,t] ⊗ ⊕_{s≤r<t} CR[s,r] ⊗ CL[r+1,t]       IL[s,t] = S[t,s] ⊗ (the same sum)
    CR[s,t] = ⊕_{s<r≤t} IR[s,r] ⊗ CR[r,t]                   CL[s,t] = ⊕_{s≤r<t} CL[s,r] ⊗ IL[r,t]

with CR[s,s] = CL[s,s] = one. Goal: CR[0,n] (multi-root), or ⊕_m S[0,m] ⊗ CL[1,m] ⊗ CR[m,n] (single-root).

Each table is stored by (start, width) or by (end, width), whichever makes every split-point operand a plain
(possibly reversed) slice, so one rule covers one width and the Python loop runs over widths only:
``CR_start``/``CR_end`` and ``CL_start``/``CL_end`` hold each complete span twice, ``IR`` is stored by
start and ``IL`` by end.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from lpparse.dp.chart import WEIGHTS, ChartResult, Program, Ref, Rule, run
from lpparse.dp.semiring import Semiring
from lpparse.trees import NoTreeError, check_tree_exists, validate_scores

__all__ = ["eisner_chart", "eisner_program"]


@lru_cache(maxsize=128)
def eisner_program(n: int, single_root: bool) -> Program:
    """The Eisner chart for ``n`` tokens; its weights are the (n+1, n+1) arc scores."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    size = n + 1
    every = slice(None)
    rules = []
    for w in range(1, size):
        ns = size - w
        by_start, by_end, rows = slice(0, ns), slice(w, None), np.arange(ns)
        back = slice(w - 1, None, -1)  # widths w-1, ..., 0 of the right part of a split
        rules += [
            Rule(
                "span",
                (Ref("CR_start", (by_start, slice(0, w))), Ref("CL_end", (by_end, back))),
                (Ref("IR", (by_start, w)), Ref("IL", (by_end, w))),
                (Ref(WEIGHTS, (rows, rows + w)), Ref(WEIGHTS, (rows + w, rows))),
            ),
            Rule(
                "CR",
                (Ref("IR", (by_start, slice(1, w + 1))), Ref("CR_end", (by_end, back))),
                (Ref("CR_start", (by_start, w)), Ref("CR_end", (by_end, w))),
            ),
            Rule(
                "CL",
                (Ref("CL_start", (by_start, slice(0, w))), Ref("IL", (by_end, slice(w, 0, -1)))),
                (Ref("CL_start", (by_start, w)), Ref("CL_end", (by_end, w))),
            ),
        ]
    if single_root:
        m = np.arange(1, size)[None, :]
        operands = (Ref(WEIGHTS, (np.zeros_like(m), m)), Ref("CL_end", (m, m - 1)), Ref("CR_start", (m, n - m)))
    else:
        operands = (Ref("CR_start", (np.array([[0]]), np.array([[n]]))),)
    rules.append(Rule("goal", operands, (Ref("goal", (every,)),)))
    tables = dict.fromkeys(("CR_start", "CR_end", "CL_start", "CL_end", "IR", "IL"), (size, size))
    return Program(
        tables={**tables, "goal": (1,)},
        axioms=tuple((Ref(f"{c}_start", (every, 0)), Ref(f"{c}_end", (every, 0))) for c in ("CR", "CL")),
        rules=tuple(rules),
        goal=Ref("goal", (0,)),
        weight_shape=(size, size),
        forbidden=(every, 0),
    )


def eisner_chart(
    scores: ArrayLike, single_root: bool, semiring: Semiring, tangent: ArrayLike | None = None
) -> ChartResult:
    """Run Eisner's chart on validated ``scores`` (with ``tangent`` as the dual part under ``DUAL_LOG``).

    Raises ``ValueError`` on invalid scores and :class:`~lpparse.trees.NoTreeError` when no projective tree
    exists over the finite-score arcs.
    """
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    weights = s[None] if tangent is None else np.stack([s, np.asarray(tangent, dtype=np.float64)])
    result = run(eisner_program(s.shape[0] - 1, single_root), weights, semiring)
    if result.value[0] == -np.inf:
        kind = "single-root" if single_root else "multi-root"
        raise NoTreeError(f"no projective {kind} dependency tree exists over the allowed arcs")
    return result
