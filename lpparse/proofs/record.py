"""Proofs of exact decoding as JSON records (``lpparse parse --decoder exact --proof FILE``, one line per
sentence) and back, for :func:`lpparse.exact.search.check_proof` (``lpparse check-proof``).

A record holds what the proof is made of and nothing a checker should trust: the tree and its score, the
tolerance, the root rule and the arborescence program, the row families of each part family (their
``preset``), the candidate arcs when they were pruned, and per node its parent, branching decision
(``modifier`` and the ``kept`` heads), fixed arcs, how it was closed, and its duals or dual ray by row label
(:data:`lpparse.proofs.check.LabelledDuals`). Node arc sets are rebuilt from the decisions, never stored;
certificates and stored bounds are not written. JSON writes floats by ``repr``, so duals and scores read
back bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.families.base import Parts, exact_parts
from lpparse.families.grandparent.rows import BASES, SEPARATED_BASES
from lpparse.lp.solution import Status
from lpparse.proofs.check import LabelledDuals
from lpparse.proofs.search_tree import CLOSED, BranchNode, ExactResult, ExactStats, child_mask
from lpparse.trees import allowed_arcs

__all__ = ["proof_record", "read_proof_record"]

#: version of the record layout
VERSION = 1


def _duals(duals: LabelledDuals | None) -> dict[str, Any] | None:
    if duals is None:
        return None
    return {
        name: {"index": index.tolist(), "values": values.tolist()} for name, (index, values) in duals.items()
    }


def _ints(value: Any, what: str, low: int, high: int) -> NDArray[np.int64]:
    """``value`` (a JSON list, possibly nested, or a number) as an int64 array of entries in [low, high];
    ValueError when an entry is not an integer (a float, a bool, a string), the lists are ragged, or an
    entry is out of range."""
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(f"{what} is not a regular array of integers") from None
    if array.size == 0:
        return np.zeros(array.shape, np.int64)
    if array.dtype.kind != "i":  # JSON floats, bools, strings, nulls and nested lists give other kinds
        raise ValueError(f"{what} holds entries that are not integers")
    if not (array.min() >= low and array.max() <= high):
        raise ValueError(f"{what} holds entries outside {low}..{high}")
    return array.astype(np.int64, copy=False)


def _labelled(data: Any, what: str) -> LabelledDuals | None:
    """Labelled duals from their JSON form; ValueError on any entry that is not a row label of integers with
    one finite value."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError(f"{what} is not a mapping of row blocks")
    out: LabelledDuals = {}
    for name, entry in data.items():
        if not isinstance(entry, dict) or set(entry) != {"index", "values"}:
            raise ValueError(f"{what}: block {name!r} is not an index and its values")
        try:
            values = np.asarray(entry["values"])
        except ValueError:
            raise ValueError(f"{what}: the values of {name!r} are not a list of numbers") from None
        if values.ndim != 1 or (values.size and values.dtype.kind not in "if"):
            raise ValueError(f"{what}: the values of {name!r} are not a list of numbers")
        values = values.astype(np.float64)
        if not np.isfinite(values).all():
            raise ValueError(f"{what}: a value of {name!r} is not finite")
        index = _ints(entry["index"], f"{what}: the labels of {name!r}", -(2**62), 2**62)
        if len(index) != values.size or (values.size and index.ndim != 2):
            raise ValueError(f"{what}: {name!r} has {values.size} values for {len(index)} labels")
        out[name] = (index.reshape(values.size, -1), values)
    return out


def proof_record(
    result: ExactResult, parts: Sequence[Parts], kept_arcs: NDArray[np.bool_] | None = None
) -> dict[str, Any]:
    """The JSON-able proof of ``result`` (an exact search over ``parts``); ``kept_arcs``: the arcs pruning
    kept, when the search ran over pruned arcs."""
    if result.heads is None:
        raise ValueError(f"no tree to prove (status {result.status.value})")
    nodes = [
        {
            "id": node.id,
            "parent": node.parent,
            "modifier": node.modifier,
            "kept": None if node.kept is None else np.flatnonzero(node.kept).tolist(),
            "closed": node.closed,
            "fixed": [[h, m] for h, m, _ in node.fixed],
            "duals": _duals(node.duals),
            "ray": _duals(node.ray),
        }
        for node in result.nodes
    ]
    return {
        "proof_version": VERSION,
        "heads": result.heads.tolist(),
        "objective": result.objective,
        "bound": result.bound,
        "status": result.status.value,
        "gap_tol": result.gap_tol,
        "single_root": result.single_root,
        "base": result.base,
        "families": {
            p.name: list(getattr(p, "preset", ())) for p in exact_parts(parts)
        },  # as the search used them
        "kept_arcs": None if kept_arcs is None else np.argwhere(kept_arcs).tolist(),
        "nodes": nodes,
    }


def read_proof_record(
    record: dict[str, Any],
    arc_scores: NDArray[np.float64],
    single_root: bool | None = None,
    gap_tol: float | None = None,
) -> ExactResult:
    """The :class:`ExactResult` a record describes over the arc scores of its problem, node arc sets rebuilt
    from the root's (every arc of ``arc_scores``) and the branching decisions. With ``single_root`` and
    ``gap_tol`` given (a checker's problem), only the tree, the program's base and the search tree are read:
    the record's root rule, tolerance, objective, bound and status are not, and the result's objective and
    bound are NaN. Raises ValueError on a record that does not hold together (a field missing or of the
    wrong type, an index out of range, a parent after its child, a wrong version)."""
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    if record.get("proof_version") != VERSION:
        raise ValueError(
            f"proof_version {record.get('proof_version')!r}: this lpparse reads version {VERSION}"
        )
    size = arc_scores.shape[0]
    heads = _ints(record["heads"], "heads", -1, size - 1)
    if heads.ndim != 1:
        raise ValueError("heads is not a list of integers")
    base = record["base"]
    if base not in BASES + SEPARATED_BASES:
        raise ValueError(f"unknown base {base!r}; lpparse has {', '.join(BASES + SEPARATED_BASES)}")
    if not isinstance(record["nodes"], list) or not record["nodes"]:
        raise ValueError("no search nodes")
    nodes: list[BranchNode] = []
    for i, data in enumerate(record["nodes"]):
        nodes.append(_node(data, i, nodes, arc_scores))
    for node in nodes:
        if node.parent >= 0:
            parent = nodes[node.parent]
            parent.children = (*parent.children, node.id)
    trusted = single_root is None
    return ExactResult(
        Status(record["status"]) if trusted else Status.OPTIMAL,
        heads,
        float(record["objective"]) if trusted else float("nan"),
        float(record["bound"]) if trusted else float("nan"),
        bool(record["single_root"]) if trusted else bool(single_root),
        float(record["gap_tol"]) if gap_tol is None else float(gap_tol),
        nodes,
        ExactStats(size - 1),
        base=str(base),
    )


def _node(data: Any, i: int, nodes: list[BranchNode], arc_scores: NDArray[np.float64]) -> BranchNode:
    """Node ``i`` of a record, its arcs rebuilt from its parent's (in ``nodes``) and its branching decision."""
    size = arc_scores.shape[0]
    if not isinstance(data, dict):
        raise ValueError(f"node {i} is not a JSON object")
    if data["id"] != i:
        raise ValueError(f"node {i} is recorded as {data['id']}")
    parent = int(_ints(data["parent"], f"node {i}: parent", -1 if i == 0 else 0, i - 1))  # the root: node 0
    kept = None
    if data["kept"] is not None:
        kept = np.zeros(size, bool)
        kept[_ints(data["kept"], f"node {i}: kept", 0, size - 1).reshape(-1)] = True
    modifier = data["modifier"]
    if modifier is not None:
        modifier = int(_ints(modifier, f"node {i}: modifier", 1, size - 1))
    if parent < 0:
        mask = allowed_arcs(arc_scores)
    elif modifier is None or kept is None:
        raise ValueError(f"node {i}: its branching decision is not recorded")
    else:
        mask = child_mask(nodes[parent].base_mask(), modifier, kept)
    if data["closed"] not in CLOSED:
        raise ValueError(f"node {i}: closed as {data['closed']!r}, not one of {', '.join(CLOSED)}")
    node = BranchNode(i, parent, 0 if parent < 0 else nodes[parent].depth + 1, modifier, kept, mask, np.nan)
    node.closed = data["closed"]
    fixed = _ints(data["fixed"], f"node {i}: fixed", 0, size - 1).reshape(-1, 2) if data["fixed"] else []
    node.fixed = [(int(h), int(m), 0.0) for h, m in fixed]
    node.duals, node.ray = (
        _labelled(data["duals"], f"node {i}: duals"),
        _labelled(data["ray"], f"node {i}: ray"),
    )
    return node
