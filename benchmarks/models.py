"""Benchmark: trained models on the treebanks: dev UAS against the paper, training speed, triple-scoring
cost, and bound slack per grandparent template.

Reads the model files written by ``benchmarks/train_treebanks.sh`` (``{treebank}-{order}.npz`` in
``--models``). For each treebank it reports the dev UAS without punctuation of the first-order and the
grandparent model (best epoch, the decoder of :func:`lpparse.parsing.default_decoder`) next to the
test UAS of Riedel et al. (2012, Table 1), the seconds per epoch and
sentences/s of training, and for the grandparent model on the first ``--sentences`` dev sentences:

* the cost of scoring one triple (a batch of all candidate triples of a sentence, time / triples);
* dev UAS with non-projective decoding: BP beliefs (4 iterations, TREE factor, the marginals the model was
  trained with) and MBR decoding by Chu-Liu-Edmonds (decoder ``bp``, ``projective=False``);
* bound slack per template t, the mean over pairs of B_t − max s_t, where B_t is the table bound of eq. 13
  and the max runs over the sentence's tokens (s̄(·, p, c): over g; s̄(g, p, ·): over c), and the same for
  the summed bounds of eq. 12 that parse-price-cut uses.

Writes ``benchmarks/results/models.json`` and ``.md``.

    python benchmarks/models.py --models models --treebanks ../shared/treebanks
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from lpparse.corpus import read_treebank
from lpparse.io import relative_paths
from lpparse.parsing import evaluate
from lpparse.scoring import Model
from lpparse.scoring.bounds import sentence_bounds
from lpparse.table import markdown_table
from lpparse.trees import allowed_arcs
from lpparse.triples import candidate_triples

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
TREEBANKS = {
    "da_ddt": ("Danish", "da_ddt/ddt-cdt-dev.conll", 0.88),
    "it_partut": ("Italian", "it_partut/it_partut-ud-dev.conllu", 0.88),
    "hu_szeged": ("Hungarian", "hu_szeged/hu_szeged-ud-dev.conllu", 0.81),
    "en_ewt": ("English", "en_ewt/en_ewt-ud-dev.conllu", None),
}


def slack_and_cost(model: Model, sentences: list) -> dict:
    """Triple-scoring cost and bound slack (per template and summed) over ``sentences``."""
    per_gp = {tpl.name(): [] for tpl in model.templates}
    per_pc = {tpl.name(): [] for tpl in model.templates}
    total_gp, total_pc = [], []
    seconds = triples = 0
    tables = model.bounds()
    for s in sentences:
        scorer = model.scorer(s)
        ts = scorer.triples()
        g, p, c = candidate_triples(allowed_arcs(scorer.arc_scores()))
        start = time.perf_counter()
        ts.score(g, p, c)
        seconds += time.perf_counter() - start
        triples += g.size
        slots = ts.slots(g, p, c)
        size = s.n + 1
        for t, tpl in enumerate(model.templates):
            cube = np.full((size,) * 3, -np.inf)
            cube[g, p, c] = model.weights[slots[t]]
            b_gp, b_pc = sentence_bounds([tables[t]], [tpl], ts.ids)
            for bound, best, out in ((b_gp, cube.max(axis=2), per_gp), (b_pc, cube.max(axis=0), per_pc)):
                ok = np.isfinite(best)
                out[tpl.name()].extend((bound[ok] - best[ok]).tolist())
        cube = np.full((size,) * 3, -np.inf)
        cube[g, p, c] = model.weights[slots].sum(axis=0)
        for bound, best, out in (
            (ts.bound_gp(), cube.max(axis=2), total_gp),
            (ts.bound_pc(), cube.max(axis=0), total_pc),
        ):
            ok = np.isfinite(best)
            out.extend((bound[ok] - best[ok]).tolist())
    return {
        "triples_scored": int(triples),
        "microseconds_per_triple": 1e6 * seconds / max(triples, 1),
        "slack_gp": {k: float(np.mean(v)) for k, v in per_gp.items()},
        "slack_pc": {k: float(np.mean(v)) for k, v in per_pc.items()},
        "slack_gp_total": float(np.mean(total_gp)),
        "slack_pc_total": float(np.mean(total_pc)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--models", type=Path, default=Path("models"), help="folder of {treebank}-{order}.npz"
    )
    parser.add_argument("--treebanks", type=Path, default=Path("../shared/treebanks"))
    parser.add_argument("--sentences", type=int, default=50, help="dev sentences for cost and slack")
    parser.add_argument(
        "--dev-limit", type=int, default=1000, help="dev sentences for non-projective BP and PPC decoding"
    )
    args = parser.parse_args()
    records = []
    for name, (language, dev_path, paper) in TREEBANKS.items():
        for order in (1, 2):
            path = args.models / f"{name}-{order}.npz"
            if not path.is_file():
                continue
            model = Model.load(path)
            summary = model.training["summary"]
            config = model.training["config"]
            record = {
                "treebank": name,
                "language": language,
                "order": order,
                "trainer": config["trainer"]
                + ("+" + config["gp_marginals"] if order == 2 and config["trainer"] == "cll" else ""),
                "single_root": model.single_root,
                "train_limit": model.training.get("limit"),
                "max_length": config["max_length"],
                "epochs_run": summary["epochs"],
                "best_epoch": model.training["best_epoch"],
                "dev_uas_no_punct": summary["best_dev_uas_no_punct"],
                "paper_test_uas": paper,
                "seconds_per_epoch": summary["seconds_per_epoch"],
                "sentences_per_second": summary["sentences_per_second"],
                "decoder": model.training["decoder"],
                "nonzero_weights": int(np.count_nonzero(model.weights)),
                "model_mb": path.stat().st_size / 1e6,
                "command": model.training.get("command")
                or (
                    f"lpparse train --treebank {model.training['treebank']} --dev {model.training['dev']} "
                    f"--order {order} --epochs {config['epochs']} --patience {config['patience']} "
                    + ("--single-root" if model.single_root else "--multi-root")
                    + (f" --limit {model.training['limit']}" if model.training.get("limit") else "")
                ),
            }
            dev = read_treebank(args.treebanks / dev_path, limit=args.dev_limit)
            if order == 1:
                record["dev_uas_no_punct_cle_subset"] = evaluate(model, dev, "cle").uas_no_punct
            if order == 2:
                uas = evaluate(model, dev, "bp", projective=False)
                record["dev_uas_no_punct_bp_nonprojective"] = uas.uas_no_punct
                record["dev_sentences_bp"] = len(dev)
                record["dev_uas_no_punct_ppc"] = evaluate(model, dev, "ppc").uas_no_punct
                record.update(slack_and_cost(model, dev[: args.sentences]))
            records.append(record)
            print(json.dumps({k: v for k, v in record.items() if not k.startswith("slack_")}))
    RESULTS.mkdir(exist_ok=True)
    meta = {
        "machine": platform.platform(),
        "processor": platform.processor(),
        "sentences": args.sentences,
        "dev_limit": args.dev_limit,
    }
    text = json.dumps({"meta": meta, "records": records}, indent=1)
    (RESULTS / "models.json").write_text(relative_paths(text, REPO))
    (RESULTS / "models.md").write_text(relative_paths(report(records, meta), REPO))


def report(records: list[dict], meta: dict) -> str:
    pct = lambda x: 100 * x if x is not None else float("nan")
    rows = [
        [
            r["language"],
            r["treebank"],
            r["order"],
            r["trainer"],
            "single" if r["single_root"] else "multi",
            r["train_limit"] or "all",
            f"{r['best_epoch']}/{r['epochs_run']}",
            r["decoder"],
            pct(r["dev_uas_no_punct"]),
            pct(r.get("dev_uas_no_punct_bp_nonprojective")),
            pct(r.get("dev_uas_no_punct_ppc", r.get("dev_uas_no_punct_cle_subset"))),
            pct(r["paper_test_uas"]),
            r["seconds_per_epoch"],
            r["sentences_per_second"],
        ]
        for r in records
    ]
    out = [
        "# Trained models: dev UAS, training speed, triple-scoring cost, bound slack",
        "",
        "Written by `benchmarks/models.py`; models trained by `benchmarks/train_treebanks.sh` (commands there).",
        "Dev UAS excludes punctuation. The paper's figures are test UAS on other data versions (CoNLL-X Danish,",
        "CoNLL-2007 Italian and Hungarian), so compare the shape, not the digits. `decoder` is the decoder used",
        "for early stopping on the whole dev set (gp-eisner: projective); `bp non-proj` decodes grandparent models",
        "non-projectively (BP beliefs, 4 iterations, then MBR) and `ppc non-proj` by the exact grandparent LP",
        "(parse-price-cut, preset all; a fractional optimum rounded by Chu-Liu-Edmonds on its arc values), both",
        f"on the first {meta['dev_limit']} dev sentences.",
        "",
        markdown_table(
            [
                "language",
                "treebank",
                "order",
                "trainer",
                "roots",
                "train sents",
                "best/epochs",
                "decoder",
                "dev UAS %",
                "dev UAS % bp non-proj",
                "dev UAS % exact non-proj (cle / ppc)",
                "paper test UAS %",
                "s/epoch",
                "sent/s",
            ],
            rows,
            digits=2,
        ),
        "",
        f"## Grandparent models on the first {meta['sentences']} dev sentences",
        "",
        "Cost of scoring one triple (a batch of all candidate triples), and mean bound slack (bound − true max over",
        "the sentence) of the summed bounds of eq. 12.",
        "",
    ]
    gp = [r for r in records if r["order"] == 2]
    out.append(
        markdown_table(
            ["treebank", "triples", "µs/triple", "slack s̄(g,p,·)", "slack s̄(·,p,c)"],
            [
                [
                    r["treebank"],
                    r["triples_scored"],
                    r["microseconds_per_triple"],
                    r["slack_gp_total"],
                    r["slack_pc_total"],
                ]
                for r in gp
            ],
            digits=3,
        )
    )
    for r in gp:
        out += ["", f"### Slack per template, {r['treebank']}", ""]
        out.append(
            markdown_table(
                ["template", "slack s̄_t(g,p,·)", "slack s̄_t(·,p,c)"],
                [[k, r["slack_gp"][k], r["slack_pc"][k]] for k in r["slack_gp"]],
                digits=4,
            )
        )
    out += ["", "## Commands", "", "```"]
    out += [
        r["command"] or f"# {r['treebank']}-{r['order']}: see benchmarks/train_treebanks.sh" for r in records
    ]
    out += ["python benchmarks/models.py --models models --treebanks ../shared/treebanks", "```"]
    out += ["", f"Machine: {meta['machine']} ({meta['processor']}); 2 cores shared with other jobs.", ""]
    return "\n".join(out)


if __name__ == "__main__":
    main()
