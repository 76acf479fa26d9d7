"""Parsing treebanks with a model: features, scores and a registered decoder per sentence, the labels of the
trees (:class:`TreeLabeller`), and UAS and LAS."""

from __future__ import annotations

import signal
import warnings
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.corpus import UAS, Sentence, corpus_uas
from lpparse.decoder import DecodeResult
from lpparse.decoding import decode, decoder_names, get_decoder, pruning_keep
from lpparse.families import family_parts
from lpparse.scores import ScoreFile
from lpparse.scoring.labels import UNLABELLED, choose_labels, unlabelled
from lpparse.scoring.model import BOUNDS, Model
from lpparse.workers import chunk_size, ordered_map

__all__ = [
    "TimeLimitExceeded",
    "TreeLabeller",
    "decode_sentence",
    "default_decoder",
    "default_decoder_options",
    "evaluate",
    "parse",
    "time_limit",
]


class TimeLimitExceeded(Exception):
    """Raised by :func:`time_limit` when its seconds are up."""


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`TimeLimitExceeded` in the block once ``seconds`` have passed (None: no limit). Uses
    SIGALRM, so the main thread only; Python code stops at once, a call into C code when it returns."""
    if seconds is None:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise TimeLimitExceeded(f"time limit of {seconds:g} s reached")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def default_decoder(model: Model | ScoreFile, projective: bool = False, trained: bool = True) -> str:
    """The decoder a model was trained with (its training record's ``decoder``, when ``trained`` and the
    record names a decoder for its order), else by kind: ``auto`` (the LP) for models and score files with
    consecutive-sibling parts, ``bp`` for models (or score files) with sibling parts (no fast dynamic program
    takes them), ``gp-eisner`` for grandparent ones; ``eisner`` or ``cle`` for first-order ones."""
    recorded = (getattr(model, "training", None) or {}).get("decoder") if trained else None
    if recorded in decoder_names(model.order):
        return str(recorded)
    if getattr(model, "consecutive", False):
        return "auto"  # only the LP decoders take consecutive siblings
    if model.siblings:
        return "bp"
    if model.order == 2:
        return "gp-eisner"
    return "eisner" if projective else "cle"


def trained_projective(model: Model | ScoreFile) -> bool | None:
    """Whether ``model``'s training marginals came from a projective (PTREE) distribution, from its training
    record; None when it does not say (a score file, a model without a record). Grandparent CLL always uses
    non-projective marginals (BP with the TREE factor, or enumeration of all trees), whatever ``projective``
    says of the gold trees."""
    training = getattr(model, "training", None) or {}
    recorded = (training.get("decoder_options") or {}).get("projective")
    if recorded is not None:
        return bool(recorded)
    config = training.get("config") or {}
    if "projective" not in config:
        return None
    if model.order == 2 and config.get("trainer", "cll") == "cll":
        return False
    return bool(config["projective"])


def default_decoder_options(
    model: Model | ScoreFile, decoder: str, projective: bool | None = None
) -> dict[str, Any]:
    """Options that make ``decoder`` decode as ``model`` was trained. For ``bp``: the tree factor of training
    (``projective``, else the model's training record; with neither, the decoder's own default), and the BP
    iterations and damping recorded with the dev decoder of training (``decoder_options``).

    Loopy-BP-trained weights are fitted to the beliefs of the factor graph and message schedule they were
    trained with (Wainwright 2006, "Estimating the 'wrong' graphical model: benefits in the
    computation-limited setting", JMLR 7). Decoding a TREE-trained grandparent + sibling model with the PTREE
    factor, the ``bp`` decoder's own default (``projective=True``, after Gormley, Dredze & Eisner 2015), cost
    2 points of dev UAS on hu_szeged (77.53 against 79.59 no punct with TREE)."""
    if decoder != "bp":
        return {}
    training = getattr(model, "training", None) or {}
    options: dict[str, Any] = {}
    if training.get("decoder") == decoder:
        options.update(
            (k, v)
            for k, v in (training.get("decoder_options") or {}).items()
            if k in ("iterations", "damping")
        )
    if projective is None:
        projective = trained_projective(model)
    if projective is not None:
        options["projective"] = projective
    return options


def parse(
    model: Model,
    sentences: Sequence[Sentence],
    decoder: str | None = None,
    progress: bool = False,
    bounds: str = "auto",
    workers: int = 1,
    scheduler: Any = None,
    **options: Any,
) -> list[DecodeResult]:
    """Decode every sentence with ``decoder`` (default :func:`default_decoder`) under the model's root rule;
    ``bounds``: the triple scorer's factorized bounds (:data:`PARSE_BOUNDS`). A model's
    sibling parts go to the decoders that take them (:func:`lpparse.decoding.decode`) unless ``options``
    has ``siblings=False``, its consecutive-sibling parts to the decoders that take part families unless it
    has ``consecutive=False`` (:func:`decode_sentence`). ``workers`` > 1 local processes, or a Dask
    ``scheduler`` (an address or a client), decode the sentences a few at a time (:func:`lpparse.workers.chunk_size`);
    the results are the same, in order."""
    name = decoder or default_decoder(model)
    with tqdm(
        total=len(sentences), desc=f"parsing ({name})", unit="sent", disable=not progress, leave=False
    ) as bar:
        common = (model, name, bounds, options)
        chunk = chunk_size(len(sentences), workers)
        results = []
        for done in ordered_map(_decode_one, list(sentences), workers, scheduler=scheduler, common=common, chunk=chunk):
            results.append(done)
            bar.update()
        return results


def _decode_one(common: tuple[Model, str, str, dict[str, Any]], sentence: Sentence) -> DecodeResult:
    """:func:`decode_sentence` of one sentence (a worker's call in :func:`parse`)."""
    model, name, bounds, options = common
    return decode_sentence(model, sentence, name, bounds, **options)


#: Factorized triple bounds for parsing: one of :data:`lpparse.scoring.model.BOUNDS`, or ``auto``
#: (:func:`triple_bounds`)
PARSE_BOUNDS = ("auto", *BOUNDS)


def triple_bounds(bounds: str, pruned: bool) -> str:
    """The bounds to use: ``bounds``, or for ``auto`` the model's offline tables over pruned arcs (their
    look-ups cost less than enumerating each template on the sentence's values, which pays only when many
    triples would otherwise be scored: Danish dev, grandparent + sibling model over arcs pruned as trained,
    every third sentence, CPU time: ``auto`` 4.9-5.0 s against 5.7 s, ``exact`` 4.8-5.0 s against 5.4-5.6 s)
    and the sentence's own values otherwise (:class:`lpparse.scoring.bounds.RestrictedBounds`)."""
    if bounds == "auto":
        return "offline" if pruned else "sentence"
    if bounds not in BOUNDS:
        raise ValueError(f"unknown bounds {bounds!r}; choose from {PARSE_BOUNDS}")
    return bounds


def decode_sentence(
    model: Model,
    sentence: Sentence,
    decoder: str,
    bounds: str = "auto",
    siblings: bool = True,
    pruner: Model | None = None,
    consecutive: bool = True,
    parts: Collection[str] | None = None,
    **options: Any,
) -> DecodeResult:
    """Score one sentence with the model and decode it with ``decoder`` under the model's root rule (its
    sibling parts go to the decoders that take them, unless ``siblings`` is False; its consecutive-sibling
    parts, :class:`lpparse.families.consecutive.family.ConsecutiveSiblingParts`, and its third-order parts on them
    (:func:`lpparse.families.third_order.family.window_parts`) to the decoders that take part families
    (``ppc``, ``bf``, ``auto``, ``exact``), unless ``consecutive`` is False: the others decode without
    them, as first-order decoders do without triples); ``parts``: the model's part families to decode with,
    by name (None: all; :func:`lpparse.families.family_parts` gives a family the windows it needs, of zero
    scores when they are left out). With the ``pruning``
    option (:class:`lpparse.pruning.ArcPruning`), arcs are pruned by the posteriors of ``pruner``'s arc
    scores (a first-order model), else of the model's own."""
    pruning = options.get("pruning")
    keep = None
    if pruner is not None:
        options["pruner_scores"] = pruner_scores = pruner.scorer(sentence).arc_scores()
        if pruning is not None:  # the model scores the arcs that survive alone
            keep = pruning_keep(decoder, pruner_scores, pruning, model.single_root, None, options)
            options["keep"] = keep
    scorer = model.scorer(sentence, keep)
    use = set(parts) if parts is not None else None
    second = model.order == 2 and (use is None or "grandparent" in use)
    triples = scorer.triples(triple_bounds(bounds, pruning is not None)) if second else None
    with_siblings = model.siblings and siblings and (use is None or "sibling" in use)
    sibling_scorer = scorer.siblings() if with_siblings else None
    if get_decoder(decoder).families:  # windows, third-order parts on them, families registered elsewhere
        windows = ("consecutive", "trisibling", "grandsibling") if model.consecutive and consecutive else ()
        scorers = {**dict(zip(windows, scorer.window_scorers())), **scorer.family_scorers()}
        chosen = {name: s for name, s in scorers.items() if (use is None or name in use) and s is not None}
        if chosen:
            options["parts"] = [*options.get("parts", ()), *family_parts(chosen, sentence.n)]
    return decode(decoder, scorer.arc_scores(), triples, model.single_root, sibling_scorer, **options)


def evaluate(
    model: Model,
    sentences: Sequence[Sentence],
    decoder: str | None = None,
    progress: bool = False,
    **options: Any,
) -> UAS:
    """UAS (and LAS, for a model with labels) of the decoded trees against the gold heads (``options`` go to
    :func:`parse`: ``workers``, ``scheduler``, and the decoder's)."""
    heads = [r.heads for r in parse(model, sentences, decoder, progress, **options)]
    if model.labels is None:
        return corpus_uas(sentences, heads)
    labels = [model.labels.tree_labels(model.vocab, s, h) for s, h in zip(sentences, heads)]
    return corpus_uas(sentences, heads, labels)


class TreeLabeller:
    """The DEPREL a parse writes for a tree of one of its sentences: the best label of each arc given its head
    (:func:`lpparse.scoring.labels.choose_labels`: the root label exactly on the tokens attached to 0) by the
    model's label model or the score file's label scores; for a source without labels, ``root`` on head-0
    tokens and ``dep`` elsewhere (:data:`lpparse.scoring.labels.UNLABELLED`), with one warning. Never the
    input's DEPREL. ``positions``: where each of ``sentences`` is in a score file (copies of a sentence, as
    k-best lists write, are found by their file and line)."""

    def __init__(
        self, source: Model | ScoreFile, sentences: Sequence[Sentence], positions: Sequence[int]
    ) -> None:
        self.source = source
        self._where = {(s.source, s.line): p for s, p in zip(sentences, positions)}
        self.labelled = (source.labels if isinstance(source, Model) else source.label_names) is not None
        self._warned = False

    def _warn(self) -> None:
        """Say once that the source has no labels."""
        if not self._warned:
            self._warned = True
            source = self.source
            warnings.warn(
                f"{getattr(source, 'path', 'the model')} has no label scores (trained without labels, or "
                f"before lpparse had them): every arc is labelled {UNLABELLED[1]!r}, each root "
                f"{UNLABELLED[0]!r}; add labels to a model with lpparse train --init MODEL --labels-only",
                stacklevel=3,
            )

    def __call__(self, sentence: Sentence, heads: NDArray[np.int64]) -> list[str]:
        """The labels of the tree ``heads`` of ``sentence`` (or of a copy of it), position 0 ``<root>``."""
        source = self.source
        if isinstance(source, Model) and source.labels is not None:
            return source.labels.tree_labels(source.vocab, sentence, heads)
        if isinstance(source, ScoreFile) and source.label_names is not None:
            m = np.arange(1, sentence.n + 1)
            table = source[self._where[sentence.source, sentence.line]].labels
            chosen = choose_labels(np.asarray(table[heads[1:], m]), heads[1:], source.root_label)
            return ["<root>", *(source.label_names[i] for i in chosen)]
        self._warn()
        return unlabelled(heads)
