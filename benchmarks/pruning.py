"""Arc pruning before second-order LP decoding: speed, accuracy and agreement with the unpruned LP.

For each dev set, the grandparent + sibling model (``<models>/<treebank>-2s.npz``, else the grandparent model
``-2``) decodes the same sentences (the first ``--limit`` of at most ``--max-n`` tokens) with the ``auto``
decoder (BF below 2,000 candidate parts, else PPC) in three settings: unpruned; pruned by the model's own arc
posteriors; pruned by the first-order model's (``-1``), TurboParser's setting (:mod:`lpparse.pruning`,
threshold 10⁻⁴, at most 10 heads per word). Each row: tokens/s with feature extraction (and the pruner's
features), the speed-up over unpruned, dev UAS without punctuation, the share of candidate arcs and of gold
arcs kept, sentences whose tree equals the unpruned one, fractional LP optima, and a check that cannot hide
a bug: the pruned LP bound never exceeds the unpruned one (pruning only removes trees).

Writes ``benchmarks/results/<out>.{json,md}`` (default ``pruning``). Run on one core:
``taskset -c 1 python benchmarks/pruning.py --models ../models``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from ppc import LANGUAGE, MULTI_ROOT, commands_line, dev_files, run_header, treebank_parser, write_results

from lpparse.corpus import Sentence, corpus_uas, read_treebank
from lpparse.decoder import DecodeResult
from lpparse.parsing import decode_sentence
from lpparse.pruning import ArcPruning, gold_recall
from lpparse.scoring.model import Model
from lpparse.table import markdown_table

#: (label, decoder, posteriors: None = no pruning, "own" = the decoded model's arc scores, "first" = the -1 model)
SETTINGS = (
    ("unpruned", "auto", None),
    ("own posteriors", "auto", "own"),
    ("first-order pruner", "auto", "first"),
    ("first-order pruner, exact", "exact", "first"),
)
TABLE = (
    "treebank",
    "model",
    "pruning",
    "sentences",
    "tokens/s",
    "speed-up",
    "UAS no punct",
    "arcs kept",
    "gold arcs kept",
    "same tree",
    "fractional",
    "certified optimal tree",
    "LP bound <= unpruned",
)


def _load(models: Path, stem: str) -> Model | None:
    path = models / f"{stem}.npz"
    return Model.load(path) if path.exists() else None


def decode_all(
    sentences: list[Sentence], model: Model, decoder: str, options: dict[str, Any]
) -> tuple[list[DecodeResult], float]:
    """Each sentence decoded by ``model`` with ``decoder`` and ``options``; the seconds, features included."""
    results, seconds = [], 0.0
    for s in sentences:
        start = time.perf_counter()
        results.append(decode_sentence(model, s, decoder, **options))
        seconds += time.perf_counter() - start
    return results, seconds


def certified_tree(result: DecodeResult) -> bool:
    """Whether the decoded tree is proved optimal: an integral LP optimum, or exact decoding's proof."""
    if result.stats.get("status") is not None:  # the exact decoder
        return bool(result.stats["certified"])
    return bool(result.stats.get("integral", False))


def _bound(result: DecodeResult) -> float:
    return float(result.stats.get("lp_objective", result.objective))


def run_treebank(path: Path, args: Any) -> list[dict[str, Any]]:
    name = path.parent.name
    model_name = f"{name}-2s" if (args.models / f"{name}-2s.npz").exists() else f"{name}-2"
    if args.suffix:
        model_name = f"{name}-{args.suffix}"
    model = _load(args.models, model_name)
    if model is None:
        print(f"{name}: no second-order model in {args.models}, skipped", flush=True)
        return []
    first = _load(args.models, f"{name}-1")
    sentences = [s for s in read_treebank(path) if s.n <= args.max_n][: args.limit]
    tokens = sum(s.n for s in sentences)
    rows: list[dict[str, Any]] = []
    reference: list[DecodeResult] = []
    base_seconds = 1.0
    for setting, decoder, posteriors in SETTINGS:
        if posteriors == "first" and first is None:
            continue
        options: dict[str, Any] = {}
        if posteriors is not None:
            options.update(pruning=ArcPruning(), pruner=first if posteriors == "first" else None)
        if decoder == "exact":
            options["time_limit"] = args.exact_time_limit
        results, seconds = decode_all(sentences, model, decoder, options)
        if posteriors is None:
            reference, base_seconds = results, seconds
        kept = [gold_recall(r.kept_arcs, s.heads) for s, r in zip(sentences, results) if r.kept_arcs is not None]
        rows.append({
            "treebank": name,
            "model": model_name,
            "pruning": setting,
            "sentences": len(sentences),
            "tokens": tokens,
            "seconds": round(seconds, 2),
            "tokens/s": round(tokens / seconds),
            "speed-up": f"{base_seconds / seconds:.2f}x",
            "UAS no punct": f"{100 * corpus_uas(sentences, [r.heads for r in results]).uas_no_punct:.2f}",
            "arcs kept": f"{100 * np.mean([r.stats.get('arcs_kept', 1.0) for r in results]):.1f}%",
            "gold arcs kept": (f"{100 * sum(k for k, _ in kept) / sum(t for _, t in kept):.2f}%" if kept else "100%"),
            "same tree": f"{sum(np.array_equal(r.heads, b.heads) for r, b in zip(results, reference))}/{len(sentences)}",
            "fractional": sum(not r.stats.get("integral", True) for r in results),
            "certified optimal tree": f"{sum(map(certified_tree, results))}/{len(sentences)}",
            "LP bound <= unpruned": f"{sum(_bound(r) <= _bound(b) + 1e-6 for r, b in zip(results, reference))}/{len(sentences)}",
        })
        print(rows[-1], flush=True)
    return rows


def markdown(result: dict[str, Any]) -> str:
    scope = f" (the first {result['limit']})" if result["limit"] else ""
    lines = [
        "# Arc pruning before second-order LP decoding",
        "",
        commands_line(result),
        "",
        *([result["note"], ""] if result.get("note") else []),
        f"Dev sentences of at most {result['max_n']} tokens{scope}, decoder `auto` "
        "(BF below 2,000 candidate parts, else PPC), grandparent + sibling models (`-2s`) where trained. Pruning: "
        "TurboParser's rule, posterior >= 1e-4 and at most 10 heads per word, the best first-order tree kept; "
        "posteriors of the decoded model's own arc scores or of the first-order model (`-1`). Times include "
        "feature extraction, the pruner's too. Pruned decoding is exact and certified for the pruned problem; "
        "'same tree' compares with unpruned decoding, 'LP bound <= unpruned' checks that pruning never raises "
        "the LP optimum. 'Fractional': sentences whose LP optimum is fractional (rounded to a tree by `auto`); "
        "'certified optimal tree': an integral LP optimum, or the exact decoder's proof (branch and bound over "
        "the same LP, `lpparse.exact.search`), within --exact-time-limit seconds per sentence.",
        "",
        markdown_table(TABLE, [[str(row[k]) for k in TABLE] for row in result["rows"]]),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "pruning")
    parser.add_argument("--max-n", type=int, default=10_000, help="longest dev sentence decoded")
    parser.add_argument("--limit", type=int, default=None, help="first LIMIT such dev sentences (default all)")
    parser.add_argument(
        "--exact-time-limit", type=float, default=60.0, help="seconds per sentence for exact decoding"
    )
    parser.add_argument(
        "--suffix", default=None, help="decode with <models>/<treebank>-SUFFIX.npz (default: 2s, else 2)"
    )
    parser.add_argument("--note", default="", help="a sentence on the run's conditions, printed under the command")
    parser.add_argument(
        "--combine", type=Path, nargs="*", default=None, help="write one result from these runs' JSON files"
    )
    args = parser.parse_args()
    if args.combine:
        parts = [json.loads(path.read_text()) for path in args.combine]
        result = {**parts[-1], "commands": [c for p in parts for c in p["commands"]], "note": args.note}
        result["rows"] = [row for p in parts for row in p["rows"]]
        result["max_n"] = "; ".join(
            f"{p['max_n']} ({', '.join(sorted({row['treebank'] for row in p['rows']}))})" for p in parts
        )
        write_results(result, args.out, markdown(result))
        return
    header = run_header("pruning.py")
    rows = [row for path in dev_files(args) for row in run_treebank(path, args)]
    result = {"commands": [header.pop("command")], **header, "note": args.note, "max_n": args.max_n,
              "limit": args.limit, "languages": dict(LANGUAGE), "multi_root": sorted(MULTI_ROOT), "rows": rows}
    write_results(result, args.out, markdown(result))


if __name__ == "__main__":
    main()
