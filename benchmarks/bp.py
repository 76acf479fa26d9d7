"""Time loopy BP on grandparent models against the exact O(n^4) projective grandparent DP and against
parse-price-cut (the exact non-projective grandparent LP, preset ``all``) on the same scores, and measure
BP's error against brute-force marginals on tiny sentences.

Score model (``--model``): arc scores ``noisy_gold_scores`` around a random projective gold tree (gold arcs
+2, noise N(0,1)) plus triple scores N(0, 0.5²) from ``synthetic_triple_scorer`` — a model with a clear but
not certain best tree, as trained models give; or ``random``: arc scores N(0,1), triples N(0,1).
Multi-root, projective (PTREE) and non-projective (TREE) BP; 4 iterations unless said otherwise.

Columns: seconds per sentence per BP iteration (forward; forward+backward of the L2 objective), the DP's
seconds per sentence, PPC's seconds per sentence, agreement of BP-MBR heads with the DP's MAP heads. Writes benchmarks/results/bp.json
and bp.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from lpparse.bp import bp_marginals, brute_force_second_order, l2_distance
from lpparse.bp.decoder import mbr_decode
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.ppc import parse_price_cut
from lpparse.scores import noisy_gold_scores, random_scores
from lpparse.triples import DenseTripleScorer, synthetic_triple_scorer

RESULTS = Path(__file__).parent / "results"


def model(n: int, rng: np.random.Generator, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(arc scores, dense triple scores, gold heads) for one synthetic sentence."""
    if kind == "random":
        gold = np.full(n + 1, -1)
        return random_scores(n, rng), synthetic_triple_scorer(n, rng).scores, gold
    gold = random_projective_tree(n, rng)
    return (
        noisy_gold_scores(gold, rng=rng, gold_bonus=2.0),
        synthetic_triple_scorer(n, rng, scale=0.5).scores,
        gold,
    )


def random_projective_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random projective multi-root tree: each token's head is a random token of its enclosing span."""
    heads = np.full(n + 1, -1)

    def build(lo: int, hi: int, head: int) -> None:
        if lo > hi:
            return
        root = int(rng.integers(lo, hi + 1))
        heads[root] = head
        build(lo, root - 1, root)
        build(root + 1, hi, root)

    build(1, n, 0)
    return heads


def seconds(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def timing(sizes: list[int], sentences: int, iterations: int, kind: str, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        row: dict = {"n": n, "sentences": sentences}
        acc = {"bp_fwd": [], "bp_fwd_bwd": [], "tree_fwd": [], "dp": [], "ppc": [], "agree_ptree": [], "agree_tree": []}
        for _ in range(sentences):
            s, gp, gold = model(n, rng, kind)
            dp_heads = grandparent_eisner(s, gp)[0]
            acc["dp"].append(seconds(partial(grandparent_eisner, s, gp), 1))
            acc["ppc"].append(seconds(lambda s=s, gp=gp: parse_price_cut(s, DenseTripleScorer(gp)), 1))
            for projective, key in ((True, "agree_ptree"), (False, "agree_tree")):
                r = bp_marginals(s, gp, projective=projective, iterations=iterations)
                heads = mbr_decode(r.marginals, r.graph.arc_mask, projective=projective)[0]
                acc[key].append(float(np.mean(heads[1:] == dp_heads[1:])))
            bp = partial(bp_marginals, s, gp, iterations=iterations)
            acc["bp_fwd"].append(seconds(bp, 1) / iterations)
            acc["tree_fwd"].append(seconds(partial(bp, projective=False), 1) / iterations)
            target = gold if gold[1] >= 0 else dp_heads
            acc["bp_fwd_bwd"].append(
                seconds(lambda bp=bp, target=target: l2_distance(bp(), target), 1) / iterations
            )
        row.update({k: float(np.mean(v)) for k, v in acc.items()})
        rows.append(row)
        print(
            f"n={n:3d}  PTREE {row['bp_fwd'] * 1e3:7.2f} ms/iter  (+backward {row['bp_fwd_bwd'] * 1e3:7.2f})  "
            f"TREE {row['tree_fwd'] * 1e3:7.2f} ms/iter  GP-DP {row['dp'] * 1e3:8.2f} ms  PPC {row['ppc'] * 1e3:8.2f} ms  "
            f"MBR=DP heads {row['agree_ptree']:.3f} (PTREE) {row['agree_tree']:.3f} (TREE)",
            flush=True,
        )
    return rows


def errors(n: int, seeds: int, kind: str, iteration_list: list[int]) -> list[dict]:
    """max and mean |b − p| of BP beliefs against brute-force grandparent marginals (projective, multi-root)."""
    rows = []
    for iterations in iteration_list:
        worst, mean = [], []
        for seed in range(seeds):
            rng = np.random.default_rng(1000 + seed)
            s, gp, _ = model(n, rng, kind)
            exact = brute_force_second_order(s, gp, None, False, True)[1]
            b = bp_marginals(s, gp, iterations=iterations).marginals
            mask = np.isfinite(s)
            mask[:, 0] = False
            np.fill_diagonal(mask, False)
            worst.append(float(np.abs(b - exact)[mask].max()))
            mean.append(float(np.abs(b - exact)[mask].mean()))
        rows.append(
            {
                "n": n,
                "iterations": iterations,
                "max_err": float(np.max(worst)),
                "mean_err": float(np.mean(mean)),
            }
        )
        print(
            f"n={n} iterations={iterations}: max |b-p| {rows[-1]['max_err']:.4f}, mean {rows[-1]['mean_err']:.4f}",
            flush=True,
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 30, 40, 60, 80])
    parser.add_argument("--sentences", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--model", choices=["noisy-gold", "random"], default="noisy-gold")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    timings = timing(args.sizes, args.sentences, args.iterations, args.model, args.seed)
    errs = [row for n in (4, 5) for row in errors(n, 20, args.model, [1, 2, 4, 8])]
    meta = {
        "model": args.model,
        "iterations": args.iterations,
        "machine": platform.platform(),
        "python": platform.python_version(),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bp.json").write_text(json.dumps({"meta": meta, "timing": timings, "errors": errs}, indent=1))
    lines = [
        "# BP benchmark",
        "",
        (
            f"Score model: {args.model} (see benchmarks/bp.py); multi-root; {args.iterations} BP iterations; "
            f"{args.sentences} sentences per length; median of one timed run after a warm-up; {meta['machine']}."
        ),
        "",
        (
            "| n | PTREE BP fwd ms/iter | PTREE fwd+bwd (L2) ms/iter | TREE BP fwd ms/iter | exact GP DP ms (O(n⁴)) | "
            "PPC ms (non-projective LP) | MBR heads = DP heads (PTREE) | (TREE) |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in timings:
        lines.append(
            f"| {r['n']} | {r['bp_fwd'] * 1e3:.2f} | {r['bp_fwd_bwd'] * 1e3:.2f} | {r['tree_fwd'] * 1e3:.2f} | "
            f"{r['dp'] * 1e3:.2f} | {r['ppc'] * 1e3:.2f} | {r['agree_ptree']:.3f} | {r['agree_tree']:.3f} |"
        )
    lines += [
        "",
        "## BP beliefs against brute-force grandparent marginals (projective, multi-root, 20 models each)",
        "",
        "| n | iterations | max abs error | mean abs error |",
        "|---|---|---|---|",
    ]
    lines += [f"| {r['n']} | {r['iterations']} | {r['max_err']:.4f} | {r['mean_err']:.4f} |" for r in errs]
    (RESULTS / "bp.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
