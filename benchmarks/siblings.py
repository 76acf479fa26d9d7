"""Grandparent + arbitrary-sibling parse-price-cut on treebank dev sets, with trained models.

Three measurements, each written to ``benchmarks/results/<out>.{json,md}`` (default ``siblings``):

* **PPC vs BF** by sentence-length bucket (``--per-bucket`` random sentences each, BF up to ``--bf-max-n``
  tokens): the grandparent (``all``) + sibling (``martins``) LP solved by parse-price-cut and by brute force
  (every part scored and instantiated), with speed, parts scored and added relative to BF, objectives equal,
  certificates, and % integral. Model: ``<models>/<treebank>-2s.npz`` (``benchmarks/train_treebanks.sh``).
* **Dev UAS** (no punctuation) of the first-order (``-1``: Chu-Liu-Edmonds), grandparent (``-2``: PPC) and
  grandparent + sibling (``-2s``: PPC with both families; and loopy BP, as trained) models on the same dev
  sentences (the first ``--uas-limit`` of at most ``--uas-max-n`` tokens); a fractional LP optimum is rounded
  to a tree (:func:`lpparse.ppc.project_to_tree`). The ``-2`` and ``-2s`` models are also decoded exactly
  (``exact``: branch and bound over the LP, at most ``--exact-time-limit`` seconds per sentence) over the arcs
  that the first-order model's posteriors keep (:class:`lpparse.pruning.ArcPruning`'s defaults, as in
  ``benchmarks/pruning.py``), with the number of trees certified optimal for the pruned problem.
* **Throughput** over a whole dev set (``--throughput``), one core, in tokens per second with feature
  extraction (the pruner's too), for the grandparent and the grandparent + sibling model under the decoders
  of :data:`THROUGHPUT_RUNS` (``auto``, unpruned, pruned and pruned tighter (:data:`TIGHT`); ``exact`` over
  pruned arcs), with the seconds HiGHS took, the trees proved optimal, the gold arcs the pruning kept and the
  UAS.

Run on one core, a treebank per part (``--treebanks <dev file> --out <part>``), then merge the parts:
``python benchmarks/siblings.py --combine <part>.json ...``.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from ppc import LANGUAGE, MULTI_ROOT, combine, dev_files, run_header, sample, treebank_parser, write_results
from pruning import certified_tree, decode_all

from lpparse.corpus import Sentence, corpus_uas, read_treebank
from lpparse.experiments.grandparent_tables import BUCKETS
from lpparse.oracles import chu_liu_edmonds
from lpparse.parsing import decode_sentence, default_decoder_options
from lpparse.ppc import FamilyCounts, PPCResult, parse_price_cut
from lpparse.ppc.loop import project_to_tree, solve_bf
from lpparse.pruning import ArcPruning, pruning_mask
from lpparse.scoring.model import Model
from lpparse.table import markdown_table

SECOND_ORDER = ("grandparent", "grandparent + sibling")
UAS = (
    "first-order",
    "grandparent",
    "grandparent exact (pruned)",
    "grandparent + sibling",
    "grandparent + sibling (bp)",
    "grandparent + sibling exact (pruned)",
)
CERTIFIED = tuple(f"{kind} exact certified" for kind in SECOND_ORDER)
TABLE = (
    "sentences",
    "count",
    "BF count",
    "speed rel. BF",
    "median speed-up",
    "PPC sent/s",
    "sibs scored rel. BF",
    "sibs added rel. BF",
    "GPs scored rel. BF",
    "GPs added rel. BF",
    "objective = BF",
    "certified",
    "% integral PPC",
)


def _model(models: Path, name: str, suffix: str) -> Model | None:
    path = models / f"{name}-{suffix}.npz"
    return Model.load(path) if path.exists() else None


def _record(result: PPCResult, seconds: float) -> dict[str, Any]:
    gp, sib = (result.counts.get(name, FamilyCounts()) for name in ("grandparent", "sibling"))
    return {
        "seconds": seconds,
        "objective": result.objective,
        "certified": result.certified,
        "integral": result.integral,
        "gps_total": gp.candidates,
        "gps_scored": gp.scored,
        "gps_added": gp.added,
        "sibs_total": sib.candidates,
        "sibs_scored": sib.scored,
        "sibs_added": sib.added,
        "iterations": result.stats.iterations,
    }


def solve_both(sentence: Sentence, model: Model, single_root: bool, bf: bool) -> dict[str, Any]:
    """PPC (and, if ``bf``, BF) on one sentence's grandparent + sibling LP."""
    scorer = model.scorer(sentence)
    arcs = scorer.arc_scores()
    start = time.perf_counter()
    ppc = parse_price_cut(arcs, scorer.triples(), "all", single_root, sibling_scorer=scorer.siblings())
    out = {"n": sentence.n, "ppc": _record(ppc, time.perf_counter() - start)}
    if bf:
        start = time.perf_counter()
        full = solve_bf(arcs, scorer.triples(), "all", single_root, sibling_scorer=scorer.siblings())
        out["bf"] = _record(full, time.perf_counter() - start)
    return out


def _row(label: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    with_bf = [r for r in records if "bf" in r]
    same = sum(
        abs(r["bf"]["objective"] - r["ppc"]["objective"]) <= 1e-6 * (1 + abs(r["bf"]["objective"]))
        for r in with_bf
    )
    speed = [r["bf"]["seconds"] / r["ppc"]["seconds"] for r in with_bf]
    ppc_seconds = sum(r["ppc"]["seconds"] for r in records)

    def rel(kind: str, what: str) -> str:
        total = sum(r["ppc"][f"{kind}_total"] for r in records)
        return f"{100 * sum(r['ppc'][f'{kind}_{what}'] for r in records) / total:.1f}%" if total else "-"

    return {
        "sentences": label,
        "count": len(records),
        "BF count": len(with_bf),
        "speed rel. BF": (
            f"{sum(r['bf']['seconds'] for r in with_bf) / sum(r['ppc']['seconds'] for r in with_bf):.2f}x"
            if with_bf else "-"
        ),
        "median speed-up": f"{statistics.median(speed):.2f}x" if speed else "-",
        "PPC sent/s": f"{len(records) / ppc_seconds:.2f}" if ppc_seconds else "-",
        "sibs scored rel. BF": rel("sibs", "scored"),
        "sibs added rel. BF": rel("sibs", "added"),
        "GPs scored rel. BF": rel("gps", "scored"),
        "GPs added rel. BF": rel("gps", "added"),
        "objective = BF": f"{same}/{len(with_bf)}",
        "certified": f"{sum(r['ppc']['certified'] for r in records)}/{len(records)}",
        "% integral PPC": f"{100 * float(np.mean([r['ppc']['integral'] for r in records])):.1f}",
    }


def table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows: all sentences, then each length bucket."""
    rows = [_row("all", records)]
    for lo, hi in BUCKETS:
        chosen = [r for r in records if lo <= r["n"] <= hi]
        if chosen:
            rows.append(_row(f"{lo}-{hi}" if hi < 10_000 else f"{lo}+", chosen))
    return rows


def uas(
    sentences: list[Sentence], models: dict[str, Model | None], single_root: bool, exact_time_limit: float
) -> dict[str, Any]:
    """Dev UAS (no punctuation) of each available model on ``sentences``; the grandparent + sibling model
    also with the ``bp`` decoder as it was trained (:func:`lpparse.parsing.default_decoder_options`); the
    second-order models also by ``exact`` over the arcs the first-order model keeps, with the number of trees
    certified."""
    out: dict[str, Any] = {"sentences": len(sentences), "tokens": sum(s.n for s in sentences)}
    first = models["first-order"]
    for kind, model in models.items():
        if model is None:
            continue
        heads = []
        for s in sentences:
            scorer = model.scorer(s)
            arcs = scorer.arc_scores()
            if kind == "first-order":
                heads.append(chu_liu_edmonds(arcs, single_root=single_root))
            else:
                sib = scorer.siblings() if kind == "grandparent + sibling" else None
                result = parse_price_cut(arcs, scorer.triples(), "all", single_root, sibling_scorer=sib)
                heads.append(project_to_tree(result, single_root))
        out[kind] = corpus_uas(sentences, heads).uas_no_punct
        if kind == "grandparent + sibling":
            options = default_decoder_options(model, "bp")
            bp = [decode_sentence(model, s, "bp", **options).heads for s in sentences]
            out[f"{kind} (bp)"] = corpus_uas(sentences, bp).uas_no_punct
        if kind in SECOND_ORDER and first is not None:
            options = {"pruning": ArcPruning(), "pruner": first, "time_limit": exact_time_limit}
            exact, seconds = decode_all(sentences, model, "exact", options)
            out[f"{kind} exact (pruned)"] = corpus_uas(sentences, [r.heads for r in exact]).uas_no_punct
            out[f"{kind} exact certified"] = sum(map(certified_tree, exact))
            out[f"{kind} exact seconds"] = round(seconds, 1)
    return out


#: A tighter first-order pruner than TurboParser's (:class:`~lpparse.pruning.ArcPruning`'s defaults, posterior
#: 1e-4 and 10 heads): posterior 0.005. Dev gold arcs kept, against the defaults: Danish 98.95% (99.48%),
#: English 99.02% (99.55%), Hungarian 98.60% (99.10%), Italian 99.40% (99.80%); candidate arcs per token,
#: Danish 3.19 (7.25), Hungarian 5.00 (9.35). Grandparent + sibling ``auto`` UAS on the Danish dev set rose
#: with it: 88.89 -> 88.99.
TIGHT = ArcPruning(threshold=0.005)
#: Throughput runs: (model suffix, decoder, first-order pruning or None)
THROUGHPUT_RUNS: tuple[tuple[str, str, ArcPruning | None], ...] = (
    ("2", "auto", None),
    ("2", "auto", ArcPruning()),
    ("2", "auto", TIGHT),
    ("2", "exact", ArcPruning()),
    ("2s", "auto", None),
    ("2s", "auto", ArcPruning()),
    ("2s", "auto", TIGHT),
    ("2s", "exact", ArcPruning()),
)


def _pruned(pruning: ArcPruning | None) -> str:
    """How a throughput row's arcs were pruned, for its decoder column."""
    if pruning is None:
        return ""
    if pruning == ArcPruning():
        return ", first-order pruner"
    return f", first-order pruner (posterior {pruning.threshold:g}, {pruning.max_heads} heads)"


def _gold_kept(sentences: list[Sentence], pruner: Model, pruning: ArcPruning | None) -> str:
    """The share of gold arcs that ``pruning`` keeps, in percent ("-" without pruning)."""
    if pruning is None:
        return "-"
    kept = 0
    for s in sentences:
        mask = pruning_mask(pruner.scorer(s).arc_scores(), pruning, pruner.single_root)
        m = np.arange(1, s.n + 1)
        kept += int(mask[s.heads[m], m].sum())
    return f"{100 * kept / sum(s.n for s in sentences):.2f}"


def throughput(path: Path, models: Path, exact_time_limit: float) -> list[dict[str, Any]]:
    """Tokens per second over a whole dev set, features included (the pruner's too), for the ``-2`` and
    ``-2s`` models under :data:`THROUGHPUT_RUNS`, with HiGHS's share of the time (``time_solving`` of the
    LP decoders) and the trees proved optimal (an integral LP optimum, or exact decoding's proof within
    ``exact_time_limit`` seconds per sentence)."""
    name = path.parent.name
    sentences = read_treebank(path)
    tokens = sum(s.n for s in sentences)
    pruner = _model(models, name, "1")
    rows = []
    for suffix, decoder, pruning in THROUGHPUT_RUNS:
        model = _model(models, name, suffix)
        if model is None or (pruning is not None and pruner is None):
            continue
        options: dict[str, Any] = {"pruning": pruning, "pruner": pruner} if pruning is not None else {}
        if decoder == "exact":
            options["time_limit"] = exact_time_limit
        results, seconds = decode_all(sentences, model, decoder, options)
        # the LP decoders report HiGHS's time; exact decoding does not
        solving = [r.stats["time_solving"] for r in results if "time_solving" in r.stats]
        rows.append({
            "treebank": name,
            "model": f"{name}-{suffix}",
            "parts": "grandparent + sibling" if suffix == "2s" else "grandparent",
            "decoder": decoder + _pruned(pruning),
            "gold arcs kept": _gold_kept(sentences, pruner, pruning) if pruner is not None else "-",
            "sentences": len(sentences),
            "tokens": tokens,
            "seconds": round(seconds, 1),
            "tokens/s": round(tokens / seconds),
            "HiGHS seconds": round(sum(solving), 1) if len(solving) == len(results) else "-",
            "optimal trees": f"{sum(certified_tree(r) for r in results)}/{len(sentences)}",
            "UAS": round(100 * corpus_uas(sentences, [r.heads for r in results]).uas_no_punct, 2),
        })
        print(f"{name} throughput {rows[-1]}", flush=True)
    return rows


def run_treebank(path: Path, args: Any) -> dict[str, Any] | None:
    name = path.parent.name
    single_root = name not in MULTI_ROOT
    model = _model(args.models, name, args.sibling_model)
    if model is None:
        print(f"{name}: no {name}-{args.sibling_model}.npz in {args.models}, skipped", flush=True)
        return None
    sentences = read_treebank(path)
    records = []
    for i in sample(sentences, args.per_bucket, args.ppc_max_n, np.random.default_rng(0)):
        s = sentences[i]
        records.append(solve_both(s, model, single_root, s.n <= args.bf_max_n))
        r = records[-1]
        bf = f" BF {r['bf']['seconds']:.2f}s" if "bf" in r else ""
        print(f"{name} #{i} n={s.n}: PPC {r['ppc']['seconds']:.2f}s{bf}", flush=True)
    return {"treebank": name, "language": LANGUAGE.get(name, name), "single_root": single_root,
            "model": f"{name}-{args.sibling_model}.npz", "per_bucket": args.per_bucket, "ppc_max_n": args.ppc_max_n, "bf_max_n": args.bf_max_n,
            "table": table(records), "records": records}


def run_uas(path: Path, args: Any) -> dict[str, Any]:
    """The dev UAS of the treebank's ``-1``, ``-2`` and ``-2s`` models (those that exist)."""
    name = path.parent.name
    chosen = [s for s in read_treebank(path) if s.n <= args.uas_max_n][: args.uas_limit]
    kinds = {"first-order": "1", "grandparent": "2", "grandparent + sibling": "2s"}
    models = {k: _model(args.models, name, v) for k, v in kinds.items()}
    scores = uas(chosen, models, name not in MULTI_ROOT, args.exact_time_limit)
    print(f"{name} UAS: {scores}", flush=True)
    return {"treebank": name, **scores}


def _uas_cells(u: dict[str, Any]) -> list[Any]:
    """A UAS table row: percentages, and certified trees out of the sentences."""
    return [
        u["treebank"],
        u["sentences"],
        *(f"{100 * u[k]:.2f}" if k in u else "-" for k in UAS),
        *(f"{u[k]}/{u['sentences']}" if k in u else "-" for k in CERTIFIED),
    ]


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Grandparent + sibling parse-price-cut (arbitrary siblings of Martins, Smith & Xing 2009)",
        "",
        "Commands: " + ", ".join(f"`{c}`" for c in result["commands"]),
        "",
        *([result["note"], ""] if result.get("note") else []),
        (
            "PPC and BF solve the grandparent (`all`) + sibling (`martins`) LP of the treebank's grandparent + "
            "sibling model (`<models>/<treebank>-2s.npz`) on random dev sentences (seed 0) drawn per length "
            "bucket (how many, and up to which length, under each treebank), BF only on the shorter ones (it "
            "instantiates every part: O(n³) columns). Times include scoring parts and building the LPs, not "
            "feature extraction."
        ),
    ]
    for tb in result["treebanks"]:
        sampled = (
            f"{tb['per_bucket']} sentences per bucket of at most {tb['ppc_max_n']} tokens; BF on those of at most "
            f"{tb['bf_max_n']}."
        )
        lines += ["", f"## {tb['treebank']} ({tb['language']}; {'single' if tb['single_root'] else 'multi'}-root)",
                  "", sampled, "", markdown_table(TABLE, [[row[k] for k in TABLE] for row in tb["table"]])]
    if result.get("uas"):
        limit = f"the first {result['uas_limit']}" if result.get("uas_limit") else "all"
        lines += [
            "",
            "## Dev UAS (no punctuation)",
            "",
            (
                f"On each dev set, {limit} sentences of at most {result['uas_max_n']} tokens. First-order "
                "(`-1`): Chu-Liu-Edmonds; grandparent (`-2`) and grandparent + sibling (`-2s`): PPC, a fractional "
                "optimum rounded to a tree; (bp): loopy BP's minimum-Bayes-risk tree, as the model was trained "
                "(Gormley, Dredze & Eisner 2015); exact (pruned): the `exact` decoder (branch and bound over the "
                "same LP) over the arcs kept by the first-order model's posteriors (TurboParser's rule: "
                "posterior >= 1e-4, at most 10 heads per word, the best first-order tree kept; as in "
                f"`benchmarks/pruning.py`), at most {result['exact_time_limit']:g} s per sentence; certified: "
                "its trees proved optimal for the pruned problem."
            ),
            "",
            markdown_table(("treebank", "dev sentences", *UAS, *CERTIFIED), [_uas_cells(u) for u in result["uas"]]),
        ]
    if result.get("throughput"):
        keys = (
            "model", "decoder", "sentences", "tokens", "seconds", "tokens/s", "HiGHS seconds", "optimal trees",
            "gold arcs kept", "UAS",
        )
        lines += ["", "## Throughput (one core, whole dev set, feature extraction included)", "",
                  "`auto`: BF below 4,000 candidate second-order parts, else PPC (a fractional LP optimum rounded "
                  "to a tree); first-order pruner: the arcs that the `-1` model's posteriors keep (TurboParser's "
                  "rule, posterior >= 1e-4 and at most 10 heads, unless the row says otherwise); HiGHS seconds: "
                  "the simplex solves alone; optimal trees: an integral LP optimum, or exact decoding's proof, for "
                  "the problem over the kept arcs; gold arcs kept: % of the dev set's gold arcs the pruning keeps.",
                  "", markdown_table(keys, [[str(row.get(k, "-")) for k in keys] for row in result["throughput"]])]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "siblings")
    parser.add_argument("--per-bucket", type=int, default=5, help="sentences per length bucket (0: no PPC/BF table)")
    parser.add_argument("--bf-max-n", type=int, default=30, help="longest sentence solved by BF")
    parser.add_argument(
        "--sibling-model", default="2s", metavar="SUFFIX",
        help="the PPC vs BF table's model: <models>/<treebank>-SUFFIX.npz (default 2s; 2s-lp: trained with the LP)",
    )
    parser.add_argument("--ppc-max-n", type=int, default=60, help="longest sentence sampled")
    parser.add_argument("--uas-max-n", type=int, default=40, help="longest dev sentence in the UAS table")
    parser.add_argument(
        "--uas-limit", type=int, default=None, help="first UAS_LIMIT such dev sentences (0: no UAS table)"
    )
    parser.add_argument(
        "--exact-time-limit", type=float, default=60.0, help="seconds per sentence for exact decoding (UAS table)"
    )
    parser.add_argument("--throughput", type=Path, nargs="*", default=[], help="dev files to parse whole")
    parser.add_argument(
        "--combine", type=Path, nargs="+", default=None, metavar="JSON",
        help="write --out from the JSON results of parts run separately (no run)",
    )
    parser.add_argument("--note", default="", help="a sentence on the runs' conditions, printed under the commands")
    args = parser.parse_args()
    result: dict[str, Any]
    if args.combine:
        keys = ("machine", "python", "uas_max_n", "uas_limit", "exact_time_limit")
        result = combine(args.combine, keys, per_treebank=("uas", "throughput"))
    else:
        tables = [run_treebank(p, args) for p in dev_files(args)] if args.per_bucket > 0 else []
        treebanks = [t for t in tables if t is not None]
        result = {
            **run_header("siblings.py"),
            "uas_max_n": args.uas_max_n,
            "uas_limit": args.uas_limit,
            "exact_time_limit": args.exact_time_limit,
            "treebanks": treebanks,
            "uas": [run_uas(p, args) for p in dev_files(args)] if args.uas_limit != 0 else [],
            "throughput": [row for p in args.throughput for row in throughput(p, args.models, args.exact_time_limit)],
        }
        result["commands"] = [result.pop("command")]
    if args.note:
        result["note"] = args.note
    write_results(result, args.out, markdown(result))


if __name__ == "__main__":
    main()
