"""The proof checker as a program of its own: ``python -m lpparse.proofcheck PROOFS --treebank T --model M``
(or ``--scores F``; also installed as ``lpparse-check-proof``) re-checks the proofs that
``lpparse parse --decoder exact --proof PROOFS`` wrote, one JSON line per sentence.

It imports neither HiGHS nor the column-generation engine nor the branch and bound that wrote the proofs:
only numpy/scipy, the treebank and score readers, the programs' row definitions (:mod:`lpparse.formulations`
and the families' rows) and the checker itself (:func:`lpparse.ppc.proof.check_proof`), which recomputes
every node's bound from its recorded duals over the sentence's full program and reads no stored bound,
certificate or solver status (``tests/test_proofcheck.py`` runs it with those modules made unimportable).
This is the shape of VIPR's certificates for exact MIP (Cheung, Gleixner & Steffy 2017, "Verifying Integer
Programming Results", IPCO 2017): whatever found the proof, a small program that trusts none of it checks
it. ``lpparse check-proof`` runs the same check inside the lpparse command.

Exit status 0 when every proof holds; 1 naming the first sentence and node that does not (or bad input).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.corpus import Sentence, read_treebank
from lpparse.io import DataError, UserError, readable_file
from lpparse.ppc.consecutive import ConsecutiveSiblingParts
from lpparse.ppc.parts import GrandparentParts, Parts, SiblingParts
from lpparse.ppc.proof import check_proof
from lpparse.ppc.proof_file import read_proof_record
from lpparse.ppc.third_order import GrandSiblingParts, TriSiblingParts, window_parts
from lpparse.scores import load_scores
from lpparse.scoring.model import Model

__all__ = ["check_file", "main", "proof_records", "record_problems", "sentence_scorers"]

#: How each family of a proof record is rebuilt from its scorer and the record's row families
_FAMILIES = {
    GrandparentParts.name: lambda scorer, rows: GrandparentParts(scorer, tuple(rows)),
    SiblingParts.name: lambda scorer, rows: SiblingParts(scorer, tuple(rows)),
    ConsecutiveSiblingParts.name: lambda scorer, rows: ConsecutiveSiblingParts(scorer),
    TriSiblingParts.name: lambda scorer, rows: TriSiblingParts(scorer),
    GrandSiblingParts.name: lambda scorer, rows: GrandSiblingParts(scorer),
}


def proof_records(path: Path) -> list[dict[str, Any]]:
    """The proof records of a proof file (:class:`DataError` naming the line of one that is not)."""
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


def sentence_scorers(
    source: Model | Any, sentence: Sentence, position: int
) -> tuple[NDArray[np.float64], dict[str, Any]]:
    """Arc scores and, by family name, a scorer of every part family ``source`` (a model, or a score file
    whose sentence ``position`` this is) has for the sentence."""
    if isinstance(source, Model):
        scorer = source.scorer(sentence)
        arcs, found = scorer.arc_scores(), {GrandparentParts.name: scorer.triples()}
        if source.siblings:
            found[SiblingParts.name] = scorer.siblings()
        windows = window_parts(sentence.n, *scorer.window_scorers())
    else:
        entry = source[position]
        arcs, found = (
            entry.arc_scores(),
            {GrandparentParts.name: entry.triples(), SiblingParts.name: entry.siblings()},
        )
        windows = entry.window_parts()
    found.update((p.name, p.scorer) for p in windows)
    return arcs, {name: scorer for name, scorer in found.items() if scorer is not None}


def _parts(scorers: dict[str, Any], families: dict[str, list[str]], where: str) -> list[Parts]:
    """The part families of a record, with the source's scorers and the record's row families."""
    if set(families) != set(scorers):
        raise DataError(
            f"{where}: the proof is over the families {sorted(families)}, the scores have {sorted(scorers)}"
        )
    unknown = set(families) - set(_FAMILIES)
    if unknown:
        raise DataError(f"{where}: unknown part families {sorted(unknown)}")
    return [_FAMILIES[name](scorers[name], rows) for name, rows in families.items()]


def _kept(arcs: NDArray[np.float64], record: dict[str, Any]) -> NDArray[np.float64]:
    """The arc scores with the arcs the record's pruning did not keep at -inf (all, without pruning)."""
    if record.get("kept_arcs") is None:
        return arcs
    kept = np.zeros(arcs.shape, bool)
    index = np.asarray(record["kept_arcs"], np.int64).reshape(-1, 2)
    kept[index[:, 0], index[:, 1]] = True
    return np.where(kept, arcs, -np.inf)


def _sources(treebank: Path, model: Path | None, scores: Path | None) -> tuple[Model | Any, list[Sentence]]:
    """The scores' source (a model or a score file checked against the treebank) and the treebank's
    sentences, all of them (a proof names its sentence by id)."""
    sentences = read_treebank(treebank, gold=False)
    if scores is not None:
        source = load_scores(readable_file(scores, "score file"), validate=False)
        source.check(sentences, treebank)
        source.validate()
        return source, sentences
    if model is None:
        raise UserError("give the --model or the --scores the sentences were parsed with")
    return Model.load(readable_file(model, "model")), sentences


def record_problems(
    records: Sequence[dict[str, Any]],
    source: Model | Any,
    sentences: Sequence[Sentence],
    where: str = "proofs",
) -> Iterator[tuple[int, str | None]]:
    """For each record in order, its line number and why its proof does not hold (None when it does)."""
    by_id = {s.sent_id: (s, p) for p, s in enumerate(sentences)}
    for line_no, record in enumerate(records, 1):
        sent_id = str(record["sent_id"])
        if sent_id not in by_id:
            raise DataError(f"{where}:{line_no}: sentence {sent_id} is not in the treebank")
        sentence, position = by_id[sent_id]
        arcs, scorers = sentence_scorers(source, sentence, position)
        arcs = _kept(arcs, record)
        try:
            result = read_proof_record(record, arcs)
        except (ValueError, KeyError, TypeError) as err:
            raise DataError(f"{where}:{line_no}: sentence {sent_id}: not a readable proof ({err})") from None
        families = _parts(scorers, record["families"], f"{where}:{line_no}: sentence {sent_id}")
        yield line_no, check_proof(arcs, families, result)


def check_file(
    proofs: Path, treebank: Path, model: Path | None = None, scores: Path | None = None, progress: bool = True
) -> int:
    """Check every proof of ``proofs``; print one line: how many hold, or the first that does not. Returns
    the exit status (0: every proof holds, 1: one does not)."""
    path = readable_file(proofs, "proof file")
    records = proof_records(path)
    source, sentences = _sources(readable_file(treebank, "treebank"), model, scores)
    checks = record_problems(records, source, sentences, str(path))
    for line_no, problem in tqdm(
        checks, total=len(records), desc="checking", unit="proof", disable=not progress
    ):
        if problem is not None:
            sent_id = records[line_no - 1]["sent_id"]
            print(f"{path}:{line_no}: sentence {sent_id}: the proof does not hold: {problem}")
            return 1
    print(f"{path.name}: {len(records)} proofs checked, every tree is proved optimal")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The checker's options (shared with ``lpparse check-proof``)."""
    parser.add_argument("proofs", type=Path, help="the JSON lines of parse --proof")
    parser.add_argument("--treebank", type=Path, required=True, help="the treebank that was parsed")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", type=Path, default=None, help="the model that scored it")
    source.add_argument("--scores", type=Path, default=None, help="the score file that scored it")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lpparse-check-proof",
        description=(
            "Re-check the proofs of optimality that 'lpparse parse --decoder exact --proof FILE' wrote, from the "
            "scores alone, in a program that imports neither HiGHS nor the engine that found them. Exit 0 when "
            "every proof holds, 1 naming the first sentence and node that does not."
        ),
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return check_file(args.proofs, args.treebank, args.model, args.scores, not args.no_progress)
    except UserError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
