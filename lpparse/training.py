"""Training: conditional log-likelihood with AdaGrad, the averaged perceptron, and the structured hinge loss
with AdaGrad, for both model orders.

* **CLL** (Koo et al. 2007; BP reading note §2.8): J = log Z − s(y*), gradient Σ (μ − 1[y*]) f.
  First order: μ from the matrix-tree theorem (non-projective) or inside-outside (projective; a
  non-projective gold tree is replaced by its closest projective tree, Carreras 2007). Grandparent order:
  μ and the triple marginals (and, for models with sibling templates, the sibling-pair marginals) come from
  a pluggable routine (:data:`GP_MARGINALS`), as the paper trains with belief-propagation marginals
  (Riedel, Smith & McCallum 2012, §2.4; Smith and Eisner 2008); BP's sibling factor is the same part
  ⟨h, m, m'⟩, m < m', as :mod:`lpparse.families.sibling.rows`.
  Optimizer: ℓ2-regularized AdaGrad with composite mirror descent on the touched coordinates,
  θ ← (H θ − η g) / (H + η λ/N) with H = δ + √G (Duchi et al. 2011; BP reading note §2.8).
* **Averaged perceptron** (Collins 2002) with exact decoding: Chu-Liu-Edmonds or Eisner (first order),
  projective grandparent Eisner (grandparent models, ``decoder="gp-eisner"``); or, for every second-order
  model (the default for models with sibling parts), with the non-projective second-order LP (``auto``,
  ``bf`` or ``ppc``) and its optimum μ, fractional or not, in the update f(y*) − Σ μ_part f(part): training
  with the relaxation the parser decodes with (Kulesza & Pereira 2007, "Structured Learning with Approximate
  Inference", NIPS 20; Finley & Joachims 2008, "Training Structural SVMs when Exact Inference is
  Intractable", ICML 2008, who find that relaxed training makes the relaxation tighter on new data), as
  Martins, Smith & Xing (2009, ACL-IJCNLP) train their LP parser. ``cost`` > 0 adds a Hamming cost per
  wrong head to the decoded scores (loss-augmented decoding, a structured hinge loss; Taskar et al. 2004).
  With ``decoder="exact"`` it decodes exactly instead (branch and bound over the LP, at most
  :data:`EXACT_TRAIN_TIME_LIMIT` s per sentence), the plain perceptron with the decoder the model is meant
  for. Models with consecutive-sibling parts (``Model.consecutive``: windows ⟨h, a, b⟩ of head automata,
  :mod:`lpparse.families.consecutive.rows`) train this way only: their family
  (:class:`lpparse.families.consecutive.family.ConsecutiveSiblingParts`) joins the LP or the exact search, and the update
  subtracts the LP values of its ``zcs`` columns (the windows of the best tree with ``exact``) too. CLL
  refuses them: BP has no head-automaton factor here, so there are no window marginals.
* **Structured hinge loss** (``trainer="hinge"``; Taskar et al. 2004, Tsochantaridis et al. 2005): the
  perceptron's decoding and update with ``cost`` as the margin, taken as the subgradient of the ℓ2-regularized
  hinge loss max_y [s(y) + cost·Δ(y, y*)] − s(y*) by the AdaGrad of CLL (Ratliff, Bagnell & Zinkevich 2007,
  "(Online) Subgradient Methods for Structured Prediction", AISTATS).
  With ``pruning`` (and a first-order ``pruner``), the perceptron (and the hinge trainer) decodes over the arcs that survive the
  pruner's posteriors, the gold arcs always among them (so that the gold tree stays reachable), and the dev
  sentences are decoded over the same pruned arcs (without the gold ones).

Epochs shuffle with a fixed seed; after each epoch the dev UAS (no punctuation) is measured (and the dev LAS,
for a model with a label model) and the best epoch's weights are kept (early stopping with ``patience``).

* **Labels** (:func:`train_labels`): the second-stage label model of :mod:`lpparse.scoring.labels`
  (McDonald, Lerman & Pereira 2006), an averaged multiclass perceptron over the gold arcs, each non-root arc a
  multiclass example (the arcs of a sentence predicted, then updated together). It needs no decoding and no
  arc weights, so it is trained before the arcs, and each arc epoch's dev LAS labels that epoch's trees.

Training sits above the algorithms it fits with (BP marginals, the decoders of :mod:`lpparse.parsing`); the
weights it fits are scored by :mod:`lpparse.scoring`, below them.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from typing import Any, Self

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.bp import bp_marginals
from lpparse.corpus import Sentence
from lpparse.decoder import dense_triple_scores
from lpparse.exact.search import exact_search
from lpparse.families import family_parts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import window_parts
from lpparse.oracles import chu_liu_edmonds, eisner, matrix_tree, projective_inside_outside
from lpparse.oracles.brute_force import _tree_scores
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.parsing import default_decoder, default_decoder_options, evaluate
from lpparse.ppc.loop import second_order_parts, solve_lp
from lpparse.pruning import ArcPruning, pruning_mask
from lpparse.scoring.features import Vocabulary
from lpparse.scoring.labels import LabelFeatures, Labeller, choose_labels, label_ids, label_set
from lpparse.scoring.model import (
    Model,
    SentenceScorer,
)
from lpparse.trees import allowed_arcs
from lpparse.triples import candidate_siblings, candidate_triples, tree_siblings
from lpparse.workers import cluster, ordered_map

__all__ = [
    "GP_MARGINALS",
    "LP_DECODERS",
    "RELAXATION_DECODERS",
    "TRAINERS",
    "AdaGrad",
    "EpochRecord",
    "GPMarginals",
    "LabelConfig",
    "PartTable",
    "SiblingTable",
    "TrainConfig",
    "TripleTable",
    "bp_gp_marginals",
    "checked_config",
    "describe",
    "exact_gp_marginals",
    "gold_triples",
    "train",
    "train_labels",
    "usable",
]

#: (arc scores, dense triple scores, single_root, dense sibling scores or None) -> (log Z, arc marginals
#: (n+1, n+1), triple marginals (n+1,)*3, sibling marginals (n+1,)*3 or None).
GPMarginals = Callable[
    [NDArray[np.float64], NDArray[np.float64], bool, NDArray[np.float64] | None],
    tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None],
]

#: Training objectives: conditional log-likelihood, averaged perceptron, structured hinge loss.
TRAINERS = ("cll", "perceptron", "hinge")

#: Second-order LP decoders the perceptron trains with, their optimum (fractional or not) in the update.
LP_DECODERS = ("auto", "bf", "ppc")

#: Second-order decoders that take sibling parts and a Hamming cost: the LP, and exact decoding.
RELAXATION_DECODERS = (*LP_DECODERS, "exact")

#: Seconds per training sentence for the ``exact`` decoder (the best tree found then enters the update).
EXACT_TRAIN_TIME_LIMIT = 10.0

#: LP values below this are zero in a relaxed perceptron update.
LP_ZERO = 1e-9

#: Largest sentence :func:`exact_gp_marginals` enumerates.
EXACT_MAX_N = 6


def exact_gp_marginals(
    arc_scores: NDArray[np.float64],
    gp_scores: NDArray[np.float64],
    single_root: bool,
    sib_scores: NDArray[np.float64] | None = None,
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
    """Exact arc, triple and (with ``sib_scores``) sibling-pair marginals of the second-order model by
    enumerating all non-projective trees (n ≤ ``EXACT_MAX_N``): the reference against which approximate
    marginals (BP) are plugged in."""
    n = arc_scores.shape[0] - 1
    if n > EXACT_MAX_N:
        raise ValueError(f"exact grandparent marginals enumerate trees: n={n} > {EXACT_MAX_N}")
    trees, values = _tree_scores(arc_scores, single_root, False, gp_scores, sib_scores)
    top = values.max()
    prob = np.exp(values - top)
    log_z = float(top + np.log(prob.sum()))
    prob /= prob.sum()
    size = n + 1
    mu = np.zeros((size, size))
    gmu = np.zeros((size, size, size))
    for m in range(1, size):
        mu[:, m] = np.bincount(trees[:, m], weights=prob, minlength=size)
        p = trees[:, m]
        inner = p > 0
        np.add.at(gmu, (trees[inner, p[inner]], p[inner], m), prob[inner])
    smu = None
    if sib_scores is not None:
        smu = np.zeros((size, size, size))
        k, m, m2 = np.nonzero(np.triu(trees[:, 1:, None] == trees[:, None, 1:], 1))
        np.add.at(smu, (trees[k, m + 1], m + 1, m2 + 1), prob[k])
    return log_z, mu, gmu, smu


def bp_gp_marginals(
    arc_scores: NDArray[np.float64],
    gp_scores: NDArray[np.float64],
    single_root: bool,
    sib_scores: NDArray[np.float64] | None = None,
    iterations: int = 4,
    damping: float = 0.0,
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None]:
    """Loopy BP beliefs with the non-projective TREE factor, grandparent factors and (with ``sib_scores``)
    sibling factors, ``iterations`` iterations (4, as Gormley et al. 2015 Table 1) with message ``damping``;
    log Z is the Bethe approximation."""
    result = bp_marginals(
        arc_scores,
        gp_scores,
        sib_scores,
        single_root=single_root,
        projective=False,
        iterations=iterations,
        damping=damping,
    )
    beliefs = result.gp_beliefs
    assert beliefs is not None
    sib = result.factor_beliefs.get("sibling")
    return float(result.log_z_bethe), result.marginals, beliefs.copy(), None if sib is None else sib.copy()


#: Grandparent marginal routines by name: surrogate likelihood with BP beliefs (the paper's training, §2.4)
#: or exact enumeration (short sentences only).
GP_MARGINALS: dict[str, GPMarginals] = {"bp": bp_gp_marginals, "exact": exact_gp_marginals}


@dataclass
class TrainConfig:
    """Hyperparameters (defaults follow BP reading note §3 where the paper gives them: λ = 1, AdaGrad, θ₀ =
    0)."""

    trainer: str = "cll"  # one of TRAINERS
    epochs: int = 10
    patience: int = 2
    learning_rate: float = 0.1
    l2: float = 1.0
    adagrad_delta: float = 1.0
    projective: bool = False
    gp_marginals: str = "bp"
    #: BP iterations and damping of the training marginals (gp_marginals "bp"); the dev decoder (``bp`` for
    #: sibling models) runs with the same ones. None: 4 iterations (Gormley et al. 2015).
    bp_iterations: int | None = None
    bp_damping: float = 0.0
    max_length: int | None = None
    seed: int = 0
    progress: bool = True
    #: the perceptron's or hinge's decoder (:func:`checked_config`; None: its default)
    decoder: str | None = None
    #: Hamming cost per wrong head added in the LP or exact decoding of the perceptron or hinge trainer (the
    #: margin; None: 1 for hinge with such a decoder, else 0)
    cost: float | None = None
    #: arc pruning of the perceptron's decoding and of the dev decoding (needs a first-order ``pruner``)
    pruning: ArcPruning | None = None
    #: learners trained in parallel and mixed (iterative parameter mixing, :func:`_mixed_epoch`); 1: the
    #: sequential trainer. Local processes (never more than the cores), or a Dask cluster's workers.
    workers: int = 1
    #: sentences each learner trains on between two mixings (``workers`` > 1)
    mix_every: int = 200


def checked_config(model: Model, config: TrainConfig, pruner: Model | None = None) -> TrainConfig:
    """``config`` checked against ``model`` and ``pruner`` (ValueError), with its defaults made explicit.

    The perceptron's and hinge's ``decoder``: ``cle`` or ``eisner`` for first-order models (by default as
    ``projective`` says); for second-order ones ``gp-eisner`` (grandparent models only, their default) or one
    of :data:`RELAXATION_DECODERS` (``auto``, the default for models with sibling or consecutive-sibling
    parts, which no dynamic program here decodes). ``cost``: 1 for hinge with a relaxation decoder, else 0.
    CLL takes neither, nor pruning, nor models with consecutive-sibling parts; pruning needs a first-order
    ``pruner`` with the model's root rule."""
    if config.trainer not in TRAINERS:
        raise ValueError(f"trainer must be one of {', '.join(TRAINERS)}, got {config.trainer!r}")
    if model.families and (config.trainer == "cll" or config.decoder not in (None, "exact")):
        names = ", ".join(t.name for t in model.families)
        raise ValueError(
            f"the part families {names} train with the perceptron or hinge trainer and the exact decoder (their "
            "updates are the parts of the best tree; an LP point of a family registered elsewhere is not known)"
        )
    if config.trainer == "cll" and model.consecutive:
        raise ValueError(
            "cll cannot train consecutive-sibling parts (BP has no head-automaton factor, so there are no "
            "window marginals); train them with the perceptron or hinge trainer"
        )
    if config.trainer == "cll":
        if model.order == 2 and config.gp_marginals not in GP_MARGINALS:
            raise ValueError(
                f"unknown grandparent marginals {config.gp_marginals!r}; choose from {sorted(GP_MARGINALS)}"
            )
        if config.decoder is not None or config.cost is not None or config.pruning is not None:
            raise ValueError(
                "decoder, cost and pruning are options of the perceptron and hinge trainers, not of cll"
            )
    else:
        config = _decoding_config(model, config)
    if config.workers < 1 or config.mix_every < 1:
        raise ValueError(f"workers and mix_every must be >= 1, got {config.workers} and {config.mix_every}")
    if (config.pruning is None) != (pruner is None):
        raise ValueError("pruning needs a first-order pruner model, and a pruner needs pruning options")
    if pruner is not None and (pruner.order != 1 or pruner.single_root != model.single_root):
        raise ValueError(
            f"the pruner must be a first-order model with the model's root rule; it is an order-{pruner.order}, "
            f"{'single' if pruner.single_root else 'multi'}-root model"
        )
    return config


def _decoding_config(model: Model, config: TrainConfig) -> TrainConfig:
    """The perceptron's or hinge's ``config`` with its decoder and cost made explicit and checked against
    ``model`` (:func:`checked_config`)."""
    if model.order == 1:
        allowed: tuple[str, ...] = ("cle", "eisner")
        decoder = config.decoder or ("eisner" if config.projective else "cle")
    else:
        lp_only = bool(model.siblings) or model.consecutive
        allowed = RELAXATION_DECODERS if lp_only else ("gp-eisner", *RELAXATION_DECODERS)
        decoder = config.decoder or ("exact" if model.families else "auto" if lp_only else "gp-eisner")
    if decoder not in allowed:
        raise ValueError(
            f"the {config.trainer} decodes this model with one of {', '.join(allowed)}, not {decoder!r}"
        )
    relaxation = decoder in RELAXATION_DECODERS
    cost = (1.0 if config.trainer == "hinge" and relaxation else 0.0) if config.cost is None else config.cost
    if cost < 0 or not np.isfinite(cost):
        raise ValueError(f"cost must be a finite number >= 0, got {cost}")
    if cost and not relaxation:
        raise ValueError(
            "cost (loss-augmented decoding) needs an LP or exact decoder: " + ", ".join(RELAXATION_DECODERS)
        )
    return replace(config, decoder=decoder, cost=cost)


@dataclass
class EpochRecord:
    epoch: int
    loss: float
    train_sentences: int
    seconds: float
    dev_uas: float | None
    dev_uas_no_punct: float | None
    #: LP-decoding trainers: sentences whose LP optimum was fractional, and whose LP was not solved (no
    #: update) or, with ``exact``, whose tree was not proved optimal in time (the best one found is used)
    fractional: int = 0
    unsolved: int = 0
    #: dev LAS of a model with labels (None without)
    dev_las: float | None = None
    dev_las_no_punct: float | None = None

    @property
    def sentences_per_second(self) -> float:
        return self.train_sentences / self.seconds if self.seconds else float("nan")


def gold_triples(heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The grandparent triples ⟨heads[p], p, c⟩ of a tree (p > 0)."""
    c = np.flatnonzero(heads > 0)
    p = heads[c]
    return heads[p], p, c


def _indicator(heads: NDArray[np.int64]) -> NDArray[np.float64]:
    out = np.zeros((heads.size, heads.size))
    out[heads[1:], np.arange(1, heads.size)] = 1.0
    return out


def _summed(
    idx: NDArray[np.int64], val: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Distinct slots and the sum of the values at each (a sparse vector from feature occurrences)."""
    uniq, inv = np.unique(idx, return_inverse=True)
    return uniq, np.bincount(inv, weights=val, minlength=uniq.size)


@dataclass
class PartTable:
    """Every candidate part of one kind (triples ⟨g, p, c⟩ or sibling pairs ⟨h, m, m'⟩) of a sentence with
    its feature slots and dense scores: what the second-order trainers need to score parts once and map
    score gradients back to feature weights."""

    i: NDArray[np.int64]
    j: NDArray[np.int64]
    k: NDArray[np.int64]
    slots: NDArray[np.int64]  # (templates, parts)
    scores: NDArray[np.float64]  # (n+1,)*3, 0 where there is no candidate part

    @classmethod
    def _of(
        cls,
        parts: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]],
        slots: NDArray[np.int64],
        weights: NDArray[np.float64],
        size: int,
    ) -> Self:
        scores = np.zeros((size,) * 3)
        scores[parts] = weights[slots].sum(axis=0)
        return cls(*parts, slots, scores)

    def part_gradient(self, grad: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(slots, values) of the weight gradient from a gradient wrt the dense part scores."""
        coef = grad[self.i, self.j, self.k]
        keep = coef != 0
        return self.slots[:, keep].ravel(), np.broadcast_to(
            coef[keep], (self.slots.shape[0], int(keep.sum()))
        ).ravel()


class TripleTable(PartTable):
    """The candidate grandparent triples of a sentence (eqs. 4–5)."""

    @classmethod
    def of(cls, scorer: SentenceScorer, arcs: NDArray[np.float64]) -> TripleTable:
        parts = candidate_triples(allowed_arcs(arcs))
        return cls._of(parts, scorer.triples().slots(*parts), scorer.model.weights, arcs.shape[0])

    def feature_gradient(
        self, scorer: SentenceScorer, arc_grad: NDArray[np.float64], triple_grad: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(slots, values) of the weight gradient from gradients wrt arc scores and dense triple scores."""
        a_idx, a_val = scorer.arcs.gradient(arc_grad)
        t_idx, t_val = self.part_gradient(triple_grad)
        return np.concatenate([a_idx, t_idx]), np.concatenate([a_val, t_val])


class SiblingTable(PartTable):
    """The candidate sibling pairs of a sentence under the model's root rule."""

    @classmethod
    def of(cls, scorer: SentenceScorer, arcs: NDArray[np.float64]) -> SiblingTable:
        parts = candidate_siblings(allowed_arcs(arcs), scorer.model.single_root)
        return cls._of(parts, scorer.siblings().slots(*parts), scorer.model.weights, arcs.shape[0])


@dataclass
class AdaGrad:
    """ℓ2-regularized AdaGrad, composite mirror descent form, applied to touched coordinates only."""

    size: int
    rate: float
    l2: float
    delta: float
    squares: NDArray[np.float64] = field(init=False)

    def __post_init__(self) -> None:
        self.squares = np.zeros(self.size)

    def step(self, w: NDArray[np.float64], idx: NDArray[np.int64], val: NDArray[np.float64]) -> None:
        """One step on the loss gradient Σ val at slots idx (minimization)."""
        uniq, g = _summed(idx, val)
        self.squares[uniq] += g * g
        h = self.delta + np.sqrt(self.squares[uniq])
        w[uniq] = (h * w[uniq] - self.rate * g) / (h + self.rate * self.l2)


@dataclass
class _Averager:
    """Averaged perceptron bookkeeping: averaged weights = w − u / c (Daumé's trick)."""

    size: int
    count: int = 1
    u: NDArray[np.float64] = field(init=False)

    def __post_init__(self) -> None:
        self.u = np.zeros(self.size)

    def step(self, w: NDArray[np.float64], idx: NDArray[np.int64], val: NDArray[np.float64]) -> None:
        """Add the update Σ val at slots idx, and its step-weighted copy for the average."""
        uniq, g = _summed(idx, val)
        w[uniq] += g
        self.u[uniq] += self.count * g

    def averaged(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        return w - self.u / self.count


@dataclass
class _Update:
    """One training step's loss and its update (slots, values; summed per slot when applied); for the
    relaxed perceptron, whether the LP optimum was fractional or the LP unsolved."""

    loss: float
    idx: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    val: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    fractional: bool = False
    unsolved: bool = False


def _cll_step(
    model: Model, s: Sentence, config: TrainConfig, gold: NDArray[np.int64], keep: NDArray[np.bool_] | None
) -> _Update:
    """Loss J = log Z − s(y*) of one sentence and its gradient (``keep``: unused, CLL does not prune)."""
    scorer = model.scorer(s)
    arcs = scorer.arc_scores()
    if model.order == 1:
        log_z, mu = (
            projective_inside_outside(arcs, model.single_root)
            if config.projective
            else matrix_tree(arcs, model.single_root)
        )
        assert mu is not None
        gold_score = arcs[gold[1:], np.arange(1, s.n + 1)].sum()
        idx, val = scorer.arcs.gradient(mu - _indicator(gold))
        return _Update(log_z - gold_score, idx, val)
    table = TripleTable.of(scorer, arcs)
    sibs = SiblingTable.of(scorer, arcs) if model.siblings else None
    marginals = GP_MARGINALS[config.gp_marginals]
    if marginals is bp_gp_marginals:
        marginals = partial(bp_gp_marginals, iterations=config.bp_iterations or 4, damping=config.bp_damping)
    log_z, mu, gmu, smu = marginals(
        arcs, table.scores, model.single_root, None if sibs is None else sibs.scores
    )
    gg, gpp, gc = gold_triples(gold)
    gold_score = arcs[gold[1:], np.arange(1, s.n + 1)].sum() + table.scores[gg, gpp, gc].sum()
    gmu[gg, gpp, gc] -= 1.0
    idx, val = table.feature_gradient(scorer, mu - _indicator(gold), gmu)
    if sibs is not None and smu is not None:
        sh, sm, sm2 = tree_siblings(gold)
        gold_score += sibs.scores[sh, sm, sm2].sum()
        smu[sh, sm, sm2] -= 1.0
        s_idx, s_val = sibs.part_gradient(smu)
        idx, val = np.concatenate([idx, s_idx]), np.concatenate([val, s_val])
    return _Update(log_z - gold_score, idx, val)


def _perceptron_step(
    model: Model, s: Sentence, config: TrainConfig, gold: NDArray[np.int64], keep: NDArray[np.bool_] | None
) -> _Update:
    """Loss s(ŷ) − s(y*) ≥ 0 and the update f(y*) − f(ŷ) of ``config.decoder`` (resolved by
    :func:`checked_config`; a relaxation decoder: :func:`_second_order_step`) over the arcs of ``keep`` (None: all)."""
    scorer = model.scorer(s)
    arcs = scorer.arc_scores()
    if keep is not None:
        arcs = np.where(keep, arcs, -np.inf)
    decoder, cost = config.decoder, config.cost or 0.0
    if decoder in RELAXATION_DECODERS:
        return _second_order_step(scorer, arcs, decoder, cost, gold)
    m = np.arange(1, s.n + 1)
    if model.order == 1:
        pred = (eisner if decoder == "eisner" else chu_liu_edmonds)(arcs, single_root=model.single_root)
        if np.array_equal(pred, gold):
            return _Update(0.0)
        loss = arcs[pred[1:], m].sum() - arcs[gold[1:], m].sum()
        idx, val = scorer.arcs.gradient(_indicator(gold) - _indicator(pred))
        return _Update(float(loss), idx, val)
    triples = scorer.triples()
    gp = dense_triple_scores(arcs, triples)
    pred, value = grandparent_eisner(arcs, gp, model.single_root)
    if np.array_equal(pred, gold):
        return _Update(0.0)
    gg, gpp, gc = gold_triples(gold)
    loss = value - arcs[gold[1:], m].sum() - gp[gg, gpp, gc].sum()
    a_idx, a_val = scorer.arcs.gradient(_indicator(gold) - _indicator(pred))
    g_slots = triples.slots(gg, gpp, gc).ravel()
    p_slots = triples.slots(*gold_triples(pred)).ravel()
    idx = np.concatenate([a_idx, g_slots, p_slots])
    val = np.concatenate([a_val, np.ones(g_slots.size), -np.ones(p_slots.size)])
    return _Update(float(loss), idx, val)


def _part_update(
    scorer: Any,
    gold: tuple[NDArray[np.int64], ...],
    parts: tuple[NDArray[np.int64], ...],
    values: NDArray[np.float64] | None,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(slots, values) of Σ_gold f(part) − Σ_parts value · f(part) for one part family (``values`` None: 1)."""
    if values is None:
        values = np.ones(parts[0].size)
    nonzero = np.abs(values) > LP_ZERO
    g_slots = scorer.slots(*gold)
    p_slots = scorer.slots(*(x[nonzero] for x in parts))
    coef = np.concatenate([np.ones(g_slots.shape[1]), -values[nonzero]])
    slots = np.concatenate([g_slots, p_slots], axis=1)
    return slots.ravel(), np.broadcast_to(coef, slots.shape).ravel()


#: A point of one part family: its parts (index arrays) and their values (None: 1 each, a tree's parts).
_Point = tuple[tuple[NDArray[np.int64], ...], NDArray[np.float64] | None]


@dataclass(frozen=True)
class _Decoded:
    """What a relaxation decoder gives a perceptron step: the tree (None: none, or the LP optimum fractional),
    its objective, whether the optimum was fractional or unproved, and the point ŷ (None: no point, no update):
    its arc values and its parts with their values (None: the tree's own, each 1) per family (siblings None:
    not in the program)."""

    heads: NDArray[np.int64] | None
    objective: float = 0.0
    fractional: bool = False
    unsolved: bool = True
    arcs: NDArray[np.float64] | None = None
    triples: _Point | None = None
    siblings: _Point | None = None
    windows: dict[str, _Point] = field(default_factory=dict)


def _decode_parts(
    decoded: NDArray[np.float64], parts: list[Any], windows: list[Any], decoder: str, single_root: bool
) -> _Decoded:
    """The point ŷ of ``decoder`` over the arc scores ``decoded`` and ``parts``, of which ``windows`` are
    the families beyond grandparents and siblings (:func:`_second_order_step`)."""
    if decoder == "exact":
        exact = exact_search(decoded, parts, single_root, EXACT_TRAIN_TIME_LIMIT)
        heads = exact.heads
        if heads is None:
            return _Decoded(None, fractional=not exact.stats.root_integral)
        return _Decoded(
            heads,
            exact.objective,
            not exact.stats.root_integral,
            not exact.certified,
            _indicator(heads),
            (gold_triples(heads), None),
            (tree_siblings(heads), None),
            {p.name: (p.tree_parts(heads), None) for p in windows},
        )
    result = solve_lp(decoded, parts, decoder, single_root)
    if not result.certified:
        return _Decoded(None)
    x = result.solution.x
    assert x is not None
    program = result.program
    sibling_point = None
    if SiblingParts.name in result.families:
        sibling_program = result.families[SiblingParts.name].sibs  # type: ignore[attr-defined]
        sibling_point = sibling_program.siblings(), sibling_program.sibling_values(x)
    return _Decoded(
        result.heads,
        result.objective,
        not result.integral,
        False,
        program.arc_values(x),
        (program.triples(), program.triple_values(x)),
        sibling_point,
        {p.name: result.families[p.name].point(x) for p in windows},  # type: ignore[attr-defined]
    )


def _second_order_step(
    scorer: SentenceScorer, arcs: NDArray[np.float64], decoder: str, cost: float, gold: NDArray[np.int64]
) -> _Update:
    """The perceptron step of a relaxation decoder (:data:`RELAXATION_DECODERS`) over the model's part
    families: grandparent triples, and its sibling and consecutive-sibling parts when it has them. With the
    LP (``auto``, ``bf``, ``ppc``: :func:`lpparse.ppc.solve_lp`), ŷ is its optimum μ, fractional or not, and
    the update f(y*) − Σ μ_part f(part) over every family (module docstring); an LP not solved to certified
    optimality gives no update (``unsolved``). With ``exact`` (:func:`lpparse.exact.exact_search`, at most
    :data:`EXACT_TRAIN_TIME_LIMIT` s), ŷ is the best tree found and the update f(y*) − f(ŷ) (Collins 2002);
    ``unsolved``: not proved optimal. With ``cost``, the decoder maximizes s(μ) + cost · Σ_m (1 − μ[y*_m, m])
    (loss-augmented decoding)."""
    model = scorer.model
    target = _indicator(gold)
    triples = scorer.triples()
    siblings = scorer.siblings() if model.siblings else None
    parts = second_order_parts(triples, "all", siblings)
    windows = window_parts(scorer.n, *scorer.window_scorers()) if model.consecutive else []
    # and the families registered outside lpparse, whose points are their trees' parts (exact decoding)
    windows += family_parts(scorer.family_scorers(), scorer.n, present=[p.name for p in windows])
    parts += windows
    decoded = arcs + cost * (1.0 - target) if cost else arcs  # -inf (no arc, pruned) stays -inf
    found = _decode_parts(decoded, parts, windows, decoder, model.single_root)
    if found.arcs is None or (found.heads is not None and np.array_equal(found.heads, gold)):
        return _Update(0.0, fractional=found.fractional, unsolved=found.unsolved)
    assert found.triples is not None
    m = np.arange(1, gold.size)
    gold_score = arcs[gold[1:], m].sum() + triples.score(*gold_triples(gold)).sum()
    idx, val = scorer.arcs.gradient(target - found.arcs)
    t_idx, t_val = _part_update(triples, gold_triples(gold), *found.triples)
    idx, val = [idx, t_idx], [val, t_val]
    updates: list[tuple[Any, tuple[NDArray[np.int64], ...], _Point]] = []
    if siblings is not None:
        assert found.siblings is not None
        updates.append((siblings, tree_siblings(gold), found.siblings))
    updates += [(p.scorer, p.tree_parts(gold), found.windows[p.name]) for p in windows]
    for family, in_gold, point in updates:
        gold_score += family.score(*in_gold).sum()
        p_idx, p_val = _part_update(family, in_gold, *point)
        idx.append(p_idx)
        val.append(p_val)
    loss = float(found.objective - gold_score)
    return _Update(loss, np.concatenate(idx), np.concatenate(val), found.fractional, found.unsolved)


@dataclass
class _Learner:
    """The trainer's state: the model (its raw weights) and its optimizer, the averaged perceptron's
    bookkeeping (``averager``) or AdaGrad (``adagrad``: CLL and hinge)."""

    model: Model
    config: TrainConfig
    averager: _Averager | None = None
    adagrad: AdaGrad | None = None

    @classmethod
    def start(cls, model: Model, config: TrainConfig, sentences: int) -> _Learner:
        """A fresh optimizer for ``sentences`` training sentences (AdaGrad's ℓ2 is λ/N per step)."""
        size = model.weights.size
        if config.trainer == "perceptron":
            return cls(model, config, averager=_Averager(size))
        return cls(
            model,
            config,
            adagrad=AdaGrad(size, config.learning_rate, config.l2 / sentences, config.adagrad_delta),
        )

    @property
    def state(self) -> NDArray[np.float64]:
        """The optimizer's per-weight state: the averager's u, or AdaGrad's squared gradient sums."""
        return self.averager.u if self.averager is not None else self.adagrad.squares  # type: ignore[union-attr]

    def averaged(self) -> NDArray[np.float64]:
        """The weights the epoch ends with: averaged for the perceptron, else the raw ones (not a copy)."""
        return self.averager.averaged(self.model.weights) if self.averager is not None else self.model.weights

    def learn(self, s: Sentence, gold: NDArray[np.int64], keep: NDArray[np.bool_] | None) -> _Update:
        """One training step on one sentence: its loss and update, applied to the weights."""
        cll = self.config.trainer == "cll"
        update = (_cll_step if cll else _perceptron_step)(self.model, s, self.config, gold, keep)
        if update.idx.size:
            if self.averager is not None:
                self.averager.step(self.model.weights, update.idx, update.val)
            else:  # the loss gradient: CLL's, or minus the hinge's update f(y*) − f(ŷ)
                assert self.adagrad is not None
                self.adagrad.step(self.model.weights, update.idx, update.val if cll else -update.val)
        if self.averager is not None:
            self.averager.count += 1
        return update

    def run(
        self,
        sentences: Sequence[Sentence],
        golds: Sequence[NDArray[np.int64]],
        keep: Sequence[NDArray[np.bool_] | None],
        bar: tqdm | None = None,
        touched: list[NDArray[np.int64]] | None = None,
    ) -> tuple[float, int, int]:
        """Learn from the sentences in order: summed loss, LP-fractional and unsolved counts (``touched``
        collects the slots each update changed)."""
        total = 0.0
        fractional = unsolved = 0
        for k, (s, gold, mask) in enumerate(zip(sentences, golds, keep), start=1):
            update = self.learn(s, gold, mask)
            total += update.loss
            fractional += update.fractional
            unsolved += update.unsolved
            if touched is not None and update.idx.size:
                touched.append(update.idx)
            if bar is not None:
                bar.update()
                if k % 50 == 0:
                    bar.set_postfix(loss=f"{total / k:.3f}")
        return total, fractional, unsolved


@dataclass
class _RoundStart:
    """What every learner of a round of :func:`_mixed_epoch` starts from: the model with the mixed weights,
    and the optimizer state."""

    model: Model
    config: TrainConfig
    size: int  #: of the training set (AdaGrad's ℓ2 per step is λ/size)
    state: NDArray[np.float64]
    count: int  #: the averager's step count (perceptron)


#: One learner's sentences of a round: the sentences, their gold trees and arc masks.
_Share = tuple[list[Sentence], list[NDArray[np.int64]], list[NDArray[np.bool_] | None]]


@dataclass
class _Learned:
    """What one learner changed in a round: at ``slots``, its new weights and optimizer state; its
    averager's count at the end; its summed loss and counts."""

    slots: NDArray[np.int64]
    weights: NDArray[np.float64]
    state: NDArray[np.float64]
    count: int
    loss: float
    fractional: int
    unsolved: int
    sentences: int


def _learn_round(start: _RoundStart, share: _Share) -> _Learned:
    """Run one learner over its sentences from the round's mixed state (a worker's task)."""
    model = copy.copy(start.model)
    model.weights = start.model.weights.copy()
    learner = _Learner.start(model, start.config, start.size)
    if learner.averager is not None:
        learner.averager.u, learner.averager.count = start.state.copy(), start.count
    else:
        assert learner.adagrad is not None
        learner.adagrad.squares = start.state.copy()
    touched: list[NDArray[np.int64]] = []
    sentences, golds, keep = share
    loss, fractional, unsolved = learner.run(sentences, golds, keep, touched=touched)
    slots = np.unique(np.concatenate(touched)) if touched else np.zeros(0, np.int64)
    return _Learned(
        slots,
        model.weights[slots],
        learner.state[slots],
        learner.averager.count if learner.averager is not None else 0,
        loss,
        fractional,
        unsolved,
        len(sentences),
    )


def _mix(learner: _Learner, learned: Sequence[_Learned]) -> None:
    """Replace ``learner``'s state by the uniform mixture of the learners' states (McDonald, Hall & Mann
    2010, "Distributed Training Strategies for the Structured Perceptron", NAACL, §3, μ = 1/N).

    Weights: their mean. Averaged perceptron: the averaged weights w − u/c become the mean of the learners'
    averages (each over its own steps from the common start; the count is the largest). AdaGrad: the squared
    gradients are summed (every learner's gradients were seen). One learner: its state as it is."""
    w, state = learner.model.weights, learner.state
    if len(learned) == 1:
        (one,) = learned
        w[one.slots], state[one.slots] = one.weights, one.state
        if learner.averager is not None:
            learner.averager.count = one.count
        return
    share = 1.0 / len(learned)
    dw = np.zeros_like(w)
    for one in learned:
        dw[one.slots] += share * (one.weights - w[one.slots])
    if learner.averager is not None:
        count = max(one.count for one in learned)
        u = state * (count * share * sum(1.0 / one.count for one in learned))
        for one in learned:
            u[one.slots] += count * share * (one.state - state[one.slots]) / one.count
        learner.averager.u, learner.averager.count = u, count
    else:
        ds = np.zeros_like(state)
        for one in learned:
            ds[one.slots] += one.state - state[one.slots]
        state += ds
    w += dw


def _mixed_epoch(
    learner: _Learner,
    data: Sequence[Sentence],
    golds: Sequence[NDArray[np.int64]],
    keep: Sequence[NDArray[np.bool_] | None],
    order: NDArray[np.int64],
    bar: tqdm,
    scheduler: Any = None,
) -> tuple[float, int, int]:
    """One epoch by iterative parameter mixing (McDonald, Hall & Mann 2010, Fig. 3): the epoch's order is
    cut into rounds of ``workers × mix_every`` sentences; in each round, learner i trains from the mixed
    state on sentences i, i + workers, ... of the round (local processes, which inherit the state rather than
    receive a copy, or a Dask cluster with ``scheduler``), and :func:`_mix` mixes their states. Deterministic: the same on local processes as on a
    cluster. Returns the summed loss, LP-fractional and unsolved counts."""
    config = learner.config
    per_round = config.workers * config.mix_every
    total = 0.0
    fractional = unsolved = 0
    for first in range(0, len(order), per_round):
        chunk = order[first : first + per_round]
        start = _RoundStart(
            learner.model,
            config,
            len(data),
            learner.state,
            learner.averager.count if learner.averager is not None else 0,
        )
        shares = [
            ([data[i] for i in part], [golds[i] for i in part], [keep[i] for i in part])
            for part in (chunk[k :: config.workers] for k in range(config.workers))
            if part.size
        ]
        learned = list(ordered_map(_learn_round, shares, config.workers, scheduler=scheduler, common=start))
        _mix(learner, learned)
        for one in learned:
            total += one.loss
            fractional += one.fractional
            unsolved += one.unsolved
            bar.update(one.sentences)
    return total, fractional, unsolved


def _training_gold(s: Sentence, config: TrainConfig, single_root: bool) -> NDArray[np.int64]:
    """The gold tree, or its closest projective tree when training projectively (Carreras 2007)."""
    if config.projective and not s.projective:
        target = np.full((s.n + 1, s.n + 1), -np.inf)
        target[:, 1:] = 0.0
        np.fill_diagonal(target, -np.inf)
        target += _indicator(s.heads)
        return eisner(target, single_root=single_root)
    return s.heads


def usable(sentences: Sequence[Sentence], single_root: bool, max_length: int | None = None) -> list[Sentence]:
    """Training sentences whose gold tree the model can represent (single-root models need one root child)."""
    return [
        s
        for s in sentences
        if (not single_root or s.single_rooted) and (max_length is None or s.n <= max_length)
    ]


def train(
    model: Model,
    train_sentences: Sequence[Sentence],
    dev_sentences: Sequence[Sentence] = (),
    config: TrainConfig | None = None,
    log: Callable[[str], None] | None = None,
    pruner: Model | None = None,
    checkpoint: Callable[[NDArray[np.float64], dict[str, Any]], None] | None = None,
    scheduler: Any = None,
) -> list[EpochRecord]:
    """Train ``model`` in place; returns one record per epoch. Keeps the weights of the best dev epoch
    (of the last epoch without dev data). ``pruner``: the first-order model whose arc posteriors prune the
    arcs under ``config.pruning`` (perceptron and hinge). ``checkpoint(weights, record)`` is called after each
    epoch that improves on the best, with its weights and the training record so far (what ends in
    ``model.training``), so that a caller can save them before the run ends. With ``config.workers`` > 1
    (or a Dask ``scheduler``, an address or a client), the learners of :func:`_mixed_epoch` train in
    parallel, and the dev sentences are decoded on the same workers."""
    if isinstance(scheduler, str):  # one client for the whole run
        with cluster(scheduler, "; the model file keeps the best epoch so far") as client:
            return train(model, train_sentences, dev_sentences, config, log, pruner, checkpoint, client)
    config = checked_config(model, config or TrainConfig(), pruner)
    data = usable(train_sentences, model.single_root, config.max_length)
    if not data:
        raise ValueError("no usable training sentences")
    golds = [_training_gold(s, config, model.single_root) for s in data]
    keep = _kept_arcs(data, golds, config, pruner, model.single_root)
    # dev decoding on the learners' workers (nothing to say for the sequential trainer)
    parallel = config.workers > 1 or scheduler
    dev_options: dict[str, Any] = {"workers": config.workers, "scheduler": scheduler} if parallel else {}
    if pruner is not None and config.pruning is not None:
        dev_options.update(pruning=config.pruning, pruner=pruner)
    rng = np.random.default_rng(config.seed)
    learner = _Learner.start(model, config, len(data))
    decoder, decoder_options = _dev_decoder(model, config)
    run = _Run(
        model, config, data, golds, keep, learner, dev_sentences, decoder, decoder_options, dev_options
    )
    history: list[EpochRecord] = []
    best: tuple[float, NDArray[np.float64]] | None = None
    stale = 0
    for epoch in range(1, config.epochs + 1):
        record, current = run.epoch(epoch, rng.permutation(len(data)), scheduler)
        history.append(record)
        if log:
            log(_epoch_line(record, decoder, config.trainer))
        key = record.dev_uas_no_punct if record.dev_uas_no_punct is not None else float(epoch)
        if best is None or key > best[0]:
            best, stale = (key, current.copy()), 0
            if checkpoint is not None:
                checkpoint(best[1], _record(config, decoder, decoder_options, history))
        else:
            stale += 1
            if stale >= config.patience:
                break
    assert best is not None
    model.weights = best[1]
    model.invalidate_bounds()
    model.training = {**model.training, **_record(config, decoder, decoder_options, history)}
    return history


def _kept_arcs(
    data: Sequence[Sentence],
    golds: Sequence[NDArray[np.int64]],
    config: TrainConfig,
    pruner: Model | None,
    single_root: bool,
) -> list[NDArray[np.bool_] | None]:
    """Per training sentence, the arcs that ``pruner`` keeps under ``config.pruning`` and the gold arcs
    (None: every arc, without pruning)."""
    if pruner is None or config.pruning is None:
        return [None] * len(data)
    bar = tqdm(data, desc="pruning", unit="sent", disable=not config.progress, leave=False)
    return [
        pruning_mask(pruner.scorer(s).arc_scores(), config.pruning, single_root) | (_indicator(g) > 0)
        for s, g in zip(bar, golds)
    ]


def _dev_decoder(model: Model, config: TrainConfig) -> tuple[str, dict[str, Any]]:
    """The decoder of the dev sentences (the training decoder; for cll the model's default) and its options."""
    decoder = config.decoder or default_decoder(model, config.projective, trained=False)  # cll: no decoder
    # 2nd-order CLL marginals are non-projective (TREE) whatever config.projective says of the gold trees
    options = default_decoder_options(model, decoder, config.projective and model.order == 1)
    if decoder == "exact":  # a dev sentence gets what a training sentence gets
        options["time_limit"] = EXACT_TRAIN_TIME_LIMIT
    if decoder == "bp" and config.gp_marginals == "bp":
        options.update(iterations=config.bp_iterations or 4, damping=config.bp_damping)
    return decoder, options


@dataclass(frozen=True)
class _Run:
    """What each epoch of :func:`train` reads: the model and its options, the training sentences with their
    gold trees and kept arcs, the learner, and the dev sentences with their decoder and its options."""

    model: Model
    config: TrainConfig
    data: list[Sentence]
    golds: list[NDArray[np.int64]]
    keep: list[NDArray[np.bool_] | None]
    learner: _Learner
    dev: Sequence[Sentence]
    decoder: str
    decoder_options: dict[str, Any]
    dev_options: dict[str, Any]  #: pruning and the workers that decode the dev sentences

    def epoch(
        self, epoch: int, order: NDArray[np.int64], scheduler: Any
    ) -> tuple[EpochRecord, NDArray[np.float64]]:
        """Learn from the training sentences in ``order``: the epoch's record and averaged weights."""
        data, config = self.data, self.config
        start = time.perf_counter()
        with tqdm(
            total=len(data), desc=f"epoch {epoch}", unit="sent", disable=not config.progress, leave=False
        ) as bar:
            if config.workers == 1 and scheduler is None:
                ordered = (
                    [data[i] for i in order],
                    [self.golds[i] for i in order],
                    [self.keep[i] for i in order],
                )
                total, fractional, unsolved = self.learner.run(*ordered, bar)
            else:
                total, fractional, unsolved = _mixed_epoch(
                    self.learner, data, self.golds, self.keep, order, bar, scheduler
                )
        seconds = time.perf_counter() - start
        current = self.learner.averaged()
        uas, uas_np, las, las_np = self.dev_scores(current)
        loss = total / len(data)
        return EpochRecord(
            epoch, loss, len(data), seconds, uas, uas_np, fractional, unsolved, las, las_np
        ), current

    def dev_scores(
        self, weights: NDArray[np.float64]
    ) -> tuple[float | None, float | None, float | None, float | None]:
        """Dev UAS, UAS without punctuation, LAS and LAS without punctuation (None: no dev sentences, no
        labels) of the model with ``weights``."""
        if not self.dev:
            return None, None, None, None
        model = self.model
        raw = model.weights
        model.weights = weights
        model.invalidate_bounds()
        score = evaluate(
            model,
            self.dev,
            self.decoder,
            progress=self.config.progress,
            **self.decoder_options,
            **self.dev_options,
        )
        model.weights = raw
        if not score.labelled:
            return score.uas, score.uas_no_punct, None, None
        return score.uas, score.uas_no_punct, score.las, score.las_no_punct


def _epoch_line(record: EpochRecord, decoder: str, trainer: str) -> str:
    """The log line of an epoch: its loss and speed, the LP decoder's counts, dev UAS and LAS."""
    dev = ""
    if record.dev_uas is not None:
        dev = f", dev UAS {100 * record.dev_uas:.2f} (no punct {100 * record.dev_uas_no_punct:.2f})"
    if record.dev_las is not None:
        dev += f", LAS {100 * record.dev_las:.2f} (no punct {100 * record.dev_las_no_punct:.2f})"
    lp = (
        f", LP fractional on {record.fractional}, {'not proved optimal' if decoder == 'exact' else 'unsolved'} "
        f"on {record.unsolved}"
        if decoder in RELAXATION_DECODERS and trainer != "cll"
        else ""
    )
    return (
        f"epoch {record.epoch}: loss {record.loss:.4f}, {record.seconds:.1f} s "
        f"({record.sentences_per_second:.1f} sent/s){lp}{dev}"
    )


def _record(
    config: TrainConfig, decoder: str, decoder_options: dict[str, Any], history: Sequence[EpochRecord]
) -> dict[str, Any]:
    """The training record of a run so far: its configuration, dev decoder, epochs and best epoch."""
    return {
        "config": asdict(copy.copy(config)),
        "decoder": decoder,
        "decoder_options": decoder_options,
        "history": [{**asdict(r), "sentences_per_second": r.sentences_per_second} for r in history],
        "best_epoch": int(
            np.argmax([r.dev_uas_no_punct if r.dev_uas_no_punct is not None else r.epoch for r in history])
        )
        + 1,
    }


def describe(history: Sequence[EpochRecord]) -> dict[str, Any]:
    """Summary of a training run: epochs, best dev UAS, mean seconds per epoch and sentences/s."""
    dev = [r.dev_uas_no_punct for r in history if r.dev_uas_no_punct is not None]
    return {
        "epochs": len(history),
        "best_dev_uas_no_punct": max(dev) if dev else None,
        "seconds_per_epoch": float(np.mean([r.seconds for r in history])),
        "sentences_per_second": float(np.mean([r.sentences_per_second for r in history])),
    }


# ------------------------------------------------------------------------------------------------ labels


@dataclass
class LabelConfig:
    """Hyperparameters of the label model's averaged multiclass perceptron (:func:`train_labels`)."""

    epochs: int = 10
    patience: int = 2
    bits: int = 20
    seed: int = 0
    progress: bool = True


#: One sentence's label examples: the features of its non-root gold arcs and their gold label indices.
_LabelExamples = tuple[LabelFeatures, NDArray[np.int64]]


def _label_examples(
    labeller: Labeller, vocab: Vocabulary, sentences: Sequence[Sentence]
) -> list[_LabelExamples]:
    """The examples of every sentence with gold arcs to learn from: arcs with a head > 0 and a known label
    other than the root label (which only head-0 tokens get)."""
    index = {name: i for i, name in enumerate(labeller.names)}
    out = []
    for s in sentences:
        if not s.annotated:
            continue
        gold = np.array([index.get(label, -1) for label in s.labels], dtype=np.int64)
        m = np.flatnonzero((s.heads > 0) & (gold >= 0) & (gold != labeller.root))
        if not m.size:
            continue
        arcs = np.zeros((s.n + 1, s.n + 1), bool)
        arcs[s.heads[m], m] = True
        features = LabelFeatures.of(label_ids(s, vocab), labeller.templates, arcs)
        out.append((features, gold[features.mods]))
    return out


def _label_accuracy(
    labeller: Labeller, examples: Sequence[_LabelExamples], weights: NDArray[np.float64]
) -> float:
    """The share of the examples' arcs whose best label (:func:`choose_labels`) is the gold one."""
    right = total = 0
    count = len(labeller.names)
    for features, gold in examples:
        scores = features.scores(weights, count, labeller.bits)
        right += int((choose_labels(scores, features.heads, labeller.root) == gold).sum())
        total += gold.size
    return right / total if total else float("nan")


def _label_pass(
    labeller: Labeller, averager: _Averager, examples: Iterable[_LabelExamples]
) -> tuple[int, int]:
    """One perceptron pass over the examples in order, updating ``labeller``'s weights: the arcs it
    mislabelled and the arcs it saw."""
    count = len(labeller.names)
    errors = arcs = 0
    for features, gold in examples:
        scores = features.scores(labeller.weights, count, labeller.bits)
        pred = choose_labels(scores, features.heads, labeller.root)
        wrong = pred != gold
        arcs += gold.size
        if wrong.any():
            errors += int(wrong.sum())
            up, up_arc = features.labelled_slots(gold, labeller.bits)
            down, down_arc = features.labelled_slots(pred, labeller.bits)
            up, down = up[wrong[up_arc]], down[wrong[down_arc]]
            val = np.concatenate([np.ones(up.size), -np.ones(down.size)])
            averager.step(labeller.weights, np.concatenate([up, down]), val)
        averager.count += 1
    return errors, arcs


def train_labels(
    vocab: Vocabulary,
    sentences: Sequence[Sentence],
    dev: Sequence[Sentence] = (),
    config: LabelConfig | None = None,
    log: Callable[[str], None] | None = None,
) -> Labeller:
    """A second-stage label model (:mod:`lpparse.scoring.labels`) trained over the gold arcs of
    ``sentences`` by the averaged multiclass perceptron (Collins 2002; the labeller of McDonald, Lerman &
    Pereira 2006): for each sentence the best label of each of its arcs under the current weights, then for
    each wrong one f(arc, gold label) − f(arc, predicted label). Keeps the epoch of the best label accuracy
    on ``dev``'s gold arcs (the last epoch without dev), with early stopping after ``patience`` epochs
    without gain. ValueError when the sentences have no labels."""
    config = config or LabelConfig()
    names, root = label_set(sentences)
    labeller = Labeller(names, root, bits=config.bits)
    data = _label_examples(labeller, vocab, sentences)
    held = _label_examples(labeller, vocab, dev)
    if not data:
        raise ValueError(
            "no arc to learn a label from (every arc with a word head has the root's label or none)"
        )
    averager = _Averager(labeller.weights.size)
    rng = np.random.default_rng(config.seed)
    best: tuple[float, NDArray[np.float64]] | None = None
    history: list[dict[str, Any]] = []
    stale = best_epoch = 0
    for epoch in range(1, config.epochs + 1):
        start = time.perf_counter()
        order = tqdm(
            rng.permutation(len(data)), desc=f"labels {epoch}", disable=not config.progress, leave=False
        )
        errors, arcs = _label_pass(labeller, averager, (data[k] for k in order))
        current = averager.averaged(labeller.weights)
        accuracy = _label_accuracy(labeller, held, current) if held else None
        seconds = time.perf_counter() - start
        key = accuracy if accuracy is not None else float(epoch)
        history.append({"epoch": epoch, "train_errors": errors / arcs, "dev_accuracy": accuracy})
        if log:
            dev_text = "" if accuracy is None else f", dev label accuracy on gold arcs {100 * accuracy:.2f}"
            wrong_share = f"{100 * errors / arcs:.2f}% of training arcs mislabelled"
            log(f"labels epoch {epoch}: {wrong_share}, {seconds:.1f} s{dev_text}")
        if best is None or key > best[0]:
            best, best_epoch, stale = (key, current.copy()), epoch, 0
        else:
            stale += 1
            if stale >= config.patience:
                break
    assert best is not None
    labeller.weights = best[1]
    labeller.training = {
        "config": asdict(config),
        "history": history,
        "best_epoch": best_epoch,
        "arcs": sum(g.size for _, g in data),
    }
    return labeller
