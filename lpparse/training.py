"""Training: conditional log-likelihood with AdaGrad, and the averaged perceptron, for both model orders.

* **CLL** (Koo et al. 2007; BP reading note §2.8): J = log Z − s(y*), gradient Σ (μ − 1[y*]) f.
  First order: μ from the matrix-tree theorem (non-projective) or inside-outside (projective; a
  non-projective gold tree is replaced by its closest projective tree, Carreras 2007). Grandparent order:
  μ and the triple marginals (and, for models with sibling templates, the sibling-pair marginals) come from
  a pluggable routine (:data:`GP_MARGINALS`), as the paper trains with belief-propagation marginals
  (Riedel, Smith & McCallum 2012, §2.4; Smith and Eisner 2008); BP's sibling factor is the same part
  ⟨h, m, m'⟩, m < m', as :mod:`lpparse.formulations.sibling`.
  Optimizer: ℓ2-regularized AdaGrad with composite mirror descent on the touched coordinates,
  θ ← (H θ − η g) / (H + η λ/N) with H = δ + √G (Duchi et al. 2011; BP reading note §2.8).
* **Averaged perceptron** (Collins 2002) with exact decoding: Chu-Liu-Edmonds or Eisner (first order),
  projective grandparent Eisner (second order).

Epochs shuffle with a fixed seed; after each epoch the dev UAS (no punctuation) is measured and the best
epoch's weights are kept (early stopping with ``patience``).

Training sits above the algorithms it fits with (BP marginals, the decoders of :mod:`lpparse.parsing`); the
weights it fits are scored by :mod:`lpparse.scoring`, below them.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, Self

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from lpparse.bp import bp_marginals
from lpparse.corpus import Sentence
from lpparse.decoder import dense_triple_scores
from lpparse.oracles import chu_liu_edmonds, eisner, matrix_tree, projective_inside_outside
from lpparse.oracles.brute_force import _tree_scores
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.parsing import default_decoder, default_decoder_options, evaluate
from lpparse.scoring.model import Model, SentenceScorer
from lpparse.trees import allowed_arcs
from lpparse.triples import candidate_siblings, candidate_triples, tree_siblings

__all__ = [
    "GP_MARGINALS",
    "AdaGrad",
    "EpochRecord",
    "GPMarginals",
    "PartTable",
    "SiblingTable",
    "TrainConfig",
    "TripleTable",
    "bp_gp_marginals",
    "describe",
    "exact_gp_marginals",
    "gold_triples",
    "train",
    "usable",
]

#: (arc scores, dense triple scores, single_root, dense sibling scores or None) -> (log Z, arc marginals
#: (n+1, n+1), triple marginals (n+1,)*3, sibling marginals (n+1,)*3 or None).
GPMarginals = Callable[
    [NDArray[np.float64], NDArray[np.float64], bool, NDArray[np.float64] | None],
    tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64] | None],
]

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

    trainer: str = "cll"  # "cll" or "perceptron"
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


@dataclass
class EpochRecord:
    epoch: int
    loss: float
    train_sentences: int
    seconds: float
    dev_uas: float | None
    dev_uas_no_punct: float | None

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


def _summed(idx: NDArray[np.int64], val: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
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
        return self.slots[:, keep].ravel(), np.broadcast_to(coef[keep], (self.slots.shape[0], int(keep.sum()))).ravel()


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


def _cll_step(
    model: Model, s: Sentence, config: TrainConfig, gold: NDArray[np.int64]
) -> tuple[float, NDArray[np.int64], NDArray[np.float64]]:
    """(loss, gradient slots, gradient values) of J = log Z − s(y*) for one sentence."""
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
        return log_z - gold_score, idx, val
    table = TripleTable.of(scorer, arcs)
    sibs = SiblingTable.of(scorer, arcs) if model.siblings else None
    marginals = GP_MARGINALS[config.gp_marginals]
    if marginals is bp_gp_marginals:
        marginals = partial(bp_gp_marginals, iterations=config.bp_iterations or 4, damping=config.bp_damping)
    log_z, mu, gmu, smu = marginals(arcs, table.scores, model.single_root, None if sibs is None else sibs.scores)
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
    return log_z - gold_score, idx, val


def _perceptron_step(
    model: Model, s: Sentence, config: TrainConfig, gold: NDArray[np.int64]
) -> tuple[float, NDArray[np.int64], NDArray[np.float64]]:
    """(loss = s(ŷ) − s(y*) ≥ 0, update slots, update values of f(y*) − f(ŷ)) with exact decoding."""
    scorer = model.scorer(s)
    arcs = scorer.arc_scores()
    m = np.arange(1, s.n + 1)
    if model.order == 1:
        pred = (eisner if config.projective else chu_liu_edmonds)(arcs, single_root=model.single_root)
        loss = arcs[pred[1:], m].sum() - arcs[gold[1:], m].sum()
        if np.array_equal(pred, gold):
            return 0.0, np.zeros(0, np.int64), np.zeros(0)
        idx, val = scorer.arcs.gradient(_indicator(gold) - _indicator(pred))
        return float(loss), idx, val
    triples = scorer.triples()
    gp = dense_triple_scores(arcs, triples)
    pred, value = grandparent_eisner(arcs, gp, model.single_root)
    gg, gpp, gc = gold_triples(gold)
    loss = value - arcs[gold[1:], m].sum() - gp[gg, gpp, gc].sum()
    if np.array_equal(pred, gold):
        return 0.0, np.zeros(0, np.int64), np.zeros(0)
    a_idx, a_val = scorer.arcs.gradient(_indicator(gold) - _indicator(pred))
    g_slots = triples.slots(gg, gpp, gc).ravel()
    p_slots = triples.slots(*gold_triples(pred)).ravel()
    idx = np.concatenate([a_idx, g_slots, p_slots])
    val = np.concatenate([a_val, np.ones(g_slots.size), -np.ones(p_slots.size)])
    return float(loss), idx, val


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
) -> list[EpochRecord]:
    """Train ``model`` in place; returns one record per epoch. Keeps the weights of the best dev epoch
    (of the last epoch without dev data)."""
    config = config or TrainConfig()
    if config.trainer not in ("cll", "perceptron"):
        raise ValueError(f"trainer must be 'cll' or 'perceptron', got {config.trainer!r}")
    if model.siblings and config.trainer != "cll":
        raise ValueError("models with sibling templates train by cll (no exact sibling decoder for the perceptron)")
    if model.order == 2 and config.trainer == "cll" and config.gp_marginals not in GP_MARGINALS:
        raise ValueError(
            f"unknown grandparent marginals {config.gp_marginals!r}; choose from {sorted(GP_MARGINALS)}"
        )
    data = usable(train_sentences, model.single_root, config.max_length)
    if not data:
        raise ValueError("no usable training sentences")
    golds = [_training_gold(s, config, model.single_root) for s in data]
    rng = np.random.default_rng(config.seed)
    size = model.weights.size
    cll = config.trainer == "cll"
    adagrad = AdaGrad(size, config.learning_rate, config.l2 / len(data), config.adagrad_delta)
    averager = _Averager(size)
    step = _cll_step if cll else _perceptron_step
    decoder = default_decoder(model, config.projective)
    # 2nd-order CLL marginals are non-projective (TREE) whatever config.projective says of the gold trees
    decoder_options = default_decoder_options(model, decoder, config.projective and model.order == 1)
    if decoder == "bp" and config.gp_marginals == "bp":
        decoder_options.update(iterations=config.bp_iterations or 4, damping=config.bp_damping)
    history: list[EpochRecord] = []
    best: tuple[float, NDArray[np.float64]] | None = None
    stale = 0
    for epoch in range(1, config.epochs + 1):
        start = time.perf_counter()
        total = 0.0
        bar = tqdm(
            rng.permutation(len(data)),
            desc=f"epoch {epoch}",
            unit="sent",
            disable=not config.progress,
            leave=False,
        )
        for k, i in enumerate(bar, start=1):
            loss, idx, val = step(model, data[i], config, golds[i])
            total += loss
            if idx.size:
                if cll:
                    adagrad.step(model.weights, idx, val)
                else:
                    averager.step(model.weights, idx, val)
            averager.count += not cll
            if k % 50 == 0:
                bar.set_postfix(loss=f"{total / k:.3f}")
        seconds = time.perf_counter() - start
        current = model.weights if cll else averager.averaged(model.weights)
        dev_uas = dev_np = None
        if dev_sentences:
            raw = model.weights
            model.weights = current
            model.invalidate_bounds()
            score = evaluate(model, dev_sentences, decoder, progress=config.progress, **decoder_options)
            model.weights = raw
            dev_uas, dev_np = score.uas, score.uas_no_punct
        record = EpochRecord(epoch, total / len(data), len(data), seconds, dev_uas, dev_np)
        history.append(record)
        if log:
            dev = (
                f", dev UAS {100 * dev_uas:.2f} (no punct {100 * dev_np:.2f})" if dev_uas is not None else ""
            )
            log(
                f"epoch {epoch}: loss {record.loss:.4f}, {seconds:.1f} s ({record.sentences_per_second:.1f} sent/s){dev}"
            )
        key = dev_np if dev_np is not None else float(epoch)
        if best is None or key > best[0]:
            best, stale = (key, current.copy()), 0
        else:
            stale += 1
            if stale >= config.patience:
                break
    assert best is not None
    model.weights = best[1]
    model.invalidate_bounds()
    model.training = {
        **model.training,
        "config": asdict(copy.copy(config)),
        "decoder": decoder,
        "decoder_options": decoder_options,
        "history": [{**asdict(r), "sentences_per_second": r.sentences_per_second} for r in history],
        "best_epoch": int(
            np.argmax([r.dev_uas_no_punct if r.dev_uas_no_punct is not None else r.epoch for r in history])
        )
        + 1,
    }
    return history


def describe(history: Sequence[EpochRecord]) -> dict[str, Any]:
    """Summary of a training run: epochs, best dev UAS, mean seconds per epoch and sentences/s."""
    dev = [r.dev_uas_no_punct for r in history if r.dev_uas_no_punct is not None]
    return {
        "epochs": len(history),
        "best_dev_uas_no_punct": max(dev) if dev else None,
        "seconds_per_epoch": float(np.mean([r.seconds for r in history])),
        "sentences_per_second": float(np.mean([r.sentences_per_second for r in history])),
    }
