"""Exact decoding of second-order models from their scorers: the best tree with a proof, or the K best, over
grandparent triples and/or arbitrary siblings (:func:`lpparse.ppc.second_order_parts` builds the families;
:func:`lpparse.exact.search.exact_search` and :func:`lpparse.exact.kbest.k_best_search` search over them)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from numpy.typing import ArrayLike

from lpparse.exact.kbest import k_best_search
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.base import Parts
from lpparse.ppc.loop import second_order_parts
from lpparse.proofs.check import check_proof
from lpparse.proofs.search_tree import ExactResult
from lpparse.triples import SiblingScorer, TripleScorer

__all__ = ["check_exact", "parse_exact"]


def parse_exact(  # long: solve_second_order's arguments and the search's (limit, options, k best)
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    time_limit: float | None = None,
    options: ExactOptions | None = None,
    sibling_scorer: SiblingScorer | None = None,
    sibling_preset: str | Iterable[str] = "martins",
    k_best: int | None = None,
    parts: Sequence[Parts] = (),
    **grandparent: Any,
) -> ExactResult:
    """The best non-projective second-order tree (grandparent triples under ``preset``, and sibling parts
    under ``sibling_preset`` when ``sibling_scorer`` is given; either scorer may be None, not both), with a
    proof: :func:`exact_search` on :func:`lpparse.ppc.second_order_parts` (``grandparent``: options of
    :class:`lpparse.families.grandparent.family.GrandparentParts`). The preset changes the bound and the search, not the
    answer. ``parts``: more part families, any registered or the caller's own (bound after these).
    ``k_best``: also the K best trees, proved (``result.kbest``, :func:`lpparse.exact.kbest.k_best_search`;
    the result is the best tree's search)."""
    families = second_order_parts(triple_scorer, preset, sibling_scorer, sibling_preset, parts, **grandparent)
    if k_best is None:
        return exact_search(arc_scores, families, single_root, time_limit, options)
    kbest = k_best_search(arc_scores, families, k_best, single_root, time_limit, options)
    root = kbest.subproblems[0].result
    if root is None:
        raise RuntimeError(f"k-best search stopped before the best tree: status {kbest.status.value}")
    root.kbest = kbest
    return root


def check_exact(
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    result: ExactResult,
    sibling_scorer: SiblingScorer | None = None,
    preset: str | Iterable[str] = "all",
    sibling_preset: str | Iterable[str] = "martins",
    parts: Sequence[Parts] = (),
) -> str | None:
    """:func:`check_proof` for grandparent triples and/or arbitrary siblings, under the presets the search
    used (their rows carry the proof's duals), and the more part families ``parts`` the search had."""
    families = second_order_parts(triple_scorer, preset, sibling_scorer, sibling_preset, parts)
    return check_proof(arc_scores, families, result)
