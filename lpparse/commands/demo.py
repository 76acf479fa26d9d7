"""``lpparse demo``: every first-order oracle on the shipped treebank, side by side."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.commands._common import add_noisy_treebank_options, noisy_treebank
from lpparse.corpus import UAS, sentence_uas
from lpparse.oracles import (
    arc_marginals,
    brute_force,
    chu_liu_edmonds,
    eisner,
    projective_marginals,
)
from lpparse.table import markdown_table
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
    "brute-force": (f"enumeration, n <= {BRUTE_FORCE_MAX_N} only", lambda s, r: brute_force(s, single_root=r)[0]),
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


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="decode the shipped sample treebank with every exact oracle and compare them",
        description=(
            "Builds arc scores for each sentence of a treebank (gold arcs plus seeded Gaussian noise, "
            "the stand-in for a trained model), decodes with every first-order oracle (Chu-Liu-Edmonds, "
            "Eisner, brute force on short sentences, and MBR decoding from matrix-tree and inside-outside "
            "marginals), and prints UAS, mean objective and time per sentence."
        ),
    )
    add_noisy_treebank_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path, scored = noisy_treebank(args)
    sentences = [s for s, _ in scored]
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
    headers = ["oracle", "what it decodes", "sents", "UAS %", "UAS % no punct", "mean objective", "ms/sent", "= CLE tree"]
    print(markdown_table(headers, rows, digits=2))
    return 0
