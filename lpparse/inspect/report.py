"""What an inspection found, as a JSON record (one line per sentence, read by the page,
:mod:`lpparse.inspect.page`) and a short terminal table.

One record: ``sent_id``, ``tokens`` (the n words, no root), ``n``, ``single_root``; ``best_tree`` (heads with
-1 at the root, score, whether exact decoding proved it, its nodes and seconds); ``relaxations``, each with
its ``name``, row ``families`` by part family, ``base``, certified LP ``bound``, ``integral``, ``gap`` to the
best tree, ``seconds``, ``columns``, ``rows``, its ``arcs`` [h, m, value] above 1e-9 and ``fractional_arcs``,
its ``parts`` and ``fractional_parts`` by family ([indices..., value]), its ``binding`` rows by block (count,
and at most :data:`BINDING_ROWS` rows, largest |dual| first: label and dual), a ``cut`` (:class:`lpparse.
inspect.cuts.Cut`) and the MIP runs ``mip`` (highspy) and ``pyomo_mip`` (:class:`lpparse.inspect.mip.MipRun`);
``order_checks`` (claim, holds, left, right) and ``disagreements`` (sentences, each a bug somewhere).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from lpparse.inspect.cuts import Cut
from lpparse.inspect.mip import MipRun
from lpparse.table import markdown_table

__all__ = ["BINDING_ROWS", "BestTree", "Inspection", "OrderCheck", "RelaxationReport"]

#: binding rows listed per block (the count covers them all)
BINDING_ROWS = 50


@dataclass
class BestTree:
    """The best tree by exact decoding (:func:`lpparse.exact.exact_search`): ``certified`` when proved."""

    heads: list[int]
    score: float
    certified: bool
    nodes: int
    seconds: float
    status: str = "optimal"


@dataclass
class RelaxationReport:
    """One relaxation's LP at the sentence (module docstring for the fields)."""

    name: str
    families: dict[str, list[str]]
    base: str
    bound: float
    certified: bool
    integral: bool
    gap: float
    seconds: float
    columns: int
    rows: int
    arcs: list[list[float]]
    fractional_arcs: list[list[float]]
    parts: dict[str, list[list[float]]]
    fractional_parts: dict[str, list[list[float]]]
    binding: dict[str, dict[str, Any]]
    cut: Cut | None = None
    mip: MipRun | None = None
    pyomo_mip: MipRun | None = None
    cut_note: str = ""

    def as_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("cut", "mip", "pyomo_mip")}
        out["cut"] = self.cut.as_json() if self.cut is not None else None
        out["mip"] = self.mip.as_json() if self.mip is not None else None
        out["pyomo_mip"] = self.pyomo_mip.as_json() if self.pyomo_mip is not None else None
        return out


@dataclass
class OrderCheck:
    """A claim on two bounds (``left <= right``, ``left == right``; ``best tree <= NAME``) and whether it
    holds within tolerance."""

    claim: str
    holds: bool
    left: float
    right: float


@dataclass
class Inspection:
    """One sentence's inspection (module docstring)."""

    sent_id: str
    tokens: list[str]
    n: int
    single_root: bool
    best_tree: BestTree
    relaxations: list[RelaxationReport]
    order_checks: list[OrderCheck] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No disagreement and every order check holds."""
        return not self.disagreements and all(c.holds for c in self.order_checks)

    def as_json(self) -> dict[str, Any]:
        return {
            "sent_id": self.sent_id,
            "tokens": self.tokens,
            "n": self.n,
            "single_root": self.single_root,
            "best_tree": dict(self.best_tree.__dict__),
            "relaxations": [r.as_json() for r in self.relaxations],
            "order_checks": [dict(c.__dict__) for c in self.order_checks],
            "disagreements": self.disagreements,
        }

    def to_json(self) -> str:
        """One JSON line (NaN and infinities as null)."""
        return json.dumps(_finite(self.as_json()), allow_nan=False)

    def table(self) -> str:
        """A short terminal report: the best tree, one row per relaxation, failed checks and disagreements."""
        tree = self.best_tree
        proved = f"proved, {tree.nodes} nodes" if tree.certified else f"NOT proved: {tree.status}"
        head = f"sentence {self.sent_id or '-'} ({self.n} tokens): best tree {tree.score:.4f} ({proved}, {tree.seconds:.2f} s)"
        rows = [_row(r) for r in self.relaxations]
        headers = [
            "relaxation",
            "bound",
            "gap",
            "integral",
            "frac. arcs",
            "cut: block, violation -> bound",
            "MIP highspy",
            "MIP pyomo",
            "LP s",
            "cols x rows",
        ]
        lines = [head, markdown_table(headers, rows)]
        failed = [c for c in self.order_checks if not c.holds]
        lines.append(f"order checks: {len(self.order_checks) - len(failed)}/{len(self.order_checks)} hold")
        lines += [f"  FAILS: {c.claim} ({c.left:.6f} vs {c.right:.6f})" for c in failed]
        lines += [f"  DISAGREEMENT: {d}" for d in self.disagreements]
        return "\n".join(lines)


def _mip_cell(run: MipRun | None) -> str:
    if run is None:
        return "-"
    if run.status == "optimal":
        verdict = {True: "agrees", False: "DISAGREES", None: "?"}[run.agrees]
        return f"{run.objective:.4f} {verdict} ({run.seconds:.1f} s)"
    return f"{run.status} ({run.seconds:.1f} s)"


def _row(r: RelaxationReport) -> list[Any]:
    cut = "-"
    if r.cut is not None:
        after = f"{r.cut.bound_after:.4f}" if r.cut.bound_after is not None else "?"
        cut = f"{r.cut.block} ({r.cut.source}), {r.cut.violation:.3g} -> {after}"
    elif not r.integral:
        cut = f"none found{': ' + r.cut_note if r.cut_note else ''}"
    return [
        r.name,
        r.bound,
        r.gap,
        "yes" if r.integral else "no",
        len(r.fractional_arcs),
        cut,
        _mip_cell(r.mip),
        _mip_cell(r.pyomo_mip),
        round(r.seconds, 2),
        f"{r.columns} x {r.rows}",
    ]


def _finite(value: Any) -> Any:
    """``value`` with every NaN and infinite float as None, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
