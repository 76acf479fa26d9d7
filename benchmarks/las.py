"""Benchmark: labelled attachment score (LAS) of labelled models on the four dev sets, against a baseline.

For each treebank, the labelled model ``{treebank}{--suffix}.npz`` in ``--models`` (e.g. a first-order model
with a second-stage label model added by ``lpparse train --init M --labels-only``) parses the dev set with
the decoder it was trained with (:func:`lpparse.parsing.default_decoder`, pruned as trained) and labels each
predicted arc (:class:`lpparse.parsing.TreeLabeller`). The baseline labels the *same* predicted trees with
the most frequent training label of each (head UPOS, dependent UPOS, direction), backing off to the
dependent's UPOS and then to the most frequent label; both give the root label exactly to the tokens attached
to 0 (so that both are valid UD, and the comparison is of the labels alone). Reports UAS and LAS (with and
without punctuation), the label accuracy of both labellers on the gold trees, and the paired bootstrap of the
LAS difference model − baseline (no punctuation; :func:`lpparse.evaluation.paired_bootstrap`).

Writes ``benchmarks/results/las.json`` and ``.md``.

    python benchmarks/las.py --models ../models/labelled --treebanks ../shared/treebanks
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from lpparse.corpus import Sentence, corpus_uas, read_treebank
from lpparse.evaluation import paired_bootstrap
from lpparse.io import relative_paths
from lpparse.parsing import TreeLabeller, default_decoder, default_decoder_options, parse
from lpparse.scoring import Model
from lpparse.table import markdown_table

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
TREEBANKS = {
    "da_ddt": ("Danish", "da_ddt/ddt-cdt-train.conll", "da_ddt/ddt-cdt-dev.conll"),
    "it_partut": ("Italian", "it_partut/it_partut-ud-train.conllu", "it_partut/it_partut-ud-dev.conllu"),
    "hu_szeged": ("Hungarian", "hu_szeged/hu_szeged-ud-train.conllu", "hu_szeged/hu_szeged-ud-dev.conllu"),
    "en_ewt": ("English", "en_ewt/en_ewt-ud-train.conllu", "en_ewt/en_ewt-ud-dev.conllu"),
}


class FrequencyBaseline:
    """The most frequent training label per (head UPOS, dependent UPOS, direction), backing off to the
    dependent's UPOS, then to the most frequent label; the root label exactly on head-0 tokens."""

    def __init__(self, sentences: list[Sentence], root: str) -> None:
        self.root = root
        full: dict[tuple[str, str, bool], Counter[str]] = defaultdict(Counter)
        dependent: dict[str, Counter[str]] = defaultdict(Counter)
        overall: Counter[str] = Counter()
        for s in sentences:
            for m in range(1, s.n + 1):
                h, label = int(s.heads[m]), s.labels[m]
                if h == 0 or label in ("_", root):
                    continue
                full[s.cpos[h], s.cpos[m], h < m][label] += 1
                dependent[s.cpos[m]][label] += 1
                overall[label] += 1
        best = lambda counts: max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
        self.full = {key: best(c) for key, c in full.items()}
        self.dependent = {key: best(c) for key, c in dependent.items()}
        self.default = best(overall)

    def __call__(self, s: Sentence, heads: np.ndarray) -> list[str]:
        out = ["<root>"]
        for m in range(1, s.n + 1):
            h = int(heads[m])
            key = (s.cpos[h], s.cpos[m], h < m)
            label = self.full.get(key) or self.dependent.get(s.cpos[m], self.default)
            out.append(self.root if h == 0 else label)
        return out


def label_accuracy(sentences: list[Sentence], labels: list[list[str]]) -> float:
    """The share of tokens whose label is the gold one (on the gold trees)."""
    right = sum(p == g for s, lab in zip(sentences, labels) for p, g in zip(lab[1:], s.labels[1:]))
    return right / sum(s.n for s in sentences)


def measure(name: str, model_path: Path, treebanks: Path, samples: int) -> dict[str, Any]:
    """One treebank's record (module docstring)."""
    language, train_path, dev_path = TREEBANKS[name]
    model = Model.load(model_path)
    if model.labels is None:
        raise SystemExit(f"{model_path} has no label model")
    dev = read_treebank(treebanks / dev_path)
    decoder = default_decoder(model)
    options: dict[str, Any] = dict(default_decoder_options(model, decoder))
    pruning = model.decoding_pruning(None)
    if pruning is not None:
        options.update(pruning=pruning, pruner=model.pruner)
    start = time.perf_counter()
    heads = [r.heads for r in parse(model, dev, decoder, **options)]
    labeller = TreeLabeller(model, dev, range(len(dev)))
    labels = [labeller(s, h) for s, h in zip(dev, heads)]
    seconds = time.perf_counter() - start
    baseline = FrequencyBaseline(read_treebank(treebanks / train_path), model.labels.root_label)
    base_labels = [baseline(s, h) for s, h in zip(dev, heads)]
    ours, base = corpus_uas(dev, heads, labels), corpus_uas(dev, heads, base_labels)
    gold_heads = [s.heads for s in dev]
    difference = paired_bootstrap(dev, heads, heads, samples=samples, labels_a=base_labels, labels_b=labels)
    record = {
        "treebank": name,
        "language": language,
        "model": model_path.name,
        "decoder": decoder,
        "sentences": len(dev),
        "labels": len(model.labels.names),
        "root_label": model.labels.root_label,
        "uas": ours.uas,
        "uas_no_punct": ours.uas_no_punct,
        "las": ours.las,
        "las_no_punct": ours.las_no_punct,
        "baseline_las": base.las,
        "baseline_las_no_punct": base.las_no_punct,
        "label_accuracy_gold_trees": label_accuracy(dev, [labeller(s, h) for s, h in zip(dev, gold_heads)]),
        "baseline_label_accuracy_gold_trees": label_accuracy(
            dev, [baseline(s, h) for s, h in zip(dev, gold_heads)]
        ),
        "las_difference": difference.delta,
        "las_difference_low": difference.low,
        "las_difference_high": difference.high,
        "las_difference_p": difference.p_value,
        "bootstrap_samples": samples,
        "parse_and_label_seconds": seconds,
        "label_training": {k: v for k, v in model.labels.training.items() if k != "history"},
        "label_epochs": [h["dev_accuracy"] for h in model.labels.training.get("history", [])],
        "arc_model_command": model.training.get("command"),
    }
    print(json.dumps({k: v for k, v in record.items() if k not in ("label_training", "label_epochs")}))
    return record


def report(records: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    pct = lambda x: 100 * x
    rows = [
        [
            r["language"],
            r["treebank"],
            r["decoder"],
            r["sentences"],
            r["labels"],
            pct(r["uas_no_punct"]),
            pct(r["las_no_punct"]),
            pct(r["baseline_las_no_punct"]),
            (
                f"{pct(r['las_difference']):+.2f} [{pct(r['las_difference_low']):+.2f}, "
                f"{pct(r['las_difference_high']):+.2f}]"
            ),
            f"{r['las_difference_p']:.4f}",
            pct(r["uas"]),
            pct(r["las"]),
            pct(r["baseline_las"]),
            pct(r["label_accuracy_gold_trees"]),
            pct(r["baseline_label_accuracy_gold_trees"]),
        ]
        for r in records
    ]
    headers = [
        "language",
        "treebank",
        "decoder",
        "dev sents",
        "labels",
        "UAS % no punct",
        "LAS % no punct",
        "baseline LAS % no punct",
        "LAS model - baseline [95% CI]",
        "p",
        "UAS %",
        "LAS %",
        "baseline LAS %",
        "label acc. % gold trees",
        "baseline label acc. % gold trees",
    ]
    intro = (
        "Written by `benchmarks/las.py`. Each labelled model parses the whole dev set with the\n"
        "decoder it was trained with and labels each predicted arc with its best label given the head\n"
        "(second-stage label model: `lpparse.scoring.labels`); the baseline labels the *same* trees\n"
        "with the most frequent training label of (head UPOS, dependent UPOS, direction), backing off\n"
        "to the dependent's UPOS, then to the most frequent label. Both put the root label exactly on\n"
        "the tokens attached to 0. LAS compares whole labels (subtypes included). The difference is\n"
        f"model - baseline LAS without punctuation, with the 95% percentile interval of {meta['samples']}\n"
        "paired bootstrap resamples of the sentences and the one-sided p-value of 'the model is no\n"
        "better'. `label acc. gold trees`: the labels of the gold trees (the labellers alone)."
    )
    title = "# Labelled parsing: dev LAS beside UAS, against a frequency baseline"
    table = markdown_table(headers, rows, digits=2)
    return "\n".join([title, "", intro, "", table, "", "## Models", "", meta["models_note"], ""])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--models", type=Path, default=Path("../models/labelled"), help="folder of the models"
    )
    parser.add_argument(
        "--suffix", default="-1L", help="model files are {treebank}{suffix}.npz (default -1L)"
    )
    parser.add_argument("--treebanks", type=Path, default=Path("../shared/treebanks"))
    parser.add_argument("--samples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--note", default="", help="how the models were trained (written under ## Models)")
    args = parser.parse_args()
    records = [
        measure(name, args.models / f"{name}{args.suffix}.npz", args.treebanks, args.samples)
        for name in TREEBANKS
        if (args.models / f"{name}{args.suffix}.npz").is_file()
    ]
    meta = {
        "machine": platform.platform(),
        "processor": platform.processor(),
        "samples": args.samples,
        "models": str(args.models.resolve()),
        "models_note": args.note,
    }
    RESULTS.mkdir(exist_ok=True)
    text = json.dumps({"meta": meta, "records": records}, indent=1)
    (RESULTS / "las.json").write_text(relative_paths(text, REPO))
    (RESULTS / "las.md").write_text(relative_paths(report(records, meta), REPO))


if __name__ == "__main__":
    main()
