"""A treebank sentence's inspection problem from a trained model or a score file: its arc scores (with the arcs
that pruning drops at -inf) and a part family per kind of part scores (at their default presets), as
``lpparse parse --decoder exact`` decodes it (:func:`lpparse.proofcheck.problem_scorers`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.corpus import Sentence, read_treebank
from lpparse.exact.search import exact_search
from lpparse.families import family_parts
from lpparse.families.base import Parts
from lpparse.inspect.mip import MipOptions
from lpparse.inspect.relaxations import Relaxation, default_relaxations
from lpparse.inspect.report import Inspection
from lpparse.inspect.sentence import FRACTIONAL_TOL, InspectOptions, inspect_sentence
from lpparse.io import DataError, UsageError, UserError, readable_file
from lpparse.options import resolve_single_root
from lpparse.ppc.loop import solve_lp
from lpparse.proofcheck import Problem, problem_scorers
from lpparse.proofs.search_tree import gap_abs
from lpparse.pruning import ArcPruning
from lpparse.scores import ScoreFile, load_scores
from lpparse.scoring import Model
from lpparse.trees import NoTreeError

__all__ = [
    "SentenceProblem",
    "TreebankInspector",
    "find_sentences",
    "inspect_file_sentence",
    "load_source",
    "sentence_problem",
]

T = TypeVar("T")


@dataclass(frozen=True)
class SentenceProblem:
    """What :func:`lpparse.inspect.inspect_sentence` needs of one treebank sentence."""

    arc_scores: NDArray[np.float64]
    parts: list[Parts]
    single_root: bool
    sent_id: str
    tokens: list[str]


def scorer_parts(scorers: Mapping[str, Any], n: int) -> list[Parts]:
    """A part family for each scorer, by family name, at its default rows, in binding order
    (:func:`lpparse.families.family_parts`: the families on consecutive-sibling windows after the windows)."""
    return family_parts({name: scorer for name, scorer in scorers.items() if scorer is not None}, n)


def load_source(
    treebank: Path, model: Path | None = None, scores: Path | None = None
) -> tuple[Model | ScoreFile, list[Sentence]]:
    """The model or the score file (checked against the treebank) and every sentence of the treebank
    (:class:`UsageError` without either, :class:`DataError` for data that do not fit)."""
    sentences = read_treebank(readable_file(treebank, "treebank"), gold=False)
    if scores is not None:
        source = load_scores(readable_file(scores, "score file"), validate=False)
        source.check(sentences, treebank)
        source.validate()
        return source, sentences
    if model is None:
        raise UsageError("give a --model or a --scores file")
    return Model.load(readable_file(model, "model")), sentences


def find_sentences(sentences: Sequence[Sentence], wanted: Sequence[str], where: Path | str = "") -> list[int]:
    """The positions of the sentences ``wanted``, each by sent_id or else by 1-based position
    (:class:`DataError` naming one that is neither)."""
    by_id = {s.sent_id: i for i, s in enumerate(sentences) if s.sent_id}
    out = []
    for text in wanted:
        if text in by_id:
            out.append(by_id[text])
        elif text.isdigit() and 1 <= int(text) <= len(sentences):
            out.append(int(text) - 1)
        else:
            raise DataError(
                f"{where}: no sentence {text!r} (neither a sent_id nor a position 1..{len(sentences)})"
            )
    return out


def sentence_problem(
    source: Model | ScoreFile,
    sentence: Sentence,
    position: int,
    single_root: bool,
    pruning: ArcPruning | None = None,
    pruner: Model | None = None,
    parts: tuple[str, ...] | None = None,
) -> SentenceProblem:
    """The sentence's problem: scores from ``source`` (a model, or the score file whose sentence ``position``
    it is), of its part families ``parts`` (None: all), arcs pruned by ``pruning`` under ``pruner``'s
    posteriors (None: the scores' own); DataError when the scores have no part families (first-order scores:
    nothing to relax)."""
    arcs, scorers = problem_scorers(
        source, sentence, position, Problem(single_root, pruning, parts=parts), pruner, single_root
    )
    parts = scorer_parts(scorers, sentence.n)
    if not parts:
        raise DataError(
            f"sentence {sentence.sent_id or position + 1}: first-order scores have no relaxation to inspect"
        )
    return SentenceProblem(
        arcs, parts, single_root, sentence.sent_id or str(position + 1), sentence.words[1:]
    )


def inspect_file_sentence(  # long: the command's choices of source, problem and inspection
    treebank: Path,
    sentence: str,
    model: Path | None = None,
    scores: Path | None = None,
    relaxations: Sequence[str | Relaxation] | None = None,
    mip: MipOptions | None = None,
    options: InspectOptions | None = None,
    single_root: bool | None = None,
    pruning: ArcPruning | None = None,
    pruner: Path | None = None,
    parts: tuple[str, ...] | None = None,
) -> Inspection:
    """The inspection of one treebank sentence (by sent_id or 1-based position) under a model or a score file:
    the model's root rule, or for a score file ``single_root`` (None: the treebank's)."""
    source, sentences = load_source(treebank, model, scores)
    (position,) = find_sentences(sentences, [sentence], treebank)
    if isinstance(source, Model):
        rule = source.single_root
    else:
        rule = resolve_single_root(single_root, sentences)
    pruner_model = Model.load(readable_file(pruner, "--pruner model")) if pruner is not None else None
    problem = sentence_problem(source, sentences[position], position, rule, pruning, pruner_model, parts)
    return inspect_sentence(
        problem.arc_scores,
        problem.parts,
        relaxations,
        problem.single_root,
        mip,
        problem.sent_id,
        problem.tokens,
        options,
    )


@dataclass
class TreebankInspector:
    """Inspections of treebank sentences (``lpparse inspect``): the scores' ``source`` (a model, or a score file
    checked against the ``sentences``), the root rule, the ``pruning`` and its ``pruner`` (None: the scores'
    own posteriors), the relaxations (None: the defaults) and the inspection's settings. Errors name the
    sentence: :class:`DataError` when no tree exists, :class:`UsageError` for a relaxation its families do
    not allow."""

    source: Model | ScoreFile
    sentences: list[Sentence]
    single_root: bool
    pruning: ArcPruning | None
    pruner: Model | None
    relaxations: list[Relaxation] | None
    mip: MipOptions
    options: InspectOptions
    #: the part families of the scores to inspect (None: all of them; ``--parts``)
    parts: tuple[str, ...] | None = None

    def problem(self, position: int) -> SentenceProblem:
        """The problem of the sentence at ``position`` (:func:`sentence_problem`)."""
        sentence = self.sentences[position]
        return _checked(
            sentence_problem,
            sentence,
            self.source,
            sentence,
            position,
            self.single_root,
            self.pruning,
            self.pruner,
            self.parts,
        )

    def inspect(self, positions: Sequence[int], progress: bool = False) -> Iterator[Inspection]:
        """The inspections of the sentences at ``positions``, one by one (a progress bar with ``progress``)."""
        bar = tqdm(positions, desc="inspecting", unit="sent", disable=not progress, leave=False)
        for position in bar:
            p = self.problem(position)
            inspection = _checked(
                inspect_sentence,
                self.sentences[position],
                p.arc_scores,
                p.parts,
                self.relaxations,
                p.single_root,
                self.mip,
                p.sent_id,
                p.tokens,
                self.options,
            )
            yield inspection

    def most_fractional(self, candidates: Sequence[int], count: int, progress: bool = False) -> list[int]:
        """The positions of the ``count`` sentences among ``candidates`` whose first relaxation's LP
        (parse-price-cut or brute force, certified) is farthest above the best tree, largest gap first."""
        gaps = []
        bar = tqdm(candidates, desc="screening", unit="sent", disable=not progress, leave=False)
        for position in bar:
            sentence, p = self.sentences[position], self.problem(position)
            first = (self.relaxations or default_relaxations(p.parts))[0]
            parts = _checked(first.parts, sentence, p.parts)
            lp = _checked(solve_lp, sentence, p.arc_scores, parts, "auto", p.single_root, first.base)
            if not lp.certified or lp.integral:
                continue
            best = _checked(exact_search, sentence, p.arc_scores, p.parts, p.single_root)
            gap = lp.objective - best.objective
            if gap > gap_abs(best.objective, FRACTIONAL_TOL):
                gaps.append((gap, position))
        return [position for _, position in sorted(gaps, reverse=True)[:count]]


def _checked(function: Callable[..., T], sentence: Sentence, *args: Any) -> T:
    """``function(*args)`` with a sentence without a tree and a relaxation its families do not allow as
    one-line errors naming the sentence."""
    where = f"{sentence.source}:{sentence.line}: sentence {sentence.sent_id or '?'}"
    try:
        return function(*args)
    except NoTreeError as err:
        raise DataError(f"{where}: {err}") from None
    except ValueError as err:
        if isinstance(err, UserError):
            raise
        raise UsageError(f"{where}: {err}") from None
