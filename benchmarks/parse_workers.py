"""``lpparse parse --workers N`` against one process: wall-clock time of whole commands on dev sets.

Each configuration runs ``--repeats`` times, the worker counts alternated (1, N, 1, N, ...) so that drift of a
shared machine hits both alike; the outputs must be byte-identical. Times are the command's wall clock (start-up,
model loading and writing included) and the decoding time it prints. lpparse's bytecode is compiled first (as an installation does), so that no run
compiles modules on start-up (``PYTHONDONTWRITEBYTECODE`` would otherwise make each one). Written to
``benchmarks/results/<out>.{json,md}`` (default ``parse_workers``). Run with every core free.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ppc import REPO, run_header, write_results

from lpparse.table import markdown_table


def _run(argv: list[str], out: Path) -> tuple[float, float]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lpparse", *argv, "--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"lpparse {' '.join(argv)} failed: {done.stderr}")
    decoding = float(re.search(r"decoder \S+, ([0-9.]+) s;", done.stdout).group(1))  # type: ignore[union-attr]
    return wall, decoding


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--treebank", type=Path, default=REPO.parent / "shared/treebanks/da_ddt/ddt-cdt-dev.conll"
    )
    parser.add_argument("--model", type=Path, default=REPO.parent / "models/da_ddt-2-lp.npz")
    parser.add_argument("--pruner", type=Path, default=REPO.parent / "models/da_ddt-1.npz")
    parser.add_argument("--decoders", nargs="+", default=["exact", "auto"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default="parse_workers")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "lpparse")], check=True)
    work = REPO / "benchmarks" / "results" / ".parse_workers"
    work.mkdir(exist_ok=True)
    for decoder in args.decoders:
        argv = ["parse", "--model", str(args.model), "--treebank", str(args.treebank), "--decoder", decoder]
        if args.pruner:
            argv += ["--pruner", str(args.pruner), "--prune-threshold", "0.005"]
        times: dict[int, list[tuple[float, float]]] = {1: [], args.workers: []}
        outputs: dict[int, bytes] = {}
        for _ in range(args.repeats):
            for workers in (1, args.workers):
                out = work / f"{decoder}-{workers}.conllu"
                times[workers].append(_run([*argv, "--workers", str(workers)], out))
                outputs[workers] = out.read_bytes()
                print(f"{decoder} workers={workers}: {times[workers][-1]}", flush=True)
        one = [w for w, _ in times[1]]
        many = [w for w, _ in times[args.workers]]
        rows.append(
            {
                "decoder": decoder,
                "same output": outputs[1] == outputs[args.workers],
                "wall 1 (s)": statistics.median(one),
                f"wall {args.workers} (s)": statistics.median(many),
                "speed-up (wall)": statistics.median(one) / statistics.median(many),
                "speed-up (decoding)": statistics.median(d for _, d in times[1])
                / statistics.median(d for _, d in times[args.workers]),
                "runs": args.repeats,
            }
        )
    for path in work.iterdir():
        path.unlink()
    work.rmdir()
    result = {**run_header("parse_workers.py"), "rows": rows}
    headers = list(rows[0])
    text = (
        "# parse --workers against one process\n\n"
        f"Command: `{result['command']}`\n\n"
        f"{args.treebank.name}, model {args.model.name}, pruner {args.pruner.name if args.pruner else '-'}; "
        "medians of the alternated runs, wall clock of the whole command.\n\n"
        + markdown_table(headers, [[r[h] for h in headers] for r in rows], digits=2)
        + "\n"
    )
    write_results(result, args.out, text)


if __name__ == "__main__":
    main()
