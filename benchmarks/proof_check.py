"""Every dev set decoded exactly with proofs, and the proofs re-checked by the standalone checker.

For each dev set: ``lpparse parse --decoder exact --proof P`` with the trained model (``<treebank>-<model>``
in ``--models``, over arcs pruned by ``<treebank>-1`` at 0.005 unless ``--no-pruning``), then
``python -m lpparse.proofcheck P --trees OUT`` (no HiGHS, no engine) on the same scores and pruning; the wall
and CPU time of each, the sentences parsed and proved, the proof file's size, and whether every proof holds (exit 0). Writes
``benchmarks/results/proof_check.{json,md}``. Run on one core: ``taskset -c 0 python benchmarks/proof_check.py``.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ppc import LANGUAGE, REPO, dev_files, run_header, treebank_parser, write_results

from lpparse.table import markdown_table


def _run(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """The finished command, its wall seconds and its CPU seconds (user + system)."""
    start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, time.perf_counter() - start, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime


def run_treebank(path: Path, args: Any, work: Path) -> dict[str, Any]:
    name = path.parent.name
    model = args.models / f"{name}-{args.model}.npz"
    proofs = work / f"{name}.proof.jsonl"
    source = ["--model", str(model), "--treebank", str(path)]
    pruning = (
        []
        if args.no_pruning
        else ["--pruner", str(args.models / f"{name}-1.npz"), "--prune-threshold", "0.005"]
    )
    parse = [sys.executable, "-m", "lpparse", "parse", *source, *pruning, "--decoder", "exact"]
    trees = work / f"{name}.conllu"
    parse += ["--time-limit", str(args.time_limit), "--proof", str(proofs), "--out", str(trees), "--no-progress"]
    parsed, parse_seconds, parse_cpu = _run(parse)
    if parsed.returncode != 0 and "not parsed" not in parsed.stderr:  # exit 1 for sentences over the limit
        raise SystemExit(f"{' '.join(parse)} failed: {parsed.stderr}")
    # the checker is told the problem as parse was (the pruning), and ties the proofs to the trees written
    check = [sys.executable, "-m", "lpparse.proofcheck", str(proofs), *source, *pruning, "--trees", str(trees)]
    checked, check_seconds, check_cpu = _run([*check, "--no-progress"])
    sentences = int(re.search(r"(\d+) sentences", parsed.stdout).group(1))  # type: ignore[union-attr]
    records = sum(1 for line in proofs.read_text().splitlines() if line.strip())
    row = {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "model": model.name,
        "pruned": not args.no_pruning,
        "sentences": sentences,
        "proofs": records,
        "not parsed": parsed.stderr.count("not parsed"),
        "all hold": checked.returncode == 0,
        "checker says": (checked.stdout.strip().splitlines() or [checked.stderr.strip()])[-1],
        "parse s": parse_seconds,
        "check s": check_seconds,
        "parse CPU s": parse_cpu,
        "check CPU s": check_cpu,
        "check/parse CPU": check_cpu / parse_cpu,
        "proof MB": proofs.stat().st_size / 1e6,
    }
    print(row, flush=True)
    proofs.unlink()  # proofs grow to tens of MB: one at a time
    trees.unlink()
    return row


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "proof_check")
    parser.add_argument("--model", default="2-lp", help="model suffix: <treebank>-<model>.npz")
    parser.add_argument("--no-pruning", action="store_true")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds a sentence")
    args = parser.parse_args()
    # a directory of this run's own (runs side by side never share a proof file), removed even on failure
    with tempfile.TemporaryDirectory(prefix=".proof_check-", dir=REPO / "benchmarks" / "results") as work:
        rows = [run_treebank(p, args, Path(work)) for p in dev_files(args)]
    result = {**run_header("proof_check.py"), "treebanks": rows}
    keys = [
        "language",
        "model",
        "sentences",
        "proofs",
        "not parsed",
        "all hold",
        "parse s",
        "check s",
        "parse CPU s",
        "check CPU s",
        "check/parse CPU",
        "proof MB",
    ]
    text = "\n".join(
        [
            "# Exact decoding with proofs, re-checked by the standalone checker",
            "",
            f"Command: `{result['command']}`",
            "",
            "`lpparse parse --decoder exact --proof P --out O`, then `python -m lpparse.proofcheck P --trees O` "
            "(imports neither HiGHS nor the engine) on the same model, treebank and pruning (the checker reads no "
            "problem from the proofs); wall and CPU seconds of each command, start-up included.",
            "",
            markdown_table(keys, [[row[k] for k in keys] for row in rows]),
            "",
            *(f"- {row['language']}: {row['checker says']}" for row in rows),
            "",
        ]
    )
    write_results(result, args.out, text)


if __name__ == "__main__":
    main()
