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

The master is the root's own restricted master (:meth:`LiveMaster.adopt`: its program, families and HiGHS
model, the root's record keeping a copy of its program), so the root's final basis is exactly the basis its
children start from: on Hungarian #152 of the dev set (49 tokens) the first child's first solve takes 36
simplex iterations instead of the 1,948 of a master built anew from the root's parts. The arcs the root's
reduced-cost fixing drops are fixed at 0 like any other, with their triples and flows. Each node's first solve starts
from its parent's final basis (placed by label, :mod:`lpparse.lp.basis`), not from the basis of the node
solved last (best-bound order jumps between subtrees; on #152: 60 s against 75 s). Only the grandparent
family supports this (:meth:`LiveMaster.supports`). Node proofs are unchanged: duals by row label, which the
checker reads against the full program with the node's bounds (:mod:`lpparse.ppc.proof`).

**Measured: not faster than a program per node** (``benchmarks/exact_ablation.py --option live_master``,
the dev sentences whose root LP is fractional, trained grandparent models, CPU time, the same nodes). With a
master built anew (``benchmarks/results/exact_live_master.md``): Danish 1.03x, English 0.99x, Hungarian
0.88x, Italian 0.98x. Going on from the root's master (``exact_live_master-adopt.md``): Hungarian 1.02x
(first-solve simplex iterations 250k against 288k), Danish 0.90x (2.35 s against 2.11 s over 10 sentences,
with 5.1k first-solve iterations against 11.7k); the same optima, every proof re-checked; hence :class:`lpparse.ppc.exact.ExactOptions`
keeps it off. Where it loses: restoring a basis. Re-solving a parent's own LP on the master with its own
basis takes 0 simplex iterations when the parent was the last node solved, but 560-1,000 on #152 once other
nodes have priced columns in: under the parent's duals those columns are attractive, so the restored basis is
dual infeasible (the equality rows' nonbasic sides were checked and do not matter). What it would need to
pay: a column pool kept out of the master (GCG's), so that a node starts from its parent's columns only.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen import ColgenOptions, Engine, PartFamily, Warm
from lpparse.formulations.grandparent import GrandparentProgram, arc_program
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
        prog = arc_program(arc_scores, single_root, base)
        tree = chu_liu_edmonds(arc_scores, single_root=single_root)
        families = [p.bind(Binding(prog, arc_scores, tree, options, warm.get(p.name))) for p in parts]
        self._setup(arc_scores, single_root, options, prog, families)

    def _setup(
        self,
        arc_scores: NDArray[np.float64],
        single_root: bool,
        options: ColgenOptions,
        prog: GrandparentProgram,
        families: list[PartFamily],
        model: HighsModel | None = None,
    ) -> None:
        self.s, self.single_root, self.options = arc_scores, single_root, options
        self.prog, self.families = prog, families
        self.arcs = np.nonzero(prog.arc_mask)
        self.z = prog.z_col[self.arcs]
        lp = prog.lp
        self.upper = lp.col_upper[self.z].copy()
        self.phi = lp.cols("phi") if "phi" in lp.var_blocks else np.empty(0, np.int64)
        self.phi_upper = lp.col_upper[self.phi].copy()
        self.engine = Engine(lp, families, options, keep_master=True)
        self.engine.live = model

    @classmethod
    def adopt(
        cls, root: PPCResult, model: HighsModel, arc_scores: NDArray[np.float64], single_root: bool,
        options: ColgenOptions,
    ) -> LiveMaster:
        """The master that goes on from the root's own restricted master (``root``'s program and families,
        ``model`` its HiGHS model, ``arc_scores`` the root's): nothing is rebuilt, and the root's basis stays
        the exact basis of the master its children start from. ``root`` keeps a copy of its program."""
        families = list(root.families.values())
        if len(families) != 1 or not isinstance(families[0], GrandparentFamily):
            raise ValueError("a live master takes the grandparent family only")
        live = cls.__new__(cls)
        live._setup(arc_scores, single_root, options, root.program, families, model)
        root.program = copy.deepcopy(root.program)
        root.solution = replace(root.solution, lp=root.program.lp)
        return live

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
