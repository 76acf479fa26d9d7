"""``lpparse scores export``: a trained model's scores for every sentence of a treebank, as a score file
(:func:`lpparse.scores.save_scores`), so that ``--model M`` and ``--scores FILE`` can be compared."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.corpus import Sentence, read_treebank
from lpparse.decoder import dense_sibling_scores, dense_triple_scores
from lpparse.families import get_family
from lpparse.families.consecutive.rows import candidate_csibs
from lpparse.io import UsageError, file_digest, output_path, readable_file
from lpparse.options import Command, Option, positive_int
from lpparse.scores import SentenceScores, save_scores
from lpparse.scoring import Model
from lpparse.scoring.model import SentenceScorer
from lpparse.trees import allowed_arcs
from lpparse.workers import SCHEDULER_NOTE, check_scheduler, ordered_map

COMMAND = Command("scores", help="score files: write a trained model's scores (export)", options=())
EXPORT = Command(
    "export",
    help="write a model's arc, grandparent, sibling and consecutive-sibling scores for a treebank as a "
    "score file",
    description=(
        "Scores every sentence of the treebank with the model and writes a score file (one entry per "
        "sentence, in order): arc scores, and the score of every grandparent triple, sibling part and "
        "consecutive-sibling window when the model has them (dense cubes). 'parse', 'solve', 'experiment' "
        "and 'dd' read it with --scores."
    ),
    epilog="Example: lpparse scores export --model gp.npz --treebank dev.conllu --out dev-scores.npz",
    options=(
        Option("--model", type=Path, required=True, help="model file written by 'lpparse train'"),
        Option("--treebank", type=Path, required=True, help="CoNLL-U or CoNLL-X file"),
        Option("--out", type=Path, required=True, help="score file to write (.npz)"),
        Option(
            "--workers",
            type=positive_int,
            default=1,
            help="local worker processes that score sentences (default 1; never more than the cores); the file "
            "is the same, and at most a few sentences per worker wait in memory",
        ),
        Option(
            "--scheduler",
            default=None,
            help=f"address of a Dask scheduler whose workers score instead ({SCHEDULER_NOTE})",
        ),
        Option("--no-progress", action="store_true", help="hide the progress bar"),
        Option("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(COMMAND.name, help=COMMAND.help)
    actions = parser.add_subparsers(title="actions", dest="action", metavar="ACTION", required=True)
    EXPORT.add_to(actions, run_export)


def model_scores(model: Model, sentence: Sentence) -> SentenceScores:
    """A model's scores of one sentence as arrays: arcs, and every grandparent triple's, sibling part's and
    consecutive-sibling window's score (0 where no part can be; windows of either root rule, as siblings)
    and every label's score on every arc when the model has them."""
    scorer = model.scorer(sentence)
    arcs = scorer.arc_scores()
    gp = dense_triple_scores(arcs, scorer.triples()) if model.order == 2 else None
    sib = dense_sibling_scores(arcs, scorer.siblings(), single_root=False) if model.siblings else None
    csib = None
    if model.consecutive:
        windows = candidate_csibs(allowed_arcs(arcs), single_root=False)
        csib = np.zeros((arcs.shape[0],) * 3)
        csib[windows] = scorer.consecutive().score(*windows)
    labels = None if model.labels is None else model.labels.arc_label_scores(model.vocab, sentence)
    return SentenceScores(sentence.sent_id, arcs, gp, sib, csib, labels=labels, more=family_scores(scorer, arcs))


def family_scores(scorer: SentenceScorer, arcs: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
    """The model's scores of the candidate parts of every registered family it has templates of (dense, 0
    where no part can be), by family name."""
    out = {}
    for name, family_scorer in scorer.family_scorers().items():
        family = get_family(name)
        parts = family.make(family_scorer, None).candidates(allowed_arcs(arcs), False)
        out[name] = np.zeros((arcs.shape[0],) * family.arity)
        out[name][parts] = family_scorer.score(*parts)
    return out


#: models loaded by a worker process, by path (a forked worker shares its parent's)
_MODELS: dict[str, Model] = {}


def _score_one(payload: tuple[str, Sentence]) -> SentenceScores:
    path, sentence = payload
    if path not in _MODELS:
        _MODELS[path] = Model.load(path)
    return model_scores(_MODELS[path], sentence)


def run_export(args: argparse.Namespace) -> int:
    model_path = readable_file(args.model, "model")
    treebank = readable_file(args.treebank, "treebank")
    out = output_path(args.out, "--out", (args.model, args.treebank))
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    model = _MODELS.setdefault(str(model_path.resolve()), Model.load(model_path))
    if model.third_order:
        raise UsageError(
            f"{model_path} has third-order parts (grand- or tri-siblings): their scores, O(n^4) per sentence, are "
            "not exported; decode the model itself ('lpparse parse --model')"
        )
    sentences = read_treebank(treebank, gold=False)  # scoring needs no gold tree
    payloads = [(str(model_path.resolve()), s) for s in sentences]
    window = max(4, 2 * args.workers)
    scored = ordered_map(_score_one, payloads, args.workers, window=window, scheduler=args.scheduler)
    bar = tqdm(
        scored, total=len(sentences), desc="scoring", unit="sent", disable=args.no_progress, leave=False
    )
    source = {"model": model_path.name, "model_sha256": file_digest(model_path), "treebank": treebank.name}
    if model.training.get("decoder_options"):  # parse --scores decodes as parse --model does
        source.update(
            decoder=model.training.get("decoder"), decoder_options=model.training["decoder_options"]
        )
    labels = None if model.labels is None else (model.labels.names, model.labels.root_label)
    save_scores(out, bar, source, labels)
    parts = ["arcs"] + ["grandparent"] * (model.order == 2) + ["sibling"] * bool(model.siblings)
    parts += ["consecutive-sibling"] * model.consecutive + [t.name for t in model.families]
    parts += ["label"] * (labels is not None)
    print(f"wrote {out}: {len(sentences)} sentences of {treebank.name}, {', '.join(parts)} scores")
    return 0
