"""``lpparse inspect`` on dev sets with trained models: does every fractional LP optimum get a valid cut, and
do the generic MIP solvers agree with exact decoding wherever they finish?

For each dev set and model suffix (``<treebank>-<model>.npz`` in ``--models``; the LP-trained standard and
full models, ``*-lp``, over the arcs their own pruner keeps, as parse decodes them), runs ``lpparse inspect
--fractional N`` and counts, over the inspected sentences: the relaxations and how many are fractional, where
each fractional point's cut came from (lpparse's own rows, HiGHS's root cuts checked valid, or the objective
cut), the MIP runs (HiGHS through highspy, Pyomo) that finished, agreed, disagreed or stopped at their limit,
the disagreements and failed bound-order checks, and the wall seconds of each run. ``--summarize DIR`` counts
the JSON lines already in DIR (``<treebank>-<model>.jsonl``) without running anything. Writes
``benchmarks/results/inspect_dev.{json,md}``. Run on one core: ``taskset -c 0 python benchmarks/inspect_dev.py
--models ../models --model 2 2s 2c-lp 2f-lp``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ppc import LANGUAGE, REPO, dev_files, run_header, treebank_parser, write_results

from lpparse.table import markdown_table

#: The counts of a run, in the table's order
KEYS = [
    "sentences",
    "relaxations",
    "fractional",
    "cut: lpparse",
    "cut: mip-root",
    "cut: objective",
    "cut: none",
    "highspy finished",
    "highspy agrees",
    "highspy limit",
    "pyomo finished",
    "pyomo agrees",
    "pyomo limit",
    "disagreements",
    "order fails",
]


def counts(path: Path) -> dict[str, int]:
    """The counts of one run's JSON lines (module docstring)."""
    found: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        sentence = json.loads(line)
        found["sentences"] += 1
        found["disagreements"] += len(sentence.get("disagreements", []))
        found["order fails"] += sum(not check["holds"] for check in sentence.get("order_checks", []))
        for relaxation in sentence["relaxations"]:
            found["relaxations"] += 1
            if not relaxation["integral"]:
                found["fractional"] += 1
                cut = relaxation.get("cut")
                found[f"cut: {cut['source'] if cut else 'none'}"] += 1
            for key, name in (("mip", "highspy"), ("pyomo_mip", "pyomo")):
                run = relaxation.get(key) or {}
                if run.get("status") == "optimal":
                    found[f"{name} finished"] += 1
                    found[f"{name} agrees"] += run.get("agrees") is True
                elif run.get("status") == "time limit":
                    found[f"{name} limit"] += 1
    return {key: found[key] for key in KEYS}


def run_one(dev: Path, model: Path, args: Any, out: Path) -> float:
    """``lpparse inspect`` of one dev set and model into ``out``; its wall seconds."""
    argv = [sys.executable, "-m", "lpparse", "inspect", "--treebank", str(dev), "--model", str(model)]
    argv += ["--fractional", str(args.fractional), "--mip-time-limit", str(args.mip_time_limit)]
    argv += ["--json", str(out), "--no-progress"]
    argv += ["--max-length", str(args.max_length)] if args.max_length else []
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
    if done.returncode not in (0, 3):  # 3: a disagreement, which the table counts
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr}")
    return time.perf_counter() - start


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "inspect_dev")
    parser.add_argument("--model", nargs="+", default=["2"], help="model suffixes: <treebank>-<model>.npz")
    parser.add_argument("--fractional", type=int, default=5)
    parser.add_argument("--max-length", type=int, default=None)
    parser.add_argument("--mip-time-limit", type=float, default=60.0)
    parser.add_argument(
        "--summarize", type=Path, default=None, help="count the JSON lines of DIR, run nothing"
    )
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.summarize or Path(scratch)
        for dev in dev_files(args):
            name = dev.parent.name
            for suffix in args.model:
                out, seconds = folder / f"{name}-{suffix}.jsonl", None
                if args.summarize is None:
                    model = args.models / f"{name}-{suffix}.npz"
                    if not model.exists():
                        continue
                    seconds = run_one(dev, model, args, out)
                    out.touch()  # no sentence with a gap: inspect writes nothing
                elif not out.exists():
                    continue
                row = {"language": LANGUAGE.get(name, name), "model": suffix, **counts(out)}
                row["seconds"] = "-" if seconds is None else round(seconds, 1)
                rows.append(row)
                print(row, flush=True)
    result = {**run_header("inspect_dev.py"), "runs": rows}
    keys = ["language", "model", *KEYS, "seconds"]
    text = "\n".join(
        [
            "# lpparse inspect on dev sets: cuts for every fractional point, MIP against exact decoding",
            "",
            f"Command: `{result['command']}`",
            "",
            "Counts over the sentences `lpparse inspect --fractional N` picked (the largest gaps of the "
            "first relaxation); a MIP run agrees when its optimum is the proved tree's score; `limit`: "
            "stopped at its time limit, no verdict; `seconds`: wall seconds of the run (-: counted from "
            "earlier runs' JSON lines by --summarize).",
            "",
            markdown_table(keys, [[row[k] for k in keys] for row in rows]),
            "",
        ]
    )
    write_results(result, args.out, text)


if __name__ == "__main__":
    main()
