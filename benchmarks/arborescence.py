"""Benchmark: arborescence formulations x views (HiGHS, Pyomo) against Chu-Liu-Edmonds on a treebank.

Per sentence (noisy-gold scores: gold arcs +1, N(0, noise²) on every arc, seeded), times the whole path
(build the program, build the view, solve, certify; cycle cuts: all rounds) of each formulation in each view,
and CLE. Reports by length bucket: ms per sentence, the Pyomo/HiGHS time ratio, the share of fractional LP
optima, and whether every certified optimum of an exact formulation matched CLE. Writes
``benchmarks/results/arborescence.json`` (per-sentence records + summary) and ``.md``.

    python benchmarks/arborescence.py --limit 200
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections import defaultdict
from pathlib import Path

import highspy
import numpy as np
import pyomo

from lpparse.corpus import read_treebank
from lpparse.formulations.arborescence import FORMULATIONS, solve_arborescence
from lpparse.io import relative_paths
from lpparse.lp.views import VIEWS
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.scores import noisy_gold_scores
from lpparse.table import markdown_table
from lpparse.trees import tree_score

BUCKETS = [(1, 10), (11, 20), (21, 30), (31, 40), (41, 10**9)]
REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def bucket_name(lo: int, hi: int) -> str:
    return f"{lo}+" if hi >= 10**9 else f"{lo}-{hi}"


def bucket_of(n: int) -> str:
    return next(bucket_name(lo, hi) for lo, hi in BUCKETS if lo <= n <= hi)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--treebank", type=Path, default=REPO.parent / "shared/treebanks/da_ddt/ddt-cdt-dev.conll")
    p.add_argument("--limit", type=int, default=None, help="first LIMIT sentences (default: all)")
    p.add_argument("--seed", type=int, default=0, help="score noise seed (default 0)")
    p.add_argument("--noise", type=float, default=1.0, help="score noise std. dev. (default 1.0)")
    p.add_argument(
        "--single-root", action="store_true", help="single-root trees (default multi-root, as CoNLL-X DDT)"
    )
    p.add_argument("--ilp", action="store_true", help="time the ILPs instead of the LP relaxations")
    p.add_argument("--formulations", nargs="+", choices=sorted(FORMULATIONS), default=sorted(FORMULATIONS))
    p.add_argument("--views", nargs="+", choices=VIEWS, default=list(VIEWS))
    p.add_argument(
        "--max-length",
        type=int,
        nargs=2,
        action="append",
        metavar=("FORMULATION_VIEW", "N"),
        default=None,
        help="skip FORMULATION_VIEW (e.g. multi-flow/pyomo) on sentences longer than N; repeatable",
    )
    p.add_argument("--out", type=Path, default=RESULTS / "arborescence", help="output stem (.json and .md)")
    return p.parse_args()


DEFAULT_MAX_LENGTH = {"multi-flow/pyomo": 30, "multi-flow/highs": 40}


def main() -> None:
    args = parse_args()
    max_length = dict(DEFAULT_MAX_LENGTH)
    for key, n in args.max_length or []:
        max_length[key] = int(n)
    sentences = read_treebank(args.treebank, on_error="skip", limit=args.limit)
    rng = np.random.default_rng(args.seed)
    records = []
    started = time.perf_counter()
    for number, sentence in enumerate(sentences):
        scores = noisy_gold_scores(sentence.heads, noise=args.noise, rng=rng)
        t0 = time.perf_counter()
        heads = chu_liu_edmonds(scores, single_root=args.single_root)
        record = {"sentence": number, "n": sentence.n, "cle_ms": 1000 * (time.perf_counter() - t0)}
        best = tree_score(scores, heads)
        record["cle_value"] = best
        for formulation in args.formulations:
            for view in args.views:
                key = f"{formulation}/{view}"
                if sentence.n > max_length.get(key, 10**9):
                    continue
                t0 = time.perf_counter()
                sol = solve_arborescence(
                    scores, formulation, mip=args.ilp, single_root=args.single_root, view=view
                )
                wall = time.perf_counter() - t0
                record[key] = {
                    "ms": 1000 * wall,
                    "solve_ms": 1000 * sol.time,
                    "certified": sol.certified,
                    "integral": sol.integral,
                    "value": sol.objective,
                    "matches_cle": bool(
                        sol.certified and abs(sol.objective - best) <= 1e-6 * (1 + abs(best))
                    ),
                    "rounds": sol.info.get("rounds"),
                }
        records.append(record)
        if (number + 1) % 25 == 0:
            print(
                f"{number + 1}/{len(sentences)} sentences, {time.perf_counter() - started:.0f} s", flush=True
            )
    summary = summarize(records, args)
    meta = {
        "treebank": str(args.treebank),
        "sentences": len(sentences),
        "scores": f"noisy gold: gold arcs +1, N(0, {args.noise}^2) noise, seed {args.seed}",
        "problem": ("ILP" if args.ilp else "LP") + (", single-root" if args.single_root else ", multi-root"),
        "max_length": max_length,
        "machine": f"{platform.processor() or platform.machine()}, python {platform.python_version()}, "
        f"highspy {highspy.HIGHS_VERSION_MAJOR}.{highspy.HIGHS_VERSION_MINOR}, pyomo {pyomo.version.version}",
        "timing": "wall clock per sentence: build program + view + solve (+ cut rounds) + certificate check",
        "total_seconds": time.perf_counter() - started,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"meta": meta, "summary": summary, "records": records}, separators=(",", ":"))
    args.out.with_suffix(".json").write_text(relative_paths(text, REPO))
    args.out.with_suffix(".md").write_text(relative_paths(render(meta, summary, args), REPO))
    print(render(meta, summary, args))


def summarize(records: list[dict], args: argparse.Namespace) -> dict:
    keys = [f"{f}/{v}" for f in args.formulations for v in args.views]
    out: dict[str, dict] = {}
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        groups[bucket_of(r["n"])].append(r)
        groups["all"].append(r)
    for bucket in [bucket_name(lo, hi) for lo, hi in BUCKETS] + ["all"]:
        rs = groups.get(bucket, [])
        if not rs:
            continue
        row: dict[str, object] = {"sentences": len(rs), "cle_ms": float(np.mean([r["cle_ms"] for r in rs]))}
        for key in keys:
            done = [r[key] for r in rs if key in r]
            if not done:
                continue
            row[key] = {
                "sentences": len(done),
                "ms": float(np.mean([d["ms"] for d in done])),
                "solve_ms": float(np.mean([d["solve_ms"] for d in done])),
                "certified": sum(d["certified"] for d in done),
                "fractional": sum(d["certified"] and not d["integral"] for d in done),
                "matches_cle": sum(d["matches_cle"] for d in done),
            }
        for formulation in args.formulations:
            h, p = f"{formulation}/highs", f"{formulation}/pyomo"
            both = [r for r in rs if h in r and p in r]
            if both:
                row[f"{formulation}/pyomo:highs"] = float(
                    np.mean([r[p]["ms"] for r in both]) / np.mean([r[h]["ms"] for r in both])
                )
        out[bucket] = row
    return out


def render(meta: dict, summary: dict, args: argparse.Namespace) -> str:
    lines = [
        "# Arborescence formulations: HiGHS view vs Pyomo view vs Chu-Liu-Edmonds",
        "",
        f"- treebank: `{meta['treebank']}`, {meta['sentences']} sentences; {meta['problem']}",
        f"- scores: {meta['scores']}",
        f"- machine: {meta['machine']}; total run {meta['total_seconds']:.0f} s",
        f"- {meta['timing']}; skipped: "
        + ", ".join(f"{k} above n={v}" for k, v in meta["max_length"].items()),
        "",
        "## Mean ms per sentence (wall) by length bucket",
        "",
    ]
    keys = [f"{f}/{v}" for f in args.formulations for v in args.views]
    headers = ["bucket", "sents", "CLE ms", *keys]
    rows = [
        [b, s["sentences"], s["cle_ms"], *[s[k]["ms"] if k in s else float("nan") for k in keys]]
        for b, s in summary.items()
    ]
    lines += [markdown_table(headers, rows, digits=2), "", "## Pyomo view / HiGHS view time ratio", ""]
    headers = ["bucket", *args.formulations]
    rows = [
        [b, *[s.get(f"{f}/pyomo:highs", float("nan")) for f in args.formulations]] for b, s in summary.items()
    ]
    lines += [
        markdown_table(headers, rows, digits=1),
        "",
        "## Fractional optima / certified / = CLE (HiGHS view)",
        "",
    ]
    view = "highs" if "highs" in args.views else args.views[0]
    headers = ["bucket", *args.formulations]
    rows = [
        [
            b,
            *[
                f"{s[k]['fractional']}/{s[k]['certified']}/{s[k]['matches_cle']} of {s[k]['sentences']}"
                if (k := f"{f}/{view}") in s
                else "-"
                for f in args.formulations
            ],
        ]
        for b, s in summary.items()
    ]
    lines += [markdown_table(headers, rows), ""]
    lines += ["Cells read `fractional/certified/value = CLE of sentences run`.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
