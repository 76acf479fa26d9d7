"""Branch-and-bound nodes as bound changes on their parent's restricted master, handed down the tree.

Branch-and-price as SCIP and GCG run it (Gamrath & Lübbecke 2010, "Experiments with a Generic Dantzig-Wolfe
Decomposition for Integer Programs", SEA 2010) turns a restricted master into a node's LP by changing bounds.
Here a node of :mod:`lpparse.exact.search` is a set of arcs; its LP is its parent's program with the arc columns
the node drops fixed at 0 (their upper bound, in the program and in HiGHS), which forces every part and flow
over them to 0 through the rows that link them. Nothing is rebuilt: the columns and rows its ancestors priced
and separated stay (every row is valid for every tree, every column is a candidate part of the ancestor), and
HiGHS goes on from the parent's final basis, which bound changes leave dual feasible, with the dual simplex.

**Whose master.** A node solved on a program of its own (the root) hands its restricted master over as it
stands (:meth:`LiveMaster.adopt`: program, families, HiGHS model; the node's record keeps a copy of its
program). The last of its children to be solved takes that master over; each other child solves on a copy
(:meth:`LiveMaster.fork`: program and families copied, score caches shared, the HiGHS model with its basis
copied inside HiGHS). A node thus starts from its parent's columns and final basis only. A single master
shared by the whole search did not pay: re-solving a parent's own LP on it took 0 simplex iterations when the
parent was the last node solved, but 560-1,000 on Hungarian dev #152 (49 tokens) once other subtrees had
priced columns in (attractive under the parent's duals, they make its basis dual infeasible); GCG keeps such
columns in a pool outside the master.

Per node, before the engine's loop (:class:`lpparse.colgen.engine.Engine`, run again on its kept master):

* **the node's arcs**: every family prices only parts over them (the program's ``arc_mask`` is the node's,
  and each family restricts itself), and the columns of parts over dropped arcs are fixed at 0, so the
  certificate is the one of the node's full LP, the ancestor's with the dropped arcs at 0;
* **a feasible start**: the parts of the node's first-order best tree without pruned parts
  (:func:`lpparse.families.base.clean_tree`) enter if absent, so the restricted LP holds that tree whatever
  columns its ancestors left (a node without such a tree is solved on a program of its own, and adopted).

Any family that can do these three things supports this (:class:`lpparse.colgen.family.NodeFamily`:
``restrict``, ``include``, ``node_columns``; its ``Parts`` says ``live``, :meth:`LiveMaster.supports`):
lpparse's grandparent, sibling, consecutive-sibling, tri-sibling and grand-sibling families, on any base:
under ``cycle-cuts`` the NoCycle rows its ancestors separated stay in the master (each valid for every
tree). Node proofs are unchanged: duals by row label, which the checker reads against the full program with
the node's bounds, every column of a part that is no candidate over the node's arcs at 0
(:mod:`lpparse.proofs.check`). A family without ``live`` makes the search solve each node on a program of its
own.

**Measured** (``benchmarks/exact_ablation.py --option live_master``, the dev sentences whose root LP is
fractional, trained grandparent models, CPU time, the same nodes, against a program per node; every proof
re-checked; ``benchmarks/results/exact_live_master-lazy.md``): Hungarian 1.07x, Danish 0.97x, Italian 1.17x,
English 1.13x, first-solve simplex iterations 4x to 11x fewer (Hungarian 55k against 212k). A node's LP keeps
its ancestors' fixed arcs with their rows, so it is larger (Hungarian #152: 7.4k columns against about 5k)
and its iterations cost more: on #152 it is even (16.4 s against 16.3 s). Searches of hundreds of nodes gain
most: random N(0,1) scores, reliability branching, with ArcGP rows entering with their columns, 1.7x in
all on four n = 28 instances (0.98x to 3.5x each) and 1.27x on three of n = 30, against
``exact-gaussian-28-30-pseudocost.md``'s program per node; with them held back every instance of n = 28 and
30 is certified, 3x to 22x sooner than HiGHS's MIP (``exact-gaussian-28-30-fork.md``), and four of five of
n = 40 within 120 s (``exact-gaussian-40-fork.md``). So :class:`lpparse.exact.search.ExactOptions` turns it on.
(Before ArcGP rows were held back: Hungarian 1.08x, Danish 0.91x, ``exact_live_master-fork.md``. One master
for the whole search: ``exact_live_master.md``, Hungarian 0.88x; on the root's own master,
``exact_live_master-adopt.md``, 1.02x.) The Danish full model (consecutive siblings, tri- and grand-siblings,
over arcs pruned as trained), the 31 sentences of every third dev sentence that branch: 7.9 s on live masters
against 10.8 s with a program per node, the same 171 nodes (``arc`` branching).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen import ColgenOptions, PartFamily
from lpparse.colgen.engine import Closer, Engine
from lpparse.colgen.family import NodeFamily
from lpparse.families.base import Parts, clean_tree
from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.formulations.arborescence import CycleCutFamily
from lpparse.lp.highs_view import HighsModel
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc.loop import PPCResult, _result
from lpparse.trees import NoTreeError

__all__ = ["LiveMaster"]


class LiveMaster:
    """The master of a node and of its descendants (module docstring): :meth:`solve` turns it into the LP of
    a node's arcs by bound changes. Made from a node's own restricted master (:meth:`adopt`), then handed down:
    a node's last child to be solved takes it over, the others solve on a copy (:meth:`fork`)."""

    def __init__(
        self,
        arc_scores: NDArray[np.float64],
        single_root: bool,
        options: ColgenOptions,
        prog: GrandparentProgram,
        families: list[PartFamily],
        model: HighsModel,
    ) -> None:
        self.own = [f for f in families if not isinstance(f, CycleCutFamily)]
        if not self.own or not all(isinstance(f, NodeFamily) for f in self.own):
            raise ValueError(
                "a live master takes part families that restrict themselves to a node's arcs only "
                "(lpparse.colgen.family.NodeFamily: restrict, include, node_columns)"
            )
        self.s, self.single_root, self.options = arc_scores, single_root, options
        self.prog, self.families = prog, families
        self.arcs = np.nonzero(prog.arc_mask)
        self.z = prog.z_col[self.arcs]
        lp = prog.lp
        #: the bounds of the arcs and flows at the start (a node's bounds are these or 0)
        self.upper = lp.col_upper[self.z].copy()
        self.phi = lp.cols("phi") if "phi" in lp.var_blocks else np.empty(0, np.int64)
        self.phi_upper = lp.col_upper[self.phi].copy()
        self.engine = Engine(lp, families, options, keep_master=True)
        self.engine.live = model

    @classmethod
    def adopt(
        cls,
        node: PPCResult,
        model: HighsModel,
        arc_scores: NDArray[np.float64],
        single_root: bool,
        options: ColgenOptions,
    ) -> LiveMaster:
        """The master that goes on from a node's own restricted master (``node``'s program and families,
        ``model`` its HiGHS model; ``arc_scores`` the search's): nothing is rebuilt, and the node's final basis
        is exactly the basis its children start from. ``node`` keeps a copy of its program."""
        live = cls(arc_scores, single_root, options, node.program, list(node.families.values()), model)
        cls.snapshot(node)
        return live

    @staticmethod
    def snapshot(result: PPCResult) -> None:
        """Give ``result`` (of :meth:`solve` or :meth:`adopt`) a copy of its program as it stands, which later
        nodes leave unchanged."""
        result.program = copy.deepcopy(result.program)
        result.solution = replace(result.solution, lp=result.program.lp)

    def fork(self) -> LiveMaster:
        """A copy of this master for another child of its node: the program and families copied (the score
        caches, scorers and bounds shared), and the HiGHS model copied inside HiGHS with its basis
        (:meth:`lpparse.lp.highs_view.HighsModel.copy`), which is the node's final one as long as no child
        solved on this master yet."""
        fork = copy.copy(self)  # the arc scores and the start's bounds shared
        fork.prog, fork.families = copy.deepcopy((self.prog, self.families), {id(self.s): self.s})
        fork.own = [f for f in fork.families if not isinstance(f, CycleCutFamily)]
        fork.engine = Engine(fork.prog.lp, fork.families, self.options, keep_master=True)
        model = self.engine.live
        assert isinstance(model, HighsModel)
        fork.engine.live = model.copy(fork.prog.lp)
        return fork

    @staticmethod
    def supports(parts: Sequence[Parts]) -> bool:
        """Whether a live master can run these families (each ``Parts`` says ``live``: it binds to a
        :class:`lpparse.colgen.family.NodeFamily`)."""
        return bool(parts) and all(getattr(p, "live", False) for p in parts)

    def _bound(self, mask: NDArray[np.bool_], model: HighsModel) -> None:
        """Make the program the node's over the arcs ``mask``: its families price over them, and the arcs
        outside it are fixed at 0 with the parts and flows over them (the rows would force those to 0 anyway;
        as bounds, the simplex never pivots on them: 48 s instead of 60 s on the sentence of the module
        docstring), the others freed; in the program and in HiGHS. A part column's upper bound is infinite
        (its rows bound it)."""
        lp = self.prog.lp
        self.prog.arc_mask = mask.copy()
        cols, upper = [self.z], [np.where(mask[self.arcs], self.upper, 0.0)]
        for family in self.own:
            family.restrict(mask)
            columns, allowed = family.node_columns(mask)
            cols.append(columns)
            upper.append(np.where(allowed, np.inf, 0.0))
        if self.phi.size:
            index = lp.var_blocks["phi"].index
            cols.append(self.phi)
            upper.append(np.where(mask[index[:, -2], index[:, -1]], self.phi_upper, 0.0))
        at, bound = np.concatenate(cols), np.concatenate(upper)
        changed = lp.col_upper[at] != bound  # HiGHS hears of these only
        model.set_col_upper(at[changed], bound[changed])

    def solve(
        self,
        mask: NDArray[np.bool_],
        time_limit: float | None,
        cutoff: float | None = None,
        closer: Closer | None = None,
    ) -> PPCResult | None:
        """The LP of the node whose arcs are ``mask`` (a subset of the root's), certified on the node's full
        LP (or its bound, once at most ``cutoff``: :class:`lpparse.colgen.ColgenOptions`, or ``closer``'s,
        :attr:`lpparse.colgen.engine.Engine.closer`), its first solve from the master's last basis;
        None when the node has no tree without pruned parts to start from (solve it on its own program).
        The result's program is the live one: read what it needs before the next call, or keep a
        :meth:`snapshot`."""
        start = time.perf_counter()
        engine = self.engine
        s = np.where(mask, self.s, -np.inf)
        try:
            tree = clean_tree(
                s, self.single_root, chu_liu_edmonds(s, single_root=self.single_root), self.families
            )
        except NoTreeError:
            tree = None
        if tree is None:
            return None
        model = engine.live
        assert isinstance(model, HighsModel)
        self._bound(mask, model)
        for family in self.own:
            family.include(tree, model)
        engine.start, engine.closer = start, closer
        engine.options = replace(self.options, time_limit=time_limit, cutoff=cutoff)
        return _result(self.prog, self.families, engine.run(), "ppc", start)
