"""Exact decoding of grandparent + sibling models over pruned arcs, against ``auto`` on the same arcs.

For each dev set, the model ``<models>/<treebank>-<model>.npz`` (default ``2s-lp``: grandparent + arbitrary
siblings, trained with the LP as decoder over arcs pruned by ``<treebank>-1``) decodes every sentence, one core,
features included, over the arcs its training pruning keeps (the first-order model ``<treebank>-1``'s
posteriors, as ``lpparse parse`` does with ``--pruner``), by ``auto`` and by ``exact`` under each branching rule
of ``--branching`` with ``--time-limit`` seconds a sentence. Each sentence is timed alone (loading apart), in
CPU seconds, the decoders taking turns sentence by sentence; reported: tokens per second, exact's throughput
relative to ``auto``'s, the trees proved optimal (an integral LP optimum for ``auto``; exact decoding's
proof), the sentences that branch and their share of the time, and the slowest sentence. Writes ``benchmarks/results/<out>.{json,md}`` (default ``exact_siblings``). Run on one
core, a dev set per part (``--treebanks <dev file> --out <part>``), then ``--combine <part>.json ...``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from ppc import LANGUAGE, add_combine, document, run_treebanks, treebank_parser
from pruning import certified_tree

from lpparse.corpus import read_treebank
from lpparse.exact.search import BRANCHING
from lpparse.parsing import decode_sentence
from lpparse.pruning import ArcPruning
from lpparse.scoring.model import Model
from lpparse.table import markdown_table


def _decode(
    model: Model,
    pruner: Model,
    pruning: ArcPruning,
    sentences: list[Any],
    runs: dict[str, tuple[str, dict[str, Any]]],
) -> dict[str, list[tuple[float, bool, int | None]]]:
    """Per run label (decoder, options), per sentence: (CPU seconds, proved, nodes or None). The runs take
    turns sentence by sentence, so that a slower spell of a shared machine falls on all of them alike."""
    rows: dict[str, list[tuple[float, bool, int | None]]] = {label: [] for label in runs}
    for sentence in sentences:
        for label, (decoder, options) in runs.items():
            start = time.process_time()
            result = decode_sentence(model, sentence, decoder, pruner=pruner, pruning=pruning, **options)
            rows[label].append((time.process_time() - start, certified_tree(result), result.stats.get("nodes")))
    return rows


def _summary(rows: list[tuple[float, bool, int | None]], tokens: int, lengths: list[int]) -> dict[str, Any]:
    seconds = [r[0] for r in rows]
    worst = int(np.argmax(seconds))
    branching = [r[0] for r in rows if r[2] is not None and r[2] > 1]
    return {
        "seconds": sum(seconds),
        "tokens_per_second": tokens / sum(seconds),
        "proved": sum(r[1] for r in rows),
        "branching_sentences": len(branching),
        "branching_seconds": sum(branching),
        "worst": {"sentence": worst, "n": lengths[worst], "seconds": seconds[worst]},
    }


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    sentences = read_treebank(path)
    tokens = sum(s.n for s in sentences)
    lengths = [s.n for s in sentences]
    model = Model.load(args.models / f"{name}-{args.model}.npz")
    pruner = Model.load(args.models / f"{name}-1.npz")
    pruning = ArcPruning(**((model.training or {}).get("config", {}).get("pruning") or {}))
    plan = {"auto": ("auto", {})} | {
        f"exact {rule}": ("exact", {"time_limit": args.time_limit, "branching": rule}) for rule in args.branching
    }
    if args.implied_rows:  # the ablation: brute force with the rows that others imply, as before
        rule = args.branching[0]
        plan[f"exact {rule}, implied rows"] = (
            "exact", {"time_limit": args.time_limit, "branching": rule, "implied_rows": True}
        )
    rows = _decode(model, pruner, pruning, sentences, plan)
    runs = {label: _summary(rows[label], tokens, lengths) for label in plan}
    return {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "model": f"{name}-{args.model}.npz",
        "pruning": {"threshold": pruning.threshold, "max_heads": pruning.max_heads},
        "sentences": len(sentences),
        "tokens": tokens,
        "runs": runs,
    }


def markdown(result: dict[str, Any]) -> str:
    head = (
        "dev set", "decoder", "tokens/s", "rel. auto", "proved", "branching sentences (s)", "slowest sentence",
    )
    rows = []
    for tb in result["treebanks"]:
        auto = tb["runs"]["auto"]["tokens_per_second"]
        for decoder, run in tb["runs"].items():
            worst = run["worst"]
            rows.append(
                [
                    tb["language"], decoder, run["tokens_per_second"], run["tokens_per_second"] / auto,
                    f"{run['proved']}/{tb['sentences']}",
                    f"{run['branching_sentences']} ({run['branching_seconds']:.1f})" if decoder != "auto" else "-",
                    f"#{worst['sentence']} n={worst['n']}: {worst['seconds']:.2f} s",
                ]
            )
    models = "\n".join(
        f"- {tb['language']}: {tb['model']}, arcs pruned at posterior {tb['pruning']['threshold']} "
        f"(at most {tb['pruning']['max_heads']} heads)"
        for tb in result["treebanks"]
    )
    note = (
        "One core, features included, each sentence timed alone in CPU seconds (the decoders take turns sentence "
        f"by sentence); exact decoding at most {result['time_limit']} s a sentence. Proved: an integral LP "
        "optimum (`auto`) or exact decoding's proof."
    )
    title = "Exact decoding of grandparent + sibling models against `auto`, over the same pruned arcs"
    return document(title, result, note, markdown_table(list(head), rows, digits=2), models)

def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "exact_siblings")
    parser.add_argument("--model", default="2s-lp", help="model suffix: <treebank>-<model>.npz")
    parser.add_argument("--branching", nargs="+", choices=BRANCHING, default=["arc", "pseudocost"])
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds a sentence for exact decoding")
    parser.add_argument(
        "--implied-rows",
        action="store_true",
        help="also run exact decoding (first branching rule) whose brute force keeps the rows that other rows "
        "imply (ColgenOptions.implied_rows), taking turns with the others",
    )
    add_combine(parser)
    args = parser.parse_args()
    run_treebanks("exact_siblings.py", args, run_treebank, markdown, {"time_limit": args.time_limit})


if __name__ == "__main__":
    main()
