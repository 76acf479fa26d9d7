"""``lpparse check-proof``: re-check the proofs that ``lpparse parse --decoder exact --proof FILE`` wrote, from
the scores alone: the check of :mod:`lpparse.proofcheck` (which also runs as a program of its own, without
HiGHS or the engine: ``python -m lpparse.proofcheck``)."""

from __future__ import annotations

import argparse

from lpparse.proofcheck import add_arguments, check_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check-proof",
        help="re-check the proofs of optimality written by 'parse --decoder exact --proof FILE'",
        description=(
            "Reads the proof file of 'lpparse parse --decoder exact --proof FILE' and the scores the trees were "
            "decoded with (the same --model or --scores, the same --treebank), and checks every sentence's "
            "proof from its recorded duals alone: each node's bound and each fixed arc's are recomputed over "
            "the full program of every candidate part, the branching must partition the trees, and every "
            "leaf must be bounded by the tree's score; no certificate, stored bound or solver status is read. "
            "Exit 0 when every proof holds, 1 naming the first sentence and node that does not."
        ),
        epilog="Example: lpparse parse --model gp.npz --treebank dev.conllu --decoder exact --proof dev.proof.jsonl"
        " && lpparse check-proof dev.proof.jsonl --model gp.npz --treebank dev.conllu",
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return check_file(args.proofs, args.treebank, args.model, args.scores, not args.no_progress)
