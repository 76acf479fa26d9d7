"""The family kit on every path a decoder takes (lpparse.family_kit: check_parts on brute force with and
without implied rows, parse-price-cut, warm starts and live masters below the root, max_per_tree and
exact-only cuts; check_exact on pricing inside exact search): each bug planted in the head-bigram example
family (docs/examples/head_bigrams) fails the kit with an error that names the path and what broke."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from unittest import mock

import numpy as np
import pytest
from test_families import _example, bigrams, grandparents

from lpparse.families.grandparent import family as grandparent_family
from lpparse.family_kit import FamilyCheckError, check_exact, check_parts, random_arc_scores
from lpparse.ppc import solve_lp

Bug = Callable[[Callable[..., Any]], Callable[..., Any]]


def flipped(real: Callable[..., Any]) -> Callable[..., Any]:
    """Pricing with the duals' sign flipped: r = s + μ_Left + μ_Right."""
    return lambda self, state: real(self, replace(state, y=-state.y))


def skipping_last(real: Callable[..., Any]) -> Callable[..., Any]:
    """Pricing that never looks at the last modifier's parts ⟨h, h', n - 1⟩ (nor bounds them)."""

    def price(self: Any, state: Any) -> Any:
        mask = self.mask
        self.mask = mask.copy()
        self.mask[:, :, -2] = False
        try:
            return real(self, state)
        finally:
            self.mask = mask

    return price


def dropping(always: bool) -> Bug:
    """A family that drops (frees) the marginalization rows BigramLeft[h, 1] (Σ_h' y[h, h', 1] = z[h, 1]):
    ``always``, or only when bound without implied rows (brute force as ``auto`` and exact decoding run
    it)."""

    def plant(real: Callable[..., Any]) -> Callable[..., Any]:
        def init(self: Any, spec: Any, binding: Any) -> None:
            real(self, spec, binding)
            if always or not binding.implied_rows:
                rows = self.left_row[:, 1]
                rows = rows[rows >= 0]
                self.lp.row_lower[rows], self.lp.row_upper[rows] = -np.inf, np.inf

        return init

    return plant


def second_head_early(real: Callable[..., Any]) -> Callable[..., Any]:
    """``tree_parts`` reading h' one token early: ⟨heads[m], heads[m], m⟩, whose h' need not head m + 1."""

    def tree_parts(self: Any, heads: np.ndarray) -> tuple:
        h, _, m = real(self, heads)
        return h, heads[m], m

    return tree_parts


def arcs_one_early(real: Callable[..., Any]) -> Callable[..., Any]:
    """``candidates`` over the arcs one modifier early: ⟨h, h', m⟩ named when h→m-1 and h'→m are candidates."""
    return lambda self, arc_mask, single_root: real(self, np.roll(arc_mask, 1, axis=1), single_root)


def one_short(real: Callable[..., Any]) -> Callable[..., Any]:
    """``max_per_tree`` one less than the n - 1 parts every tree holds."""
    return lambda self, n: max(real(self, n) - 1, 0)


#: the planted bugs: (class of the example, attribute, bug)
BUGS: dict[str, tuple[str, str, Bug]] = {
    "sign-flip": ("HeadBigramFamily", "price", flipped),
    "skips-last-modifier": ("HeadBigramFamily", "price", skipping_last),
    "dropped-row": ("HeadBigramFamily", "__init__", dropping(always=True)),
    "row-dropped-without-implied-rows": ("HeadBigramFamily", "__init__", dropping(always=False)),
    "tree-parts-off-by-one": ("HeadBigramParts", "tree_parts", second_head_early),
    "candidates-off-by-one": ("HeadBigramParts", "candidates", arcs_one_early),
    "max-per-tree-too-small": ("HeadBigramParts", "max_per_tree", one_short),
}


@contextmanager
def planted(name: str) -> Iterator[None]:
    """The example family with the bug ``name`` of :data:`BUGS`."""
    owner, attribute, bug = BUGS[name]
    cls = getattr(_example(), owner)
    with mock.patch.object(cls, attribute, bug(getattr(cls, attribute))):
        yield


@pytest.mark.parametrize(
    "bug, message",
    [
        ("sign-flip", r"'bigram'.*under-estimates reduced costs"),
        ("skips-last-modifier", r"'bigram'.*under-estimates reduced costs"),
        ("dropped-row", r"brute force: ILP value .* the rows do not describe the trees exactly"),
        (
            "row-dropped-without-implied-rows",
            r"brute force without implied rows .* is not implied by the others",
        ),
        (
            "tree-parts-off-by-one",
            r"tree \[.*\] (violates row \('BigramRight'|has zbig parts without a column)",
        ),
        ("candidates-off-by-one", r"'bigram' part .* candidates\(\) and the parts the family seeds differ"),
        ("max-per-tree-too-small", r"holds \d+ 'bigram' parts, but max_per_tree\(\d\) is"),
    ],
)
def test_each_planted_bug_fails_the_kit(bug: str, message: str) -> None:
    """On the run that the example as written passes (test_families.py:
    test_the_kit_passes_every_family[bigrams])."""
    with planted(bug), pytest.raises(FamilyCheckError, match=message):
        check_parts(bigrams, per_size=3, seed=1)


@pytest.mark.parametrize("bug", ["sign-flip", "skips-last-modifier"])
def test_planted_pricing_bugs_fail_the_kit_inside_exact_search(bug: str) -> None:
    """A certified wrong tree, or a proof the standalone check rejects, on every seed."""
    with planted(bug):
        for seed in range(3):
            with pytest.raises(FamilyCheckError, match="exact search"):
                check_exact(bigrams, seed=seed)


def test_a_row_dropped_without_implied_rows_is_seen_by_auto_alone() -> None:
    """The bf and ppc decoders bind with implied rows and agree; ``auto``, brute force at this size without
    implied rows, is wrong on most sentences: only the kit's path without implied rows sees the bug."""
    rng = np.random.default_rng(4)
    wrong = 0
    with planted("row-dropped-without-implied-rows"):
        for _ in range(6):
            s = random_arc_scores(5, rng)
            parts = bigrams(s, False, rng)
            bf, ppc, auto = (solve_lp(s, parts, method) for method in ("bf", "ppc", "auto"))
            assert auto.stats.method == "bf" and ppc.objective == pytest.approx(bf.objective, abs=1e-6)
            wrong += auto.objective > bf.objective + 1e-6
    assert wrong >= 4


def test_a_cut_that_cuts_off_trees_fails_the_kit() -> None:
    """Exact decoding's GPChain cuts (grandparent family, ``for_exact``) with their right-hand side lowered by
    1/2: the LP decoders never separate them, so only the kit's path with exact-only cuts sees them."""
    real = grandparent_family.add_chain_rows

    def tight(rows: Any, gp: Any, index: Any) -> np.ndarray:
        added = real(rows, gp, index)
        gp.lp.row_upper[added] -= 0.5
        return added

    with (
        mock.patch.object(grandparent_family, "add_chain_rows", tight),
        pytest.raises(FamilyCheckError, match=r"violates row \('GPChain'"),
    ):
        check_parts(grandparents("onegp"), per_size=3, seed=1)


def test_a_live_master_that_fixes_a_nodes_parts_fails_the_kit() -> None:
    """A grandparent family whose ``node_columns`` fixes at 0 the triples of the last modifier, arcs kept or
    not: the root and every program of its own are right, the nodes on live masters are not."""
    real = grandparent_family.GrandparentFamily.node_columns

    def node_columns(self: Any, arc_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cols, allowed = real(self, arc_mask)
        return cols, allowed & (self.prog.triples()[2] != arc_mask.shape[0] - 1)

    with (
        mock.patch.object(grandparent_family.GrandparentFamily, "node_columns", node_columns),
        pytest.raises(FamilyCheckError, match="on a live master"),
    ):
        check_parts(grandparents("all"), per_size=3, seed=1)
