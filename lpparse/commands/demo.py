"""``lpparse demo``: every first-order oracle on the shipped treebank, side by side."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.commands._common import noisy_treebank, noisy_treebank_options
from lpparse.corpus import UAS, Sentence, sentence_uas
from lpparse.experiments.grandparent_tables import EXPERIMENTS, ScoreSource, summarize
from lpparse.experiments.runner import Task, run_tasks
from lpparse.io import UsageError, output_path
from lpparse.options import Command, Option, positive_int
from lpparse.oracles import (
    arc_marginals,
    brute_force,
    chu_liu_edmonds,
    eisner,
    projective_marginals,
)
from lpparse.parsing import evaluate
from lpparse.scoring import Model
from lpparse.scoring.features import Vocabulary
from lpparse.table import markdown_table
from lpparse.training import TrainConfig, train
from lpparse.trees import tree_score

Decoder = Callable[[NDArray[np.float64], bool], NDArray[np.int64]]

BRUTE_FORCE_MAX_N = 7


def _mbr(marginals: Callable[..., NDArray[np.float64]], decode: Decoder) -> Decoder:
    """Minimum-Bayes-risk decoding: the tree of maximum expected recall under the model's arc marginals."""

    def run(scores: NDArray[np.float64], single_root: bool) -> NDArray[np.int64]:
        mu = marginals(scores, single_root=single_root)
        with np.errstate(divide="ignore"):
            return decode(np.where(np.isfinite(scores), mu, -np.inf), single_root)

    return run


DECODERS: dict[str, tuple[str, Decoder]] = {
    "chu-liu-edmonds": ("best non-projective tree", lambda s, r: chu_liu_edmonds(s, single_root=r)),
    "eisner": ("best projective tree", lambda s, r: eisner(s, single_root=r)),
    "brute-force": (
        f"enumeration, n <= {BRUTE_FORCE_MAX_N} only",
        lambda s, r: brute_force(s, single_root=r)[0],
    ),
    "matrix-tree MBR": (
        "max expected recall, non-projective marginals",
        _mbr(arc_marginals, lambda s, r: chu_liu_edmonds(s, single_root=r)),
    ),
    "inside-outside MBR": (
        "max expected recall, projective marginals",
        _mbr(projective_marginals, lambda s, r: eisner(s, single_root=r)),
    ),
}


@dataclass
class _Tally:
    sentences: int = 0
    uas: UAS = field(default_factory=lambda: UAS(0, 0, 0, 0))
    objective: float = 0.0
    seconds: float = 0.0
    matches_cle: int = 0


COMMAND = Command(
    "demo",
    help="the showcase: exact oracles, a grandparent model trained in seconds, PPC against brute force",
    description=(
        "Part 1 builds noisy-gold arc scores for each sentence of a treebank (gold arcs plus seeded "
        "Gaussian noise), decodes with every first-order oracle (Chu-Liu-Edmonds, Eisner, brute force on "
        "short sentences, MBR decoding from matrix-tree and inside-outside marginals) and prints UAS, mean "
        "objective and time per sentence. Part 2 trains a small grandparent model (CLL with belief "
        "propagation marginals) on the first sentences, reports held-out UAS, solves the grandparent LP "
        "of every sentence by brute force and by parse-price-cut (Riedel et al. 2012, Table 1) and compares "
        "the outer bounds (Table 2) on the shorter ones, then writes a report with plots to --out."
    ),
    options=(
        *noisy_treebank_options(),
        Option("--out", type=Path, default=Path("lpparse-demo"), help="report folder (default lpparse-demo)"),
        Option(
            "--train",
            type=positive_int,
            default=35,
            help="sentences to train the grandparent model on (default 35)",
        ),
        Option("--epochs", type=positive_int, default=3, help="training epochs (default 3)"),
        Option(
            "--bounds-max-length",
            type=positive_int,
            default=15,
            help="Table 2 on sentences up to this length",
        ),
        Option("--oracles-only", action="store_true", help="stop after part 1"),
        Option("--no-progress", action="store_true", help="hide the progress bars"),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def run(args: argparse.Namespace) -> int:
    if not args.oracles_only:
        output_path(args.out / "report.md", "--out")
    path, scored = noisy_treebank(args)
    sentences = [s for s, _ in scored]
    if not args.oracles_only and args.train >= len(sentences):
        raise UsageError(f"--train must leave held-out sentences: {args.train} >= {len(sentences)} selected")
    tallies = {name: _Tally() for name in DECODERS}
    for sentence, scores in tqdm(scored, desc="decoding", unit="sent", disable=args.no_progress):
        best = chu_liu_edmonds(scores, single_root=args.single_root)
        for name, (_, decode) in DECODERS.items():
            if name == "brute-force" and sentence.n > BRUTE_FORCE_MAX_N:
                continue
            start = time.perf_counter()
            heads = decode(scores, args.single_root)
            elapsed = time.perf_counter() - start
            tally = tallies[name]
            tally.sentences += 1
            tally.seconds += elapsed
            tally.uas = tally.uas + sentence_uas(sentence, heads)
            tally.objective += tree_score(scores, heads)
            tally.matches_cle += bool(np.array_equal(heads, best))
    rows = [
        [
            name,
            description,
            t.sentences,
            100 * t.uas.uas,
            100 * t.uas.uas_no_punct,
            t.objective / t.sentences,
            1000 * t.seconds / t.sentences,
            f"{t.matches_cle}/{t.sentences}",
        ]
        for name, (description, _) in DECODERS.items()
        if (t := tallies[name]).sentences
    ]
    roots = "single-root" if args.single_root else "multi-root"
    print(
        f"{path.name}: {len(sentences)} sentences, {sum(s.n for s in sentences)} tokens; "
        f"noisy-gold scores (noise {args.noise}, seed {args.seed}); {roots} trees\n"
    )
    headers = [
        "oracle",
        "what it decodes",
        "sents",
        "UAS %",
        "UAS % no punct",
        "mean objective",
        "ms/sent",
        "= CLE tree",
    ]
    print(markdown_table(headers, rows, digits=2))
    if not args.oracles_only:
        _showcase(args, path, sentences)
    return 0


def _showcase(args: argparse.Namespace, path: Path, sentences: list[Sentence]) -> None:
    """Part 2: train a grandparent model, Tables 1 and 2 with it, and a report."""
    train_set, held_out = sentences[: args.train], sentences[args.train :]
    single_root = args.single_root
    model = Model(Vocabulary.build(train_set), order=2, bits=18, single_root=single_root)
    start = time.perf_counter()
    train(
        model, train_set, (), TrainConfig(epochs=args.epochs, seed=args.seed, progress=not args.no_progress)
    )
    seconds = time.perf_counter() - start
    model_path = args.out / "model.npz"
    model.save(model_path)
    print(
        f"\ntrained a grandparent model on {len(train_set)} sentences in {seconds:.1f} s "
        f"(CLL, BP marginals, {args.epochs} epochs): held-out UAS, {len(held_out)} sentences"
    )
    rows = []
    for decoder in ("gp-eisner", "ppc", "bp"):
        uas = evaluate(model, held_out, decoder)
        rows.append([decoder, 100 * uas.uas, 100 * uas.uas_no_punct])
    print(markdown_table(["decoder", "UAS %", "UAS % no punct"], rows, digits=2))
    source = ScoreSource(model=str(model_path))
    results = []
    for name, members in (
        ("ppc", sentences),
        ("bounds", [s for s in sentences if s.n <= args.bounds_max_length]),
    ):
        out = args.out / f"{name}.jsonl"
        out.unlink(missing_ok=True)
        tasks = [
            Task(f"{i}:{s.sent_id}", {"sentence": s, "source": source, "seed": i, "single_root": single_root})
            for i, s in enumerate(members)
        ]
        records = run_tasks(EXPERIMENTS[name], tasks, out, progress=not args.no_progress, desc=name)
        table = summarize(name, records)
        headers = list(table[0])
        title = "Table 1: parse-price-cut against brute force" if name == "ppc" else "Table 2: outer bounds"
        print(f"\n{title}, {len(records)} sentences of {path.name}, trained model\n")
        print(markdown_table(headers, [[r[h] for h in headers] for r in table], digits=3))
        results.append(out)
    from lpparse.experiments.report import write_report  # matplotlib is imported only when reporting

    report = write_report(results, args.out / "report.md")
    print(f"\nwrote {report} with plots; model and per-sentence results in {args.out}/")
