"""Two runs of benchmarks/ppc.py (or of benchmarks/exact.py --part gaussian) on the same sentences, one per
version of the code, compared sentence by sentence: what must not change when code moves (methods, program sizes, rounds, simplex iterations, parts
scored, added, priced and cut, objectives, exact search's nodes) is compared exactly, and the times as the
ratio of the second run's to the first's (two runs on a shared machine: read the times as noise bounds).

Usage: python benchmarks/same_behaviour.py BEFORE.json AFTER.json --out NAME (results/NAME.json and .md).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
#: the fields of a run of one method on one sentence that the code decides alone
EXACT_FIELDS = (
    "method",
    "rows",
    "cols",
    "iterations",
    "simplex_iterations",
    "scored",
    "added",
    "priced",
    "cut",
    "rows_cut",
    "integral",
    "certified",
    "status",
    "nodes",
    "root_integral",
)
#: objectives and bounds: equal up to the LP solver's round-off
VALUE_FIELDS = ("objective", "bound", "root_bound")


def records(path: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(treebank, sent_id, method) -> the run's record, over every sentence of the ppc and bounds tables."""
    data = json.loads(path.read_text())
    out = {}
    for run in data.get("gaussian") or []:  # benchmarks/exact.py --part gaussian
        out["gaussian", f"n={run['n']} seed={run['seed']}", "exact"] = {
            **run["exact"],
            "time_total": run["exact"]["seconds"],
        }
    for treebank in data.get("treebanks") or []:
        for table in ("ppc", "bounds"):
            for sentence in treebank.get(table) or []:
                for method, run in sentence.items():
                    if isinstance(run, dict):
                        out[treebank["treebank"], sentence["sent_id"], f"{table}:{method}"] = run
    return out


def compare(
    before: dict[tuple[str, str, str], Any], after: dict[tuple[str, str, str], Any]
) -> dict[str, Any]:
    """Exact differences and time ratios of the runs both files hold."""
    common = sorted(set(before) & set(after))
    differences = []
    ratios: dict[str, list[float]] = {}
    for key in common:
        a, b = before[key], after[key]
        for name in EXACT_FIELDS:
            if a.get(name) != b.get(name):
                differences.append(
                    {"run": list(key), "field": name, "before": a.get(name), "after": b.get(name)}
                )
        for name in VALUE_FIELDS:
            x, y = a.get(name), b.get(name)
            if (
                isinstance(x, float)
                and isinstance(y, float)
                and not math.isclose(x, y, rel_tol=1e-7, abs_tol=1e-7)
            ):
                differences.append({"run": list(key), "field": name, "before": x, "after": y})
        seconds = (a.get("time_total"), b.get("time_total"))
        if all(isinstance(t, float) and t > 0 for t in seconds):
            ratios.setdefault(key[2], []).append(seconds[1] / seconds[0])  # type: ignore[operator]
    return {
        "runs_compared": len(common),
        "only_before": len(set(before) - set(after)),
        "only_after": len(set(after) - set(before)),
        "differences": differences,
        "time_ratio": {
            method: {"median": statistics.median(r), "min": min(r), "max": max(r), "runs": len(r)}
            for method, r in sorted(ratios.items())
        },
    }


def markdown(result: dict[str, Any], before: str, after: str) -> str:
    lines = [
        "# Same behaviour before and after a change of code",
        "",
        f"`python benchmarks/same_behaviour.py {before} {after}`: {result['runs_compared']} runs (sentence and "
        f"method) in both files, {result['only_before']} only before, {result['only_after']} only after.",
        "",
        f"Fields compared exactly: {', '.join(EXACT_FIELDS)}; values to 1e-7: {', '.join(VALUE_FIELDS)}.",
        f"**Differences: {len(result['differences'])}.**",
        "",
    ]
    for diff in result["differences"][:20]:
        lines.append(f"- {' '.join(diff['run'])}: {diff['field']} {diff['before']} -> {diff['after']}")
    lines += ["", "| method | runs | time after / before: median | min | max |", "|---|---:|---:|---:|---:|"]
    for method, r in result["time_ratio"].items():
        lines.append(f"| {method} | {r['runs']} | {r['median']:.2f} | {r['min']:.2f} | {r['max']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--out", required=True, help="name of the results (results/NAME.json and .md)")
    args = parser.parse_args()
    result = compare(records(args.before), records(args.after))
    names = [Path(p).name for p in (args.before, args.after)]
    result["files"] = names
    (RESULTS / f"{args.out}.json").write_text(json.dumps(result, indent=1) + "\n")
    (RESULTS / f"{args.out}.md").write_text(markdown(result, *(f"results/{n}" for n in names)))
    print(markdown(result, *names))


if __name__ == "__main__":
    main()
