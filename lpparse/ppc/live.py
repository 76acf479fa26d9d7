"""One live master for a whole branch-and-bound search: a node is a set of bound changes on it.

Branch-and-price as SCIP and GCG run it (Gamrath & Lübbecke 2010, "Experiments with a Generic Dantzig-Wolfe
Decomposition for Integer Programs", SEA 2010): the search keeps one restricted master, with its columns,
rows and basis, and turns it into a node's LP by changing bounds. Here a node of :mod:`lpparse.ppc.exact` is
a set of arcs; its LP is the root's program with the arc columns the node drops fixed at 0 (their upper
bound, in the program and in HiGHS), which forces every part and flow over them to 0 through the rows that
link them. Nothing is rebuilt: the columns and rows that earlier nodes priced and separated stay (every row
is valid for every tree, every column is a candidate part of the root), and HiGHS goes on from the last
basis, which bound changes leave dual feasible, with the dual simplex.

Per node, before the engine's loop (:class:`lpparse.colgen.Engine`, run again on its kept master):

* **the node's arcs**: the grandparent family prices only parts over them (the program's ``arc_mask`` is the
  node's), so the certificate is the one of the node's full LP, the root's with the dropped arcs at 0;
* **a feasible start**: the triples of the node's first-order best tree without pruned parts
  (:func:`lpparse.ppc.families.clean_tree`) enter if absent, so the restricted LP holds that tree whatever
  columns earlier nodes left (a node without such a tree is solved as before, on a program of its own).

The master is built for the root's first child solved, over the arcs that the root's reduced-cost fixing
leaves (the root is solved on its own program). The dropped arcs' triples and flows are fixed at 0 too. Each node's
first solve starts from its parent's final basis (placed by label, :mod:`lpparse.lp.basis`), not from the
basis of the node solved last (best-bound order jumps between subtrees; on Hungarian #152 of the dev set,
49 tokens: 60 s against 75 s). Only the grandparent family supports this (:meth:`LiveMaster.supports`). Node
proofs are unchanged: duals by row label, which the checker reads against the full program with the node's
bounds (:mod:`lpparse.ppc.proof`).

**Measured: not faster than a program per node** (``benchmarks/exact_ablation.py --option live_master``,
the dev sentences whose root LP is fractional, trained grandparent models, CPU time, the same nodes): Danish
1.03x, English 0.99x, Hungarian 0.88x (#152: 25.4 s against 33.3 s), Italian 0.98x, the same optima and every
proof re-checked; hence :class:`lpparse.ppc.exact.ExactOptions` keeps it off. Where it loses: HiGHS. A node's
own program holds only its parent's triples over its own arcs; the master keeps every triple any node priced,
so it is larger (#152: 8.7k rows against about 7k), and on hard sentences a node needs more simplex
iterations from its parent's exact basis than its own program needs from the same basis placed on it. What it
would need to pay: a column pool kept out of the master (GCG's), so that a node's active columns are about its
own program's.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen import ColgenOptions, Engine, Warm
from lpparse.formulations.grandparent import arc_program
from lpparse.lp.basis import LabelledBasis
from lpparse.lp.highs_view import HighsModel
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc.families import GrandparentFamily, clean_tree
from lpparse.ppc.loop import PPCResult, _result
from lpparse.ppc.parts import Binding, GrandparentParts, Parts
from lpparse.trees import NoTreeError

__all__ = ["LiveMaster"]


class LiveMaster:
    """The master of a branch-and-bound search over the arcs of ``arc_scores`` and the grandparent parts
    ``parts`` (module docstring): :meth:`solve` gives the LP of a node's arcs. ``warm``: the search's score
    caches by family name (each part scored once)."""

    def __init__(
        self,
        arc_scores: NDArray[np.float64],
        parts: Sequence[Parts],
        single_root: bool,
        base: str,
        options: ColgenOptions,
        warm: Mapping[str, Warm],
    ) -> None:
        if not self.supports(parts):
            raise ValueError("a live master takes the grandparent family only")
        self.s, self.single_root, self.options = arc_scores, single_root, options
        self.prog = arc_program(arc_scores, single_root, base)
        tree = chu_liu_edmonds(arc_scores, single_root=single_root)
        self.families = [p.bind(Binding(self.prog, arc_scores, tree, options, warm.get(p.name))) for p in parts]
        self.arcs = np.nonzero(self.prog.arc_mask)
        self.z = self.prog.z_col[self.arcs]
        self.upper = self.prog.lp.col_upper[self.z].copy()
        lp = self.prog.lp
        self.phi = lp.cols("phi") if "phi" in lp.var_blocks else np.empty(0, np.int64)
        self.phi_upper = lp.col_upper[self.phi].copy()
        self.engine = Engine(self.prog.lp, self.families, options, keep_master=True)

    def _bound(self, mask: NDArray[np.bool_], model: HighsModel | None) -> None:
        """Make the program the node's over the arcs ``mask``: its families price over them, and the arcs
        outside it are fixed at 0 with the triples and flows over them (the rows would force those to 0 anyway;
        as bounds, the simplex never pivots on them: 48 s instead of 60 s on the sentence of the module
        docstring), the others freed; in the program, and in HiGHS once the ``model`` exists."""
        lp = self.prog.lp
        self.prog.arc_mask = mask.copy()

        def upper(cols: NDArray[np.int64], values: NDArray[np.float64]) -> None:
            if model is None:
                lp.col_upper[cols] = values
            else:
                model.set_col_upper(cols, values)

        upper(self.z, np.where(mask[self.arcs], self.upper, 0.0))
        g, p, c = self.prog.triples()
        upper(lp.cols("zgp") if g.size else g, np.where(mask[g, p] & mask[p, c], np.inf, 0.0))
        if self.phi.size:
            index = lp.var_blocks["phi"].index
            upper(self.phi, np.where(mask[index[:, -2], index[:, -1]], self.phi_upper, 0.0))

    @staticmethod
    def supports(parts: Sequence[Parts]) -> bool:
        """Whether a live master can run these families (the grandparent family alone)."""
        return len(parts) == 1 and isinstance(parts[0], GrandparentParts)

    def solve(
        self, mask: NDArray[np.bool_], time_limit: float | None, basis: LabelledBasis | None = None
    ) -> PPCResult | None:
        """The LP of the node whose arcs are ``mask`` (a subset of the root's), certified on the node's full
        LP, its first solve from ``basis`` (its parent's, by label) if given, else from the master's last;
        None when the node has no tree without pruned parts to start from (solve it on its own program).
        The result's program is the live one: read what it needs before the next call."""
        start = time.perf_counter()
        engine = self.engine
        s = np.where(mask, self.s, -np.inf)
        try:
            tree = clean_tree(s, self.single_root, chu_liu_edmonds(s, single_root=self.single_root), self.families)
        except NoTreeError:
            tree = None
        model = engine.live
        if model is None:  # the first node: the engine builds the master from its program, as solve_lp does
            self._bound(mask, None)
            for family in self.families:
                family.tree = tree  # None: every candidate part enters
        else:
            if tree is None:
                return None
            assert isinstance(model, HighsModel)
            self._bound(mask, model)
            for family in self.families:
                assert isinstance(family, GrandparentFamily)
                family.include(tree, model)
            if basis is not None:
                model.start_from(basis)
        engine.start = start
        engine.options = replace(self.options, time_limit=time_limit)
        return _result(self.prog, self.families, engine.run(), "ppc", start)
