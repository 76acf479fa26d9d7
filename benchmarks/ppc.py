"""Parse, Price and Cut against brute force on treebank dev sets: RSM 2012 (``001_96d0466e746ddc9d.txt``)
Tables 1 and 2, by sentence-length bucket.

Score model per treebank: the trained grandparent model ``MODELS/<treebank>-2.npz`` (``lpparse train``,
``benchmarks/train_treebanks.sh``) when it exists; otherwise noisy-gold arc scores (gold arcs +2, noise
N(0,1)) with a noisy-gold synthetic triple scorer (N(0, 0.5²), gold triples +1, bounds loosened by
Uniform(0, 0.5)). The table says which one each treebank used.

Table 1: PPC (preset ``all``) vs BF (the full ``all`` LP, every triple scored): sentences/s relative to BF
(total time ratio) and the median per-sentence speed-up, GPs scored and added relative to BF, objective
relative to BF, % integral. Table 2: BF on the presets ``martins``, ``onegp``, ``all``: speed relative to
``martins`` and % integral (sentences up to ``--table2-max-n`` tokens). ``--throughput``: PPC over a whole
dev set (sentences/s). Run on one core: ``taskset -c 1 python benchmarks/ppc.py ...``.
Writes ``benchmarks/results/ppc.json`` and ``ppc.md`` (``--out`` changes the stem).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from lpparse.corpus import Sentence, read_treebank
from lpparse.models import Model
from lpparse.ppc import PPCResult, parse_price_cut, solve_bf
from lpparse.scores import noisy_gold_scores
from lpparse.table import markdown_table
from lpparse.triples import DenseTripleScorer

RESULTS = Path(__file__).parent / "results"
BUCKETS = ((1, 9), (10, 19), (20, 29), (30, 39), (40, 999))
MULTI_ROOT = {"da_ddt"}  # CoNLL-X Danish allows several roots; the UD treebanks have one


def noisy_gold_triples(heads: np.ndarray, rng: np.random.Generator) -> DenseTripleScorer:
    """Synthetic grandparent model around the gold tree: N(0, 0.5²), +1 on gold triples, loose bounds."""
    n = heads.shape[0] - 1
    scores = rng.normal(0.0, 0.5, (n + 1,) * 3)
    c = np.flatnonzero(heads > 0)
    scores[heads[heads[c]], heads[c], c] += 1.0
    slack = rng.uniform(0.0, 0.5, (2, n + 1, n + 1))
    return DenseTripleScorer(scores, slack[0], slack[1])


class ScoreModel:
    """Arc scores and a fresh triple scorer per sentence, from a trained model or the synthetic stand-in."""

    def __init__(self, name: str, models: Path) -> None:
        path = models / f"{name}-2.npz"
        self.model = Model.load(path) if path.exists() else None
        self.kind = f"trained ({path.name})" if self.model else "noisy-gold + synthetic GP"

    def __call__(self, sentence: Sentence, seed: int) -> tuple[np.ndarray, Any]:
        if self.model is not None:
            scorer = self.model.scorer(sentence)
            arcs = scorer.arc_scores()
            return arcs, scorer.triples
        rng = np.random.default_rng(seed)
        heads = np.asarray(sentence.heads)
        arcs = noisy_gold_scores(heads, rng=rng, gold_bonus=2.0)
        dense = noisy_gold_triples(heads, rng)
        return arcs, lambda: DenseTripleScorer(dense.scores, dense.slack_gp, dense.slack_pc)


def bucket_of(n: int) -> str:
    for lo, hi in BUCKETS:
        if lo <= n <= hi:
            return f"{lo}-{hi}" if hi < 999 else f"{lo}+"
    raise ValueError(n)


def record(result: PPCResult, seconds: float) -> dict[str, Any]:
    d = result.stats.as_dict()
    d.update(seconds=seconds, certified=result.certified, status=result.status.value)
    return d


def timed(run: Any, *args: Any, **kw: Any) -> tuple[PPCResult, float]:
    start = time.perf_counter()
    result = run(*args, **kw)
    return result, time.perf_counter() - start


def sample(sentences: list[Sentence], per_bucket: int, rng: np.random.Generator) -> list[int]:
    chosen: list[int] = []
    for lo, hi in BUCKETS:
        idx = [i for i, s in enumerate(sentences) if lo <= s.n <= hi]
        chosen += sorted(rng.permutation(idx)[:per_bucket].tolist())
    return chosen


def run_treebank(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    name = path.parent.name
    model = ScoreModel(name, args.models)
    single_root = name not in MULTI_ROOT
    sentences = read_treebank(path)
    out: dict[str, Any] = {
        "treebank": name,
        "score_model": model.kind,
        "single_root": single_root,
        "rows": [],
    }
    for i in sample(sentences, args.per_bucket, np.random.default_rng(0)):
        s = sentences[i]
        arcs, triples = model(s, i)
        row: dict[str, Any] = {"sentence": i, "n": s.n, "bucket": bucket_of(s.n)}
        ppc, t = timed(parse_price_cut, arcs, triples(), "all", single_root)
        row["ppc"] = record(ppc, t)
        bf, t = timed(solve_bf, arcs, triples(), "all", single_root)
        row["bf"] = record(bf, t)
        if s.n <= args.table2_max_n:
            for preset in ("martins", "onegp"):
                other, t = timed(solve_bf, arcs, triples(), preset, single_root)
                row[f"bf_{preset}"] = record(other, t)
        out["rows"].append(row)
        print(
            f"{name} #{i} n={s.n}: PPC {row['ppc']['seconds']:.3f}s BF {row['bf']['seconds']:.3f}s",
            flush=True,
        )
    return out


def throughput(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    name = path.parent.name
    model = ScoreModel(name, args.models)
    sentences = read_treebank(path)
    start = time.perf_counter()
    certified = integral = 0
    for i, s in enumerate(sentences):
        arcs, triples = model(s, i)
        result = parse_price_cut(arcs, triples(), "all", name not in MULTI_ROOT)
        certified += result.certified
        integral += result.integral
    seconds = time.perf_counter() - start
    return {
        "treebank": name,
        "score_model": model.kind,
        "sentences": len(sentences),
        "seconds": seconds,
        "sentences_per_second": len(sentences) / seconds,
        "certified": certified,
        "integral": integral,
    }


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def table1(tb: dict[str, Any]) -> str:
    rows = []
    groups = [
        (b, [r for r in tb["rows"] if r["bucket"] == b])
        for b in dict.fromkeys(r["bucket"] for r in tb["rows"])
    ]
    groups.append(("20+", [r for r in tb["rows"] if r["n"] >= 20]))
    groups.append(("all", tb["rows"]))
    for label, rs in groups:
        if not rs:
            continue
        p = [r["ppc"] for r in rs]
        b = [r["bf"] for r in rs]
        speed = [bb["seconds"] / pp["seconds"] for pp, bb in zip(p, b)]
        rows.append(
            [
                label,
                len(rs),
                f"{sum(x['seconds'] for x in b) / sum(x['seconds'] for x in p):.2f}x",
                f"{np.median(speed):.2f}x",
                pct(sum(x["gps_scored"] for x in p) / sum(x["gps_scored"] for x in b)),
                pct(sum(x["gps_added"] for x in p) / sum(x["gps_added"] for x in b)),
                f"{sum(x['objective'] for x in p) / sum(x['objective'] for x in b):.6f}",
                pct(np.mean([x["integral"] for x in b])),
                pct(np.mean([x["integral"] for x in p])),
                f"{len(rs) / sum(x['seconds'] for x in p):.1f}",
                all(x["certified"] for x in p + b),
            ]
        )
    head = [
        "length",
        "sentences",
        "sent/s rel. BF",
        "median speed-up",
        "GPs scored rel. BF",
        "GPs added rel. BF",
        "objective rel. BF",
        "% integral BF",
        "% integral PPC",
        "PPC sent/s",
        "all certified",
    ]
    return markdown_table(head, rows)


def table2(tb: dict[str, Any]) -> str:
    rs = [r for r in tb["rows"] if "bf_martins" in r]
    if not rs:
        return "(no sentence short enough)"
    keys = {"martins": "bf_martins", "onegp": "bf_onegp", "all": "bf"}
    base = sum(r["bf_martins"]["seconds"] for r in rs)
    rows = []
    for preset, key in keys.items():
        rows.append(
            [
                preset,
                pct(base / sum(r[key]["seconds"] for r in rs)),
                pct(np.mean([r[key]["integral"] for r in rs])),
                f"{np.mean([r[key]['objective'] for r in rs]):.4f}",
            ]
        )
    return f"{len(rs)} sentences\n\n" + markdown_table(
        ["constraints", "sent/s rel. martins", "% integral", "mean LP value"], rows
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--treebanks", type=Path, nargs="*", default=None, help="dev files (default: every dev set)"
    )
    parser.add_argument("--shared", type=Path, default=Path(__file__).parents[2] / "shared" / "treebanks")
    parser.add_argument("--models", type=Path, default=Path(__file__).parents[2] / "models")
    parser.add_argument("--per-bucket", type=int, default=6, help="sentences per length bucket")
    parser.add_argument("--table2-max-n", type=int, default=30)
    parser.add_argument(
        "--throughput", type=Path, nargs="*", default=[], help="dev files to parse whole with PPC"
    )
    parser.add_argument("--out", default="ppc")
    args = parser.parse_args()
    paths = args.treebanks if args.treebanks is not None else sorted(args.shared.glob("*/*dev*.conll*"))
    result: dict[str, Any] = {
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "treebanks": [run_treebank(p, args) for p in paths],
        "throughput": [throughput(p, args) for p in args.throughput],
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.out}.json").write_text(json.dumps(result, indent=1, default=float))
    lines = ["# Parse, Price and Cut vs brute force (RSM 2012 Tables 1-2)", "", __doc__.split("\n\n")[1], ""]
    for tb in result["treebanks"]:
        root = "single-root" if tb["single_root"] else "multi-root"
        lines += [
            f"## {tb['treebank']} ({tb['score_model']}, {root})",
            "",
            "Table 1: PPC vs BF (preset all)",
            "",
        ]
        lines += [table1(tb), "", "Table 2: outer bounds (BF)", "", table2(tb), ""]
    for t in result["throughput"]:
        lines.append(
            f"Throughput {t['treebank']} dev ({t['score_model']}): {t['sentences']} sentences in "
            f"{t['seconds']:.1f} s = {t['sentences_per_second']:.1f} sentences/s; certified {t['certified']}, "
            f"integral {t['integral']}"
        )
    (RESULTS / f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
