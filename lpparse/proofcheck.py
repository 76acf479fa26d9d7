"""The proof checker as a program of its own: ``python -m lpparse.proofcheck PROOFS --treebank T --model M``
(or ``--scores F``; also installed as ``lpparse-check-proof``) re-checks the proofs that
``lpparse parse --decoder exact --proof PROOFS`` wrote, one JSON line per sentence.

**The problem comes from the problem.** The scores come from the model or score file and the treebank; the
root rule, the arc pruning and the gap tolerance from the command line, decided as ``lpparse parse`` decides
them (a model's own root rule, ``--single-root``/``--multi-root`` for a score file, ``--pruner`` and
``--prune-threshold``, ``--gap-tol`` with the exact decoder's default). From a record the checker reads the
sentence id, the tree, the arborescence program and row families whose labels the duals use (every row they
can name is valid for every tree), and the search tree (each node's parent, branching decision, fixed arcs,
how it was closed, its duals or ray by row label): nothing else, neither a tolerance nor a root rule nor a
pruning nor a score. ``--trees OUT`` ties the proofs to the trees ``parse --out`` wrote: each sentence there
has exactly one proof, of the same tree. Every failure, a malformed record included, exits 1 naming the line.

It imports neither HiGHS nor the column-generation engine nor the branch and bound that wrote the proofs:
only numpy/scipy, the treebank and score readers, the programs' row definitions (:mod:`lpparse.formulations`
and the families' rows) and the checker itself (:func:`lpparse.proofs.check.check_proof`), which recomputes
every node's bound from its recorded duals over the sentence's full program, sound for any duals
(``tests/test_proof_file.py`` runs it with those modules made unimportable). This is the shape of VIPR's
certificates for exact MIP (Cheung, Gleixner & Steffy 2017, "Verifying Integer Programming Results", IPCO
2017): whatever found the proof, a small program that trusts none of it checks it. ``lpparse check-proof``
runs the same check inside the lpparse command.

Exit status 0 when every proof holds; 1 naming the first sentence and node that does not (or bad input); 2
for a wrong command line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.corpus import Sentence, read_treebank
from lpparse.families import family_parts, registered
from lpparse.families.base import Parts
from lpparse.io import DataError, UsageError, UserError, readable_file
from lpparse.lp.solution import TOL
from lpparse.options import (
    PARTS_HELP,
    add_pruning_options,
    add_root_options,
    part_names,
    pruning_options,
    resolve_single_root,
    select_parts,
)
from lpparse.proofs.check import check_proof
from lpparse.proofs.kbest import check_kbest_record, is_kbest_record
from lpparse.proofs.record import read_proof_record
from lpparse.pruning import ArcPruning, apply_pruning, decoding_pruning, keep_mask
from lpparse.scores import load_scores
from lpparse.scoring.model import Model

__all__ = ["Problem", "check_file", "main", "proof_records", "record_problems", "sentence_scorers"]

#: Exceptions that a malformed record raises while it is read or checked: each becomes exit 1 naming its line
MALFORMED = (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError)

def proof_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The proof records of a proof file with their line numbers (:class:`DataError` naming the line of one
    that is not a JSON object with a sentence id, a tree and search nodes, or of bytes that are not text)."""
    records = []
    with path.open(encoding="utf-8") as handle:
        line_no = 0
        try:
            for line_no, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as err:
                    raise DataError(f"{path}:{line_no}: not a JSON line ({err.msg})") from None
                if not isinstance(record, dict) or not (
                    {"sent_id", "heads", "nodes"} <= set(record) or {"sent_id", "kbest"} <= set(record)
                ):
                    raise DataError(
                        f"{path}:{line_no}: not a proof record (no sent_id, heads and nodes, or kbest)"
                    )
                if not isinstance(record["sent_id"], (str, int)) or isinstance(record["sent_id"], bool):
                    raise DataError(f"{path}:{line_no}: the sentence id is not a string")
                records.append((line_no, record))
        except UnicodeDecodeError:
            raise DataError(f"{path}:{line_no + 1}: not UTF-8 text (is it a proof file?)") from None
    if not records:
        raise DataError(f"{path}: no proof records")
    return records


@dataclass(frozen=True)
class Problem:
    """What the proofs must prove, stated by the user, never by a record: the root rule (None: the model's
    own, or for a score file the data's), the arc pruning and its pruner model (None: the scores' own
    posteriors), and the relative gap tolerance (the exact decoder's default, ``lpparse.exact.search``)."""

    single_root: bool | None = None
    pruning: ArcPruning | None = None
    pruner: Path | None = None
    gap_tol: float = TOL
    #: decode over every arc, even a model trained over pruned arcs (which otherwise prunes as trained)
    no_prune: bool = False
    #: the pruning is a model's own, as it was trained (:func:`lpparse.pruning.decoding_pruning`)
    as_trained: bool = False
    #: the part families of the scores to prove with (None: all of them; ``--parts``)
    parts: tuple[str, ...] | None = None

    def describe(self, single_root: bool) -> str:
        """The problem in words, for the verdict."""
        rule = "single-root" if single_root else "multi-root"
        if self.pruning is None:
            arcs = "every candidate arc"
        else:
            by = (
                f"{self.pruner.name}'s"
                if self.pruner is not None
                else "the model's own pruner's (as trained)"
                if self.as_trained
                else "the scores' own"
            )
            arcs = (
                f"the arcs kept by {by} first-order posteriors at {self.pruning.threshold:g}, "
                f"at most {self.pruning.max_heads} heads a word"
            )
        parts = "" if self.parts is None else f" with the {', '.join(self.parts)} parts only"
        return f"{rule} trees over {arcs}{parts}, gap tolerance {self.gap_tol:g} x (1 + |score|)"


def sentence_scorers(
    source: Model | Any,
    sentence: Sentence,
    position: int,
    keep: NDArray[np.bool_] | None = None,
    parts: Sequence[str] | None = None,
) -> tuple[NDArray[np.float64], dict[str, Any]]:
    """Arc scores and, by family name, a scorer of every part family ``source`` (a model, or a score file
    whose sentence ``position`` this is) has for the sentence, or of those of ``parts`` (UsageError for one
    it has not); ``keep``: the arcs to score (the others -inf; a model then scores those alone), default every
    candidate arc."""
    if isinstance(source, Model):
        scorer = source.scorer(sentence, keep)
        arcs, found = scorer.arc_scores(), scorer.part_scorers()
    else:
        entry = source[position]
        arcs, found = entry.arc_scores(), entry.part_scorers()
    if keep is not None:
        arcs = apply_pruning(arcs, keep)
    return arcs, select_parts(found, parts, "the model" if isinstance(source, Model) else "the score file")


def problem_scorers(
    source: Model | Any,
    sentence: Sentence,
    position: int,
    problem: Problem,
    pruner: Model | None,
    single_root: bool,
) -> tuple[NDArray[np.float64], dict[str, Any]]:
    """:func:`sentence_scorers` over the arcs ``problem``'s pruning keeps, as ``lpparse parse`` keeps them
    for the exact decoder (:func:`lpparse.pruning.keep_mask`): under ``pruner``'s first-order posteriors (a
    model then scores the kept arcs alone, as parse does), else the scores' own."""
    if problem.pruning is None:
        return sentence_scorers(source, sentence, position, parts=problem.parts)
    if pruner is None:  # the scores' own posteriors: scored once, over every arc
        arcs, scorers = sentence_scorers(source, sentence, position, parts=problem.parts)
        return apply_pruning(arcs, keep_mask(arcs, problem.pruning, single_root)), scorers
    pruner_arcs = pruner.scorer(sentence).arc_scores()
    own = source[position].arc_scores() if not isinstance(source, Model) else pruner_arcs
    keep = keep_mask(own, problem.pruning, single_root, pruner_arcs)
    return sentence_scorers(source, sentence, position, keep, problem.parts)


def _parts(scorers: dict[str, Any], families: Any, n: int) -> list[Parts]:
    """The part families of the scores, each with the row families whose labels the record's duals use (its
    ``families``: valid rows all, so they choose labels, not the problem); ValueError when the record is over
    other families than the scores."""
    if not isinstance(families, dict) or not all(isinstance(rows, list) for rows in families.values()):
        raise ValueError("its families are not row families by part family")
    unknown = set(families) - set(registered())
    if unknown:
        raise ValueError(f"unknown part families {sorted(unknown)}; registered: {', '.join(registered())}")
    parts = family_parts(scorers, n, families)  # with the families they need (windows of zero scores)
    if set(families) != {p.name for p in parts}:
        found = [p.name for p in parts]
        raise ValueError(f"the proof is over the families {sorted(families)}, the scores have {sorted(found)}")
    return parts


def _sources(
    treebank: Path, model: Path | None, scores: Path | None, problem: Problem
) -> tuple[Model | Any, list[Sentence], Problem, bool, Model | None]:
    """The scores' source (a model or a score file checked against the treebank), the treebank's sentences
    (all of them: a proof names its sentence by id), the problem with its pruning decided as ``lpparse parse``
    decides it (a model trained over pruned arcs prunes as trained, by the pruner inside its file, unless
    told otherwise), the root rule, and the pruner model (None: the scores' own posteriors)."""
    sentences = read_treebank(treebank, gold=False)
    pruner = None if problem.pruner is None else Model.load(readable_file(problem.pruner, "--pruner model"))
    if scores is not None:
        source = load_scores(readable_file(scores, "score file"), validate=False)
        source.check(sentences, treebank)
        source.validate()
        if problem.no_prune:
            problem = replace(problem, pruning=None)
        return source, sentences, problem, resolve_single_root(problem.single_root, sentences), pruner
    if model is None:
        raise UsageError("give the --model or the --scores the sentences were parsed with")
    if problem.single_root is not None:
        raise UsageError(
            "--single-root and --multi-root apply to --scores only (a model has its own root rule)"
        )
    loaded = Model.load(readable_file(model, "model"))
    pruning = decoding_pruning(loaded, problem.pruning, problem.no_prune)
    as_trained = problem.pruning is None and pruning is not None
    if pruning is not None and pruner is None:
        pruner = loaded.pruner
    problem = replace(problem, pruning=pruning, as_trained=as_trained and problem.pruner is None)
    return loaded, sentences, problem, loaded.single_root, pruner


def record_problems(
    records: Sequence[tuple[int, dict[str, Any]]],
    source: Model | Any,
    sentences: Sequence[Sentence],
    problem: Problem,
    single_root: bool,
    pruner: Model | None = None,
    where: str = "proofs",
) -> Iterator[tuple[int, str | None]]:
    """For each record in order, its line number and why its proof does not hold (None when it does); a
    sentence the treebank lacks, a second record of a sentence, or a malformed record fails with its line."""
    by_id = {s.sent_id: (s, p) for p, s in enumerate(sentences)}
    seen: dict[str, int] = {}
    for line_no, record in records:
        sent_id = str(record["sent_id"])
        if sent_id not in by_id:
            yield line_no, f"sentence {sent_id} is not in the treebank"
            continue
        if sent_id in seen:
            yield line_no, f"a second proof of sentence {sent_id} (the first is on line {seen[sent_id]})"
            continue
        seen[sent_id] = line_no
        sentence, position = by_id[sent_id]
        arcs, scorers = problem_scorers(source, sentence, position, problem, pruner, single_root)
        try:
            families = _parts(scorers, record.get("families"), sentence.n)
            if is_kbest_record(record):
                yield line_no, check_kbest_record(record, arcs, families, single_root, problem.gap_tol)
                continue
            result = read_proof_record(record, arcs, single_root=single_root, gap_tol=problem.gap_tol)
            yield (
                line_no,
                check_proof(arcs, families, result, single_root=single_root, gap_tol=problem.gap_tol),
            )
        except MALFORMED as err:
            yield line_no, f"not a readable proof ({type(err).__name__}: {err})"


def tree_problems(
    records: Sequence[tuple[int, dict[str, Any]]], trees: Path, sentences: Sequence[Sentence]
) -> str | None:
    """Why the proofs do not cover the trees of ``trees`` (a parse output of ``sentences``, in their order, some
    perhaps left out; with ``--k-best`` each sentence's K trees best first, ranked by their comments): a
    sentence written there without a proof, or whose proof is of other trees (None when each has exactly one
    proof, of its trees). A written sentence is the treebank's next one with its words (a sentence without a
    ``sent_id`` comment is named by its line, which differs between the two files)."""
    written: list[tuple[Sentence, list[list[int]]]] = []
    position = 0
    for copy in read_treebank(readable_file(trees, "--trees output"), gold=True):
        if written and str(copy.metadata.get("k_best_rank", "1")) != "1":
            written[-1][1].append(copy.heads.tolist())  # a lower-ranked tree of the sentence before
            continue
        while position < len(sentences) and sentences[position].words != copy.words:
            position += 1
        if position == len(sentences):
            return f"{trees}: sentence {copy.sent_id} is not one of the treebank's (in its order)"
        written.append((sentences[position], [copy.heads.tolist()]))
        position += 1
    proved = {str(record["sent_id"]): (line_no, record) for line_no, record in records}
    for sentence, heads in written:
        if sentence.sent_id not in proved:
            return f"{trees}: sentence {sentence.sent_id} has no proof"
        line_no, record = proved[sentence.sent_id]
        claimed = record["kbest"].get("trees") if is_kbest_record(record) else [record.get("heads")]
        if claimed != heads:
            return f"{trees}: sentence {sentence.sent_id}: its proof (line {line_no}) is of other trees"
    return None


def check_file(
    proofs: Path,
    treebank: Path,
    model: Path | None = None,
    scores: Path | None = None,
    progress: bool = True,
    problem: Problem | None = None,
    trees: Path | None = None,
) -> int:
    """Check every proof of ``proofs`` against ``problem`` (default: every candidate arc, the model's or the
    data's root rule, the default tolerance) and, with ``trees``, that they cover the trees of that parse
    output; print one line: what was proved, or the first proof that does not hold. Returns the exit status
    (0: every proof holds, 1: one does not)."""
    problem = problem or Problem()
    path = readable_file(proofs, "proof file")
    records = proof_records(path)
    source, sentences, problem, single_root, pruner = _sources(
        readable_file(treebank, "treebank"), model, scores, problem
    )
    checks = record_problems(records, source, sentences, problem, single_root, pruner, str(path))
    for line_no, failure in tqdm(
        checks, total=len(records), desc="checking", unit="proof", disable=not progress
    ):
        if failure is not None:
            sent_id = dict(records)[line_no]["sent_id"]
            print(f"{path}:{line_no}: sentence {sent_id}: the proof does not hold: {failure}")
            return 1
    if trees is not None:
        failure = tree_problems(records, trees, sentences)
        if failure is not None:
            print(f"{failure}: the proofs do not cover the trees")
            return 1
    missing = len(sentences) - len(records)
    kbest = sum(is_kbest_record(record) for _, record in records)
    print(
        f"{path.name}: {len(records)} proofs checked, every tree is proved optimal"
        + (f" (the {kbest} k-best lists: their trees the best, in order)" if kbest else "")
        + f": {problem.describe(single_root)}"
        + (f"; every tree of {trees.name} has its proof" if trees is not None else "")
        + (f" ({missing} sentences of the treebank have no proof)" if missing > 0 and trees is None else "")
    )
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The checker's options (shared with ``lpparse check-proof``)."""
    parser.add_argument("proofs", type=Path, help="the JSON lines of parse --proof")
    parser.add_argument("--treebank", type=Path, required=True, help="the treebank that was parsed")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", type=Path, default=None, help="the model that scored it")
    source.add_argument("--scores", type=Path, default=None, help="the score file that scored it")
    parser.add_argument(
        "--trees",
        type=Path,
        default=None,
        metavar="OUT",
        help="the trees that parse --out wrote: each must have exactly one proof, of the same tree",
    )
    parser.add_argument(
        "--gap-tol",
        type=_tolerance,
        default=TOL,
        metavar="T",
        help=f"relative gap tolerance: a leaf's bound may exceed the tree's score by T x (1 + |score|) "
        f"(default {TOL:g}, the exact decoder's); a proof that needs more fails",
    )
    add_root_options(parser)
    parser.add_argument("--parts", type=part_names, metavar="NAME[,NAME...]", help=PARTS_HELP)
    add_pruning_options(
        parser,
        "The proofs then prove each tree optimal over the arcs kept; give the pruning 'lpparse parse' was given "
        "(a model trained over pruned arcs prunes as trained by default, as parse does).",
        "the first-order model whose posteriors pruned the arcs (default: a model's own pruner, inside its "
        "file, else the scores' own posteriors)",
        as_trained=True,
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value <= 1e-2:
        raise argparse.ArgumentTypeError(f"must be a number >= 0 and <= 0.01, got {text}")
    return value


def problem_of(args: argparse.Namespace) -> Problem:
    """The problem the command line states."""
    return Problem(
        args.single_root, pruning_options(args), args.pruner, args.gap_tol, args.no_prune, parts=args.parts
    )


def run(args: argparse.Namespace) -> int:
    """Check the proofs as the command line asks."""
    return check_file(
        args.proofs,
        args.treebank,
        args.model,
        args.scores,
        not args.no_progress,
        problem_of(args),
        args.trees,
    )


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
        return run(args)
    except UsageError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    except UserError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"{parser.prog}: error: {err.strerror or err}: {err.filename or ''}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
