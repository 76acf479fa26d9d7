"""The registry of part families (entry points ``lpparse.families``), the feature templates of a family
registered elsewhere, and what model and score files make of them: every bad registration, template, model
record or score array is refused, naming what is wrong."""

from __future__ import annotations

import argparse
import io
import json
import zipfile
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import numpy as np
import pytest

import lpparse.families as registry
from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.families import GROUP, Family, RegistryError, family_parts, get_family, registered
from lpparse.families.base import Parts
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer
from lpparse.options import family_names
from lpparse.scores import SentenceScores, load_scores, save_scores
from lpparse.scoring import Model, Vocabulary
from lpparse.scoring.features import DISTANCE_EDGES, hash_columns
from lpparse.scoring.model import ModelFormatError
from lpparse.scoring.part_templates import HashedPartScorer, PartTemplates

BUILT_IN = ["grandparent", "sibling", "consecutive", "trisibling", "grandsibling"]


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    registered.cache_clear()
    yield
    registered.cache_clear()


def test_lpparse_registers_its_own_families_like_any_other() -> None:
    families = registered()
    assert list(families)[: len(BUILT_IN)] == BUILT_IN
    assert len({f.member for f in families.values()}) == len(families)
    n = 3
    for name in BUILT_IN:
        family = families[name]
        parts = family.make(family.dense(np.zeros((n + 1,) * family.arity)), None)
        assert isinstance(parts, Parts) and parts.name == name and parts.arity == family.arity


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (EntryPoint("x", "no_such_module_here:FAMILY", GROUP), "part family 'x' of an unknown distribution"),
        (EntryPoint("x", "lpparse.families:GROUP", GROUP), "must name a lpparse.families.Family called 'x'"),
        (EntryPoint("other", "lpparse.families.grandparent:FAMILY", GROUP), "called 'other'"),
    ],
)
def test_a_broken_registration_is_refused(
    entry: EntryPoint, words: str, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    monkeypatch.setattr(registry, "entry_points", lambda group: [entry])
    with pytest.raises(RegistryError, match=words):
        registered()


def test_two_families_under_one_name_or_none_at_all_are_refused(
    monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    twice = [EntryPoint("grandparent", "lpparse.families.grandparent:FAMILY", GROUP)] * 2
    monkeypatch.setattr(registry, "entry_points", lambda group: twice)
    with pytest.raises(RegistryError, match="two distributions register a part family called 'grandparent'"):
        registered()
    registered.cache_clear()
    monkeypatch.setattr(registry, "entry_points", lambda group: [])
    with pytest.raises(RegistryError, match="no part family is registered"):
        registered()


def test_family_parts_binds_in_order_with_what_a_family_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 4
    tsib = DenseTriSiblingScorer(np.zeros((n + 1,) * 4))
    assert [p.name for p in family_parts({"trisibling": tsib}, n)] == ["consecutive", "trisibling"]
    assert [p.name for p in family_parts({"trisibling": tsib}, n, present=["consecutive"])] == ["trisibling"]
    with pytest.raises(ValueError, match="unknown part family 'bigrams'; registered: grandparent, sibling"):
        get_family("bigrams")
    lonely = Family("lonely", 3, "lonely", lambda s, r: None, np.asarray, needs=("grandparent",))
    monkeypatch.setattr(registry, "registered", lambda: {**registered(), "lonely": lonely})
    with pytest.raises(ValueError, match="'grandparent' is needed but has no scores and no neutral scorer"):
        family_parts({"lonely": object()}, n)


TEMPLATES = PartTemplates("pairs", 3, (("0.pos", "1.pos"), ("0.pos", "2.pos", "dir02", "dist02")))


@pytest.mark.parametrize(
    ("templates", "words"),
    [
        ((), "has no feature templates"),
        ((("3.pos",),), "is not one of"),
        ((("0.color",),), "attributes are"),
        ((("dir0",),), "is not one of"),
        ((("dist05",),), "is not one of"),
    ],
)
def test_bad_templates_are_refused(templates: tuple[tuple[str, ...], ...], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        PartTemplates("pairs", 3, templates)


def test_templates_hash_by_family_and_read_back() -> None:
    sentence = read_treebank(sample_treebank_path())[0]
    model = Model(Vocabulary.build([sentence]), order=2, bits=16, families=(TEMPLATES,))
    ids = model.scorer(sentence).ids
    parts = (np.array([0, 1]), np.array([2, 0]), np.array([1, 2]))
    slots = TEMPLATES.slots(ids, 16, *parts)
    assert slots.shape == (2, 2) and ((slots >= 0) & (slots < 1 << 16)).all()
    np.testing.assert_array_equal(slots, TEMPLATES.slots(ids, 16, *parts))
    other = PartTemplates("other", 3, TEMPLATES.templates)
    assert not np.array_equal(slots, other.slots(ids, 16, *parts))
    assert PartTemplates.from_json(json.loads(json.dumps(TEMPLATES.to_json()))) == TEMPLATES
    for bad in (None, {"name": "x"}, {"name": "x", "arity": 3, "templates": [["9.pos"]]}):
        with pytest.raises((TypeError, ValueError)):
            PartTemplates.from_json(bad)
    scorer = HashedPartScorer(TEMPLATES, np.full(1 << 16, np.nan), ids, 16)
    with pytest.raises(ValueError, match="NaN"):
        scorer.score(*parts)
    with pytest.raises(ValueError, match="indices must lie in"):
        scorer.score(np.array([0]), np.array([99]), np.array([1]))


def test_a_model_keeps_its_families_and_refuses_a_damaged_record(tmp_path: Path) -> None:
    sentences = read_treebank(sample_treebank_path())[:5]
    model = Model(Vocabulary.build(sentences), order=2, bits=16, families=(TEMPLATES,))
    model.weights[:] = np.random.default_rng(0).normal(size=model.weights.size)
    path = tmp_path / "m.npz"
    model.save(path)
    back = Model.load(path)
    assert back.families == (TEMPLATES,) and "pos" in back.attributes()
    parts = (np.array([0]), np.array([2]), np.array([1]))
    assert back.scorer(sentences[0]).family_scorers()["pairs"].score(*parts) == pytest.approx(
        model.scorer(sentences[0]).family_scorers()["pairs"].score(*parts)
    )
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(str(np.load(archive.open("meta.npy"))))
    assert meta["version"] == 6
    meta["families"] = [{"name": "pairs", "arity": 3, "templates": [["7.pos"]]}]
    damaged = tmp_path / "damaged.npz"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(damaged, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "meta.npy":
                buffer = io.BytesIO()
                np.save(buffer, np.array(json.dumps(meta)))
                data = buffer.getvalue()
            dst.writestr(info, data)
    with pytest.raises(ModelFormatError, match="damaged model file"):
        Model.load(damaged)
    with pytest.raises(ValueError, match="grandparent \\(order 2\\) model"):
        Model(Vocabulary.build(sentences), order=1, families=(TEMPLATES,))


def test_score_files_refuse_misplaced_family_scores(tmp_path: Path) -> None:
    """A built-in family's scores belong in its own field, an unregistered family's nowhere; a file without
    other families stays at the version older readers take (the plugin's own: tests/test_plugin_family.py)."""
    n = 3
    arcs = np.zeros((n + 1, n + 1))
    for more, words in (
        ({"trisibling": np.zeros((n + 1,) * 4)}, "field of their own"),
        ({"nope": np.zeros((n + 1,) * 3)}, "unknown part family 'nope'"),
    ):
        with pytest.raises(ValueError, match=words):
            save_scores(tmp_path / "b.npz", [SentenceScores("s1", arcs, more=more)])
    plain = tmp_path / "plain.npz"
    save_scores(plain, [SentenceScores("s1", arcs, gp=np.zeros((n + 1,) * 3))])
    assert load_scores(plain).meta["version"] == 2 and load_scores(plain).families == {}


def test_the_families_option_names_registered_families_with_templates() -> None:
    """``lpparse train --families``: a name that is not registered, or a family without feature templates
    (lpparse's own are trained by their own options), is an argparse error naming it."""
    assert family_names("") == ()
    with pytest.raises(argparse.ArgumentTypeError, match="unknown part family 'nope'; registered: grandparent"):
        family_names("nope")
    with pytest.raises(argparse.ArgumentTypeError, match="'grandparent' has no feature templates to train"):
        family_names("grandparent")


def test_template_slots_are_each_templates_hash_of_its_fields() -> None:
    """Against a direct computation, template by template: the fields looked up one by one
    (``TokenIds.at``, sign and distance bins written out here) and hashed with ``hash_columns``."""
    sentence = read_treebank(sample_treebank_path())[5]
    model = Model(Vocabulary.build([sentence]), order=2, bits=18, families=(TEMPLATES,))
    ids = model.scorer(sentence).ids
    rng = np.random.default_rng(1)
    parts = [rng.integers(0, sentence.n + 1, 300) for _ in range(3)]
    direct = {
        ("0.pos", "1.pos"): [ids.at("pos", parts[0]), ids.at("pos", parts[1])],
        ("0.pos", "2.pos", "dir02", "dist02"): [
            ids.at("pos", parts[0]),
            ids.at("pos", parts[2]),
            np.sign(parts[0] - parts[2]) + 1,
            np.array([int(np.sum(DISTANCE_EDGES <= abs(d))) for d in parts[0] - parts[2]]),
        ],
    }
    slots = TEMPLATES.slots(ids, 18, *parts)
    for t, template in enumerate(TEMPLATES.templates):
        np.testing.assert_array_equal(slots[t], hash_columns(TEMPLATES.seed + t, direct[template], 18))
