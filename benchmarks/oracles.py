"""Time the exact first-order oracles on random scores and compare CLE with ufal.chu_liu_edmonds (C++).

Score model: S[h, m] ~ N(0, 1) i.i.d. (seeded), dense (no pruning). Reports the median wall time of
several repeats per oracle and n (with ``--rounds`` R > 1, the lowest of R such medians, the table being
timed R times over: on a shared machine, load only adds time), the ratio of our CLE to ufal's, and checks
that both reach the same tree score. Writes benchmarks/results/oracles.json and oracles.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Callable

import numpy as np
from ufal.chu_liu_edmonds import chu_liu_edmonds as ufal_cle

from lpparse.oracles import chu_liu_edmonds, eisner, log_partition, matrix_tree, projective_inside_outside
from lpparse.trees import tree_score

RESULTS = Path(__file__).parent / "results"


def ufal_input(scores: np.ndarray) -> np.ndarray:
    """ufal wants M[m, h] = score of m having head h, NaN for missing arcs."""
    m = scores.T.copy()
    np.fill_diagonal(m, np.nan)
    m[0, :] = np.nan
    m[~np.isfinite(m)] = np.nan
    return m


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def run(sizes: list[int], repeats: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        scores = rng.normal(size=(n + 1, n + 1))
        ufal_scores = ufal_input(scores)
        ours_heads = chu_liu_edmonds(scores)
        ufal_heads, ufal_value = ufal_cle(ufal_scores)
        row = {
            "n": n,
            "eisner_ms": median_ms(lambda: eisner(scores), repeats),
            "eisner_single_root_ms": median_ms(lambda: eisner(scores, single_root=True), repeats),
            "cle_ms": median_ms(lambda: chu_liu_edmonds(scores), repeats),
            "cle_single_root_ms": median_ms(lambda: chu_liu_edmonds(scores, single_root=True), repeats),
            "ufal_cle_ms": median_ms(lambda: ufal_cle(ufal_scores), repeats),
            "matrix_tree_log_z_ms": median_ms(lambda: log_partition(scores), repeats),
            "matrix_tree_marginals_ms": median_ms(lambda: matrix_tree(scores), repeats),
            "matrix_tree_marginals_1e3_ms": median_ms(lambda: matrix_tree(1e3 * scores / 4), repeats),
            "inside_outside_ms": median_ms(lambda: projective_inside_outside(scores), repeats),
            "cle_value": tree_score(scores, ours_heads),
            "ufal_value": float(ufal_value),
        }
        row["cle_over_ufal"] = row["cle_ms"] / row["ufal_cle_ms"]
        row["values_agree"] = bool(
            abs(row["cle_value"] - row["ufal_value"]) <= 1e-9 * max(1.0, abs(row["ufal_value"]))
            and abs(tree_score(scores, np.asarray(ufal_heads)) - row["ufal_value"]) <= 1e-6
        )
        rows.append(row)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}))
    return rows


def lowest(rounds: list[list[dict]]) -> list[dict]:
    """Each timing (``*_ms``) at its lowest over the rounds; the CLE / ufal ratio of those."""
    rows = []
    for same_n in zip(*rounds):
        row = {**same_n[0], **{k: min(r[k] for r in same_n) for k in same_n[0] if k.endswith("_ms")}}
        row["cle_over_ufal"] = row["cle_ms"] / row["ufal_cle_ms"]
        rows.append(row)
    return rows


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    cols = [
        ("n", "n"),
        ("eisner_ms", "Eisner"),
        ("eisner_single_root_ms", "Eisner 1-root"),
        ("inside_outside_ms", "inside-outside"),
        ("cle_ms", "CLE"),
        ("cle_single_root_ms", "CLE 1-root"),
        ("ufal_cle_ms", "ufal CLE (C++)"),
        ("cle_over_ufal", "CLE / ufal"),
        ("values_agree", "same value"),
        ("matrix_tree_log_z_ms", "MTT log Z"),
        ("matrix_tree_marginals_ms", "MTT log Z + marginals"),
        ("matrix_tree_marginals_1e3_ms", "MTT, scores x250 (longdouble)"),
    ]
    rounds = f", lowest of {args.rounds} rounds" if args.rounds > 1 else ""
    lines = [
        "# Exact first-order oracles: wall time (ms, median)",
        "",
        f"Scores N(0, 1) i.i.d., dense, seed {args.seed}; median of {args.repeats} repeats after a warm-up"
        f"{rounds}; multi-root unless marked; {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, "
        f"numpy {np.__version__}. The last column scales the scores by 250 (column spans > 300) so the "
        "matrix-tree elimination runs in extended precision.",
        "",
        "| " + " | ".join(title for _, title in cols) + " |",
        "|" + "---|" * len(cols),
    ]
    for row in rows:
        cells = [f"{row[key]:.2f}" if isinstance(row[key], float) else str(row[key]) for key, _ in cols]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 50, 100, 150], help="sentence lengths n")
    parser.add_argument("--repeats", type=int, default=15, help="timed repeats per oracle and n")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random scores")
    parser.add_argument("--rounds", type=int, default=1, help="time the table this many times, keep the lowest")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for oracles.json and oracles.md")
    args = parser.parse_args()
    rows = lowest([run(args.sizes, args.repeats, args.seed) for _ in range(args.rounds)])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "oracles.json").write_text(
        json.dumps(
            {
                "score_model": "N(0,1) dense",
                "seed": args.seed,
                "repeats": args.repeats,
                "rounds": args.rounds,
                "rows": rows,
            },
            indent=2,
        )
    )
    (args.out / "oracles.md").write_text(markdown(rows, args))
    print(markdown(rows, args))


if __name__ == "__main__":
    main()
