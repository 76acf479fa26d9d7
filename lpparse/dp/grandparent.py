"""Projective second-order parsing with grandparent parts, O(n^4): Eisner's chart with the parent of each
span's head added to every item, written once as a chart :class:`~lpparse.dp.chart.Program`.

The grandparent half of "Model 1" of Koo & Collins (2010), "Efficient third-order dependency parsers", ACL
(without siblings). The score of a tree is Σ_m S[h(m), m] + Σ_{p>0, c: h(c)=p} GP[h(p), p, c] (Riedel, Smith &
McCallum 2012, eq. 3), so the weight of arc s→t under grandparent g is W[g, s, t] = S[s, t] + GP[g, s, t].
Items, for spans s ≤ t and a grandparent index g (g = n+1 stands for "no parent", used by the root's spans):

    IR[g,s,t] = W[g,s,t] ⊗ ⊕_{s≤r<t} CR[g,s,r] ⊗ CL[s,r+1,t]     arc s→t
    IL[g,s,t] = W[g,t,s] ⊗ ⊕_{s≤r<t} CR[t,s,r] ⊗ CL[g,r+1,t]     arc t→s
    CR[g,s,t] = ⊕_{s<m≤t} IR[g,s,m] ⊗ CR[s,m,t]
    CL[g,s,t] = ⊕_{s≤m<t} CL[t,s,m] ⊗ IL[g,m,t]

Each rule covers one width: every (g, s, split) at once, so the Python loop runs over widths only.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from lpparse.dp.chart import WEIGHTS, Program, Ref, Rule

__all__ = ["grandparent_program"]


@lru_cache(maxsize=4)  # a program's back-pointer map is O(n^3): keep few
def grandparent_program(n: int, single_root: bool) -> Program:
    """The grandparent chart for ``n`` tokens; weights W (n+2, n+1, n+1) as in the module docstring."""
    size = n + 1
    none = size
    g_all = np.arange(size + 1)
    gs, g2 = g_all[:, None, None], g_all[:, None]
    rules = []
    for w in range(1, size):
        st = np.arange(size - w)
        t = st + w
        r = st[:, None] + np.arange(w)[None, :]  # split points s..t-1, (S, K)
        cells, back = (g2, st[None], t[None]), (g2, t[None], st[None])
        rules += [
            Rule(
                "IR",
                (Ref("CR", (gs, st[None, :, None], r[None])), Ref("CL", (st[:, None], r + 1, t[:, None]))),
                (Ref("IR", cells),),
                (Ref(WEIGHTS, cells),),
            ),
            Rule(
                "IL",
                (Ref("CR", (t[:, None], st[:, None], r)), Ref("CL", (gs, r[None] + 1, t[None, :, None]))),
                (Ref("IL", cells),),
                (Ref(WEIGHTS, back),),
            ),
            Rule(
                "CR",
                (
                    Ref("IR", (gs, st[None, :, None], r[None] + 1)),
                    Ref("CR", (st[:, None], r + 1, t[:, None])),
                ),
                (Ref("CR", cells),),
            ),
            Rule(
                "CL",
                (Ref("CL", (t[:, None], st[:, None], r)), Ref("IL", (gs, r[None], t[None, :, None]))),
                (Ref("CL", cells),),
            ),
        ]
    if single_root:
        m = np.arange(1, size)[None, :]
        zero = np.zeros_like(m)
        operands = (
            Ref(WEIGHTS, (zero + none, zero, m)),
            Ref("CL", (zero, zero + 1, m)),
            Ref("CR", (zero, m, zero + n)),
        )
    else:
        operands = (Ref("CR", (np.array([[none]]), np.array([[0]]), np.array([[n]]))),)
    rules.append(Rule("goal", operands, (Ref("goal", (slice(None),)),)))
    diag = np.arange(size)[None, :]
    return Program(
        tables={**dict.fromkeys(("CR", "CL", "IR", "IL"), (size + 1, size, size)), "goal": (1,)},
        axioms=((Ref("CR", (g2, diag, diag)),), (Ref("CL", (g2, diag, diag)),)),
        rules=tuple(rules),
        goal=Ref("goal", (0,)),
        weight_shape=(size + 1, size, size),
        forbidden=(slice(None), slice(None), 0),
    )
