"""Part families through one front end: the family kit (lpparse.family_kit) on every built-in family, on
the minimal family of docs/families.md and on combinations; a planted sign flip caught; consecutive siblings
alone and with grandparents and arbitrary siblings against brute force (BF, PPC, exact)."""

from __future__ import annotations

import functools
import importlib.util
import itertools
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.consecutive.family import ConsecutiveSiblingFamily, ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer, synthetic_csib_scorer
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.family_kit import FamilyCheckError, check_parts, check_rows, random_arc_scores
from lpparse.formulations import arborescence
from lpparse.formulations.arborescence import CycleCutFamily, add_subtour_cuts, cycle_cut_program
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.ppc import solve_lp
from lpparse.proofs.check import check_proof
from lpparse.triples import DensePartScorer, DenseSiblingScorer, DenseTripleScorer, SparsePartScorer

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "head_bigrams" / "head_bigrams.py"


def _cube(rng: np.random.Generator, n: int, scale: float = 1.0) -> np.ndarray:
    return rng.normal(scale=scale, size=(n + 1,) * 3)


def _pruned(rng: np.random.Generator, cube: np.ndarray, share: float = 0.1) -> np.ndarray:
    out = cube.copy()
    out[rng.random(cube.shape) < share] = -np.inf
    return out


def grandparents(preset: str):
    def make(s: np.ndarray, single_root: bool, rng: np.random.Generator) -> list:
        return [GrandparentParts(DenseTripleScorer(_pruned(rng, _cube(rng, s.shape[0] - 1))), preset)]

    return make


def siblings(preset: str):
    def make(s: np.ndarray, single_root: bool, rng: np.random.Generator) -> list:
        return [SiblingParts(DenseSiblingScorer(_pruned(rng, _cube(rng, s.shape[0] - 1))), preset)]

    return make


def consecutive(s: np.ndarray, single_root: bool, rng: np.random.Generator) -> list:
    n = s.shape[0] - 1
    return [ConsecutiveSiblingParts(DenseConsecutiveScorer(_pruned(rng, _cube(rng, n))))]


def standard(s: np.ndarray, single_root: bool, rng: np.random.Generator) -> list:
    """TurboParser's standard model: arcs, consecutive siblings and grandparents (plus arbitrary siblings)."""
    n = s.shape[0] - 1
    return [
        ConsecutiveSiblingParts(synthetic_csib_scorer(n, rng)),
        GrandparentParts(DenseTripleScorer(_cube(rng, n)), "martins"),
        SiblingParts(DenseSiblingScorer(_cube(rng, n, 0.5))),
    ]


@functools.cache
def _example():
    """The example module (``EXAMPLE``), loaded once: the classes planted bugs patch."""
    spec = importlib.util.spec_from_file_location("head_bigrams", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["head_bigrams"] = module
    spec.loader.exec_module(module)
    return module


def bigrams(s: np.ndarray, single_root: bool, rng: np.random.Generator) -> list:
    return [_example().HeadBigramParts(DensePartScorer(_pruned(rng, _cube(rng, s.shape[0] - 1))))]


@pytest.mark.parametrize(
    "make, paths",
    [
        (grandparents("all"), {"lean", "live"}),
        (grandparents("martins"), {"cuts", "live"}),
        (grandparents("onegp"), {"cuts", "live"}),
        (siblings("martins"), {"cuts", "live"}),
        (siblings("all"), {"cuts", "live"}),
        (consecutive, {"live"}),
        (bigrams, set()),
        (standard, {"cuts", "live"}),
    ],
    ids=["gp-all", "gp-martins", "gp-onegp", "sib-martins", "sib-all", "consecutive", "bigrams", "standard"],
)
def test_the_kit_passes_every_family(make, paths: set[str]) -> None:
    """Every path of the kit that the family takes is checked: brute force without implied rows where it
    leaves rows out (``lean``), exact decoding's cuts where it has some (``cuts``), live masters where it
    supports them (``live``); warm starts below the root for all."""
    report = check_parts(make, per_size=3, seed=1)
    assert report.sentences + len(report.notes) == 12 and report.trees > 200 and report.entered > 0
    assert report.fractional > 0  # the instances reach fractional LPs, where pricing matters
    checked = {path for path in ("lean", "cuts", "live") if getattr(report, path)}
    assert report.nodes >= report.sentences and paths <= checked and ("live" in checked) == ("live" in paths)


def test_the_minimal_family_is_short_and_the_doc_shows_it() -> None:
    assert len(EXAMPLE.read_text().splitlines()) < 150
    doc = (EXAMPLE.parents[2] / "families.md").read_text()
    assert "examples/head_bigrams/head_bigrams.py" in doc and "check_parts" in doc


def test_the_kit_catches_over_estimated_reduced_costs() -> None:
    """Pricing that drops the positive part of the duals (r = s - min(ν, 0) - min(μ_In, 0) >= the true
    reduced cost): parse-price-cut still ends certified at BF's value (it only adds columns the duals do not
    ask for), so end-to-end tests pass; the kit names the family and the part."""
    real = ConsecutiveSiblingFamily._duals

    def generous(self, y):
        nu, into = real(self, y)
        return np.minimum(nu, 0.0), np.minimum(into, 0.0)

    rng = np.random.default_rng(5)
    with mock.patch.object(ConsecutiveSiblingFamily, "_duals", generous):
        for _ in range(5):  # end to end, it goes unseen
            n = 5
            s = random_arc_scores(n, rng)
            scores = _cube(rng, n)
            ppc = solve_lp(s, [ConsecutiveSiblingParts(DenseConsecutiveScorer(scores))], "ppc")
            bf = solve_lp(s, [ConsecutiveSiblingParts(DenseConsecutiveScorer(scores))], "bf")
            assert ppc.certified and ppc.objective == pytest.approx(bf.objective, abs=1e-6)
        with pytest.raises(FamilyCheckError, match="'consecutive'.*over-estimates reduced costs"):
            check_parts(consecutive, seed=1)


def test_the_kit_catches_a_sign_flip() -> None:
    """r = s + ν + μ_In: the kit stops at the first round whose claims the full program contradicts."""
    real = ConsecutiveSiblingFamily._duals

    def flipped(self, y):
        nu, into = real(self, y)
        return -nu, -into

    with mock.patch.object(ConsecutiveSiblingFamily, "_duals", flipped):
        with pytest.raises(FamilyCheckError, match="'consecutive'.*-estimates reduced costs"):
            check_parts(consecutive, seed=1)


def test_the_kit_catches_under_estimated_reduced_costs() -> None:
    """A bound that leaves out parts with positive reduced cost: the kit names the part."""
    real = ConsecutiveSiblingFamily.price

    def timid(self, state):
        found = real(self, state)
        self._new = tuple(a[:0] for a in self._new)  # price nothing, claim the usual bound
        return type(found)(0, found.max_reduced_cost if found.columns == 0 else 0.0)

    with mock.patch.object(ConsecutiveSiblingFamily, "price", timid):
        with pytest.raises(FamilyCheckError, match="under-estimates"):
            check_parts(consecutive, seed=1)


def _brute_force(s: np.ndarray, parts: list, single_root: bool) -> float:
    n = s.shape[0] - 1
    m = np.arange(1, n + 1)
    best = -np.inf
    for heads in enumerate_trees(n, single_root):
        value = float(s[heads[1:], m].sum())
        for part in parts:
            idx = part.tree_parts(heads)
            if idx[0].size:
                value += float(part.scorer.scores[idx].sum())
        best = max(best, value)
    return best


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 6), st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(["alone", "standard"]))
def test_consecutive_siblings_bf_ppc_exact_against_brute_force(
    n: int, seed: int, single_root: bool, combo: str
) -> None:
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng, single_root=single_root)
    cs = _pruned(rng, _cube(rng, n), 0.05)
    gp, sib = _cube(rng, n), _cube(rng, n, 0.5)

    def parts() -> list:
        out: list = [ConsecutiveSiblingParts(DenseConsecutiveScorer(cs))]
        if combo == "standard":
            out += [GrandparentParts(DenseTripleScorer(gp)), SiblingParts(DenseSiblingScorer(sib))]
        return out

    best = _brute_force(s, parts(), single_root)
    if np.isneginf(best):
        return
    bf = solve_lp(s, parts(), "bf", single_root)
    ppc = solve_lp(s, parts(), "ppc", single_root)
    assert bf.certified and ppc.certified
    assert bf.objective >= best - 1e-6
    assert ppc.objective == pytest.approx(bf.objective, abs=1e-6)
    assert (
        ppc.counts["consecutive"].scored
        <= bf.counts["consecutive"].scored
        == bf.counts["consecutive"].candidates
    )
    exact = exact_search(s, parts(), single_root, options=ExactOptions(verify=True))
    assert exact.certified and exact.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, parts(), exact) is None  # from the labelled duals alone, over the full program


def test_parse_exact_on_a_score_file_with_consecutive_siblings(tmp_path: Path) -> None:
    """A version-2 score file with arcs, grandparents and consecutive siblings (and one with arcs and
    consecutive siblings alone): ``lpparse parse --decoder exact`` returns the brute-force optimum of every
    sentence; a decoder that cannot take the parts is refused."""
    from test_cli_errors import fails, lpparse

    from lpparse.corpus import read_treebank, sample_treebank_path, write_treebank
    from lpparse.scores import SentenceScores, load_scores, save_scores

    sentences = [s for s in read_treebank(sample_treebank_path()) if 2 <= s.n <= 6][:5]
    single_root = all(s.single_rooted for s in sentences)  # what parse infers from the gold trees
    treebank = tmp_path / "short.conllu"
    write_treebank(treebank, sentences)
    rng = np.random.default_rng(11)
    entries = [
        SentenceScores(
            s.sent_id, random_arc_scores(s.n, rng, prune=0.0), _cube(rng, s.n), None, _cube(rng, s.n)
        )
        for s in sentences
    ]
    for name, kept in (
        ("both", entries),
        ("csib", [SentenceScores(e.sent_id, e.arcs, csib=e.csib) for e in entries]),
    ):
        path = tmp_path / f"{name}.npz"
        save_scores(path, kept)
        assert load_scores(path).consecutive and load_scores(path).meta["version"] == 2
        out = tmp_path / f"{name}.conllu"
        done = lpparse(
            "parse",
            "--scores",
            path,
            "--treebank",
            treebank,
            "--decoder",
            "exact",
            "--out",
            out,
            "--no-progress",
        )
        assert done.returncode == 0, done.stderr
        assert "consecutive-sibling parts" in done.stdout
        parsed = read_treebank(out)
        for entry, sentence in zip(kept, parsed):
            parts = [ConsecutiveSiblingParts(DenseConsecutiveScorer(np.asarray(entry.csib)))]
            if entry.gp is not None:
                parts.append(GrandparentParts(DenseTripleScorer(np.asarray(entry.gp))))
            best = _brute_force(np.asarray(entry.arcs), parts, single_root)
            m = np.arange(1, sentence.n + 1)
            heads = np.asarray(sentence.heads)
            value = float(np.asarray(entry.arcs)[heads[1:], m].sum())
            for part in parts:
                value += float(part.scorer.scores[part.tree_parts(heads)].sum())
            assert value == pytest.approx(best, abs=1e-6)
        _check_experiments(path, treebank, tmp_path / name, kept, single_root)
    fails(
        lpparse("parse", "--scores", tmp_path / "both.npz", "--treebank", treebank, "--decoder", "bp"),
        2,
        "consecutive",
    )


def _check_experiments(scores: Path, treebank: Path, stem: Path, entries: list, single_root: bool) -> None:
    """``experiment ppc`` and ``bounds`` on a score file take every family it has: BF = PPC, exact = brute
    force, parts counted per family; Table 2's relaxations bound the best tree, multi-flow <= single-flow."""
    from test_cli_errors import lpparse

    from lpparse.experiments.runner import read_results

    families = {"consecutive"} | ({"grandparent"} if entries[0].gp is not None else set())
    for name in ("ppc", "bounds"):
        out = stem.with_name(f"{stem.name}-{name}.jsonl")
        argv = ["experiment", name, "--scores", scores, "--treebank", treebank, "--out", out, "--no-progress"]
        done = lpparse(*argv)
        assert done.returncode == 0, done.stderr
        assert "warning" not in done.stderr  # no family left out
        for record, entry in zip(read_results(out), entries):
            parts = [ConsecutiveSiblingParts(DenseConsecutiveScorer(np.asarray(entry.csib)))]
            if entry.gp is not None:
                parts.append(GrandparentParts(DenseTripleScorer(np.asarray(entry.gp))))
            best = _brute_force(np.asarray(entry.arcs), parts, single_root)
            if name == "ppc":
                assert set(record["bf"]["parts"]) == set(record["ppc"]["parts"]) == families
                assert record["ppc"]["objective"] == pytest.approx(record["bf"]["objective"], abs=1e-6)
                assert record["bf"]["objective"] >= best - 1e-6
                assert record["exact"]["objective"] == pytest.approx(best, abs=1e-6) and record["exact"]["certified"]
            else:
                labels = {k for k, v in record.items() if isinstance(v, dict)}
                expect = {"martins", "onegp", "all", "multi-flow"} if "grandparent" in families else set()
                assert labels == expect or labels == {"single-flow", "multi-flow"} and not expect
                assert all(record[k]["objective"] >= best - 1e-6 for k in labels)
                others = min(record[k]["objective"] for k in labels - {"multi-flow"})
                assert record["multi-flow"]["objective"] <= others + 1e-6


def _cycle_cuts(s: np.ndarray, single_root: bool):
    lp = cycle_cut_program(s, single_root)
    return lp, CycleCutFamily(lp)


def _every_cycle_row(s: np.ndarray, single_root: bool):
    lp = cycle_cut_program(s, single_root)
    n = s.shape[0] - 1
    add_subtour_cuts(lp, [c for k in range(2, n + 1) for c in itertools.combinations(range(1, n + 1), k)])
    return lp


def test_the_kit_passes_cycle_cuts_and_catches_a_missed_cut() -> None:
    """Riedel & Clarke's cycle cuts, a family that only separates: every tree satisfies every subtour row,
    the run's point violates none, its value is the full LP's. A separation that drops its last cut is caught."""
    report = check_rows(_cycle_cuts, _every_cycle_row)
    assert report.sentences == 16 and report.trees > 500 and report.rounds > 16
    real = arborescence.separate_subtours

    def forgetful(zm: np.ndarray, tol: float, exact: bool = True) -> list:
        return real(zm, tol, exact)[:-1]

    with mock.patch.object(arborescence, "separate_subtours", forgetful):
        with pytest.raises(FamilyCheckError, match="separation missed it"):
            check_rows(_cycle_cuts, _every_cycle_row)


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 6), st.integers(3, 4), st.integers(0, 2**32 - 1), st.floats(-2, 2))
def test_sparse_scorer_of_any_arity_against_its_dense_array(n: int, arity: int, seed: int, default: float) -> None:
    """A sparse scorer of 3- and 4-index parts scores as the dense array it stands for (built here only to
    check), counts what it scores, and its factorized bounds bound every part."""
    rng = np.random.default_rng(seed)
    dense = np.full((n + 1,) * arity, default)
    listed = rng.random(dense.shape) < 0.3
    dense[listed] = rng.normal(size=int(listed.sum()))
    dense[listed & (rng.random(dense.shape) < 0.1)] = -np.inf
    index = np.argwhere(listed)
    scorer = SparsePartScorer(n, index[::-1], dense[tuple(index[::-1].T)], default)
    every = np.indices(dense.shape).reshape(arity, -1)
    np.testing.assert_array_equal(scorer.score(*every), dense.ravel())
    assert scorer.scored == dense.size
    for keep in ((0,), (0, 1), (1, arity - 1)):
        axes = tuple(i for i in range(arity) if i not in keep)
        assert (scorer.bound(keep) >= dense.max(axis=axes) - 1e-12).all()
    one = np.zeros((1, arity), np.int64)
    with pytest.raises(ValueError, match="twice"):
        SparsePartScorer(n, np.r_[one, one], [0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        SparsePartScorer(n, one, [np.nan])


def test_api_misuse_gets_a_clear_error() -> None:
    """A cube where a scorer belongs, a preset of None: one clear error each, before any work."""
    s = random_arc_scores(4, np.random.default_rng(0))
    with pytest.raises(TypeError, match="not a scorer.*DenseTripleScorer"):
        solve_lp(s, [GrandparentParts(np.zeros((5, 5, 5)))])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="give a preset"):
        GrandparentParts(DenseTripleScorer(np.zeros((5, 5, 5))), preset=None)  # type: ignore[arg-type]


def test_the_sparse_score_cache_scores_each_part_once() -> None:
    """Above DENSE_LIMIT entries the cache keeps parts by flat index: the scorer's scores, and a part asked
    again in a later batch is not scored again (forced here on a 4-index space of 7^4 parts)."""
    from lpparse.colgen import cache as cache_module
    from lpparse.colgen.cache import ScoreCache

    rng = np.random.default_rng(3)
    dense = rng.normal(size=(7,) * 4)
    dense[rng.random(dense.shape) < 0.1] = -np.inf
    with mock.patch.object(cache_module, "DENSE_LIMIT", 100):
        scorer = DensePartScorer(dense)
        cache = ScoreCache(scorer, 7, "4-index", (), arity=4)
        assert cache.values is None  # stored sparsely
        seen: set[tuple[int, ...]] = set()
        for _ in range(6):  # distinct parts within a batch, many repeated across batches
            flat = rng.choice(7**4 // 4, size=300, replace=False)
            batch = np.array(np.unravel_index(flat, (7,) * 4))
            np.testing.assert_array_equal(cache.get(*batch), dense[tuple(batch)])
            seen |= set(flat.tolist())
        assert scorer.scored == len(seen) < 6 * 300
