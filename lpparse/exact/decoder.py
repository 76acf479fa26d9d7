"""The ``ppc``, ``bf``, ``auto`` and ``exact`` decoders of :mod:`lpparse.decoding`: the grandparent LP solved
by parse-price-cut, by brute force or by the cheaper of the two for the sentence's length
(:func:`lpparse.ppc.solve_second_order`; Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column
and Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, §4 and §6), and exact decoding with a proof
(:func:`lpparse.exact.second_order.parse_exact`). All four add the arbitrary-sibling parts (Martins, Smith & Xing 2009,
"Concise Integer Linear Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009) of a model that has
them (the ``sibling_scorer`` option). For ``ppc``, ``bf`` and ``auto`` an integral LP optimum is the
ILP-optimal tree; a fractional one is mapped to the maximum arborescence under its arc values
(:func:`project_to_tree`), which then climbs along the head changes the LP point weighs while its score rises
(option ``climb``, default on: :func:`lpparse.exact.heuristics.improve_along_lp`; statistics
``rounded_objective`` and ``climb_moves``; Danish dev over pruned arcs, ``auto``: UAS (without punctuation)
88.27 against 88.00 with the grandparent + sibling model, 88.08 against 87.91 with the full model, for 2% more
CPU time), and the statistics keep the LP bound (``lp_objective``) so that the gap to the tree shows. Should
that tree hold a part scored -inf (a pruned part), they decode exactly instead (statistic
``rounded_to_pruned_part``): no decoder returns a tree of score -inf. Every decoder's statistics count the
parts scored of each family and its candidates (``triples_scored``/``triples_total``, and with siblings
``sibs_scored``/``sibs_total``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen import ColgenOptions
from lpparse.decoder import DecodeResult, DecoderFunc, register_decoder
from lpparse.exact.heuristics import improve_along_lp
from lpparse.exact.kbest import k_best_search
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.base import Parts, count_candidates, tree_score
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import THIRD_ORDER_BF_BELOW
from lpparse.lp.solution import Status
from lpparse.ppc.loop import (
    BF_BELOW_PARTS,
    PPCResult,
    _split_options,
    project_to_tree,
    second_order_parts,
    solve_lp,
)
from lpparse.proofs.kbest import kbest_record
from lpparse.proofs.record import proof_record
from lpparse.trees import NoTreeError, allowed_arcs, validate_scores
from lpparse.triples import SiblingScorer, TripleScorer

__all__ = ["auto_decode", "bf_decode", "exact_decode", "ppc_decode"]


def _families(
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str],
    sibling_scorer: SiblingScorer | None,
    parts: Sequence[Parts],
    options: dict[str, Any],
) -> tuple[ColgenOptions, list[Parts]]:
    """The engine's options and every family (:func:`lpparse.ppc.loop.second_order_parts`: the grandparent
    family of ``triple_scorer``, the sibling family of ``sibling_scorer``, option ``sibling_preset``, and the
    families ``parts``), the other ``options`` going to the families."""
    engine, family = _split_options(None, options)
    sibling_preset = family.pop("sibling_preset", "martins")
    return engine, second_order_parts(triple_scorer, preset, sibling_scorer, sibling_preset, parts, **family)


def _part_stats(
    parts: Sequence[Parts], arc_mask: NDArray[np.bool_], single_root: bool, scored: dict[str, int]
) -> dict[str, Any]:
    """Parts scored and candidates per family: ``triples_*`` (grandparents), ``sibs_*`` (arbitrary
    siblings), ``<name>_*`` for the others, and those prefixes in order (``families_counted``)."""
    prefix = {GrandparentParts.name: "triples", SiblingParts.name: "sibs"}
    stats: dict[str, Any] = {"families_counted": [prefix.get(p.name, p.name) for p in parts]}
    for part in parts:
        key = prefix.get(part.name, part.name)
        stats[f"{key}_scored"] = scored.get(part.name, 0)
        stats[f"{key}_total"] = count_candidates(part, arc_mask, single_root)
    return stats


def _decoded(
    arc_scores: NDArray[np.float64], parts: Sequence[Parts], result: PPCResult, single_root: bool, climb: bool
) -> DecodeResult:
    if result.status is Status.INFEASIBLE:  # the LP relaxes the trees: none is left
        raise NoTreeError("the LP has no point: no tree avoids the pruned parts (scored -inf)")
    if not result.certified:
        raise RuntimeError(
            f"second-order LP not solved to certified optimality: status {result.status.value}"
        )
    heads = project_to_tree(result, single_root)
    before = sum(p.scorer.scored for p in parts)
    objective = result.objective if result.integral else tree_score(arc_scores, parts, heads)
    stats = result.stats.as_dict()
    scored = {name: c.scored for name, c in result.counts.items()}
    stats.update(
        lp_objective=result.objective,
        certified=True,
        purged=result.info.get("purged", 0),
        **_part_stats(parts, result.program.arc_mask, single_root, scored),
    )
    if climb and not result.integral and np.isfinite(objective):
        found = {name: getattr(f, "cache", None) for name, f in result.families.items()}
        caches = {p.name: found[p.name] for p in parts if found.get(p.name) is not None}
        if len(caches) < len(parts):  # a family without a score cache: its scorer scores
            caches = None
        z = np.where(result.program.arc_mask, result.arc_values(), 0.0)
        heads, moves = improve_along_lp(arc_scores, parts, caches, heads, z, single_root)
        stats.update(rounded_objective=objective, climb_moves=moves)
        objective = tree_score(arc_scores, parts, heads, caches)
    stats["projection_scored"] = sum(p.scorer.scored for p in parts) - before
    return DecodeResult(heads, objective, stats)


def _lp_decoder(method: str) -> DecoderFunc:
    """A decoder running :func:`lpparse.ppc.solve_lp` with ``method``; options: ``preset``, ``base``,
    ``sibling_scorer``, ``sibling_preset``, ``parts`` (more part families), ``climb`` (a fractional LP's
    rounded tree climbs along the LP point: module docstring), the fields of
    :class:`lpparse.colgen.ColgenOptions` and the options of :class:`lpparse.families.grandparent.family.GrandparentParts`."""

    def run(
        arc_scores: NDArray[np.float64],
        triple_scorer: TripleScorer | None,
        single_root: bool,
        preset: str = "all",
        base: str = "single-flow",
        sibling_scorer: SiblingScorer | None = None,
        parts: Sequence[Parts] = (),
        climb: bool = True,
        **options: Any,
    ) -> DecodeResult:
        s = validate_scores(arc_scores)
        opts, families = _families(triple_scorer, preset, sibling_scorer, parts, options)
        result = solve_lp(s, families, method, single_root, base, opts)
        decoded = _decoded(s, families, result, single_root, climb)
        if np.isfinite(decoded.objective):
            return decoded
        # the rounded tree holds a pruned part (-inf): exact decoding's tree avoids every pruned part
        exact = exact_search(s, families, single_root, opts.time_limit, ExactOptions(base=base, ppc=opts))
        if exact.heads is None or not np.isfinite(exact.objective):
            raise NoTreeError(
                "the LP optimum rounds to a tree with a pruned part, and exact decoding found none"
            )
        decoded.heads, decoded.objective = exact.heads, exact.objective
        decoded.stats.update(rounded_to_pruned_part=True, exact_certified=exact.certified)
        return decoded

    return run


ppc_decode = _lp_decoder("ppc")
bf_decode = _lp_decoder("bf")
auto_decode = _lp_decoder("auto")


def exact_decode(  # long: a registered decoder's signature: its options are parse's command line
    arc_scores: NDArray[np.float64],
    triple_scorer: TripleScorer | None,
    single_root: bool,
    preset: str = "all",
    time_limit: float | None = None,
    sibling_scorer: SiblingScorer | None = None,
    parts: Sequence[Parts] = (),
    k_best: int | None = None,
    proof: bool = False,
    branching: str = ExactOptions.branching,
    base: str = ExactOptions.base,
    **ppc_options: Any,
) -> DecodeResult:
    """The best tree under the arcs and every part family with a proof (:func:`exact_search`; grandparent
    triples of ``triple_scorer``, sibling parts of ``sibling_scorer`` and the families ``parts``);
    ``ppc_options`` go to every node's parse-price-cut. Under ``time_limit`` the best tree found comes back
    with ``certified`` False and the proved bound; with no tree at all, RuntimeError. ``k_best``: also the K
    best trees, proved (:func:`lpparse.exact.kbest.k_best_search`), as ``stats["kbest"]``: (heads, score)
    pairs, best first (and ``kbest_subproblems``, ``kbest_solved``, ``kbest_closed``,
    ``kbest_enumerated``, ``kbest_bounded``, ``kbest_by_scores``, ``kbest_paired``: the partition's
    subproblems, those searched, those closed unsolved by an ancestor's bound, those proved by enumerating
    their trees, those whose best tree an ancestor's bound proves, and of the last two kinds those bounded by
    their scores alone and those by an ancestor's duals and their scores together); a limit
    that stops the search
    before K trees (while trees remain) leaves it uncertified.
    ``branching``: the search's rule and ``base`` the node LPs' arborescence program
    (:class:`lpparse.exact.search.ExactOptions`). ``proof``: the search's proof as a JSON record in
    ``stats["proof"]`` (:func:`lpparse.proofs.record.proof_record`; with ``k_best``, the K trees' and their
    partition's, :func:`lpparse.proofs.kbest.kbest_record`)."""
    s = validate_scores(arc_scores)
    engine, families = _families(triple_scorer, preset, sibling_scorer, parts, ppc_options)
    options = ExactOptions(ppc=engine, branching=branching, base=base)
    kbest = None
    if k_best is not None:
        kbest = k_best_search(s, families, k_best, single_root, time_limit, options)
        if kbest.subproblems[0].result is None:
            raise RuntimeError(f"exact decoding found no tree: status {kbest.status.value}")
        result = kbest.subproblems[0].result
        if kbest.status is not Status.OPTIMAL:
            result = replace(result, status=kbest.status)
    else:
        result = exact_search(s, families, single_root, time_limit, options)
    if result.heads is None:
        raise RuntimeError(f"exact decoding found no tree: status {result.status.value}")
    stats = result.stats.as_dict()
    stats.update(
        status=result.status.value,
        certified=result.certified,
        bound=result.bound,
        lp_objective=result.stats.root_bound,
        integral=result.stats.root_integral,
        **_part_stats(families, allowed_arcs(s), single_root, result.stats.scored),
    )
    if result.status is not Status.OPTIMAL:
        stats["gap"] = result.gap
    if kbest is not None:  # the partition: subproblems made, searched, and closed by their parent's bound
        stats["kbest"] = kbest.trees
        stats.update(
            kbest_subproblems=len(kbest.subproblems),
            kbest_solved=kbest.solved,
            kbest_closed=kbest.closed,
            kbest_enumerated=kbest.enumerated,
            kbest_bounded=kbest.bounded,
            kbest_by_scores=kbest.by_scores,
            kbest_paired=kbest.paired,
        )
    if proof:
        stats["proof"] = proof_record(result, families) if kbest is None else kbest_record(kbest, families)
    return DecodeResult(result.heads, result.objective, stats)


register_decoder(
    "ppc",
    ppc_decode,
    2,
    "grandparent (and sibling) LP by parse-price-cut (options preset=all|martins|onegp, sibling_preset)",
    siblings=True,
    families=True,
)
register_decoder(
    "auto",
    auto_decode,
    2,
    f"grandparent (and sibling) LP by brute force below {BF_BELOW_PARTS} candidate parts (with third-order parts "
    f"below {THIRD_ORDER_BF_BELOW:,}), else by parse-price-cut (options as ppc and bf; stats method says which ran)",
    siblings=True,
    families=True,
)
register_decoder(
    "exact",
    exact_decode,
    2,
    "best non-projective second-order tree with a proof: parse-price-cut, then branch and bound "
    "(options preset, time_limit, sibling_preset)",
    siblings=True,
    families=True,
)
register_decoder(
    "bf",
    bf_decode,
    2,
    "grandparent (and sibling) LP with every part scored (options preset=all|martins|onegp, sibling_preset)",
    siblings=True,
    families=True,
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
        line += (
            f"; rounded there, largest gap between LP bound and tree {max(gaps):.4g} (use --decoder exact)"
        )
    return line + _parts_scored(lp)


def _parts_scored(results: Sequence[DecodeResult]) -> str:
    """The summary's clause on the parts of each family that the run scored, summed over its sentences
    ("; scored a of b candidate triples (x%) and c of d sibling parts (y%)"; sibling parts when every
    sentence has them)."""
    counts = []
    names = {
        "triples": "candidate triples",
        "sibs": "sibling parts",
        "consecutive": "consecutive-sibling parts",
    }
    for key in results[0].stats.get("families_counted", ()):
        name = names.get(key, f"{key} parts")
        if all(f"{key}_total" in r.stats for r in results):
            scored = sum(r.stats[f"{key}_scored"] for r in results)
            total = sum(r.stats[f"{key}_total"] for r in results)
            counts.append(f"{scored} of {total} {name} ({100 * scored / max(total, 1):.1f}%)")
    return f"; scored {' and '.join(counts)}" if counts else ""
