"""Exact second-order decoding (``lpparse.exact.second_order.parse_exact``) on whole dev sets and on random scores.

Treebanks (``--part treebanks``): every sentence of each dev set, scored by the trained grandparent model
(``benchmarks/train_treebanks.sh``; see ``benchmarks/ppc.py`` for where models are looked up), decoded by
``ppc`` (the LP, rounded where fractional and climbed from there), ``exact`` (with its proof re-checked) and
``gp-eisner`` (the projective grandparent DP); reports % of root LPs integral, the time of the exact stage
(branch and bound after the root LP), UAS of the three, and the time of ``exact`` against ``ppc`` on the same
sentences in the same run (features apart). Run on one core: ``taskset -c 1 python benchmarks/exact.py``.

Random scores (``--part gaussian``): N(0,1) arc and triple scores, n = 10, 20, 30, 40, five instances each
(seeded), ``parse_exact`` against HiGHS's MIP solver with its default options on the full brute-force
program (every triple, GPArc + OneGP: the leanest exact formulation), each with ``--limit`` seconds.

Writes ``benchmarks/results/exact.json`` and ``exact.md`` (``--out`` changes the stem).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from ppc import (
    LANGUAGE,
    MULTI_ROOT,
    combine,
    dev_files,
    run_header,
    score_source,
    treebank_parser,
    write_results,
)

from lpparse.corpus import corpus_uas, read_treebank
from lpparse.decoding import decode
from lpparse.exact.search import BRANCHING, ExactOptions
from lpparse.exact.second_order import check_exact, parse_exact
from lpparse.experiments.grandparent_tables import sentence_scores
from lpparse.families.grandparent.rows import grandparent_program
from lpparse.lp.highs_view import HighsModel
from lpparse.table import markdown_table
from lpparse.trees import allowed_arcs
from lpparse.triples import DenseTripleScorer, candidate_triples

SIZES = (10, 20, 30, 40)


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    source = score_source(name, args.models)
    single_root = name not in MULTI_ROOT
    sentences = read_treebank(path)
    heads: dict[str, list[np.ndarray]] = {"ppc": [], "exact": [], "gp-eisner": []}
    records = []
    for i, sentence in enumerate(sentences):
        record: dict[str, Any] = {"n": sentence.n}
        for decoder in heads:
            arcs, triples = sentence_scores(sentence, source, i)
            start = time.perf_counter()
            out = decode(decoder, arcs, triples, single_root)
            record[f"{decoder}_seconds"] = time.perf_counter() - start
            record[f"{decoder}_objective"] = out.objective
            heads[decoder].append(out.heads)
            if decoder == "exact":
                record.update(
                    certified=out.stats["certified"],
                    root_integral=out.stats["integral"],
                    nodes=out.stats["nodes"],
                    stage_seconds=out.stats["time_total"] - out.stats["time_root"],
                    gap_root=out.stats["lp_objective"] - out.objective,
                )
        records.append(record)
        if not record["root_integral"]:
            print(
                f"{name} #{i} n={sentence.n}: root LP fractional, {record['nodes']} nodes, "
                f"exact {record['exact_seconds']:.3f}s (ppc {record['ppc_seconds']:.3f}s), "
                f"ppc's tree {record['exact_objective'] - record['ppc_objective']:.3f} below",
                flush=True,
            )
    fractional = [r for r in records if not r["root_integral"]]
    stage = [r["stage_seconds"] for r in fractional]
    seconds = {d: sum(r[f"{d}_seconds"] for r in records) for d in heads}
    return {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "score_model": source.describe(),
        "sentences": len(records),
        "certified": sum(r["certified"] for r in records),
        "root_integral_pct": 100 * (1 - len(fractional) / len(records)),
        "fractional": len(fractional),
        "stage_median": statistics.median(stage) if stage else 0.0,
        "stage_mean": statistics.fmean(stage) if stage else 0.0,
        "stage_max": max(stage, default=0.0),
        "nodes_max": max((r["nodes"] for r in records), default=0),
        "exact_below_eisner": sum(r["exact_objective"] < r["gp-eisner_objective"] - 1e-7 for r in records),
        "rounded_below_exact": sum(r["ppc_objective"] < r["exact_objective"] - 1e-7 for r in records),
        "rounded_below_eisner": sum(r["ppc_objective"] < r["gp-eisner_objective"] - 1e-7 for r in records),
        "seconds": seconds,
        "exact_throughput_rel_ppc": seconds["ppc"] / seconds["exact"],
        "uas": {d: 100 * corpus_uas(sentences, h).uas_no_punct for d, h in heads.items()},
        "records": records,
    }


def _mip(s: np.ndarray, t: np.ndarray, limit: float) -> dict[str, Any]:
    start = time.perf_counter()
    prog = grandparent_program(s, ("GPArc", "OneGP"), False)
    g, p, c = candidate_triples(allowed_arcs(s))
    prog.add_triples(g, p, c, t[g, p, c])
    sol = HighsModel(prog.lp, mip=True, time_limit=limit).solve()  # HiGHS's defaults: its best MIP settings
    return {
        "status": sol.status.value,
        "objective": sol.objective,
        "seconds": time.perf_counter() - start,
        "nodes": sol.info.get("mip_nodes"),
    }


def run_gaussian(args: Any) -> list[dict[str, Any]]:
    rows = []
    earlier = {}  # MIP runs of an earlier result, by (n, seed): the MIP does not change with lpparse
    for path in args.mip_from or []:
        data = json.loads(Path(path).read_text())
        for row in data.get("gaussian", []):
            mip = row["mip"]  # under the same limit, or solved within this one
            if data.get("limit") == args.limit or mip["status"] == "optimal" and mip["seconds"] <= args.limit:
                earlier[(row["n"], row["seed"])] = mip
    for n in args.sizes:
        for k in range(args.instances):
            rng = np.random.default_rng(1000 * n + k)
            s, t = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
            start = time.perf_counter()
            options = ExactOptions(branching=args.branching, live_master=args.live_master)
            exact = parse_exact(s, DenseTripleScorer(t), "all", False, time_limit=args.limit, options=options)
            seconds = time.perf_counter() - start
            proof = check_exact(s, DenseTripleScorer(t), exact) if exact.certified else "not certified"
            row = {
                "n": n,
                "seed": 1000 * n + k,
                "exact": {
                    "status": exact.status.value,
                    "certified": exact.certified and proof is None,
                    "objective": exact.objective,
                    "bound": exact.bound,
                    "root_integral": exact.stats.root_integral,
                    "nodes": exact.stats.nodes,
                    "seconds": seconds,
                },
                "mip": earlier[(n, 1000 * n + k)] if (n, 1000 * n + k) in earlier else _mip(s, t, args.limit),
            }
            rows.append(row)
            print(f"gaussian n={n} #{k}: exact {row['exact']}, MIP {row['mip']}", flush=True)
    return rows


def _treebank_md(tb: list[dict[str, Any]]) -> str:
    head = (
        "dev set", "sentences", "certified", "% integral root", "fractional", "exact stage s (median / mean / max)",
        "max nodes", "exact rel. ppc throughput", "UAS ppc", "UAS exact", "UAS gp-eisner",
        "ppc < exact", "ppc < gp-eisner", "exact < gp-eisner",
    )
    rows = [
        [
            t["language"], t["sentences"], f"{t['certified']}/{t['sentences']}", t["root_integral_pct"],
            t["fractional"], f"{t['stage_median']:.3f} / {t['stage_mean']:.3f} / {t['stage_max']:.3f}",
            t["nodes_max"], t["exact_throughput_rel_ppc"], t["uas"]["ppc"], t["uas"]["exact"],
            t["uas"]["gp-eisner"], t["rounded_below_exact"], t["rounded_below_eisner"], t["exact_below_eisner"],
        ]
        for t in tb
    ]
    models = "\n".join(f"- {t['language']}: {t['score_model']}" for t in tb)
    return f"{markdown_table(head, rows, digits=2)}\n\nScore models:\n{models}\n"


def _gaussian_md(rows: list[dict[str, Any]], limit: float) -> str:
    head = (
        "n", "seed", "exact status", "exact s", "nodes", "exact tree", "exact bound",
        "MIP status", "MIP s", "MIP nodes", "MIP tree", "same optimum",
    )
    body = []
    for r in rows:
        e, m = r["exact"], r["mip"]
        both = e["certified"] and m["status"] == "optimal"
        same = abs(e["objective"] - m["objective"]) <= 1e-6 * (1 + abs(m["objective"])) if both else "-"
        status = "certified" if e["certified"] else e["status"]
        body.append([
            r["n"], r["seed"], status, e["seconds"], e["nodes"], e["objective"], e["bound"],
            m["status"], m["seconds"], m["nodes"], m["objective"], same,
        ])
    summary = []
    for n in sorted({r["n"] for r in rows}):
        rs = [r for r in rows if r["n"] == n]
        if rs:
            solved = [r for r in rs if r["exact"]["certified"]]
            mip = [r for r in rs if r["mip"]["status"] == "optimal"]
            faster = sum(r not in mip or r["exact"]["seconds"] < r["mip"]["seconds"] for r in solved)
            summary.append([
                n, len(rs), len(solved), len(mip), faster,
                statistics.median(r["exact"]["seconds"] for r in rs),
                statistics.median(r["mip"]["seconds"] for r in rs),
            ])
    table = markdown_table(
        ("n", "instances", "exact certified", "MIP optimal", "exact first", "median exact s", "median MIP s"),
        summary,
        digits=2,
    )
    return (
        f"Each run limited to {limit:g} s. \"exact first\": certified, and sooner than the MIP solver or with the "
        f"MIP solver out of time.\n\n{table}\n\n{markdown_table(head, body, digits=2)}\n"
    )


def markdown(result: dict[str, Any]) -> str:
    commands = "\n".join(f"- `{c}`" for c in result["commands"])
    parts = [f"# Exact second-order decoding\n\nCommands (one core each):\n{commands}\n"]
    if result.get("treebanks"):
        parts.append("## Dev sets, trained grandparent models (whole sets)\n")
        parts.append(_treebank_md(result["treebanks"]))
    if result.get("gaussian"):
        parts.append("## Random N(0,1) scores: parse_exact against HiGHS MIP on the full program\n")
        parts.append(_gaussian_md(result["gaussian"], result["limit"]))
    return "\n".join(parts)


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "exact")
    parser.add_argument("--part", choices=("treebanks", "gaussian", "all"), default="all")
    parser.add_argument("--instances", type=int, default=5, help="random instances per size")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="sentence lengths n")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per random-score run")
    parser.add_argument(
        "--branching", choices=BRANCHING, default="arc", help="the exact search's branching rule (random scores)"
    )
    parser.add_argument(
        "--live-master",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="nodes as bound changes on forked masters (random scores; the default, as parse_exact's)",
    )
    parser.add_argument(
        "--mip-from", type=Path, nargs="+", default=None, metavar="JSON",
        help="take HiGHS's MIP runs from these earlier results (same instances and limit) instead of re-running",
    )
    parser.add_argument(
        "--combine", type=Path, nargs="+", default=None, metavar="JSON",
        help="write --out from the JSON results of parts run separately (no run)",
    )
    args = parser.parse_args()
    if args.combine:
        result = combine(args.combine, ("machine", "python", "limit"), ("gaussian",))
    else:
        result = {**run_header("exact.py"), "limit": args.limit}
        result["commands"] = [result.pop("command")]
        if args.part in ("treebanks", "all"):
            result["treebanks"] = [run_treebank(p, args) for p in dev_files(args)]
        if args.part in ("gaussian", "all"):
            result["gaussian"] = run_gaussian(args)
    write_results(result, args.out, markdown(result))


if __name__ == "__main__":
    main()
