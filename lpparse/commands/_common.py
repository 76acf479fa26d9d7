"""Options and input shared by several sub-commands: checked option values, a treebank with noisy-gold arc
scores or the scores of a score file (``--scores``), and the resumable runs of ``experiment`` and ``dd``."""

from __future__ import annotations

import argparse
import warnings
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from lpparse.corpus import Sentence, read_treebank, sample_treebank_path
from lpparse.experiments.grandparent_tables import ScoreSource, load_model
from lpparse.io import DataError, UsageError, file_digest, output_path, readable_file
from lpparse.options import (
    ROOT_OPTIONS,
    OneOf,
    Option,
    Table,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    pruning_options,
    ranged,
    resolve_single_root,
)
from lpparse.scores import ScoreFile, load_scores, noisy_gold_scores
from lpparse.trees import NoTreeError, check_tree_exists
from lpparse.workers import SCHEDULER_NOTE, check_scheduler

__all__ = [
    "SCORES_HELP",
    "SELECTION_OPTIONS",
    "ScoredRun",
    "noisy_treebank",
    "noisy_treebank_options",
    "non_negative_float",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "pruning_options",
    "ranged",
    "report_failures",
    "resolve_single_root",
    "score_file_treebank",
    "scored_run",
    "scored_run_options",
    "scored_selection",
    "selected_sentences",
]

SCORES_HELP = (
    "score file (lpparse.scores.save_scores, 'lpparse scores export'): one entry per sentence of the "
    "treebank, checked against it before any work"
)


#: --limit and --max-length (see :func:`selected_sentences`)
SELECTION_OPTIONS: Table = (
    Option(
        "--limit",
        type=positive_int,
        default=None,
        help="use only the first LIMIT sentences (after --max-length)",
    ),
    Option("--max-length", type=positive_int, default=None, help="skip sentences longer than this"),
)


def noisy_treebank_options(noise: float = 0.4) -> Table:
    """--treebank, --limit, --max-length, --noise, --seed and the root options (see :func:`noisy_treebank`)."""
    return (
        Option(
            "--treebank", type=Path, default=None, help="CoNLL-U/CoNLL-X file (default: the shipped sample)"
        ),
        *SELECTION_OPTIONS,
        Option(
            "--noise",
            type=non_negative_float,
            default=noise,
            help=f"std. dev. of the Gaussian noise on arc scores; gold arcs get +1 (default {noise})",
        ),
        Option("--seed", type=non_negative_int, default=0, help="random seed for the noise (default 0)"),
        *ROOT_OPTIONS,
    )


def selected_sentences(
    path: Path, args: argparse.Namespace, on_error: Literal["raise", "skip"] = "raise", gold: bool = True
) -> list[Sentence]:
    """The first ``--limit`` sentences of at most ``--max-length`` tokens; a :class:`DataError` if none.
    ``gold`` False: sentences without gold trees are read too (:attr:`lpparse.corpus.Sentence.annotated`)."""
    sentences = read_treebank(path, on_error, limit=args.limit, max_length=args.max_length, gold=gold)
    if not sentences:
        raise _nothing_selected(path, args)
    return sentences


def _nothing_selected(path: Path, args: argparse.Namespace) -> DataError:
    longest = f" of at most {args.max_length} tokens" if args.max_length else ""
    return DataError(f"{path}: no sentences{longest} to read")


def scored_selection(
    path: Path, args: argparse.Namespace, gold: bool = True
) -> tuple[ScoreFile, list[int], list[Sentence]]:
    """The score file ``args.scores`` checked before any work, against every sentence of the treebank
    (count, ids, lengths) and then array by array (shapes, NaN: :meth:`ScoreFile.validate`); the
    ``--max-length`` / ``--limit`` selection and each selected sentence's position in the file."""
    scores = load_scores(args.scores, validate=False)
    every = read_treebank(path, gold=gold)
    scores.check(every, path)
    scores.validate()
    positions = [i for i, s in enumerate(every) if args.max_length is None or s.n <= args.max_length]
    positions = positions[: args.limit]
    if not positions:
        raise _nothing_selected(path, args)
    return scores, positions, [every[i] for i in positions]


def noisy_treebank(args: argparse.Namespace) -> tuple[Path, list[tuple[Sentence, NDArray[np.float64]]]]:
    """The sentences selected by the options of :func:`noisy_treebank_options`, each with its arc
    scores (gold arcs plus seeded Gaussian noise: the stand-in for a trained first-order model); resolves
    ``args.single_root`` from the data when it was not given."""
    path = args.treebank or sample_treebank_path()
    sentences = selected_sentences(path, args)
    args.single_root = resolve_single_root(args.single_root, sentences)
    rng = np.random.default_rng(args.seed)
    return path, [(s, noisy_gold_scores(s.heads, noise=args.noise, rng=rng)) for s in sentences]


def score_file_treebank(args: argparse.Namespace) -> tuple[Path, list[tuple[Sentence, NDArray[np.float64]]]]:
    """As :func:`noisy_treebank`, with the arc scores of the score file ``args.scores``
    (:func:`scored_selection`); a :class:`DataError` names the first sentence whose arcs admit no tree under
    the root rule."""
    path = args.treebank or sample_treebank_path()
    scores, positions, sentences = scored_selection(path, args)
    args.single_root = resolve_single_root(args.single_root, sentences)
    scored = [(s, scores[i].arc_scores()) for i, s in zip(positions, sentences)]
    for i, (_, arcs) in zip(positions, scored):
        try:
            check_tree_exists(arcs, args.single_root)
        except NoTreeError as err:
            raise DataError(f"{scores.where(i)}: {err}") from None
    return path, scored


def scored_run_options(out_help: str) -> Table:
    """Options of a resumable per-sentence run with grandparent scores (see :func:`scored_run`): treebank,
    --model, --scores or --synthetic, --out (``out_help``), selection, seed, root options, --workers/--scheduler
    and --no-progress."""
    scheduler = f"address of a Dask scheduler, e.g. tcp://host:8786 ({SCHEDULER_NOTE})"
    return (
        Option("--treebank", type=Path, default=None, help="CoNLL file (default: the shipped sample)"),
        OneOf(
            (
                Option("--model", type=Path, help="grandparent model file from 'lpparse train --order 2'"),
                Option(
                    "--scores", type=Path, metavar="FILE", help=f"{SCORES_HELP}; needs grandparent scores"
                ),
                Option(
                    "--synthetic",
                    action="store_true",
                    help="no model: noisy-gold arc and grandparent scores with loose bounds, seeded per sentence",
                ),
            ),
            required=True,
        ),
        Option("--out", type=Path, default=None, help=out_help),
        *SELECTION_OPTIONS,
        Option(
            "--seed", type=non_negative_int, default=0, help="base seed of the synthetic scores (default 0)"
        ),
        *ROOT_OPTIONS,
        Option(
            "--workers",
            type=positive_int,
            default=1,
            help="local worker processes (default 1; never more than the sentences to do or the cores "
            "available)",
        ),
        Option("--scheduler", default=None, help=scheduler),
        Option("--no-progress", action="store_true", help="hide the progress bar"),
    )


@dataclass(frozen=True)
class ScoredRun:
    """What :func:`scored_run` resolves from the options of :func:`scored_run_options`."""

    path: Path
    sentences: list[Sentence]
    positions: list[int]  #: of the sentences in the treebank (and score file)
    source: ScoreSource
    single_root: bool
    out: Path
    settings: dict[str, Any]


def scored_run(
    args: argparse.Namespace, name: str, every_family: bool = False, summary: bool = False
) -> ScoredRun:
    """Check every input and output first (treebank, model or score file, --out and with ``summary`` its
    .md and .csv beside it, --scheduler), then read the
    selected sentences, load the model (wrong order or version: a clear error) or check the score file
    against the treebank (:func:`scored_selection`; it must have grandparent scores, or with
    ``every_family`` any second-order scores: the command uses every family, else it warns about the families
    it leaves out), and decide the root rule (the user's, else the model's, else the data's). Paths are resolved, so workers and resumed runs
    see the same files. ``settings``: what the results depend on, for the header of the results file
    (:func:`lpparse.experiments.runner.run_tasks`): the contents of treebank, model and score file, not
    their paths."""
    path, model, scores, out = _run_paths(args, name, summary)
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    held: Any = None
    if scores is not None:
        args.scores = scores
        held, positions, sentences = scored_selection(path, args)
        if not (held.order == 2 or held.siblings if every_family else held.grandparent):
            needs = "second-order" if every_family else "grandparent"
            raise DataError(f"{scores}: {name} needs {needs} scores; the file has arc scores only")
    else:
        sentences = selected_sentences(path, args)
        positions = list(range(len(sentences)))
    source = ScoreSource(model=str(model) if model else None, scores=str(scores) if scores else None)
    single_root = args.single_root
    if source.model is not None:
        held = load_model(source.model)
        single_root = held.single_root if single_root is None else single_root
    if not every_family:
        _warn_left_out(held, name, model or scores)
    single_root = resolve_single_root(single_root, sentences)
    settings = _run_settings(args, name, path, source, single_root, every_family)
    return ScoredRun(path, sentences, positions, source, single_root, out, settings)


def _run_paths(
    args: argparse.Namespace, name: str, summary: bool
) -> tuple[Path, Path | None, Path | None, Path]:
    """The treebank, model and score file of a scored run, checked readable and resolved, and its --out
    (default ``results/NAME-TREEBANK.jsonl``), checked writable with, for ``summary``, its .md and .csv."""
    path = readable_file(args.treebank or sample_treebank_path(), "treebank").resolve()
    model = readable_file(args.model, "model").resolve() if args.model else None
    scores = readable_file(args.scores, "score file").resolve() if args.scores else None
    out = output_path(
        args.out or Path("results") / f"{name}-{path.stem}.jsonl", "--out", (path, model, scores)
    )
    if out.suffix in (".md", ".csv"):
        raise UsageError(
            f"--out {out}: the results are JSON lines and their summary goes to .md and .csv; give a .jsonl name"
        )
    for suffix in (".md", ".csv") if summary else ():  # no input, device or link either
        output_path(out.with_suffix(suffix), f"--out {out}: its summary", (path, model, scores))
    return path, model, scores, out


def _warn_left_out(held: Any, name: str, where: Path | None) -> None:
    """Warn about the parts of the model or score file ``held`` beyond arcs and grandparents, which a command
    that uses those only leaves out."""
    kinds = (
        ("sibling", "siblings"),
        ("consecutive-sibling", "consecutive"),
        ("tri-sibling", "trisiblings"),
        ("grand-sibling", "grandsiblings"),
    )
    extra = [kind for kind, attr in kinds if held is not None and getattr(held, attr, False)]
    if extra:
        warnings.warn(
            f"{name} uses arcs and grandparent triples only: the {' and '.join(extra)} parts of "
            f"{where} are left out (parse --decoder exact decodes them)"
        )


def _run_settings(
    args: argparse.Namespace,
    name: str,
    path: Path,
    source: ScoreSource,
    single_root: bool,
    every_family: bool,
) -> dict[str, Any]:
    """What a scored run's results depend on, for the header of its results file: the contents of treebank,
    model and score file, not their paths."""
    source_settings = asdict(replace(source, model=None))
    del source_settings["scores"]  # its content goes in below: headers of runs without one stay as they were
    settings = {
        "command": name,
        "treebank_sha256": file_digest(path),
        "model_sha256": file_digest(Path(source.model)) if source.model else None,
        "source": source_settings,
        "max_length": args.max_length,
        "seed": args.seed,
        "single_root": single_root,
    }
    if every_family:  # records count parts per family (lpparse 0.x before: grandparent fields gps_*)
        settings["records"] = 2
    if source.scores is not None:
        settings["scores_sha256"] = file_digest(Path(source.scores))
    return settings


def report_failures(records: list[dict[str, Any]], out: Path) -> tuple[list[dict[str, Any]], int]:
    """The records of tasks that did not fail, and how many failed (each named in one line on stderr)."""
    failed = [r for r in records if r.get("failed")]
    for r in failed:
        warnings.warn(
            f"sentence {r['key']} failed ({r['failed']}); recorded in {out}, computed again on resume"
        )
    if len(failed) == len(records):
        raise DataError(f"every sentence failed; see {out}")
    return [r for r in records if not r.get("failed")], len(failed)
