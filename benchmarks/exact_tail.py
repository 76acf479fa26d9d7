"""Exact decoding's tail beyond the dev sets: the slowest sentences of other text.

The dev sets' claims (grandparent models: no sentence over 5 s) are re-measured on text they were not tuned on.
For each treebank file of ``--treebanks`` (default: the train files, the only other text here), the model
``<models>/<treebank>-<model>.npz`` (default ``2``, grandparent) decodes by ``exact`` at most ``--time-limit``
seconds a sentence, one core, features included, each sentence timed alone in CPU seconds: every sentence of
``--min-n`` tokens or more and ``--sample`` others drawn at random (seed 0). Reported per treebank: sentences,
certified, those over ``--over`` seconds, the slowest ``--worst`` (index in the file, tokens, seconds, nodes) and
the 99th percentile of each group. The model was trained on these sentences, so their LPs are easier than unseen
text's on average; the tail is what the dev sets miss. Writes ``benchmarks/results/<out>.{json,md}`` (default
``exact_tail``); run a file per part (``--out <part>``), then ``--combine <part>.json ...``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from ppc import LANGUAGE, add_combine, document, run_treebanks, treebank_parser

from lpparse.corpus import read_treebank
from lpparse.parsing import decode_sentence
from lpparse.scoring.model import Model
from lpparse.table import markdown_table


def _decode(model: Model, sentence: Any, time_limit: float) -> dict[str, Any]:
    start = time.process_time()
    result = decode_sentence(model, sentence, "exact", time_limit=time_limit)
    seconds = time.process_time() - start
    return {"n": sentence.n, "seconds": seconds, "certified": bool(result.stats.get("certified")),
            "nodes": result.stats.get("nodes")}


def _group(rows: list[dict[str, Any]], over: float, worst: int) -> dict[str, Any]:
    seconds = np.array([r["seconds"] for r in rows]) if rows else np.zeros(0)
    slowest = sorted(rows, key=lambda r: -r["seconds"])[:worst]
    return {
        "sentences": len(rows),
        "tokens": int(sum(r["n"] for r in rows)),
        "seconds": float(seconds.sum()),
        "certified": sum(r["certified"] for r in rows),
        "over": sum(r["seconds"] > over for r in rows),
        "p99": float(np.percentile(seconds, 99)) if rows else 0.0,
        "slowest": slowest,
    }


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    sentences = read_treebank(path)
    model = Model.load(args.models / f"{name}-{args.model}.npz")
    long = [i for i, s in enumerate(sentences) if s.n >= args.min_n]
    others = [i for i, s in enumerate(sentences) if s.n < args.min_n]
    rng = np.random.default_rng(0)
    sample = sorted(rng.choice(others, size=min(args.sample, len(others)), replace=False).tolist())
    groups: dict[str, list[dict[str, Any]]] = {f"{args.min_n}+ tokens": [], "random others": []}
    for label, chosen in zip(groups, (long, sample)):
        for i in chosen:
            groups[label].append({"sentence": i, **_decode(model, sentences[i], args.time_limit)})
    return {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "file": path.name,
        "model": f"{name}-{args.model}.npz",
        "groups": {label: _group(rows, args.over, args.worst) for label, rows in groups.items()},
    }


def markdown(result: dict[str, Any]) -> str:
    head = ("treebank", "sentences", "certified", f"over {result['over']:g} s", "p99 s", "CPU s", "slowest")
    rows = []
    for tb in result["treebanks"]:
        for label, g in tb["groups"].items():
            slowest = "; ".join(
                f"#{r['sentence']} n={r['n']}: {r['seconds']:.2f} s, {r['nodes']} node{'s' * (r['nodes'] != 1)}"
                for r in g["slowest"]
            )
            rows.append(
                [
                    f"{tb['language']} ({tb['file']}), {label}", g["sentences"], f"{g['certified']}/{g['sentences']}",
                    g["over"], g["p99"], g["seconds"], slowest,
                ]
            )
    models = "\n".join(f"- {tb['language']}: {tb['model']}" for tb in result["treebanks"])
    note = (
        "One core, features included, each sentence timed alone in CPU seconds, exact decoding at most "
        f"{result['time_limit']:g} s a sentence, every arc a candidate. The models were trained on these "
        "sentences: their LPs are easier than unseen text's on average, but the slowest sentences are what the "
        "dev sets miss."
    )
    table = markdown_table(list(head), rows, digits=2)
    return document("Exact decoding's tail beyond the dev sets", result, note, table, models)

def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "exact_tail")
    parser.add_argument("--model", default="2", help="model suffix: <treebank>-<model>.npz")
    parser.add_argument("--min-n", type=int, default=45, help="decode every sentence of this many tokens or more")
    parser.add_argument("--sample", type=int, default=300, help="and this many shorter ones at random")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds a sentence")
    parser.add_argument("--over", type=float, default=5.0, help="count the sentences slower than this (s)")
    parser.add_argument("--worst", type=int, default=3, help="list this many slowest sentences per group")
    add_combine(parser)
    args = parser.parse_args()
    if args.treebanks is None:  # the train files: the text the dev sets' claims were not measured on
        args.treebanks = sorted(args.shared.glob("*/*train*.conll*"))
    run_treebanks("exact_tail.py", args, run_treebank, markdown, {"time_limit": args.time_limit, "over": args.over})


if __name__ == "__main__":
    main()
