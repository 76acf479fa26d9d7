"""``lpparse parse``: parse a treebank with a trained model or a score file and write the predicted heads."""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import threading
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.commands._common import SCORES_HELP, SELECTION_OPTIONS, scored_selection, selected_sentences
from lpparse.corpus import Sentence, corpus_uas, read_text, write_treebank
from lpparse.decoder import DecodeResult
from lpparse.decoding import decode, decoder_names, get_decoder
from lpparse.exact.decoder import lp_summary
from lpparse.exact.search import BRANCHING
from lpparse.families import family_parts
from lpparse.families.grandparent.rows import BASES, SEPARATED_BASES
from lpparse.io import DataError, UsageError, atomic_write, output_path, readable_file
from lpparse.options import (
    PARTS_HELP,
    ROOT_OPTIONS,
    Command,
    OneOf,
    Option,
    part_names,
    positive_float,
    positive_int,
    pruning_group,
    pruning_options,
    resolve_single_root,
    select_parts,
)
from lpparse.parsing import (
    PARSE_BOUNDS,
    TimeLimitExceeded,
    TreeLabeller,
    decode_sentence,
    default_decoder,
    default_decoder_options,
    time_limit,
)
from lpparse.pruning import ArcPruning, decoding_pruning, gold_recall
from lpparse.scores import ScoreFile, load_scores
from lpparse.scoring import Model
from lpparse.trees import NoTreeError
from lpparse.workers import SCHEDULER_NOTE, check_scheduler, chunk_size, ordered_map

#: Decoders that stop at a time limit of their own and return the best tree found: a sentence's --time-limit
#: goes to them, and the alarm that drops a sentence only rings at twice it. A tree they return unproved is left
#: out like a sentence out of time (one rule for every decoder: what is written is what was asked for)
ANYTIME = ("exact",)


COMMAND = Command(
    "parse",
    help="parse a treebank with a trained model (lpparse train) or a score file, and write CoNLL",
    description=(
        "Scores every sentence with the model (or reads its scores from --scores) and decodes it with a "
        "registered decoder. Writes the treebank back with predicted heads and labels (DEPREL: each arc's "
        "best label by the model's label model or the score file's label scores, 'root' exactly on the "
        "tokens attached to 0; every other column kept) and prints UAS and LAS against the input's "
        f"heads. Decoders: {', '.join(decoder_names())} (second-order decoders need a grandparent model "
        "or grandparent scores; bf, auto, bp, ppc and exact also use sibling parts: of a model trained with "
        "--siblings, or of the score file, unless --no-siblings)."
    ),
    epilog="Example: lpparse parse --model gp.npz --treebank dev.conllu --out pred.conllu --decoder gp-eisner",
    options=(
        OneOf(
            (
                Option("--model", type=Path, help="model file written by 'lpparse train'"),
                Option("--scores", type=Path, metavar="FILE", help=SCORES_HELP),
            ),
            required=True,
        ),
        OneOf(
            (
                Option("--treebank", type=Path, help="input treebank (CoNLL-U or CoNLL-X)"),
                Option(
                    "--text",
                    type=Path,
                    metavar="FILE",
                    help="pre-tokenized text instead ('-': standard input): one sentence a line, tokens separated by "
                    "spaces; written out as CoNLL-U with FORM, HEAD and DEPREL. A model whose features read tags (UPOS, "
                    "XPOS: every model trained on a treebank's tags) needs tagged CoNLL-U instead (--treebank), as "
                    "lpparse has no tagger: it is refused",
                ),
            ),
            required=True,
        ),
        Option(
            "--out",
            type=Path,
            default=None,
            help="output file ('-': standard output, the summary then on standard "
            "error; omit to only print UAS)",
        ),
        Option(
            "--decoder",
            default=None,
            help="decoder name (default: bp for models with siblings, gp-eisner for grandparent, cle for "
            "first-order models); exact proves its tree optimal, separating cuts the LP decoders leave out "
            "(GPChain over grandparent triples, triangles and GPSibArc over siblings, GSibGP over grand-siblings)",
        ),
        Option(
            "--bp-iters",
            type=positive_int,
            default=None,
            metavar="K",
            help="bp decoder: BP iterations (default: those the model was trained with, else 4)",
        ),
        Option(
            "--preset",
            choices=("martins", "onegp", "all"),
            default=None,
            help="ppc, bf, auto and exact decoders: grandparent constraint families (default all)",
        ),
        Option(
            "--sibling-preset",
            choices=("martins", "all", "triangles"),
            default=None,
            help="ppc, bf, auto and exact decoders on a model with siblings: sibling constraint families (default "
            "martins: ArcSib, SibArc; all adds SibClique; triangles adds the SibTriangle cuts, separated, which exact "
            "decoding adds to any preset)",
        ),
        Option("--parts", type=part_names, default=None, metavar="NAME[,NAME...]", help=PARTS_HELP),
        Option(
            "--no-siblings",
            action="store_true",
            help="decode without the sibling parts of a model or score file that has them (grandparent and arc "
            "parts only)",
        ),
        Option(
            "--bounds",
            choices=PARSE_BOUNDS,
            default=None,
            help="ppc, auto and exact decoders: factorized triple bounds from the sentence's own values or the "
            "model's offline tables (Riedel, Smith & McCallum 2012 eq. 13); default auto: the offline tables over "
            "pruned arcs, the sentence's values otherwise",
        ),
        Option(
            "--no-climb",
            action="store_true",
            help="ppc, bf and auto decoders: return a fractional LP's rounded tree as it is (default: it climbs "
            "along the head changes the LP point weighs while its score rises, "
            "lpparse.exact.heuristics.improve_along_lp)",
        ),
        Option(
            "--eager-rows",
            action="store_true",
            help="ppc, auto and exact decoders: add a part's ArcGP or ArcSib row with its column, as Riedel, Smith "
            "& McCallum (2012) §4 (default: only once the LP violates it, row generation; the same LP, faster)",
        ),
        pruning_group(
            "Second-order decoders then see far fewer parts; LP decoders stay exact and certified for the pruned "
            "problem. The summary reports the share of gold arcs that survived.",
            "model whose arc scores give the posteriors, typically a first-order one (default: the pruner a model "
            "was trained with, inside its file, else the decoded model's or score file's own arc scores). A model "
            "trained over pruned arcs decodes over the arcs its pruner keeps at its training threshold unless "
            "told otherwise",
            as_trained=True,
        ),
        *SELECTION_OPTIONS,
        *ROOT_OPTIONS,
        Option(
            "--time-limit",
            type=positive_float,
            default=None,
            help="seconds per sentence; a sentence over it (or out of memory) is reported and left out of --out",
        ),
        Option(
            "--k-best",
            type=positive_int,
            default=None,
            metavar="K",
            help="exact decoder: the K best trees of each sentence, each proved (Murty's partition); --out then "
            "holds K copies of each sentence, best first, each after the comments '# k_best_rank = r' and "
            "'# k_best_score = s' (UAS and the summary use the best tree)",
        ),
        Option(
            "--branching",
            choices=BRANCHING,
            default=None,
            help="exact decoder: the branching rule (pseudocost: reliability branching, which probes candidate "
            "arcs on each node's LP: fewer nodes on hard sentences and random scores, slower on sentences that "
            "close in a few nodes; arc: the most fractional arc; default auto: pseudocost with grandparent and "
            "sibling parts, arc with consecutive siblings or third-order parts; "
            "benchmarks/results/exact_branching_rules.md)",
        ),
        Option(
            "--base",
            choices=(*BASES, *SEPARATED_BASES),
            default=None,
            help="ppc, bf, auto and exact decoders: the arborescence polytope the LPs sit on (default single-flow "
            "for ppc, bf and auto, the paper's; cycle-cuts for exact: NoCycle rows separated by max-flow, the "
            "arborescence polytope without flow columns, as multi-flow's; benchmarks/results/exact_base.md)",
        ),
        Option(
            "--proof",
            type=Path,
            default=None,
            metavar="FILE",
            help="exact decoder: write each sentence's proof of optimality as one JSON line (sent_id, heads, the "
            "search's nodes with their duals; with --k-best, the K trees and Murty's partition with each "
            "subproblem's proof); 'lpparse check-proof FILE' re-checks them from the scores",
        ),
        Option(
            "--workers",
            type=positive_int,
            default=1,
            help="local worker processes (default 1; never more than the sentences or the cores available); the "
            "output is the same as with one, in the input's order",
        ),
        Option(
            "--scheduler",
            default=None,
            help="address of a Dask scheduler (e.g. tcp://host:8786) whose workers parse instead; the workers must "
            f"reach the model or score file at the same path; {SCHEDULER_NOTE}",
        ),
        Option("--no-progress", action="store_true", help="hide the progress bar"),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


#: Decoders that take a part family's relaxation options (--preset, --base, --sibling-preset)
RELAXATIONS = ("ppc", "bf", "auto", "exact")


def _decoder_options(args: argparse.Namespace, model: Model | ScoreFile) -> tuple[str, dict[str, object]]:
    """The decoder and its options, checked against each other and the model or score file
    (:class:`UsageError`)."""
    decoder = _checked_decoder(args, model)
    options: dict[str, object] = dict(default_decoder_options(model, decoder))  # bp: the training tree factor
    options.update(_flag_options(args, decoder, model))
    pruning = _pruning(args, model, decoder)
    if pruning is not None:
        options["pruning"] = pruning
    return decoder, options


def _checked_decoder(args: argparse.Namespace, model: Model | ScoreFile) -> str:
    """``--decoder`` (default: the model's), checked to be one that takes the parts of the model or score file."""
    decoder = args.decoder or default_decoder(model)
    if decoder not in decoder_names():
        raise UsageError(f"--decoder: unknown decoder {decoder!r}; choose from {', '.join(decoder_names())}")
    if decoder not in decoder_names(model.order):
        if args.model:
            raise UsageError(f"--decoder {decoder} needs a grandparent model; {args.model} is first-order")
        raise UsageError(f"--decoder {decoder} needs grandparent scores; {args.scores} has none")
    consecutive = getattr(model, "windows", getattr(model, "consecutive", False))
    if consecutive and get_decoder(decoder).order == 2 and not get_decoder(decoder).families:
        takes = ", ".join(n for n in decoder_names() if get_decoder(n).families)
        raise UsageError(
            f"--decoder {decoder} cannot use the consecutive-sibling (or third-order) scores of {args.scores}; "
            f"use {takes}"
        )
    if consecutive and not model.grandparent and get_decoder(decoder).order == 2 and args.preset is not None:
        raise UsageError(f"--preset: {args.scores} has no grandparent scores")
    return decoder


def _only(flag: str, decoder: str, decoders: tuple[str, ...]) -> None:
    """A :class:`UsageError` unless ``decoder`` is one of the ``decoders`` that ``flag`` applies to."""
    if decoder in decoders:
        return
    if len(decoders) == 1:
        exact = " (--decoder exact)" if decoders == ("exact",) else ""
        raise UsageError(f"{flag} applies to the {decoders[0]} decoder only{exact}")
    raise UsageError(f"{flag} applies to the {', '.join(decoders[:-1])} and {decoders[-1]} decoders only")


def _flag_options(args: argparse.Namespace, decoder: str, model: Model | ScoreFile) -> dict[str, object]:
    """The decoder options of the flags that apply to some decoders only, each checked against the decoder."""
    options: dict[str, object] = {}
    if args.bp_iters is not None:
        _only("--bp-iters", decoder, ("bp",))
        options["iterations"] = args.bp_iters
    if args.preset is not None:
        _only("--preset", decoder, RELAXATIONS)
        options["preset"] = args.preset
    if args.parts is not None:
        missing = [name for name in args.parts if name not in model.part_names()]
        if missing:
            has = ", ".join(model.part_names()) or "arc scores only"
            raise UsageError(f"--parts: {args.model or args.scores} has no {', '.join(missing)} parts ({has})")
    if args.no_siblings and not model.siblings:
        raise UsageError(f"--no-siblings: {args.model or args.scores} has no sibling parts")
    if args.sibling_preset is not None:
        if decoder not in RELAXATIONS or not model.siblings or args.no_siblings:
            raise UsageError(
                "--sibling-preset applies to the ppc, bf, auto and exact decoders with sibling parts only"
            )
        options["sibling_preset"] = args.sibling_preset
    if args.bounds is not None:
        _only("--bounds", decoder, ("ppc", "auto", "exact"))
    if args.no_climb:
        _only("--no-climb", decoder, ("ppc", "bf", "auto"))
        options["climb"] = False
    if args.eager_rows:
        _only("--eager-rows", decoder, ("ppc", "auto", "exact"))
        options.update(lazy_arcgp=False, lazy_arcsib=False)
    if args.bounds is not None:
        if args.scores:
            raise UsageError("--bounds applies to --model only (a score file's bounds are exact)")
        options["bounds"] = args.bounds
    if args.time_limit is not None and decoder in ("ppc", "bf", "auto", *ANYTIME):
        options["time_limit"] = args.time_limit  # HiGHS stops too, not only the Python code around it
    for flag, name, value, decoders in (
        ("--k-best", "k_best", args.k_best, ("exact",)),
        ("--base", "base", args.base, RELAXATIONS),
        ("--branching", "branching", args.branching, ("exact",)),
        ("--proof", "proof", None if args.proof is None else True, ("exact",)),
    ):
        if value is not None:
            _only(flag, decoder, decoders)
            options[name] = value
    return options


def _pruning(args: argparse.Namespace, model: Model | ScoreFile, decoder: str) -> ArcPruning | None:
    """The arc pruning the options ask for, or a model's own (as it was trained), unless --no-prune; a warning
    when a model was trained over pruned arcs by a pruner its file does not hold."""
    pruning = pruning_options(args)
    if isinstance(model, Model):
        pruning = decoding_pruning(model, pruning, args.no_prune)
    elif args.no_prune:
        pruning = None
    trained = (getattr(model, "training", None) or {}).get("config") or {}
    untravelled = isinstance(model, Model) and model.pruner is None and trained.get("pruning")
    if pruning is None and untravelled and not args.no_prune and decoder == default_decoder(model):
        warnings.warn(
            f"{args.model} was trained and early-stopped over arcs pruned by {model.training.get('pruner')} at "
            f"posterior {trained['pruning']['threshold']:g} (at most {trained['pruning']['max_heads']} heads), "
            "a pruner its file does not hold (trained before pruners travelled with models); decoding "
            "unpruned. Pass the same --pruner and --prune-threshold to decode as trained"
        )
    return pruning


def _decode(
    source: Model | ScoreFile,
    position: int,
    sentence: Sentence,
    decoder: str,
    single_root: bool,
    siblings: bool,
    pruner: Model | None,
    parts: tuple[str, ...] | None = None,
    **options: object,
) -> DecodeResult:
    """One sentence, scored by the model (under its root rule) or read from the score file; ``siblings``:
    with its sibling parts (if any); ``pruner``: the model of the pruning posteriors (if any); ``parts``: the
    part families to decode with (None: all of the source's)."""
    if isinstance(source, Model):
        return decode_sentence(source, sentence, decoder, siblings=siblings, pruner=pruner, parts=parts, **options)
    entry = source[position]
    scorers = select_parts(entry.part_scorers(), parts, "the score file")
    triples, sibling_scorer = scorers.pop("grandparent", None), scorers.pop("sibling", None)
    if pruner is not None:
        options["pruner_scores"] = pruner.scorer(sentence).arc_scores()
    # consecutive siblings, tri-siblings, grand-siblings, and any other registered family the file has scores of
    if scorers and get_decoder(decoder).families:
        options["parts"] = family_parts(scorers, sentence.n)
    return decode(
        decoder, entry.arc_scores(), triples, single_root, sibling_scorer if siblings else None, **options
    )


@dataclass(frozen=True)
class _Job:
    """What parsing one sentence needs besides the sentence, picklable for worker processes: the model or
    score file and the pruner by path, the decoder, its options and the time limit."""

    model: str | None
    scores: str | None
    pruner: str | None
    decoder: str
    single_root: bool
    siblings: bool
    limit: float | None
    options: dict[str, object]
    parts: tuple[str, ...] | None = None


#: Loaded models and score files by (path, process): a forked worker shares its parent's models and opens score
#: files anew (an open archive's file offset must not be shared between processes)
_LOADED: dict[tuple[str, int], Model | ScoreFile] = {}


def _loaded(path: str, kind: str) -> Model | ScoreFile:
    key = (path, os.getpid() if kind == "scores" else 0)
    if key not in _LOADED:
        _LOADED[key] = load_scores(path, validate=False) if kind == "scores" else Model.load(path)
    return _LOADED[key]


def _parse_one(payload: tuple[_Job, int, Sentence]) -> tuple[DecodeResult | None, str | None]:
    """One sentence: its result, or why it was not parsed (time limit, memory, no tree, no proof)."""
    job, position, sentence = payload
    source = _loaded(job.model, "model") if job.model else _loaded(str(job.scores), "scores")
    pruner = _loaded(job.pruner, "model") if job.pruner else None
    if pruner is None and "pruning" in job.options and isinstance(source, Model):
        pruner = source.pruner  # the pruner it was trained with (None: its own posteriors)
    # SIGALRM works in a process's main thread only (a Dask worker runs tasks in threads: the decoders' own
    # time limits still hold there)
    limit = job.limit if threading.current_thread() is threading.main_thread() else None
    try:
        with time_limit(limit):
            result = _decode(
                source,
                position,
                sentence,
                job.decoder,
                job.single_root,
                job.siblings,
                pruner,  # type: ignore[arg-type]
                job.parts,
                **job.options,
            )
    except (TimeLimitExceeded, MemoryError, NoTreeError) as err:  # no tree: pruned parts leave none
        return None, "out of memory" if isinstance(err, MemoryError) else str(err)
    if result.stats.get("status", "optimal") != "optimal":  # exact stopped by its limit: no proof
        gap = result.stats.get("gap", float("nan"))
        return None, f"{result.stats['status']} before the tree was proved optimal (gap {gap:.4g})"
    return result, None


def _decoded(
    source: Model | ScoreFile,
    sentences: list[Sentence],
    positions: list[int],
    decoder: str,
    single_root: bool,
    args: argparse.Namespace,
    **options: object,
) -> tuple[list[Sentence], list[DecodeResult]]:
    """The sentences that decoded and their results, in the input's order, on ``args.workers`` processes;
    one warning for each that ran out of time or memory."""
    limit = args.time_limit and args.time_limit * (2 if decoder in ANYTIME else 1)
    pruner = str(readable_file(args.pruner, "--pruner model").resolve()) if args.pruner else None
    model = str(Path(args.model).resolve()) if args.model else None
    scores = str(Path(args.scores).resolve()) if args.scores else None
    job = _Job(model, scores, pruner, decoder, single_root, not args.no_siblings, limit, options, args.parts)
    if pruner is not None:
        _loaded(pruner, "model")  # an unreadable pruner fails here, once
    _LOADED[(model, 0) if model else (str(scores), os.getpid())] = source
    kept, results = [], []
    payloads = [(job, position, sentence) for position, sentence in zip(positions, sentences)]
    chunk = chunk_size(len(payloads), args.workers)
    done = ordered_map(_parse_one, payloads, args.workers, scheduler=args.scheduler, chunk=chunk)
    bar = tqdm(
        done,
        total=len(payloads),
        desc=f"parsing ({decoder})",
        unit="sent",
        disable=args.no_progress,
        leave=False,
    )
    for sentence, (result, failure) in zip(sentences, bar):
        if result is None:
            where = f"{sentence.source}:{sentence.line}: sentence {sentence.sent_id} ({sentence.n} tokens)"
            warnings.warn(f"{where} not parsed: {failure}")
            continue
        results.append(result)
        kept.append(sentence)
    return kept, results


#: Token attributes of a model's features that plain text does not give (:meth:`Model.attributes`)
TAGS = frozenset({"pos", "cpos", "between"})


def _input_sentences(args: argparse.Namespace, treebank: Path) -> list[Sentence]:
    """The selected sentences of the treebank, or of ``--text`` (pre-tokenized, ``-``: standard input)."""
    if args.text is None:
        return selected_sentences(treebank, args, gold=False)
    stdin = sys.stdin if str(args.text) == "-" else None
    sentences = [s for s in read_text(args.text, stdin) if args.max_length is None or s.n <= args.max_length]
    sentences = sentences[: args.limit]
    if not sentences:
        raise DataError(f"{args.text}: no sentence to parse (a sentence a line, tokens separated by spaces)")
    return sentences


def _model_sentences(
    args: argparse.Namespace, treebank: Path
) -> tuple[Model, list[int], list[Sentence], str, dict[str, object]]:
    """The model, the selected sentences and their positions, the decoder and its options."""
    if args.single_root is not None:
        raise UsageError(
            "--single-root and --multi-root apply to --scores only (a model has its own root rule)"
        )
    model = Model.load(readable_file(args.model, "model"))
    decoder, options = _decoder_options(args, model)
    tags = sorted(model.attributes() & TAGS)
    if args.text is not None and tags:
        raise UsageError(
            f"--text: {args.model}'s features read part-of-speech tags (UPOS/XPOS: {', '.join(tags)}), which "
            "plain text does not have and lpparse does not predict: tag the text (e.g. with UDPipe) "
            "and give it as CoNLL-U with --treebank"
        )
    sentences = _input_sentences(args, treebank)
    multi = sum(s.annotated and not s.single_rooted for s in sentences)
    if model.single_root and multi:
        warnings.warn(
            f"{args.model} is a single-root model but {multi} of {len(sentences)} sentences of {treebank} "
            "have several root children: their trees get one"
        )
    return model, list(range(len(sentences))), sentences, decoder, options


def _ranked_copies(
    sentences: list[Sentence], results: list[DecodeResult]
) -> tuple[list[Sentence], list[NDArray[np.int64]]]:
    """Each sentence once per tree of its k-best list, best first, after the comments naming the tree's rank
    and score."""
    copies, heads = [], []
    for sentence, result in zip(sentences, results):
        for rank, (tree, score) in enumerate(result.stats["kbest"], 1):
            comments = [f"# k_best_rank = {rank}", f"# k_best_score = {score!r}"]
            copies.append(replace(sentence, lines=comments + list(sentence.lines)))
            heads.append(tree)
    return copies, heads


def _write_proofs(path: Path, sentences: list[Sentence], results: list[DecodeResult]) -> None:
    """One JSON line per sentence: its sent_id and the proof record of its tree (with the arcs pruning kept)."""
    with atomic_write(path) as handle:
        for sentence, result in zip(sentences, results):
            record = dict(result.stats["proof"])
            if result.kept_arcs is not None:
                record["kept_arcs"] = np.argwhere(result.kept_arcs).tolist()
            handle.write(json.dumps({"sent_id": sentence.sent_id, **record}) + "\n")


def pruning_summary(sentences: list[Sentence], results: list[DecodeResult]) -> str:
    """One line: the share of candidate arcs that arc pruning kept, and of the input's (gold) arcs."""
    recall = [
        gold_recall(r.kept_arcs, s.heads)
        for s, r in zip(sentences, results)
        if r.kept_arcs is not None and s.annotated
    ]
    kept = float(np.mean([r.stats["arcs_kept"] for r in results]))
    gold = sum(k for k, _ in recall) / max(1, sum(t for _, t in recall))
    return (
        f"arc pruning: kept {100 * kept:.1f}% of candidate arcs (mean per sentence), {100 * gold:.2f}% of gold "
        "arcs; optimality and certificates hold over the kept arcs"
    )


def _input_path(args: argparse.Namespace) -> Path:
    """The treebank, or the ``--text`` file (``-``: standard input), checked readable."""
    if args.text is None:
        return readable_file(args.treebank, "treebank")
    if args.scores:
        raise UsageError("--text: a score file holds the scores of a treebank's sentences; give --treebank")
    return args.text if str(args.text) == "-" else readable_file(args.text, "--text file")


def _scored(parsed: list[Sentence], heads: list[NDArray[np.int64]], labels: list[list[str]] | None) -> str:
    """UAS (and LAS, when there are labels), with and without punctuation, of the sentences with gold trees."""
    gold = sum(s.annotated for s in parsed)
    if not gold:
        return "no gold trees to score"
    uas = corpus_uas(parsed, heads, labels)
    scored = f"UAS {100 * uas.uas:.2f}%" + (f" (the {gold} with gold trees)" if gold < len(parsed) else "")
    if uas.total_no_punct:
        scored += f", UAS no punct {100 * uas.uas_no_punct:.2f}%"
    if uas.labelled and any(s.labelled for s in parsed):
        scored += f", LAS {100 * uas.las:.2f}%"
        scored += f", LAS no punct {100 * uas.las_no_punct:.2f}%" if uas.total_no_punct else ""
    return scored


def run(args: argparse.Namespace) -> int:
    treebank = _input_path(args)
    inputs = (args.treebank, args.text, args.model, args.scores, args.pruner)
    to_stdout = args.out is not None and str(args.out) == "-"
    say = functools.partial(print, file=sys.stderr if to_stdout else sys.stdout)
    out = args.out if to_stdout else output_path(args.out, "--out", inputs) if args.out else None
    proof = output_path(args.proof, "--proof", inputs, [("--out", args.out)]) if args.proof else None
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    source: Model | ScoreFile
    if args.model:
        source, positions, sentences, decoder, options = _model_sentences(args, treebank)
        single_root = source.single_root
    else:
        source, positions, sentences = scored_selection(treebank, args, gold=False)
        decoder, options = _decoder_options(args, source)
        single_root = resolve_single_root(args.single_root, sentences)
    start = time.perf_counter()
    parsed, results = _decoded(source, sentences, positions, decoder, single_root, args, **options)
    seconds = time.perf_counter() - start
    if not results:
        raise DataError(f"{treebank}: no sentence could be parsed")
    heads = [r.heads for r in results]
    labeller = TreeLabeller(source, sentences, positions)  # predicted DEPREL, never the input's
    labels = [labeller(s, h) for s, h in zip(parsed, heads)] if out or labeller.labelled else None
    if out and args.k_best is not None:
        copies, ranked = _ranked_copies(parsed, results)
        write_treebank(out, copies, ranked, [labeller(s, h) for s, h in zip(copies, ranked)])
    elif out:
        write_treebank(out, parsed, heads, labels)
    if proof:
        _write_proofs(proof, parsed, results)
    scored = _scored(parsed, heads, labels if labeller.labelled else None)
    objective = float(np.mean([r.objective for r in results]))
    failed = len(sentences) - len(parsed)
    say(
        f"{treebank.name}: {len(parsed)} sentences{f' ({failed} not parsed)' if failed else ''}, "
        f"decoder {decoder}, {seconds:.1f} s; {scored}, mean objective {objective:.3f}"
    )
    summary = lp_summary(results)
    if summary:
        say(summary)
    if "pruning" in options:
        say(pruning_summary(parsed, results))
    if out and not to_stdout:
        say(f"wrote {out}")
    if proof:
        what = f"{len(results)} trees"
        if args.k_best is not None:
            what = f"the {args.k_best} best trees of {len(results)} sentences"
        say(f"wrote {proof} (proofs of {what}; check them with lpparse check-proof)")
    return 1 if failed else 0
