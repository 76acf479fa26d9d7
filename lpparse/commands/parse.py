"""``lpparse parse``: parse a treebank with a trained model and write the predicted heads."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from lpparse.corpus import corpus_uas, read_treebank, write_treebank
from lpparse.decoding import decoder_names
from lpparse.models import Model
from lpparse.models.model import BOUNDS
from lpparse.models.parsing import default_decoder, parse
from lpparse.ppc.decoder import lp_summary


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "parse",
        help="parse a treebank with a trained model (lpparse train) and write CoNLL",
        description=(
            "Scores every sentence with the model and decodes it with a registered decoder. Writes the "
            "treebank back with predicted heads (every other column kept) and prints UAS against the input's "
            f"heads. Decoders: {', '.join(decoder_names())} (second-order decoders need a grandparent model; bf and bp "
            "also use the sibling parts of a model trained with --siblings)."
        ),
        epilog="Example: lpparse parse --model gp.npz --treebank dev.conllu --out pred.conllu --decoder gp-eisner",
    )
    parser.add_argument("--model", type=Path, required=True, help="model file written by 'lpparse train'")
    parser.add_argument("--treebank", type=Path, required=True, help="input treebank (CoNLL-U or CoNLL-X)")
    parser.add_argument("--out", type=Path, default=None, help="output file (omit to only print UAS)")
    parser.add_argument(
        "--decoder",
        default=None,
        help="decoder name (default: bp for models with siblings, gp-eisner for grandparent, cle for "
        "first-order models)",
    )
    parser.add_argument(
        "--bp-iters", type=int, default=None, metavar="K", help="bp decoder: BP iterations (default 4)"
    )
    parser.add_argument(
        "--preset",
        choices=("martins", "onegp", "all"),
        default=None,
        help="ppc, bf and exact decoders: grandparent constraint families (default all)",
    )
    parser.add_argument(
        "--sibling-preset",
        choices=("martins", "all"),
        default=None,
        help="bf decoder on a model with siblings: sibling constraint families (default martins: ArcSib, "
        "SibArc; all adds SibClique)",
    )
    parser.add_argument(
        "--bounds",
        choices=BOUNDS,
        default=None,
        help="ppc decoder: factorized triple bounds from the sentence's own values (default) or the model's "
        "offline tables (RSM 2012 eq. 13)",
    )
    parser.add_argument(
        "--lazy-arcgp",
        action="store_true",
        help="ppc decoder: add a triple's ArcGP row only once the LP violates it (row generation)",
    )
    parser.add_argument("--limit", type=int, default=None, help="parse only the first LIMIT sentences")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    model = Model.load(args.model)
    sentences = read_treebank(args.treebank, limit=args.limit)
    decoder = args.decoder or default_decoder(model)
    if decoder not in decoder_names():
        raise ValueError(f"unknown decoder {decoder!r}; choose from {', '.join(decoder_names())}")
    options: dict[str, object] = {}
    if args.bp_iters is not None:
        if decoder != "bp":
            raise ValueError("--bp-iters applies to the bp decoder only")
        options["iterations"] = args.bp_iters
    if args.preset is not None:
        if decoder not in ("ppc", "bf", "exact"):
            raise ValueError("--preset applies to the ppc, bf and exact decoders only")
        options["preset"] = args.preset
    if args.sibling_preset is not None:
        if decoder != "bf" or not model.siblings:
            raise ValueError("--sibling-preset applies to the bf decoder of a model with siblings only")
        options["sibling_preset"] = args.sibling_preset
    if (args.bounds is not None or args.lazy_arcgp) and decoder != "ppc":
        raise ValueError("--bounds and --lazy-arcgp apply to the ppc decoder only")
    if args.lazy_arcgp:
        options["lazy_arcgp"] = True
    if args.bounds is not None:
        options["bounds"] = args.bounds
    start = time.perf_counter()
    results = parse(model, sentences, decoder, progress=not args.no_progress, **options)
    seconds = time.perf_counter() - start
    heads = [r.heads for r in results]
    if args.out:
        write_treebank(args.out, sentences, heads)
    uas = corpus_uas(sentences, heads)
    objective = float(np.mean([r.objective for r in results]))
    print(
        f"{args.treebank.name}: {len(sentences)} sentences, decoder {decoder}, {seconds:.1f} s; "
        f"UAS {100 * uas.uas:.2f}%, UAS no punct {100 * uas.uas_no_punct:.2f}%, mean objective {objective:.3f}"
    )
    summary = lp_summary(results)
    if summary:
        print(summary)
    if args.out:
        print(f"wrote {args.out}")
    return 0
