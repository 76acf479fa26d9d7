"""Scale-out of the experiment runner: the same ``lpparse experiment ppc`` tasks on 1 and 2 local worker
processes and on a local Dask cluster of 2 workers; compares every backend's records with the serial ones
(all fields but the measured times) and reports wall-clock ratios. Writes ``benchmarks/results/scaleout.{json,md}``.

    python benchmarks/scaleout.py --treebank ../shared/treebanks/it_partut/it_partut-ud-dev.conllu \
        --model models/it_partut-2.npz --limit 80
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.experiments.grandparent_tables import ScoreSource, ppc_task
from lpparse.experiments.runner import Task, run_tasks
from lpparse.io import relative_paths
from lpparse.table import markdown_table

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def _stable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records without the fields that measure time."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if not k.startswith("time_")}
        return value

    return [strip(r) for r in records]


def _difference(a: Any, b: Any) -> float:
    """Largest relative difference between two records' numbers (inf if their structure differs)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return math.inf
        return max((_difference(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return math.inf
        return max((_difference(x, y) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) / max(1.0, abs(a), abs(b))
    return 0.0 if a == b else math.inf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", type=Path, default=sample_treebank_path())
    parser.add_argument("--model", type=Path, default=None, help="grandparent model (default: synthetic scores)")
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--max-length", type=int, default=40)
    args = parser.parse_args()
    sentences = read_treebank(args.treebank, limit=args.limit, max_length=args.max_length)
    source = ScoreSource(model=str(args.model) if args.model else None)
    single_root = all(s.single_rooted for s in sentences)
    tasks = [
        Task(f"{i}:{s.sent_id}", {"sentence": s, "source": source, "seed": i, "single_root": single_root})
        for i, s in enumerate(sentences)
    ]
    runs: dict[str, tuple[float, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory() as tmp:

        def timed(label: str, **backend: Any) -> None:
            start = time.perf_counter()
            records = run_tasks(ppc_task, tasks, Path(tmp) / f"{label}.jsonl", progress=False, **backend)
            runs[label] = (time.perf_counter() - start, records)
            print(f"{label}: {runs[label][0]:.1f} s", flush=True)

        timed("1 process", workers=1)
        timed("2 processes", workers=2)
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        with cluster, Client(cluster) as client:
            client.run(lambda: None)  # workers up before the clock starts
            timed("Dask, 2 workers", scheduler=client)
    reference = _stable(runs["1 process"][1])
    rows = [
        [label, len(records), seconds, runs["1 process"][0] / seconds, f"{_difference(_stable(records), reference):.1e}"]
        for label, (seconds, records) in runs.items()
    ]
    meta = {
        "treebank": str(args.treebank),
        "scores": source.describe(),
        "sentences": len(tasks),
        "machine": platform.platform(),
    }
    RESULTS.mkdir(exist_ok=True)
    times = {k: v[0] for k, v in runs.items()}
    difference = max(float(r[-1]) for r in rows)
    text = json.dumps({"meta": meta, "runs": times, "max_rel_difference": difference}, indent=1)
    (RESULTS / "scaleout.json").write_text(relative_paths(text, REPO))
    table = markdown_table(
        ["backend", "sentences", "seconds", "speed-up over 1 process", "max rel. difference to 1 process"], rows, digits=2
    )
    (RESULTS / "scaleout.md").write_text(relative_paths(
        f"# Scale-out of `lpparse experiment ppc`\n\n{len(tasks)} sentences of {args.treebank.name} "
        f"(at most {args.max_length} tokens); scores: {source.describe()}; {meta['machine']}, 2 cores.\n\n{table}\n\n"
        "Records are compared field by field without their times. Dask's nanny starts workers with one BLAS "
        "thread; objectives are summed with correct rounding (math.fsum), so no record depends on it.\n",
        REPO,
    ))
    print(table)


if __name__ == "__main__":
    main()
