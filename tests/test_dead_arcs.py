"""Dead arcs kept out of the HiGHS master (lpparse.families.grandparent.dead_arcs): the solver's program has the restricted
LP's value, and the extended duals are optimal for the restricted LP itself, on both flow bases and on cycle
cuts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen.options import HIGHS_OPTIONS
from lpparse.families.grandparent.dead_arcs import DeadArcs
from lpparse.families.grandparent.rows import (
    BASES,
    SEPARATED_BASES,
    GrandparentProgram,
    arc_program,
    grandparent_program,
)
from lpparse.lp import Status, certify_lp
from lpparse.lp.highs_view import HighsModel
from lpparse.ppc import parse_price_cut
from lpparse.scores import random_scores
from lpparse.trees import allowed_arcs
from lpparse.triples import GP_DISTRIBUTIONS, DenseTripleScorer, candidate_triples, synthetic_triple_scorer

TOL = 1e-6
BASES = BASES + SEPARATED_BASES


def _restricted(n: int, seed: int, base: str, share: float) -> GrandparentProgram:
    """A multi-root grandparent program on random scores holding a random ``share`` of the triples (feasible:
    the tree with every token on the root needs none)."""
    rng = np.random.default_rng(seed)
    s = random_scores(n, rng)
    prog = arc_program(s, False, base)  # cycle cuts: no NoCycle row yet, still an LP with the same duals
    prog.use_families("all")
    g, p, c = candidate_triples(allowed_arcs(s))
    keep = rng.random(g.size) < share
    scores = rng.normal(size=g.size)
    prog.add_triples(g[keep], p[keep], c[keep], scores[keep])
    return prog


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 7),
    seed=st.integers(0, 2**32 - 1),
    base=st.sampled_from(BASES),
    share=st.sampled_from([0.0, 0.1, 0.4]),
)
def test_dead_arcs_out_of_highs_keep_the_value_and_extended_duals_certify(
    n: int, seed: int, base: str, share: float
) -> None:
    prog = _restricted(n, seed, base, share)
    plain = HighsModel(prog.lp, options=HIGHS_OPTIONS).solve()
    assert plain.certified
    dead = DeadArcs(prog)
    model = dead.model(options=HIGHS_OPTIONS)
    assert np.array_equal(dead.out, (prog.onegp_row >= 0) & ~prog.present.any(axis=0))
    assert dead.out.any() or share > 0
    assert model.masked == dead.out.any()
    flows = prog.lp.commodities  # flow columns and NoFlow rows per arc: 1, n, or 0 for cycle cuts
    assert model.highs.getNumCol() == prog.lp.num_cols - dead.out.sum() * (1 + flows)
    assert model.highs.getNumRow() == prog.lp.num_rows - dead.out.sum() * flows
    sol = model.solve(certify=False)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(plain.objective, abs=1e-7)
    extended = dead.extend(sol)
    cert = certify_lp(prog.lp, extended.x, extended.row_dual, TOL)
    assert cert.ok, str(cert)
    z = prog.arc_values(sol.x)
    assert np.all(np.abs(z[dead.out]) <= 1e-9)


def test_extension_is_needed_and_releases_follow_new_triples() -> None:
    """Somewhere the solver's own duals give a held column a positive reduced cost, which only the extension
    repairs; an arc whose first triple enters is released and can carry it."""
    repaired = 0
    for seed in range(40):
        prog = _restricted(5, seed, "single-flow", 0.0)
        dead = DeadArcs(prog)
        model = dead.model(options=HIGHS_OPTIONS)
        sol = model.solve(certify=False)
        raw = certify_lp(prog.lp, sol.x, sol.row_dual, TOL)
        assert certify_lp(prog.lp, sol.x, dead.extend(sol).row_dual, TOL).ok
        repaired += not raw.ok
        # a large triple on a dead arc: released, it must be used
        p, c = map(int, np.argwhere(dead.out)[0])  # a word arc: p > 0, and 0→p is a candidate
        prog.add_triples([0], [p], [c], [1e3])
        dead.update(model)
        assert not dead.out[p, c]
        sol = model.solve(certify=False)
        assert sol.status is Status.OPTIMAL
        assert prog.arc_values(sol.x)[p, c] == pytest.approx(1.0)
        assert certify_lp(prog.lp, sol.x, dead.extend(sol).row_dual, TOL).ok
    assert repaired > 0


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 9),
    seed=st.integers(0, 2**32 - 1),
    dist=st.sampled_from(GP_DISTRIBUTIONS),
    preset=st.sampled_from(["all", "onegp"]),
    base=st.sampled_from(BASES),
)
def test_ppc_with_and_without_dead_arcs_agree(n: int, seed: int, dist: str, preset: str, base: str) -> None:
    rng = np.random.default_rng(seed)
    s = random_scores(n, rng)
    scores = synthetic_triple_scorer(n, rng, dist).scores
    on = parse_price_cut(s, DenseTripleScorer(scores), preset, base=base)
    off = parse_price_cut(s, DenseTripleScorer(scores), preset, base=base, dead_arcs=False)
    assert on.certified and off.certified
    assert on.objective == pytest.approx(off.objective, abs=1e-6)
    assert all(r.families["grandparent"].held_out == 0 for r in off.rounds)
    assert on.rounds[0].families["grandparent"].held_out > 0 or n < 3  # T carries at most n - 1 of the n(n-1) word arcs


def test_dead_arcs_need_onegp_and_a_flow_or_cycle_cut_base() -> None:
    s = random_scores(4, 0)
    prog = grandparent_program(s, "martins")
    assert not DeadArcs.applies(prog)
    with pytest.raises(ValueError, match="OneGP"):
        DeadArcs(prog)
