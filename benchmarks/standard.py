"""TurboParser's standard model (arcs + consecutive siblings + grandparents) against the grandparent and the
grandparent + arbitrary-sibling models, all trained alike, on a treebank's dev set.

Models (``benchmarks/train_treebanks.sh``, relaxed training: the averaged perceptron with the second-order LP
as decoder, over the arcs the first-order model ``-1`` keeps): ``<treebank>-2-lp`` (grandparent),
``<treebank>-2s-lp`` (+ arbitrary siblings), ``<treebank>-2c-lp`` (+ consecutive siblings: the standard
model). Three measurements, written to ``benchmarks/results/<out>.{json,md}``:

* **PPC vs BF** for the standard model by sentence-length bucket (``--per-bucket`` random dev sentences, BF up
  to ``--bf-max-n`` tokens), unpruned: speed, parts of each family scored (per family, by name: what
  :func:`lpparse.ppc.solve_lp` counts), objectives equal, certificates, % integral;
* **Dev UAS** (no punctuation) of each model decoded by ``auto`` (the LP, rounded when fractional) and by
  ``exact`` (branch and bound, at most ``--exact-time-limit`` s a sentence) over the pruned arcs, with the
  standard model against each other model by paired bootstrap (:func:`lpparse.evaluation.paired_bootstrap`:
  difference, 95% interval, p), the % of integral LP optima and of trees proved optimal;
* **Throughput**: tokens per second of those decoders over the whole dev set, one core, feature extraction
  included (the pruner's too).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from ppc import LANGUAGE, MULTI_ROOT, dev_files, run_header, sample, treebank_parser, write_results
from pruning import certified_tree

from lpparse.corpus import Sentence, read_treebank, sentence_uas
from lpparse.evaluation import paired_bootstrap
from lpparse.experiments.grandparent_tables import BUCKETS
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import window_parts
from lpparse.parsing import decode_sentence
from lpparse.ppc import PPCResult, solve_lp
from lpparse.pruning import ArcPruning, pruning_mask
from lpparse.scoring import Model
from lpparse.trees import allowed_arcs

#: the models compared, by suffix, with their labels
MODELS = {
    "2-lp": "grandparent",
    "2s-lp": "grandparent + siblings",
    "2c-lp": "standard (+ consecutive)",
    "2f-lp": "full (standard + grand- and tri-siblings)",
}
STANDARD = "2c-lp"


def families(model: Model, sentence: Sentence) -> tuple[np.ndarray, list[Any]]:
    """A sentence's arc scores and the model's part families."""
    scorer = model.scorer(sentence)
    parts: list[Any] = [GrandparentParts(scorer.triples())]
    if model.siblings:
        parts.append(SiblingParts(scorer.siblings()))
    if model.consecutive:  # windows, and third-order parts on them
        parts += window_parts(sentence.n, *scorer.window_scorers())
    return scorer.arc_scores(), parts


def _record(result: PPCResult, seconds: float, unpruned: dict[str, int]) -> dict[str, Any]:
    return {
        "seconds": seconds,
        "objective": result.objective,
        "certified": result.certified,
        "integral": result.integral,
        "counts": {
            name: {"total": c.candidates, "scored": c.scored, "added": c.added, "unpruned": unpruned.get(name)}
            for name, c in result.counts.items()
        },
    }


def unpruned_counts(parts: Sequence[Any], arcs: np.ndarray, single_root: bool) -> dict[str, int]:
    """The 4-index families' candidate parts over every arc of the sentence (pruning or not): what a
    third-order model has to score without either pruning or pricing."""
    arc = allowed_arcs(arcs)
    return {p.name: int(p.count(arc, single_root)) for p in parts if p.arity == 4}


def solve_both(
    sentence: Sentence, model: Model, single_root: bool, bf: bool, pruner: Model | None = None
) -> dict[str, Any]:
    """PPC (and BF) on one sentence, over the arcs ``pruner`` keeps under the model's training pruning."""
    out: dict[str, Any] = {"n": sentence.n}
    for method in ("ppc", "bf") if bf else ("ppc",):
        arcs, parts = families(model, sentence)  # fresh scorers: each method counts its own scoring
        unpruned = unpruned_counts(parts, arcs, single_root)
        if pruner is not None:
            pruning = ArcPruning(**(model.training.get("config", {}).get("pruning") or {}))
            keep = pruning_mask(pruner.scorer(sentence).arc_scores(), pruning, single_root)
            arcs = np.where(keep, arcs, -np.inf)
        start = time.perf_counter()
        result = solve_lp(arcs, parts, method, single_root)
        out[method] = _record(result, time.perf_counter() - start, unpruned)
    return out


def _row(label: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    with_bf = [r for r in records if "bf" in r]
    same = sum(
        abs(r["bf"]["objective"] - r["ppc"]["objective"]) <= 1e-6 * (1 + abs(r["bf"]["objective"]))
        for r in with_bf
    )
    speed = [r["bf"]["seconds"] / r["ppc"]["seconds"] for r in with_bf]
    row: dict[str, Any] = {
        "sentences": label,
        "count": len(records),
        "BF count": len(with_bf),
        "speed rel. BF": (
            f"{sum(r['bf']['seconds'] for r in with_bf) / sum(r['ppc']['seconds'] for r in with_bf):.2f}x"
            if with_bf
            else "-"
        ),
        "median speed-up": f"{statistics.median(speed):.2f}x" if speed else "-",
    }
    for name in records[0]["ppc"]["counts"]:
        total = sum(r["ppc"]["counts"][name]["total"] for r in records)
        for what in ("scored", "added"):
            done = sum(r["ppc"]["counts"][name][what] for r in records)
            row[f"{name} {what}"] = f"{100 * done / total:.2f}%" if total else "-"
        unpruned = sum(r["ppc"]["counts"][name].get("unpruned") or 0 for r in records)
        if unpruned:  # a 4-index family: what was scored of all its parts over every arc of the sentences
            scored = sum(r["ppc"]["counts"][name]["scored"] for r in records)
            row[f"{name} scored of all"] = f"{100 * scored / unpruned:.3f}%"
    row["objective = BF"] = f"{same}/{len(with_bf)}"
    row["certified"] = f"{sum(r['ppc']['certified'] for r in records)}/{len(records)}"
    row["% integral"] = f"{100 * float(np.mean([r['ppc']['integral'] for r in records])):.1f}"
    return row


def table(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = [_row("all", records)]
    for lo, hi in BUCKETS:
        chosen = [r for r in records if lo <= r["n"] <= hi]
        if chosen:
            rows.append(_row(f"{lo}-{hi}" if hi < 10_000 else f"{lo}+", chosen))
    return rows


def dev_runs(
    path: Path, models: Path, limit: int | None, exact_time_limit: float, chosen: Sequence[str] = tuple(MODELS)
) -> dict[str, Any]:
    """Every model decoded by auto and exact over the pruned arcs: UAS, integral, proved, tokens/s; the
    standard model against the others by paired bootstrap."""
    name = path.parent.name
    sentences = read_treebank(path)[:limit]
    pruner = Model.load(models / f"{name}-1.npz")
    runs: dict[str, Any] = {}
    heads: dict[str, list[np.ndarray]] = {}
    tokens = sum(s.n for s in sentences)
    for suffix in chosen:
        file = models / f"{name}-{suffix}.npz"
        if not file.exists():
            continue
        model = Model.load(file)
        pruning = ArcPruning(**(model.training.get("config", {}).get("pruning") or {}))
        for decoder, options in (("auto", {}), ("exact", {"time_limit": exact_time_limit})):
            results, times = [], []
            for s in sentences:
                start = time.perf_counter()
                results.append(decode_sentence(model, s, decoder, pruner=pruner, pruning=pruning, **options))
                times.append(time.perf_counter() - start)
            seconds = sum(times)
            worst = int(np.argmax(times))
            key = f"{suffix}/{decoder}"
            heads[key] = [r.heads for r in results]
            correct = sum(sentence_uas(s, r.heads).correct_no_punct for s, r in zip(sentences, results))
            total = sum(sentence_uas(s, r.heads).total_no_punct for s, r in zip(sentences, results))
            runs[key] = {
                "model": suffix,
                "decoder": decoder,
                "uas": 100 * correct / total,
                "integral": 100 * float(np.mean([bool(r.stats.get("integral", False)) for r in results])),
                "proved": f"{sum(certified_tree(r) for r in results)}/{len(results)}",
                "tokens/s": tokens / seconds,
                "seconds": seconds,
                "worst": f"{times[worst]:.2f} s ({sentences[worst].n} tokens, {sentences[worst].sent_id})",
                "p99 s": float(np.quantile(times, 0.99)),
            }
            print(
                f"{name} {key}: UAS {runs[key]['uas']:.2f}, {runs[key]['tokens/s']:.0f} tokens/s", flush=True
            )
    compared = {}
    for decoder in ("auto", "exact"):
        b = f"{STANDARD}/{decoder}"
        for suffix in MODELS:
            a = f"{suffix}/{decoder}"
            if suffix != STANDARD and a in heads and b in heads:
                compared[f"{STANDARD} - {suffix} ({decoder})"] = paired_bootstrap(
                    sentences, heads[a], heads[b]
                ).__dict__
    return {
        "treebank": name,
        "sentences": len(sentences),
        "tokens": tokens,
        "runs": runs,
        "compared": compared,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [f"## {result['treebank']} ({LANGUAGE.get(result['treebank'], '')})", ""]
    if result.get("ppc"):
        rows = result["ppc"]
        lines += [
            f"{MODELS[result.get('ppc_model', STANDARD)]}, PPC vs BF ({'over pruned arcs' if result.get('ppc_pruned') else 'unpruned'}):",
            "",
            "| " + " | ".join(rows[0]) + " |",
            "|" + "---|" * len(rows[0]),
        ]
        lines += ["| " + " | ".join(str(v) for v in row.values()) + " |" for row in rows]
        lines.append("")
    dev = result.get("dev")
    if dev:
        lines += [
            f"Dev ({dev['sentences']} sentences, {dev['tokens']} tokens), over pruned arcs:",
            "",
            "| model | decoder | UAS (no punct) | % integral LP | proved optimal | tokens/s | worst sentence | p99 |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for run in dev["runs"].values():
            lines.append(
                f"| {MODELS[run['model']]} | {run['decoder']} | {run['uas']:.2f} | {run['integral']:.1f} | {run['proved']} | {run['tokens/s']:.0f} | {run.get('worst', '-')} | {run.get('p99 s', float('nan')):.2f} s |"
            )
        lines += ["", "| standard minus | UAS difference | 95% interval | p |", "|---|---|---|---|"]
        for label, c in dev["compared"].items():
            cells = f"{100 * c['delta']:+.2f} | [{100 * c['low']:+.2f}, {100 * c['high']:+.2f}] | {c['p_value']:.3f}"
            lines.append(f"| {label} | {cells} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = treebank_parser(__doc__, "standard")
    parser.add_argument(
        "--per-bucket", type=int, default=5, help="sentences per length bucket (0: no PPC/BF table)"
    )
    parser.add_argument("--bf-max-n", type=int, default=30, help="longest sentence solved by BF")
    parser.add_argument("--ppc-max-n", type=int, default=60, help="longest sentence sampled")
    parser.add_argument("--dev-limit", type=int, default=None, help="dev sentences decoded (default: all)")
    parser.add_argument("--exact-time-limit", type=float, default=10.0, help="seconds per sentence for exact")
    parser.add_argument("--note", default="", help="a sentence on the run's conditions")
    parser.add_argument("--ppc-model", default=STANDARD, choices=MODELS, help="the model of the PPC vs BF table")
    parser.add_argument(
        "--ppc-pruned", action="store_true", help="the PPC vs BF table over the pruned arcs (default: unpruned)"
    )
    parser.add_argument("--dev-models", nargs="+", default=list(MODELS), choices=MODELS, help="models decoded on dev")
    args = parser.parse_args()
    results = []
    for path in dev_files(args):
        name = path.parent.name
        standard = args.models / f"{name}-{args.ppc_model}.npz"
        if not standard.exists():
            print(f"{name}: no {standard}, skipped", flush=True)
            continue
        model = Model.load(standard)
        single_root = name not in MULTI_ROOT
        sentences = read_treebank(path)
        chosen = sample(sentences, args.per_bucket, args.ppc_max_n, np.random.default_rng(0))
        pruner = Model.load(args.models / f"{name}-1.npz") if args.ppc_pruned else None
        records = [
            solve_both(sentences[i], model, single_root, sentences[i].n <= args.bf_max_n, pruner) for i in chosen
        ]
        results.append(
            {
                "treebank": name,
                "ppc_model": args.ppc_model,
                "ppc_pruned": args.ppc_pruned,
                "ppc": table(records) if records else [],
                "records": records,
                "dev": dev_runs(path, args.models, args.dev_limit, args.exact_time_limit, args.dev_models),
            }
        )
    header = run_header("standard.py")
    title = "# TurboParser's standard model (arcs + consecutive siblings + grandparents), trained alike with the others"
    text = "\n\n".join([title, f"Command: `{header['command']}`", args.note, *(markdown(r) for r in results)])
    write_results({**header, "note": args.note, "treebanks": results}, args.out, text)


if __name__ == "__main__":
    main()
