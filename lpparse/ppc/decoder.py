"""The ``ppc``, ``bf``, ``auto`` and ``exact`` decoders of :mod:`lpparse.decoding`: the grandparent LP
solved by parse-price-cut, by brute force or by the cheaper of the two for the sentence's length
(:func:`lpparse.ppc.solve_second_order`; Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed
Column and Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, §4 and §6), and exact decoding with a
proof (:func:`lpparse.ppc.exact.parse_exact`). All four add the arbitrary-sibling parts (Martins, Smith &
Xing 2009, "Concise Integer Linear Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009) of a
model that has them (the ``sibling_scorer`` option). For ``ppc``, ``bf`` and ``auto`` an integral LP optimum
is the ILP-optimal tree; a fractional one is mapped to the maximum arborescence under its arc values
(:func:`project_to_tree`), and the statistics keep the LP bound (``lp_objective``) so that the gap to the
rounded tree shows. Should that tree hold a part scored -inf (a pruned part), they decode exactly instead
(statistic ``rounded_to_pruned_part``): no decoder returns a tree of score -inf. Every decoder's statistics count the parts scored of each family and its candidates
(``triples_scored``/``triples_total``, and with siblings ``sibs_scored``/``sibs_total``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.decoder import DecodeResult, DecoderFunc, register_decoder
from lpparse.colgen import ColgenOptions
from lpparse.lp.solution import Status
from lpparse.ppc.exact import ExactOptions, parse_exact
from lpparse.ppc.loop import BF_BELOW_PARTS, PPCResult, project_to_tree, solve_second_order, tree_objective
from lpparse.trees import NoTreeError, allowed_arcs, validate_scores
from lpparse.triples import SiblingScorer, TripleScorer, sibling_mask, tree_siblings, triple_mask

__all__ = ["auto_decode", "bf_decode", "exact_decode", "ppc_decode"]


def _decoded(
    arc_scores: NDArray[np.float64],
    scorer: TripleScorer,
    result: PPCResult,
    single_root: bool,
    sibling_scorer: SiblingScorer | None = None,
) -> DecodeResult:
    if result.status is Status.INFEASIBLE:  # the LP relaxes the trees: none is left
        raise NoTreeError("the LP has no point: no tree avoids the pruned parts (scored -inf)")
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
    stats.update(
        lp_objective=result.objective,
        certified=True,
        triples_scored=stats["gps_scored"],
        triples_total=stats["gps_total"],
    )
    stats["projection_scored"] = scorer.scored - before
    if sibling_scorer is not None:
        stats.update(sibs_total=result.info["sibs_total"], sibs_scored=result.info["sibs_scored"])
    return DecodeResult(heads, objective, stats)


def _lp_decoder(method: str) -> DecoderFunc:
    """A decoder running :func:`solve_second_order` with ``method``; options: ``preset``, ``base``,
    ``sibling_scorer`` and the fields of :class:`ColgenOptions` (BF uses ``certificate_tol``, ``time_limit``
    and ``sibling_preset`` of them)."""

    def run(
        arc_scores: NDArray[np.float64],
        triple_scorer: TripleScorer | None,
        single_root: bool,
        preset: str = "all",
        base: str = "single-flow",
        sibling_scorer: SiblingScorer | None = None,
        **options: Any,
    ) -> DecodeResult:
        assert triple_scorer is not None
        s = validate_scores(arc_scores)
        opts = ColgenOptions(**options)
        result = solve_second_order(s, triple_scorer, preset, single_root, base, opts, sibling_scorer, method)
        decoded = _decoded(s, triple_scorer, result, single_root, sibling_scorer)
        if np.isfinite(decoded.objective):
            return decoded
        # the rounded tree holds a pruned part (-inf): exact decoding's tree avoids every pruned part
        exact = parse_exact(s, triple_scorer, preset, single_root, opts.time_limit, ExactOptions(ppc=opts), sibling_scorer)
        if exact.heads is None or not np.isfinite(exact.objective):
            raise NoTreeError("the LP optimum rounds to a tree with a pruned part, and exact decoding found none")
        decoded.heads, decoded.objective = exact.heads, exact.objective
        decoded.stats.update(rounded_to_pruned_part=True, exact_certified=exact.certified)
        return decoded

    return run


ppc_decode = _lp_decoder("ppc")
bf_decode = _lp_decoder("bf")
auto_decode = _lp_decoder("auto")


def exact_decode(
    arc_scores: NDArray[np.float64],
    triple_scorer: TripleScorer | None,
    single_root: bool,
    preset: str = "all",
    time_limit: float | None = None,
    sibling_scorer: SiblingScorer | None = None,
    sibling_preset: str = "martins",
    **ppc_options: Any,
) -> DecodeResult:
    """The best second-order tree with a proof (:func:`parse_exact`; with the sibling parts of
    ``sibling_scorer`` when given); ``ppc_options`` go to every node's parse-price-cut. Under ``time_limit``
    the best tree found comes back with ``certified`` False and the proved bound; with no tree at all,
    RuntimeError."""
    assert triple_scorer is not None
    s = validate_scores(arc_scores)
    options = ExactOptions(ppc=ColgenOptions(**ppc_options, sibling_preset=sibling_preset))
    result = parse_exact(s, triple_scorer, preset, single_root, time_limit, options, sibling_scorer)
    if result.heads is None:
        raise RuntimeError(f"exact decoding found no tree: status {result.status.value}")
    stats = result.stats.as_dict()
    arc = allowed_arcs(s)
    stats.update(
        status=result.status.value,
        certified=result.certified,
        bound=result.bound,
        lp_objective=result.stats.root_bound,
        integral=result.stats.root_integral,
        triples_scored=result.stats.gps_scored,
        triples_total=int(triple_mask(arc).sum()),
    )
    if sibling_scorer is not None:
        stats["sibs_total"] = int(sibling_mask(arc, single_root).sum())
    if result.status is not Status.OPTIMAL:
        stats["gap"] = result.gap
    return DecodeResult(result.heads, result.objective, stats)

register_decoder(
    "ppc",
    ppc_decode,
    2,
    "grandparent (and sibling) LP by parse-price-cut (options preset=all|martins|onegp, sibling_preset)",
    siblings=True,
)
register_decoder(
    "auto",
    auto_decode,
    2,
    f"grandparent (and sibling) LP by brute force below {BF_BELOW_PARTS} candidate parts, else by parse-price-cut "
    "(options as ppc and bf; stats method says which ran)",
    siblings=True,
)
register_decoder(
    "exact",
    exact_decode,
    2,
    "best non-projective second-order tree with a proof: parse-price-cut, then branch and bound "
    "(options preset, time_limit, sibling_preset)",
    siblings=True,
)
register_decoder(
    "bf",
    bf_decode,
    2,
    "grandparent (and sibling) LP with every part scored (options preset=all|martins|onegp, sibling_preset)",
    siblings=True,
)


def lp_summary(results: Sequence[DecodeResult]) -> str | None:
    """One line on the LP side of a run of ``ppc``, ``bf`` or ``exact``: how many sentences had a fractional
    LP optimum, the largest gap between the LP bound and the returned tree, for ``exact`` how many are
    certified optimal and what the branching cost, and how many parts of each family were scored (None for
    other decoders)."""
    lp = [r for r in results if "lp_objective" in r.stats]
    if not lp:
        return None
    fractional = [r for r in lp if not r.stats["integral"]]
    line = f"LP optimum fractional on {len(fractional)} of {len(lp)} sentences"
    if "bound" in lp[0].stats:  # exact
        certified = sum(bool(r.stats["certified"]) for r in lp)
        branch = sum(r.stats["time_branch"] + r.stats["time_heuristics"] for r in fractional)
        nodes = sum(r.stats["nodes"] - 1 for r in fractional)
        line += (
            f", closed by branch and bound ({nodes} nodes, {branch:.1f} s); "
            f"{certified} of {len(lp)} certified optimal"
        )
    elif fractional:
        gaps = [r.stats["lp_objective"] - r.objective for r in fractional]
        line += f"; rounded there, largest gap between LP bound and tree {max(gaps):.4g} (use --decoder exact)"
    return line + _parts_scored(lp)


def _parts_scored(results: Sequence[DecodeResult]) -> str:
    """The summary's clause on the parts of each family that the run scored, summed over its sentences
    ("; scored a of b candidate triples (x%) and c of d sibling parts (y%)"; sibling parts when every
    sentence has them)."""
    counts = []
    for key, name in (("triples", "candidate triples"), ("sibs", "sibling parts")):
        if all(f"{key}_total" in r.stats for r in results):
            scored = sum(r.stats[f"{key}_scored"] for r in results)
            total = sum(r.stats[f"{key}_total"] for r in results)
            counts.append(f"{scored} of {total} {name} ({100 * scored / max(total, 1):.1f}%)")
    return f"; scored {' and '.join(counts)}" if counts else ""
