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

As in :mod:`lpparse.dp.eisner`, left-headed items are right-headed items of the mirrored sentence (position
i ↦ n − i, "no parent" kept): tables ``I`` and ``C`` hold X[d, g, a, b] for frame d (0: the sentence, 1: its
mirror), head a and span end b in that frame's coordinates, so CL[g,s,t] is C[1, n−g, n−t, n−s]. In frame
coordinates both directions read

    I[d,g,a,b] = W_d[g,a,b] ⊗ ⊕_{a≤r<b} C[d,g,a,r] ⊗ C[1−d, n−a, n−b, n−r−1]
    C[d,g,a,b] = ⊕_{a<m≤b} I[d,g,a,m] ⊗ C[d,a,m,b]

with W_0 = W and W_1[g,a,b] = W[n−g, n−a, n−b]. Each rule covers one width: every (d, g, a, split) at once,
so the Python loop runs over widths only.
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
    mirror = np.append(n - np.arange(size), none)  # a grandparent index in the other frame
    d4, g4 = np.arange(2)[:, None, None, None], np.arange(size + 1)[None, :, None, None]
    d3, g3 = d4[..., 0], g4[..., 0]
    rules = []
    for w in range(1, size):
        a = np.arange(size - w)
        b = a + w
        a4, b4, a3, b3 = a[:, None], b[:, None], a[None, None, :], b[None, None, :]
        cells = (d3, g3, a3, b3)
        # W_d[g, a, b]: frame 1 reads W at the mirrored grandparent, head and modifier
        arc = (
            np.where(d3 == 0, g3, mirror[g3]),
            np.where(d3 == 0, a3, n - a3),
            np.where(d3 == 0, b3, n - b3),
        )
        r = a4 + np.arange(w)[None, :]  # splits a..b-1, (A, K)
        m = r + 1  # splits a+1..b
        rules += [
            Rule(
                "I",
                (Ref("C", (d4, g4, a4, r)), Ref("C", (1 - d4, n - a4, n - b4, n - r - 1))),
                (Ref("I", cells),),
                (Ref(WEIGHTS, arc),),
            ),
            Rule("C", (Ref("I", (d4, g4, a4, m)), Ref("C", (d4, a4, m, b4))), (Ref("C", cells),)),
        ]
    if single_root:
        m = np.arange(1, size)[None, :]
        zero = np.zeros_like(m)
        operands = (
            Ref(WEIGHTS, (zero + none, zero, m)),
            Ref("C", (zero + 1, zero + n, n - m, zero + n - 1)),  # CL[0, 1, m]
            Ref("C", (zero, zero, m, zero + n)),  # CR[0, m, n]
        )
    else:
        operands = (Ref("C", (np.array([[0]]), np.array([[none]]), np.array([[0]]), np.array([[n]]))),)
    rules.append(Rule("goal", operands, (Ref("goal", (slice(None),)),)))
    diag = np.arange(size)[None, None, :]
    return Program(
        tables={**dict.fromkeys(("C", "I"), (2, size + 1, size, size)), "goal": (1,)},
        axioms=((Ref("C", (d3, g3, diag, diag)),),),
        rules=tuple(rules),
        goal=Ref("goal", (0,)),
        weight_shape=(size + 1, size, size),
        forbidden=(slice(None), slice(None), 0),
    )
