"""``lpparse check-proof``: re-check the proofs that ``lpparse parse --decoder exact --proof FILE`` wrote, from
the scores alone (:func:`lpparse.ppc.exact.check_proof`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from lpparse.commands._common import scored_selection
from lpparse.corpus import read_treebank
from lpparse.experiments.grandparent_tables import ScoreSource, sentence_parts
from lpparse.io import DataError, readable_file
from lpparse.ppc.consecutive import ConsecutiveSiblingParts
from lpparse.ppc.exact import check_proof
from lpparse.ppc.parts import GrandparentParts, Parts, SiblingParts
from lpparse.ppc.proof_file import read_proof_record
from lpparse.ppc.third_order import GrandSiblingParts, TriSiblingParts


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
    parser.add_argument("proofs", type=Path, help="the JSON lines of parse --proof")
    parser.add_argument("--treebank", type=Path, required=True, help="the treebank that was parsed")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", type=Path, default=None, help="the model that scored it")
    source.add_argument("--scores", type=Path, default=None, help="the score file that scored it")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def _records(path: Path) -> list[dict[str, Any]]:
    records = []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise DataError(f"{path}:{line_no}: not a JSON line ({err.msg})") from None
            if not isinstance(record, dict) or "sent_id" not in record or "nodes" not in record:
                raise DataError(f"{path}:{line_no}: not a proof record (no sent_id or nodes)")
            records.append(record)
    if not records:
        raise DataError(f"{path}: no proof records")
    return records


def _parts(scorers: dict[str, Any], families: dict[str, list[str]], sent_id: str) -> list[Parts]:
    """The part families of the record, with the scorers of the source and the record's row families."""
    if set(families) != set(scorers):
        raise DataError(
            f"sentence {sent_id}: the proof is over the families {sorted(families)}, the scores have "
            f"{sorted(scorers)}"
        )
    make = {
        GrandparentParts.name: lambda s, rows: GrandparentParts(s, tuple(rows)),
        SiblingParts.name: lambda s, rows: SiblingParts(s, tuple(rows)),
        ConsecutiveSiblingParts.name: lambda s, rows: ConsecutiveSiblingParts(s),
        TriSiblingParts.name: lambda s, rows: TriSiblingParts(s),
        GrandSiblingParts.name: lambda s, rows: GrandSiblingParts(s),
    }
    return [make[name](scorers[name], rows) for name, rows in families.items()]


def run(args: argparse.Namespace) -> int:
    path = readable_file(args.proofs, "proof file")
    treebank = readable_file(args.treebank, "treebank")
    records = _records(path)
    if args.scores is not None:
        args.scores = readable_file(args.scores, "score file").resolve()
        args.limit, args.max_length = None, None
        _, positions, sentences = scored_selection(treebank, args, gold=False)
        source = ScoreSource(scores=str(args.scores))
    else:
        sentences = read_treebank(treebank, gold=False)
        positions = list(range(len(sentences)))
        source = ScoreSource(model=str(readable_file(args.model, "model").resolve()))
    where = {s.sent_id: (s, p) for s, p in zip(sentences, positions)}
    checked = 0
    for line_no, record in enumerate(
        tqdm(records, desc="checking", unit="proof", disable=args.no_progress), 1
    ):
        sent_id = str(record["sent_id"])
        if sent_id not in where:
            raise DataError(f"{path}:{line_no}: sentence {sent_id} is not in {treebank}")
        sentence, position = where[sent_id]
        arcs, scorers = sentence_parts(sentence, source, 0, position)
        if record.get("kept_arcs") is not None:
            kept = np.zeros(arcs.shape, bool)
            index = np.asarray(record["kept_arcs"], np.int64).reshape(-1, 2)
            kept[index[:, 0], index[:, 1]] = True
            arcs = np.where(kept, arcs, -np.inf)
        try:
            result = read_proof_record(record, arcs)
        except (ValueError, KeyError, TypeError) as err:
            raise DataError(f"{path}:{line_no}: sentence {sent_id}: not a readable proof ({err})") from None
        problem = check_proof(arcs, _parts(scorers, record["families"], sent_id), result)
        if problem is not None:
            print(f"{path}:{line_no}: sentence {sent_id}: the proof does not hold: {problem}")
            return 1
        checked += 1
    print(f"{path.name}: {checked} proofs checked, every tree is proved optimal")
    return 0
