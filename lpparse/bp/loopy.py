"""Loopy belief propagation on the dependency factor graph, and back-propagation through its unrolled iterations.

Gormley, Dredze & Eisner (2015) §2 and §5, after Smith & Eisner (2008); formulas
rebuilt in BP reading note §2.5, §2.7 and §2.9.

Factor graph: one boolean variable per candidate arc (finite arc score); a unary factor per arc with
ψ(ON) = exp(θ_a); one global TREE (matrix-tree) or PTREE (projective inside-outside) factor; pairwise
grandparent factors on (Y_{g,p}, Y_{p,c}) and arbitrary-sibling factors on (Y_{h,m}, Y_{h,m'}), m < m' (either
side of h), each with ψ(ON, ON) = exp(s) and 1 otherwise.

Every message to or from a boolean variable is kept as its log-odds log m(ON)/m(OFF) (messages are normalised,
so that is all of it). A pairwise factor with score s sends, given the other variable's message λ (eq. 5),

    f(s, λ) = log(σ(−λ) + e^s σ(λ)),

and the tree factor sends log μ_a − log(1 − μ_a) − ρ_a, with μ the tree marginals under arc log-weights ρ_a,
the variables' incoming log-odds (ratio trick, Fig. 2 C.1–C.3). Pairwise factors are O(n³) arrays indexed by
the triple (g, p, c) or (h, m, m'); there is no Python loop over factors.

Schedule (footnote 4; BP reading note §2.7): in one iteration (a) every pairwise factor sends to its
variables, (b) the variables send to the tree, (c) the tree sends to every variable, (d) the variables send to
every pairwise factor. With beliefs read after (d), a variable's belief is the tree factor's belief marginal,
so the arc beliefs are μ(ρ) — the marginals of one tree distribution (Σ_h b_{h,m} = 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.bp.tree_factor import tree_marginals, tree_marginals_jvp
from lpparse.trees import allowed_arcs, check_tree_exists, validate_scores
from lpparse.triples import TripleScorer, sibling_mask, triple_mask

__all__ = ["BPResult", "FactorGraph", "PairwiseFamily", "ScoreGradients", "bp_marginals", "factor_graph"]

#: Smallest probability a belief is allowed to reach before taking its logit (keeps log-odds finite).
TINY = 1e-300


def pairwise_message(s: NDArray[np.float64], lam: NDArray[np.float64]) -> NDArray[np.float64]:
    """Log-odds message f(s, λ) = log(σ(−λ) + e^s σ(λ)) = softplus(λ + s) − softplus(λ) of a pairwise factor
    ψ(ON,ON) = e^s, given the other variable's log-odds λ (eq. 5)."""
    return np.logaddexp(0.0, lam + s) - np.logaddexp(0.0, lam)


def pairwise_message_grads(
    s: NDArray[np.float64], lam: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(∂f/∂s, ∂f/∂λ) = (σ(λ + s), σ(λ + s) − σ(λ)) of :func:`pairwise_message`."""
    from scipy.special import expit  # here: scipy.special takes 65 ms to import, and only training needs it

    d_s = expit(lam + s)
    return d_s, d_s - expit(lam)


@dataclass(frozen=True)
class PairwiseFamily:
    """All pairwise factors of one kind, as (n+1)³ arrays over the index triples (i, j, k).

    The first variable of factor (i, j, k) is arc (i, j) (the triple's axes 0 and 1); the second is arc
    (j, k) for grandparent factors (``other_axis = 0``: ⟨g, p, c⟩ joins g→p and p→c) and arc (i, k) for
    sibling factors (``other_axis = 1``: ⟨h, m, m'⟩ joins h→m and h→m').
    """

    name: str
    scores: NDArray[np.float64]  #: factor scores, 0 outside ``mask``
    mask: NDArray[np.bool_]  #: which triples are factors
    other_axis: int  #: the axis the second variable's arc does not use

    def first(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Arc array x broadcast onto the factors: x at each factor's first variable."""
        return x[:, :, None]

    def second(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Arc array x at each factor's second variable."""
        return np.expand_dims(x, self.other_axis)

    def sum_first(self, c: NDArray[np.float64]) -> NDArray[np.float64]:
        """Sum of per-factor values over the factors that touch each arc as first variable."""
        return c.sum(axis=2)

    def sum_second(self, c: NDArray[np.float64]) -> NDArray[np.float64]:
        """Sum of per-factor values over the factors that touch each arc as second variable."""
        return c.sum(axis=self.other_axis)

    def degree(self) -> NDArray[np.float64]:
        """How many factors of this family touch each arc."""
        m = self.mask.astype(np.float64)
        return self.sum_first(m) + self.sum_second(m)


@dataclass(frozen=True)
class FactorGraph:
    """The dependency factor graph of one sentence (Gormley et al. 2015, Fig. 1)."""

    arc_scores: NDArray[np.float64]  #: unary log-potentials θ, -inf on pruned arcs
    arc_mask: NDArray[np.bool_]  #: candidate arcs (variables)
    families: tuple[PairwiseFamily, ...]
    single_root: bool
    projective: bool

    @property
    def n(self) -> int:
        return self.arc_scores.shape[0] - 1

    def family(self, name: str) -> PairwiseFamily | None:
        return next((f for f in self.families if f.name == name), None)


def _family_scores(
    name: str, scores: ArrayLike | TripleScorer, mask: NDArray[np.bool_]
) -> NDArray[np.float64]:
    size = mask.shape[0]
    cube = np.zeros((size,) * 3)
    if isinstance(scores, TripleScorer):
        if name != "grandparent":
            raise ValueError("a TripleScorer scores grandparent triples only")
        g, p, c = np.nonzero(mask)
        cube[g, p, c] = scores.score(g, p, c)
        return cube
    s = np.asarray(scores, dtype=np.float64)
    if s.shape != (size,) * 3:
        raise ValueError(f"{name} scores must have shape {(size,) * 3}, got {s.shape}")
    if np.isnan(s[mask]).any() or np.isposinf(s[mask]).any():
        raise ValueError(f"{name} scores contain NaN or +inf")
    cube[mask] = s[mask]
    return cube


def factor_graph(
    arc_scores: ArrayLike,
    gp_scores: ArrayLike | TripleScorer | None = None,
    sib_scores: ArrayLike | None = None,
    single_root: bool = False,
    projective: bool = True,
) -> FactorGraph:
    """Build the factor graph: ``gp_scores[g, p, c]`` (an (n+1)³ array or a :class:`TripleScorer`, which is
    asked for the candidate triples only) and ``sib_scores[h, m, m']`` (read where m < m') are optional; a
    factor exists for every triple whose two arcs are candidates (and for no sibling pair of the root when it
    takes one child: such a factor never fires on a tree but would still bias the messages). ``-inf`` factor
    scores forbid the pair."""
    s = validate_scores(arc_scores)
    check_tree_exists(s, single_root)
    mask = allowed_arcs(s)
    families = []
    if gp_scores is not None:
        gmask = triple_mask(mask)
        families.append(
            PairwiseFamily("grandparent", _family_scores("grandparent", gp_scores, gmask), gmask, 0)
        )
    if sib_scores is not None:
        smask = sibling_mask(mask, single_root)  # no root siblings when the root takes one child
        families.append(PairwiseFamily("sibling", _family_scores("sibling", sib_scores, smask), smask, 1))
    return FactorGraph(np.where(mask, s, -np.inf), mask, tuple(families), single_root, projective)


@dataclass
class ScoreGradients:
    """Gradients of a scalar with respect to every factor score (zero where there is no factor)."""

    arc: NDArray[np.float64]
    grandparent: NDArray[np.float64] | None = None
    sibling: NDArray[np.float64] | None = None


@dataclass
class _Step:
    """What back-propagation needs from one iteration."""

    rho: NDArray[np.float64]  #: tree factor's incoming log-odds
    mu: NDArray[np.float64]  #: tree marginals = arc beliefs
    lam_in: list[
        tuple[NDArray[np.float64], NDArray[np.float64]]
    ]  #: per family, (λ first, λ second) used in (a)


@dataclass
class BPResult:
    """Beliefs after ``iterations`` BP iterations, with a trace per iteration and the tape for back-propagation."""

    graph: FactorGraph
    marginals: NDArray[np.float64]  #: arc beliefs b_a(ON), 0 off the candidate arcs
    factor_beliefs: dict[str, NDArray[np.float64]]  #: per family, b_α(ON, ON) over its triples (eq. 7)
    log_z_bethe: float  #: −(Bethe free energy) of the final beliefs
    bethe_trace: list[float]  #: −(Bethe free energy) after each iteration (empty unless ``trace=True``)
    residuals: list[float]  #: max |ρ_t − ρ_{t−1}| of the tree factor's incoming log-odds (ρ_0 = θ)
    damping: float
    _steps: list[_Step] = field(repr=False, default_factory=list)

    @property
    def gp_beliefs(self) -> NDArray[np.float64] | None:
        return self.factor_beliefs.get("grandparent")

    def backward(self, d_marginals: ArrayLike) -> ScoreGradients:
        """Gradients wrt every factor score of Σ_a d_marginals[a] · b_a(ON), by back-propagation through the
        unrolled iterations, the tree factor included (Gormley et al. 2015 §5; BP reading note §2.9)."""
        return _backward(self, np.asarray(d_marginals, dtype=np.float64))


def _logit(
    mu: NDArray[np.float64], mask: NDArray[np.bool_]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Log-odds of the arc marginals and 1 − μ, computed as the sum of the other heads' marginals (no cancellation)."""
    m = np.where(mask, mu, 0.0)
    before = np.cumsum(m, axis=0) - m
    after = np.cumsum(m[::-1], axis=0)[::-1] - m
    rest = np.where(mask, before + after, 1.0)
    with np.errstate(divide="ignore"):
        logit = np.log(np.maximum(m, TINY)) - np.log(np.maximum(rest, TINY))
    return np.where(mask, logit, 0.0), rest


def _pair_beliefs(
    s: NDArray[np.float64], la: NDArray[np.float64], lb: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """log Z_α and the beliefs b(ON,ON), b_a(ON), b_b(ON) of pairwise factors given incoming log-odds (eq. 7)."""
    both = s + la + lb
    log_z = np.logaddexp(np.logaddexp(0.0, la), np.logaddexp(lb, both))
    b11 = np.exp(both - log_z)
    return log_z, b11, np.exp(la - log_z) + b11, np.exp(lb - log_z) + b11


def _entropy(mu: NDArray[np.float64], rest: NDArray[np.float64]) -> NDArray[np.float64]:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nan_to_num(mu * np.log(mu)) - np.nan_to_num(rest * np.log(rest))


_Messages = list[tuple[NDArray[np.float64], NDArray[np.float64]]]


def _to_variables(
    fams: Sequence[PairwiseFamily], lam: _Messages, msgs: _Messages, damping: float, shape: tuple[int, ...]
) -> tuple[NDArray[np.float64], _Messages]:
    """Step (a) of an iteration: the pairwise factors' messages to their variables (to the first variable
    from the second's message, and vice versa; damped with the previous ones), and their sum per arc."""
    incoming = np.zeros(shape)
    new_msgs = []
    for f, (la, lb), (ma, mb) in zip(fams, lam, msgs):
        to_a = (1 - damping) * pairwise_message(f.scores, lb) + damping * ma
        to_b = (1 - damping) * pairwise_message(f.scores, la) + damping * mb
        to_a, to_b = np.where(f.mask, to_a, 0.0), np.where(f.mask, to_b, 0.0)
        incoming += f.sum_first(to_a) + f.sum_second(to_b)
        new_msgs.append((to_a, to_b))
    return incoming, new_msgs


def bp_marginals(
    arc_scores: ArrayLike | FactorGraph,
    gp_scores: ArrayLike | TripleScorer | None = None,
    sib_scores: ArrayLike | None = None,
    single_root: bool = False,
    projective: bool = True,
    iterations: int = 4,
    damping: float = 0.0,
    trace: bool = False,
) -> BPResult:
    """Run ``iterations`` iterations of loopy BP with the serial schedule of footnote 4 (eqs. 4–7).

    ``arc_scores`` is an (n+1, n+1) array (then the factor graph is built by :func:`factor_graph` from the
    other arguments) or a ready :class:`FactorGraph`. ``damping`` d ∈ [0, 1) mixes each new pairwise message
    with the previous one in log-odds: m ← (1 − d) m_new + d m_old. Messages start uniform (m⁽⁰⁾ = 1).
    ``trace`` also records log Z_Bethe after every iteration (it costs about as much as the messages).
    """
    graph = (
        arc_scores
        if isinstance(arc_scores, FactorGraph)
        else factor_graph(arc_scores, gp_scores, sib_scores, single_root, projective)
    )
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"damping must lie in [0, 1), got {damping}")
    theta, mask = graph.arc_scores, graph.arc_mask
    theta0 = np.where(mask, theta, 0.0)
    fams = graph.families
    lam = [(np.zeros(f.scores.shape), np.zeros(f.scores.shape)) for f in fams]
    msgs = [(np.zeros(f.scores.shape), np.zeros(f.scores.shape)) for f in fams]
    degree = 2.0 + sum((f.degree() for f in fams), np.zeros(mask.shape))
    steps: list[_Step] = []
    trace_z: list[float] = []
    residuals: list[float] = []
    prev_rho = theta0
    for _ in range(iterations):
        incoming, new_msgs = _to_variables(fams, lam, msgs, damping, mask.shape)
        # (b) variables -> tree, (c) tree -> variables (ratio trick)
        rho = np.where(mask, theta0 + incoming, -np.inf)
        log_z_tree, mu = tree_marginals(rho, graph.single_root, graph.projective)
        mu = np.where(mask, mu, 0.0)
        belief, rest = _logit(mu, mask)
        steps.append(_Step(rho, mu, lam))
        # (d) variables -> pairwise factors: belief minus the factor's own message
        msgs = new_msgs
        lam = [
            (np.where(f.mask, f.first(belief) - ma, 0.0), np.where(f.mask, f.second(belief) - mb, 0.0))
            for f, (ma, mb) in zip(fams, msgs)
        ]
        residuals.append(float(np.abs(np.where(mask, rho, 0.0) - prev_rho).max()))
        prev_rho = np.where(mask, rho, 0.0)
        if trace or len(steps) == iterations:
            trace_z.append(_log_z_bethe(graph, log_z_tree, mu, rest, prev_rho - theta0, lam, degree))
    beliefs = {
        f.name: np.where(f.mask, _pair_beliefs(f.scores, la, lb)[1], 0.0) for f, (la, lb) in zip(fams, lam)
    }
    return BPResult(
        graph, steps[-1].mu, beliefs, trace_z[-1], trace_z if trace else [], residuals, damping, steps
    )


def _log_z_bethe(
    graph: FactorGraph,
    log_z_tree: float,
    mu: NDArray[np.float64],
    rest: NDArray[np.float64],
    incoming: NDArray[np.float64],
    lam: list[tuple[NDArray[np.float64], NDArray[np.float64]]],
    degree: NDArray[np.float64],
) -> float:
    """−F_Bethe = log Z_tree(ρ) − Σ_a μ_a (ρ_a − θ_a) − Σ_α [λ_a b_a + λ_b b_b − log Z_α] − Σ_a (d_a − 2) H(b_a):
    the unary, tree and pairwise factors' average energies minus entropies, with the variables' counting
    numbers 1 − d_a (Yedidia et al. 2005); exact (= log Z) on the first-order graph."""
    mask = graph.arc_mask
    value = log_z_tree - float((mu * incoming).sum())
    value -= float((np.where(mask, degree - 2.0, 0.0) * _entropy(mu, rest)).sum())
    for f, (la, lb) in zip(graph.families, lam):
        log_z, _, ba, bb = _pair_beliefs(f.scores, la, lb)
        value -= float(np.where(f.mask, la * ba + lb * bb - log_z, 0.0).sum())
    return value


def _backward(result: BPResult, d_mu_final: NDArray[np.float64]) -> ScoreGradients:
    """Reverse the unrolled iterations (BP reading note §2.9): adjoints of λ, μ, ρ, messages and scores, t =
    T..1."""
    graph, damping = result.graph, result.damping
    mask, fams = graph.arc_mask, graph.families
    d_theta = np.zeros(mask.shape)
    d_scores = [np.zeros(f.scores.shape) for f in fams]
    d_lam = [
        (np.zeros(f.scores.shape), np.zeros(f.scores.shape)) for f in fams
    ]  # adjoints of λ_t (after (d))
    d_msg = [(np.zeros(f.scores.shape), np.zeros(f.scores.shape)) for f in fams]  # adjoints of messages m_t
    d_mu = np.where(mask, d_mu_final, 0.0)
    for step in reversed(result._steps):
        # (d) λ = belief − m, belief = logit(μ)
        d_belief = np.zeros(mask.shape)
        for f, (dla, dlb), (dma, dmb) in zip(fams, d_lam, d_msg):
            d_belief += f.sum_first(dla) + f.sum_second(dlb)
            dma -= dla
            dmb -= dlb
        _, rest = _logit(step.mu, mask)
        usable = mask & (step.mu > TINY) & (rest > TINY)
        d_mu = d_mu + np.where(usable, d_belief / np.where(usable, step.mu * rest, 1.0), 0.0)
        # (c) tree: ðρ = ∇² log Z · ðμ; (b) ρ = θ + Σ incoming messages
        d_rho = np.where(
            mask, tree_marginals_jvp(step.rho, d_mu, graph.single_root, graph.projective)[1], 0.0
        )
        d_theta += d_rho
        # (a) m_t = (1 − d) f(s, λ_{t−1}) + d m_{t−1}
        new_d_lam = []
        for k, (f, (la, lb), (dma, dmb)) in enumerate(zip(fams, step.lam_in, d_msg)):
            dma += f.first(d_rho)
            dmb += f.second(d_rho)
            dma *= f.mask
            dmb *= f.mask
            ds_a, dl_b = pairwise_message_grads(f.scores, lb)
            ds_b, dl_a = pairwise_message_grads(f.scores, la)
            d_scores[k] += (1 - damping) * (dma * ds_a + dmb * ds_b)
            new_d_lam.append(((1 - damping) * dmb * dl_a, (1 - damping) * dma * dl_b))
            dma *= damping
            dmb *= damping
        d_lam = new_d_lam
        d_mu = np.zeros(mask.shape)
    grads = {f.name: np.where(f.mask, d, 0.0) for f, d in zip(fams, d_scores)}
    return ScoreGradients(d_theta, grads.get("grandparent"), grads.get("sibling"))
