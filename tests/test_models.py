"""Feature extraction, triple scoring, per-template bounds (checked exhaustively) and model files."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.corpus import Sentence, read_treebank, sample_treebank_path
from lpparse.families.grandparent.rows import full_grandparent_program
from lpparse.ppc import certify_full, parse_price_cut, solve_bf
from lpparse.scoring import BOUNDS, GRANDPARENT_TEMPLATES, Model, ModelFormatError, Vocabulary
from lpparse.scoring.features import DISTANCE_EDGES, encode, hash_columns, relation
from lpparse.trees import allowed_arcs, allowed_mask_shape
from lpparse.triples import TripleScorer, candidate_triples

SAMPLE = read_treebank(sample_treebank_path())
VOCAB = Vocabulary.build(SAMPLE, gwords=60)
BITS = 16


def _random_model(seed: int, order: int = 2, scale: float = 1.0) -> Model:
    """Dense random weights: every slot non-zero, so every feature and collision matters."""
    model = Model(VOCAB, order=order, bits=BITS)
    model.weights = np.random.default_rng(seed).normal(0.0, scale, 1 << BITS)
    return model


def _sentence(words: list[str], cpos: list[str], pos: list[str]) -> Sentence:
    n = len(words)
    return Sentence(
        words=["<root>", *words],
        lemmas=["<root>", *words],
        cpos=["<root>", *cpos],
        pos=["<root>", *pos],
        heads=np.array([-1, *([0] * n)]),
        labels=["<root>", *(["dep"] * n)],
    )


# known words, tags and strings the model never saw (including a token spelt like a reserved name)
WORDS = st.sampled_from([*VOCAB.strings["word"][3:30], "zyzzyva", "<root>", "<unk>", "The"])
TAGS = st.sampled_from([*VOCAB.strings["cpos"][3:], "NEWTAG", "_"])
random_sentences = st.integers(1, 7).flatmap(
    lambda n: st.builds(
        _sentence,
        st.lists(WORDS, min_size=n, max_size=n),
        st.lists(TAGS, min_size=n, max_size=n),
        st.lists(TAGS, min_size=n, max_size=n),
    )
)


def _check_bounds(model: Model, sentence: Sentence) -> None:
    """Both kinds of bounds hold on every candidate triple; the sentence's are never looser than the offline
    ones, and the per-triple bound is never looser than eq. 11's min of the factors."""
    n = sentence.n
    g, p, c = candidate_triples(allowed_mask_shape(n + 1))
    factors = {}
    for kind in BOUNDS:
        scorer = model.scorer(sentence).triples(kind)
        assert isinstance(scorer, TripleScorer)
        full = np.full((n + 1,) * 3, -np.inf)
        full[g, p, c] = scorer.score(g, p, c)
        assert scorer.scored == g.size
        best_gp, best_pc = full.max(axis=2), full.max(axis=0)
        b_gp, b_pc = scorer.bound_gp(), scorer.bound_pc()
        assert b_gp.shape == b_pc.shape == (n + 1, n + 1)
        assert np.all(b_gp >= best_gp - 1e-9), f"{kind} bound s̄(g, p, ·) below max_c s(g, p, c)"
        assert np.all(b_pc >= best_pc - 1e-9), f"{kind} bound s̄(·, p, c) below max_g s(g, p, c)"
        per_triple = scorer.bound_triples(g, p, c)
        assert np.all(per_triple >= full[g, p, c] - 1e-9), f"{kind} per-triple bound below the score"
        assert np.all(per_triple <= np.minimum(b_gp[g, p], b_pc[p, c]) + 1e-9)
        assert scorer.scored == g.size  # bounds score nothing
        factors[kind] = (b_gp, b_pc)
    for tight, loose in zip(factors["sentence"], factors["offline"]):
        assert np.all(tight <= loose + 1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_bounds_valid_on_every_sample_sentence(seed: int) -> None:
    model = _random_model(seed)
    for sentence in SAMPLE:
        _check_bounds(model, sentence)


@settings(max_examples=60, deadline=None)
@given(sentence=random_sentences, seed=st.integers(0, 3), scale=st.sampled_from([0.01, 1.0, 100.0]))
def test_bounds_valid_on_random_sentences(sentence: Sentence, seed: int, scale: float) -> None:
    _check_bounds(_random_model(seed, scale=scale), sentence)


@settings(max_examples=60, deadline=None)
@given(sentence=random_sentences, seed=st.integers(0, 3), scale=st.sampled_from([0.01, 1.0, 100.0]))
def test_scores_by_lookup_equal_hashed_scores(sentence: Sentence, seed: int, scale: float) -> None:
    """Once the sentence bounds exist, triples are scored from their enumeration: the same sums as the hashed
    features' weights, bit for bit, on every candidate triple, and counted the same."""
    model = _random_model(seed, scale=scale)
    g, p, c = candidate_triples(allowed_mask_shape(sentence.n + 1))
    hashed = model.weights[model.scorer(sentence).triples().slots(g, p, c)].sum(axis=0)
    scorer = model.scorer(sentence).triples("sentence")
    scorer.bound_gp()  # builds the enumeration
    np.testing.assert_array_equal(scorer.score(g, p, c), hashed)
    assert scorer.scored == g.size
    order = np.random.default_rng(seed).permutation(g.size)  # any batch, any order
    np.testing.assert_array_equal(scorer.score(g[order], p[order], c[order]), hashed[order])


@pytest.mark.parametrize("shift", [0, 1, 2])
def test_relation_halves_match_masked_maxima(shift: int) -> None:
    """The bound tables' per-bit maxima over the valid relations (one gather and reshape) against the maxima
    over each bit's relations selected by a mask."""
    from lpparse.scoring.bounds import _by_bit
    from lpparse.scoring.features import VALID_RELATIONS

    w = np.random.default_rng(shift).normal(size=(3, 4, VALID_RELATIONS.size))
    bit = (VALID_RELATIONS >> shift) & 1
    expected = np.stack([w[..., bit == 0].max(axis=-1), w[..., bit == 1].max(axis=-1)], axis=-1)
    np.testing.assert_array_equal(_by_bit(w, shift), expected)


def test_bounds_exact_for_a_single_template() -> None:
    """With one template the bound is the max over attribute values, attained by some value: on a
    sentence containing that value it equals the true max."""
    model = Model(VOCAB, order=2, bits=BITS, grandparent=(GRANDPARENT_TEMPLATES[2],))
    model.weights = np.random.default_rng(3).normal(size=1 << BITS)
    table = model.bounds()[0]
    assert table.pc.shape == (VOCAB.size("cpos"), VOCAB.size("cpos"), 2)
    sentence = SAMPLE[10]
    scorer = model.scorer(sentence).triples("offline")
    ids = encode(sentence, VOCAB)
    p, c = 2, 1
    g = np.array([x for x in range(sentence.n + 1) if x not in (p, c)])
    true = scorer.score(g, np.full(g.size, p), np.full(g.size, c)).max()
    assert scorer.bound_pc()[p, c] >= true
    assert (
        scorer.bound_pc()[p, c]
        == table.pc[ids.at("cpos", np.array([p]))[0], ids.at("cpos", np.array([c]))[0], 1]
    )


def test_arc_features_match_a_per_arc_reference() -> None:
    model = _random_model(5, order=1)
    sentence = SAMPLE[4]
    scorer = model.scorer(sentence)
    scores = scorer.arc_scores()
    ids = scorer.ids
    n = sentence.n
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h == m:
                assert scores[h, m] == -np.inf
                continue
            d, dist = int(h < m), int(np.searchsorted(DISTANCE_EDGES, abs(h - m), side="right"))
            total = 0.0
            for t, template in enumerate(model.first_order):
                vals = []
                for f in template:
                    if f == "between":
                        continue
                    tok, attr = f.split(".")
                    pos = (h if tok[0] == "h" else m) + (int(tok[1:]) if len(tok) > 1 else 0)
                    vals.append(ids.padded[attr][pos + 1])
                if "between" in template:
                    tags = {ids.padded["cpos"][b + 1] for b in range(min(h, m) + 1, max(h, m))}
                    for tag in tags:
                        total += model.weights[
                            hash_columns(
                                2 * t,
                                [np.array([*vals, tag, d])[i : i + 1] for i in range(len(vals) + 2)],
                                BITS,
                            )[0]
                        ]
                        total += model.weights[
                            hash_columns(
                                2 * t + 1,
                                [np.array([*vals, tag, d, dist])[i : i + 1] for i in range(len(vals) + 3)],
                                BITS,
                            )[0]
                        ]
                    continue
                cols = [np.array([v]) for v in (*vals, d)]
                total += model.weights[hash_columns(2 * t, cols, BITS)[0]]
                total += model.weights[hash_columns(2 * t + 1, [*cols, np.array([dist])], BITS)[0]]
            assert scores[h, m] == pytest.approx(total)


def test_triple_scores_match_a_per_triple_reference() -> None:
    """Eq. 4-5 one triple and one template at a time, against batches small enough to hash the templates of
    the same tokens together and large enough to hash them one by one."""
    from lpparse.scoring.features import _GROUPED, GP_SEED
    from lpparse.trees import allowed_arcs
    from lpparse.triples import candidate_triples

    model = _random_model(6)
    sentence = max(SAMPLE, key=lambda s: s.n)
    sentence_scorer = model.scorer(sentence)
    scorer = sentence_scorer.triples()
    ids = scorer.ids
    g, p, c = candidate_triples(allowed_arcs(sentence_scorer.arc_scores()))
    assert g.size > _GROUPED
    rng = np.random.default_rng(0)
    pick = rng.choice(g.size, 40, replace=False)
    reference = []
    for k in pick:
        rel = relation(g[k : k + 1], p[k : k + 1], c[k : k + 1])
        total = 0.0
        for t, tpl in enumerate(model.templates):
            cols = [ids.at(a, x[k : k + 1]) for a, x in ((tpl.g, g), (tpl.p, p), (tpl.c, c)) if a is not None]
            total += model.weights[hash_columns(GP_SEED + t, [*cols, rel], BITS)[0]]
        reference.append(total)
    whole = scorer.score(g, p, c)
    assert whole[pick] == pytest.approx(reference, abs=1e-12)
    assert scorer.score(g[pick], p[pick], c[pick]) == pytest.approx(reference, abs=1e-12)
    seeds = np.array([3, 8, 11])[:, None]
    x = rng.integers(0, 100, 7)
    assert (
        hash_columns(seeds, [x], 20) == np.stack([hash_columns(int(v), [x], 20) for v in seeds[:, 0]])
    ).all()


def test_relation_codes_are_eq_6() -> None:
    g, p, c = np.array([3, 0, 2]), np.array([1, 2, 3]), np.array([2, 1, 1])
    assert relation(g, p, c).tolist() == [4 + 2 + 0, 0 + 0 + 1, 0 + 2 + 1]


def test_triple_scorer_rejects_non_triples_and_counts() -> None:
    scorer = _random_model(0).scorer(SAMPLE[0]).triples()
    with pytest.raises(ValueError):
        scorer.score([1], [1], [2])
    scorer.score([0, 0], [1, 2], [2, 1])
    assert scorer.scored == 2
    with pytest.raises(ValueError, match="first-order"):
        _random_model(0, order=1).scorer(SAMPLE[0]).triples()


def test_unknown_and_reserved_strings_map_to_unk() -> None:
    ids = encode(_sentence(["<root>", "zyzzyva"], ["NEWTAG", "NEWTAG"], ["_", "_"]), VOCAB)
    assert ids.padded["word"].tolist() == [2, 1, 0, 0, 2]
    assert ids.padded["cpos"].tolist() == [2, 1, 0, 0, 2]


def test_saved_model_scores_identically(tmp_path: Path) -> None:
    model = _random_model(7)
    model.weights[np.random.default_rng(0).random(model.weights.size) < 0.5] = 0.0
    model.training = {"note": "test"}
    path = tmp_path / "m.npz"
    model.save(path)
    loaded = Model.load(path)
    assert loaded.order == 2 and loaded.training == {"note": "test"}
    with zipfile.ZipFile(path) as archive:  # weights stored (fast to load), the rest deflated
        kinds = {m.filename: m.compress_type for m in archive.infolist()}
    assert kinds.pop("weight_value.npy") == zipfile.ZIP_STORED
    assert set(kinds.values()) == {zipfile.ZIP_DEFLATED}
    again = dict(np.load(path))  # still a plain npz archive
    assert np.array_equal(again["weight_value"], model.weights[model.weights != 0])
    assert np.array_equal(loaded.weights, model.weights)
    for sentence in SAMPLE[:5]:
        a, b = model.scorer(sentence), loaded.scorer(sentence)
        assert np.array_equal(a.arc_scores(), b.arc_scores())
        g, p, c = candidate_triples(allowed_arcs(a.arc_scores()))
        ta, tb = a.triples(), b.triples()
        assert np.array_equal(ta.score(g, p, c), tb.score(g, p, c))
        assert np.array_equal(ta.bound_gp(), tb.bound_gp())
        assert np.array_equal(ta.bound_pc(), tb.bound_pc())


def test_model_of_another_version_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "m.npz"
    _random_model(0, order=1).save(path)
    archive = dict(np.load(path))
    meta = json.loads(str(archive["meta"]))
    meta["version"] = 999
    archive["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(path, **archive)
    with pytest.raises(ModelFormatError, match="version 999 is not supported"):
        Model.load(path)
    junk = tmp_path / "junk.npz"
    junk.write_text("not a model")
    with pytest.raises(ModelFormatError, match="not an lpparse model"):
        Model.load(junk)
    with pytest.raises(FileNotFoundError):
        Model.load(tmp_path / "missing.npz")


@pytest.mark.parametrize("bounds", BOUNDS)
def test_ppc_with_model_bounds_equals_bf_with_full_certificate(bounds: str) -> None:
    """PPC priced with a model's bounds (factorized, per-triple, GPArc duals of absent triples) reaches BF's
    value, and its extension is optimal for the full LP, every triple scored."""
    model = _random_model(7, scale=0.3)
    checked = with_gparc = scored = total = 0
    for sentence in SAMPLE:
        if not 6 <= sentence.n <= 12:
            continue
        scorer = model.scorer(sentence)
        s = scorer.arc_scores()
        result = parse_price_cut(s, scorer.triples(bounds))
        bf = solve_bf(s, scorer.triples(bounds))
        assert result.certified and bf.certified
        assert result.objective == pytest.approx(bf.objective, abs=1e-6)
        triples = scorer.triples()
        g, p, c = candidate_triples(allowed_arcs(s))
        dense = np.zeros((sentence.n + 1,) * 3)
        dense[g, p, c] = triples.score(g, p, c)
        full = full_grandparent_program(s, dense)
        outside = result.outside_duals()
        cert = certify_full(full.lp, result.program.lp, result.solution.x, result.row_dual, outside=outside)
        assert cert.ok, str(cert)
        checked += 1
        with_gparc += bool(outside)
        scored += result.counts["grandparent"].scored
        total += result.counts["grandparent"].candidates
    assert checked >= 10 and with_gparc >= 3, (checked, with_gparc)
    assert scored < total


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))
def test_hash_columns_on_a_grid_equals_hashing_each_cell(seed: int, a: int, b: int, c: int) -> None:
    """The bound tables hash broadcast grids of fields; every cell must get the slot of its own fields."""
    rng = np.random.default_rng(seed)
    x, y, z = rng.integers(0, 1000, a), rng.integers(0, 1000, b), rng.integers(0, 1000, c)
    grid = hash_columns(seed % 97, [x[:, None, None], y[None, :, None], z[None, None, :]], 20)
    assert grid.shape == (a, b, c)
    gx, gy, gz = np.meshgrid(x, y, z, indexing="ij")
    flat = hash_columns(seed % 97, [gx.ravel(), gy.ravel(), gz.ravel()], 20)
    assert (grid.ravel() == flat).all()
    assert (
        hash_columns(5, [x[:, None], np.int64(3)], 20) == hash_columns(5, [x, np.full(a, 3)], 20)[:, None]
    ).all()


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**31),
    st.lists(st.integers(0, 5), min_size=1, max_size=8),
    st.sampled_from([1, 7, 300, 2049, 3000]),
)
def test_hash_templates_hashes_each_template_as_hash_columns_does(
    seed: int, arities: list[int], size: int
) -> None:
    """All templates in one pass (templates of 0-5 columns, batches below and above the size where it hashes
    template by template) give each template's row of hash_columns."""
    from lpparse.scoring.features import hash_templates

    rng = np.random.default_rng(seed)
    seeds = [int(s) for s in rng.integers(0, 10_000, len(arities))]
    columns = [[rng.integers(-2, 10**6, size) for _ in range(k)] for k in arities]
    got = hash_templates(seeds, columns, 18, size)
    assert got.shape == (len(arities), size)
    for t, (s, cols) in enumerate(zip(seeds, columns)):
        with np.errstate(over="ignore"):  # a template without columns hashes numpy scalars
            expected = hash_columns(s, cols, 18)
        assert (got[t] == np.broadcast_to(expected, (size,))).all()


def test_a_model_file_carries_its_pruner_and_refuses_a_damaged_one(tmp_path: Path) -> None:
    """The pruner inside a model file reads back weight for weight, with the pruning the model was trained
    over; a pruner record that is not a model's, a second-order pruner, or NaN among the pruner's weights make
    the file a damaged one (ModelFormatError), never a model that prunes by something else."""
    vocab = Vocabulary.build(read_treebank(sample_treebank_path()))
    pruner = Model(vocab, bits=10)
    pruner.weights = np.random.default_rng(1).normal(size=1 << 10)
    training = {"config": {"pruning": {"threshold": 0.01, "max_heads": 5}}}
    model = Model(vocab, order=2, bits=10, pruner=pruner, training=training)
    good = tmp_path / "good.npz"
    model.save(good)
    back = Model.load(good)
    assert back.pruner is not None and np.array_equal(back.pruner.weights, pruner.weights)
    assert back.trained_pruning() == (0.01, 5)
    assert Model(vocab, bits=10, training=training).trained_pruning() is None  # no pruner: nothing to prune by

    def rewritten(name: str, meta_change=None, arrays_change=None) -> Path:
        with np.load(good) as archive:
            arrays = {key: archive[key] for key in archive.files}
        meta = json.loads(str(arrays.pop("meta")))
        if meta_change:
            meta_change(meta)
        if arrays_change:
            arrays_change(arrays)
        path = tmp_path / f"{name}.npz"
        np.savez(path, meta=np.array(json.dumps(meta)), **arrays)
        return path

    second_order = {**meta_of(model), "order": 2}
    for path in (
        rewritten("garbage", lambda meta: meta.update(pruner="a pruner")),
        rewritten("second-order", lambda meta: meta.update(pruner=second_order)),
        rewritten("nan", arrays_change=lambda a: a["pruner/weight_value"].__setitem__(0, np.nan)),
    ):
        with pytest.raises(ModelFormatError):
            Model.load(path)


def meta_of(model: Model) -> dict:
    """A model's meta record as its file holds it, pruner left out."""
    return {key: value for key, value in model._archive()[0].items() if key != "pruner"}
