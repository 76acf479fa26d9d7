"""``lpparse check-proof``: re-check the proofs that ``lpparse parse --decoder exact --proof FILE`` wrote, from
the scores alone: the check of :mod:`lpparse.proofcheck` (which also runs as a program of its own, without
HiGHS or the engine: ``python -m lpparse.proofcheck``)."""

from __future__ import annotations

import argparse

from lpparse.options import Command
from lpparse.proofcheck import add_arguments
from lpparse.proofcheck import run as check

#: Its arguments are those of the standalone checker (:func:`lpparse.proofcheck.add_arguments`)
COMMAND = Command(
    "check-proof",
    help="re-check the proofs of optimality written by 'parse --decoder exact --proof FILE'",
    description=(
        "Reads the proof file of 'lpparse parse --decoder exact --proof FILE' and checks every sentence's "
        "proof against the problem stated here, never in the file: the scores of the same --model or "
        "--scores and --treebank, the root rule (a model's own; --single-root/--multi-root for a score "
        "file, else the data's), the arc pruning (the --pruner and --prune-threshold parse was given) and "
        "the gap tolerance (--gap-tol). Of a record only the tree and the search tree are read (each "
        "node's branching, how it was closed, its duals or ray by row label): each node's bound is "
        "recomputed from its duals over the full program of every candidate part, valid whatever the "
        "duals; the branching must partition the trees; every leaf must be bounded by the tree's score. "
        "With --trees, every tree that parse --out wrote must have exactly one proof, of that tree. Runs "
        "without HiGHS. Exit 0 when every proof holds, 1 naming the first sentence and node that does not "
        "(or a malformed record's line), 2 for a wrong command line."
    ),
    epilog="Example: lpparse parse --model gp.npz --treebank dev.conllu --decoder exact --out dev.parsed.conllu "
    "--proof dev.proof.jsonl && lpparse check-proof dev.proof.jsonl --model gp.npz --treebank dev.conllu "
    "--trees dev.parsed.conllu",
    options=(),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    add_arguments(COMMAND.add_to(subparsers, run))


def run(args: argparse.Namespace) -> int:
    return check(args)
