"""The family kit inside exact search (lpparse.family_kit.check_exact: parse-price-cut at every node, the
tree against brute force, the proof by the standalone check), and exact decoding's default certificate for
families written elsewhere (ExactOptions.verify None): planted pricing bugs in the head-bigram example family
(docs/examples/head_bigrams/head_bigrams.py) fail the kit and never give a certified wrong tree."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_families import _cube, _example, bigrams, consecutive, grandparents, siblings, standard
from test_family_kit_paths import planted

from lpparse.exact.search import ExactOptions, exact_search, verify_by_default
from lpparse.families.base import tree_scores
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.family_kit import check_exact, random_arc_scores
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.triples import DensePartScorer, DenseTripleScorer

EXAMPLE = _example()


@pytest.mark.parametrize(
    "make",
    [grandparents("all"), grandparents("onegp"), siblings("martins"), consecutive, bigrams, standard],
    ids=["gp-all", "gp-onegp", "sib-martins", "consecutive", "bigrams", "standard"],
)
def test_the_exact_kit_passes_every_family(make) -> None:
    report = check_exact(make, per_size=3, seed=1)
    assert report.sentences + len(report.notes) == 9
    assert report.branched > 0 and report.nodes > report.sentences


def _best(s: np.ndarray, parts: list) -> float:
    return float(tree_scores(s, parts, list(enumerate_trees(s.shape[0] - 1, False))).max())


def test_a_flipped_family_never_gets_a_certified_wrong_tree() -> None:
    """With the sign flip, at n = 6 with parse-price-cut at every node (brute force's truth) and at n = 17,
    where ``auto`` runs parse-price-cut (the unplanted search's optimum, re-checked): the search's own
    records certify wrong trees, the default certificate (the standalone check: the family is not lpparse's)
    none."""
    records = ExactOptions(verify=False)
    wrong_by_records = wrong_by_default = certified = 0
    for n, seeds in ((6, range(10)), (17, range(6))):
        method = "ppc" if n == 6 else "auto"
        for seed in seeds:
            rng = np.random.default_rng(seed)
            s = random_arc_scores(n, rng, prune=0.0)
            parts = [EXAMPLE.HeadBigramParts(DensePartScorer(_cube(rng, n)))]
            if n == 6:
                best = _best(s, parts)
            else:
                truth = exact_search(s, parts, options=ExactOptions(verify=True))
                assert truth.certified
                best = truth.objective
            with planted("sign-flip"):
                by_records = exact_search(s, parts, options=replace(records, method=method))
                default = exact_search(s, parts, options=ExactOptions(method=method))
            wrong_by_records += by_records.certified and by_records.objective < best - 1e-6
            wrong_by_default += default.certified and default.objective < best - 1e-6
            certified += default.certified
    assert wrong_by_records >= 2 and wrong_by_default == 0 and certified >= 1


def test_the_standalone_check_is_the_default_for_families_from_elsewhere() -> None:
    rng = np.random.default_rng(0)
    cube = _cube(rng, 4)
    assert not verify_by_default([GrandparentParts(DenseTripleScorer(cube))])
    assert verify_by_default([EXAMPLE.HeadBigramParts(DensePartScorer(cube))])

    class OwnScorer(DenseTripleScorer):  # a built-in family over a scorer whose bounds steer its pricing
        pass

    assert verify_by_default([GrandparentParts(OwnScorer(cube))])
    with pytest.raises(ValueError, match="node LP method"):
        ExactOptions(method="simplex")
