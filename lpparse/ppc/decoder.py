"""The ``ppc`` and ``bf`` decoders of :mod:`lpparse.decoding`: the grandparent LP solved by parse-price-cut
or by brute force (Riedel, Smith & McCallum 2012, §4 and §6); ``bf`` adds the sibling parts of a model that
has them. An integral LP optimum is the ILP-optimal tree;
a fractional one is mapped to the maximum arborescence under its arc values (:func:`project_to_tree`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.decoding import DecodeResult, DecoderFunc, register_decoder
from lpparse.ppc.loop import PPCResult, parse_price_cut, project_to_tree, solve_bf, tree_objective
from lpparse.trees import validate_scores
from lpparse.triples import SiblingScorer, TripleScorer, tree_siblings

__all__ = ["bf_decode", "ppc_decode"]


def _decoded(
    arc_scores: NDArray[np.float64],
    scorer: TripleScorer,
    result: PPCResult,
    single_root: bool,
    sibling_scorer: SiblingScorer | None = None,
) -> DecodeResult:
    if not result.certified:
        raise RuntimeError(f"grandparent LP not solved to certified optimality: status {result.status.value}")
    heads = project_to_tree(result, single_root)
    before = scorer.scored
    objective = result.objective
    if not result.integral:
        objective = tree_objective(arc_scores, scorer, heads)
        if sibling_scorer is not None:
            objective += float(sibling_scorer.score(*tree_siblings(heads)).sum())
    stats = result.stats.as_dict()
    stats.update(lp_objective=result.objective, certified=True, triples_scored=stats["gps_scored"])
    stats["projection_scored"] = scorer.scored - before
    if sibling_scorer is not None:
        stats.update(sibs_total=result.info["sibs_total"], sibs_scored=result.info["sibs_scored"])
    return DecodeResult(heads, objective, stats)


def _lp_decoder(solve: Callable[..., PPCResult]) -> DecoderFunc:
    """A decoder running ``solve`` (:func:`parse_price_cut` or :func:`solve_bf`); options: ``preset``, the
    keyword arguments of ``solve`` and, for a solver that takes it, ``sibling_scorer``."""

    def run(
        arc_scores: NDArray[np.float64],
        triple_scorer: TripleScorer | None,
        single_root: bool,
        preset: str = "all",
        **options: Any,
    ) -> DecodeResult:
        assert triple_scorer is not None
        s = validate_scores(arc_scores)
        result = solve(s, triple_scorer, preset, single_root, **options)
        return _decoded(s, triple_scorer, result, single_root, options.get("sibling_scorer"))

    return run


ppc_decode = _lp_decoder(parse_price_cut)
bf_decode = _lp_decoder(solve_bf)

register_decoder("ppc", ppc_decode, 2, "grandparent LP by parse-price-cut (option preset=all|martins|onegp)")
register_decoder(
    "bf",
    bf_decode,
    2,
    "grandparent (and sibling) LP with every part scored (options preset=all|martins|onegp, sibling_preset)",
    siblings=True,
)
