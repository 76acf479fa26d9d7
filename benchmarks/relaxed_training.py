"""Do sibling parts help? Grandparent and grandparent + sibling models trained alike, decoded as trained.

For each dev set (the whole set, or the first ``--limit`` sentences), over the arcs that the first-order model
(``-1``) keeps at posterior 0.005 (:data:`siblings.TIGHT`; the training sentences' gold arcs were kept too):

* the CLL models (``-2``, ``-2s``; belief-propagation marginals for the sibling model) and the relaxed
  models (``-2-lp``, ``-2s-lp``: the averaged perceptron with the LP as its decoder, :mod:`lpparse.training`)
  decoded by ``auto`` (the LP, a fractional optimum rounded to a tree) and by ``exact`` (the best tree over
  the kept arcs, with a proof; at most ``--exact-time-limit`` s per sentence); the CLL sibling model also by
  ``bp``, as it was trained (:func:`lpparse.parsing.default_decoder_options`);
* per model and decoder: UAS without punctuation, the share of sentences whose LP optimum is fractional,
  tokens/s with features (the pruner's too), trees certified optimal for the pruned problem;
* the sibling model's UAS minus the grandparent model's, each pair trained and decoded alike, with the paired
  bootstrap's 95% interval and p-value (:func:`lpparse.evaluation.paired_bootstrap`);
* the relaxed models' training: epochs run, best epoch, seconds per epoch, LP fractional on how many training
  sentences in the best epoch.

Models come from ``benchmarks/train_treebanks.sh``. Writes ``benchmarks/results/<out>.{json,md}`` (default
``relaxed_training``). Run on one core, a treebank per part (``--treebanks <dev file> --out <part>``), then
merge: ``python benchmarks/relaxed_training.py --combine <part>.json ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ppc import (
    LANGUAGE,
    MULTI_ROOT,
    combine,
    commands_line,
    dev_files,
    run_header,
    treebank_parser,
    write_results,
)
from pruning import certified_tree, decode_all
from siblings import TIGHT

from lpparse.corpus import corpus_uas, read_treebank
from lpparse.evaluation import paired_bootstrap
from lpparse.parsing import default_decoder_options
from lpparse.scoring.model import Model
from lpparse.table import markdown_table

#: (label, model suffix, decoder)
RUNS = (
    ("grandparent, CLL", "2", "auto"),
    ("+ sibling, CLL", "2s", "auto"),
    ("grandparent, CLL, exact", "2", "exact"),
    ("+ sibling, CLL, exact", "2s", "exact"),
    ("+ sibling, CLL, bp", "2s", "bp"),
    ("grandparent, relaxed", "2-lp", "auto"),
    ("+ sibling, relaxed", "2s-lp", "auto"),
    ("grandparent, relaxed, exact", "2-lp", "exact"),
    ("+ sibling, relaxed, exact", "2s-lp", "exact"),
)
#: (label of the comparison, grandparent run, sibling run)
PAIRS = (
    ("CLL, auto", "grandparent, CLL", "+ sibling, CLL"),
    ("CLL, exact", "grandparent, CLL, exact", "+ sibling, CLL, exact"),
    ("CLL, grandparent exact, + sibling bp", "grandparent, CLL, exact", "+ sibling, CLL, bp"),
    ("relaxed, auto", "grandparent, relaxed", "+ sibling, relaxed"),
    ("relaxed, exact", "grandparent, relaxed, exact", "+ sibling, relaxed, exact"),
)
RUN_TABLE = ("treebank", "model, training, decoder", "UAS", "LP fractional", "certified", "tokens/s")
PAIR_TABLE = ("treebank", "trained, decoded", "grandparent", "+ sibling", "difference", "95% interval", "p")
TRAIN_TABLE = (
    "treebank",
    "model",
    "epochs",
    "best epoch",
    "s/epoch",
    "train LP fractional (best epoch)",
    "dev UAS",
)


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    first = Model.load(args.models / f"{name}-1.npz")
    sentences = read_treebank(path)[: args.limit]
    tokens = sum(s.n for s in sentences)
    options = {"pruning": TIGHT, "pruner": first}
    heads: dict[str, list[Any]] = {}
    runs: list[dict[str, Any]] = []
    training: list[dict[str, Any]] = []
    for label, suffix, decoder in RUNS:
        model_path = args.models / f"{name}-{suffix}.npz"
        if not model_path.exists():
            print(f"{name}: no {model_path.name}, skipped", flush=True)
            continue
        model = Model.load(model_path)
        extra = (
            {"time_limit": args.exact_time_limit}
            if decoder == "exact"
            else default_decoder_options(model, decoder)
        )
        results, seconds = decode_all(sentences, model, decoder, {**options, **extra})
        heads[label] = [r.heads for r in results]
        runs.append(
            {
                "treebank": name,
                "run": label,
                "model": model_path.name,
                "decoder": decoder,
                "UAS": round(100 * corpus_uas(sentences, heads[label]).uas_no_punct, 2),
                "fractional": sum(not r.stats.get("integral", True) for r in results),
                "certified": sum(map(certified_tree, results)),
                "sentences": len(sentences),
                "tokens/s": round(tokens / seconds),
            }
        )
        print(runs[-1], flush=True)
        if decoder == "auto" and suffix.endswith("-lp"):
            history = model.training["history"]
            best = model.training["best_epoch"]
            training.append(
                {
                    "treebank": name,
                    "model": model_path.name,
                    "epochs": len(history),
                    "best epoch": best,
                    "s/epoch": round(sum(h["seconds"] for h in history) / len(history), 1),
                    "train LP fractional": f"{history[best - 1]['fractional']}/{history[best - 1]['train_sentences']}",
                    "dev UAS": round(100 * history[best - 1]["dev_uas_no_punct"], 2),
                }
            )
    pairs = []
    for label, a, b in PAIRS:
        if a in heads and b in heads:
            diff = paired_bootstrap(sentences, heads[a], heads[b])
            pairs.append(
                {
                    "treebank": name,
                    "pair": label,
                    "grandparent": round(100 * float(diff.uas_a), 2),
                    "sibling": round(100 * float(diff.uas_b), 2),
                    "delta": round(100 * float(diff.delta), 2),
                    "low": round(100 * diff.low, 2),
                    "high": round(100 * diff.high, 2),
                    "p": diff.p_value,
                }
            )
            print(pairs[-1], flush=True)
    return {
        "treebank": name,
        "sentences": len(sentences),
        "tokens": tokens,
        "runs": runs,
        "pairs": pairs,
        "training": training,
    }


def markdown(result: dict[str, Any]) -> str:
    tables = {"runs": [], "pairs": [], "training": []}
    for tb in result["treebanks"]:
        name = f"{tb['treebank']} ({LANGUAGE.get(tb['treebank'], '?')}, {tb['sentences']} sentences)"
        for r in tb["runs"]:
            frac = f"{100 * r['fractional'] / r['sentences']:.1f}%" if r["decoder"] == "auto" else "-"
            tables["runs"].append(
                [name, r["run"], f"{r['UAS']:.2f}", frac, f"{r['certified']}/{r['sentences']}", r["tokens/s"]]
            )
        for p in tb["pairs"]:
            tables["pairs"].append(
                [
                    name,
                    p["pair"],
                    f"{p['grandparent']:.2f}",
                    f"{p['sibling']:.2f}",
                    f"**{p['delta']:+.2f}**",
                    f"[{p['low']:+.2f}, {p['high']:+.2f}]",
                    f"{p['p']:.3f}",
                ]
            )
        for t in tb["training"]:
            tables["training"].append(
                [
                    name,
                    t["model"],
                    t["epochs"],
                    t["best epoch"],
                    f"{t['s/epoch']:.1f}",
                    t["train LP fractional"],
                    f"{t['dev UAS']:.2f}",
                ]
            )
    scope = (
        f"The first {result['limit']} sentences of each dev set" if result.get("limit") else "Whole dev sets"
    )
    lines = [
        "# Do sibling parts help? Models trained alike, decoded as trained",
        "",
        commands_line(result),
        "",
        *([result["note"], ""] if result.get("note") else []),
        f"Machine: {result['machine']}, Python {result['python']}. {scope} (multi-root: "
        f"{', '.join(sorted(MULTI_ROOT))}). Every second-order model decodes over the arcs that the first-order "
        "model (`-1`) keeps at posterior 0.005 (at most 10 heads per word, the best first-order tree kept). "
        "CLL: conditional log-likelihood (the sibling model with belief-propagation marginals); relaxed: the "
        "averaged perceptron with the second-order LP (`auto`) as its decoder, its optimum fractional or not "
        "in the update, Hamming margin 1, over the same pruned arcs plus the gold ones "
        "(`benchmarks/train_treebanks.sh`). `auto` rounds a fractional LP optimum to a tree; `exact` returns "
        "the best tree over the kept arcs with a proof (at most "
        f"{result['exact_time_limit']:g} s per sentence); `bp`: loopy belief propagation's minimum-Bayes-risk "
        "tree with the TREE factor, iterations and damping of training. UAS without punctuation.",
        "",
        "## Sibling model minus grandparent model (paired bootstrap, 10,000 resamples)",
        "",
        markdown_table(PAIR_TABLE, tables["pairs"]),
        "",
        "## Every model and decoder",
        "",
        "LP fractional: dev sentences whose LP optimum is fractional; certified: trees proved optimal for the "
        "pruned problem (an integral LP optimum, or exact's proof); tokens/s on one core, features included.",
        "",
        markdown_table(RUN_TABLE, tables["runs"]),
        "",
        "## Relaxed training",
        "",
        markdown_table(TRAIN_TABLE, tables["training"]),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "relaxed_training")
    parser.add_argument("--limit", type=int, default=None, help="first LIMIT dev sentences (default all)")
    parser.add_argument("--exact-time-limit", type=float, default=60.0, help="seconds per sentence for exact")
    parser.add_argument("--combine", type=Path, nargs="*", default=None, help="merge these parts' JSON files")
    parser.add_argument("--note", default="", help="a sentence on the runs' conditions, printed under the commands")
    args = parser.parse_args()
    if args.combine:
        result = combine(args.combine, ("machine", "python", "exact_time_limit", "limit"))
    else:
        result = {
            **run_header("relaxed_training.py"),
            "exact_time_limit": args.exact_time_limit,
            "limit": args.limit,
            "treebanks": [run_treebank(p, args) for p in dev_files(args)],
        }
    if args.note:
        result["note"] = args.note
    write_results(result, args.out, markdown(result))


if __name__ == "__main__":
    main()
