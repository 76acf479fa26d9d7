"""``lpparse train --workers N`` (iterative parameter mixing) against the sequential trainer.

Trains the same model twice with ``lpparse train`` (one worker, then N), reads each epoch's seconds and dev
UAS from the training record, decodes the dev set with both models (the dev decoder of training, over the same
pruned arcs) and compares them by paired bootstrap (B = N workers, A = one). Written to
``benchmarks/results/<out>.{json,md}`` (default ``train_workers``). Run with every core free.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ppc import REPO, run_header, write_results

from lpparse.corpus import read_treebank
from lpparse.evaluation import paired_bootstrap
from lpparse.parsing import parse
from lpparse.pruning import ArcPruning
from lpparse.scoring import Model
from lpparse.table import markdown_table

TREEBANKS = REPO.parent / "shared/treebanks"
MODELS = REPO.parent / "models"


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", type=Path, default=TREEBANKS / "da_ddt/ddt-cdt-train.conll")
    parser.add_argument("--dev", type=Path, default=TREEBANKS / "da_ddt/ddt-cdt-dev.conll")
    parser.add_argument("--pruner", type=Path, default=MODELS / "da_ddt-1.npz")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--mix-every", type=int, default=200)
    parser.add_argument(
        "--train-args",
        default="--multi-root --order 2 --trainer perceptron --decoder auto --cost 1 --max-length 50 "
        "--prune-threshold 0.005",
        help="the rest of the lpparse train command (the LP-trained grandparent models of benchmarks/results)",
    )
    parser.add_argument("--out", default="train_workers")
    args = parser.parse_args()
    work = REPO / "benchmarks" / "results" / ".train_workers"
    work.mkdir(exist_ok=True)
    base = ["train", "--treebank", str(args.treebank), "--dev", str(args.dev), "--pruner", str(args.pruner)]
    base += ["--epochs", str(args.epochs), "--patience", str(args.epochs), *args.train_args.split()]
    base += ["--no-progress", "--mix-every", str(args.mix_every)]
    runs: dict[int, dict[str, Any]] = {}
    for workers in (1, args.workers):
        out = work / f"model-{workers}.npz"
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "lpparse", *base, "--workers", str(workers), "--out", str(out)],
            capture_output=True,
            text=True,
            cwd=REPO,
        )
        if done.returncode != 0:
            raise SystemExit(f"training with {workers} workers failed: {done.stderr}")
        model = Model.load(out)
        history = model.training["history"]
        runs[workers] = {
            "wall (s)": time.perf_counter() - start,
            "epoch seconds": [h["seconds"] for h in history],
            "dev UAS (no punct)": [h["dev_uas_no_punct"] for h in history],
            "model": model,
        }
        print(f"workers={workers}: {runs[workers]['wall (s)']:.1f} s, {runs[workers]['dev UAS (no punct)']}", flush=True)
    dev = read_treebank(args.dev, on_error="skip")
    pruner = Model.load(args.pruner)
    heads = {
        w: [
            r.heads
            for r in parse(
                run["model"], dev, "auto", pruning=ArcPruning(threshold=0.005), pruner=pruner
            )
        ]
        for w, run in runs.items()
    }
    diff = paired_bootstrap(dev, heads[1], heads[args.workers])
    for path in work.iterdir():
        path.unlink()
    work.rmdir()
    one, many = runs[1], runs[args.workers]
    rows = [
        {
            "workers": w,
            "wall (s)": run["wall (s)"],
            "training s/epoch": sum(run["epoch seconds"]) / len(run["epoch seconds"]),
            "epoch 1 (s)": run["epoch seconds"][0],
            "best dev UAS": 100 * max(run["dev UAS (no punct)"]),
            "dev UAS by epoch": " / ".join(f"{100 * u:.2f}" for u in run["dev UAS (no punct)"]),
        }
        for w, run in runs.items()
    ]
    result = {
        **run_header("train_workers.py"),
        "rows": rows,
        "speed-up (training epochs)": sum(one["epoch seconds"]) / sum(many["epoch seconds"]),
        "speed-up (wall)": one["wall (s)"] / many["wall (s)"],
        "dev UAS difference": {"delta": diff.delta, "low": diff.low, "high": diff.high, "p": diff.p_value},
    }
    headers = list(rows[0])
    text = (
        f"# train --workers {args.workers} against one worker\n\n"
        f"Command: `{result['command']}`\n\n"
        f"{args.treebank.name} ({args.epochs} epochs, mixing every {args.mix_every} sentences per learner), "
        f"dev {args.dev.name}, pruner {args.pruner.name}. Wall clock of the whole command (dev decoding "
        "after each epoch included, on the same workers); training s/epoch without it.\n\n"
        + markdown_table(headers, [[r[h] for h in headers] for r in rows], digits=2)
        + f"\n\nSpeed-up of the training epochs: {result['speed-up (training epochs)']:.2f}x; of the whole "
        f"command: {result['speed-up (wall)']:.2f}x.\n\n"
        f"Dev UAS (no punctuation) of the final models, decoded by auto over the same pruned arcs, {args.workers} "
        f"workers minus one: {100 * diff.delta:+.2f} points, 95% interval [{100 * diff.low:+.2f}, "
        f"{100 * diff.high:+.2f}] (paired bootstrap), p = {diff.p_value:.3f}.\n"
    )
    write_results(result, args.out, text)


if __name__ == "__main__":
    main()
