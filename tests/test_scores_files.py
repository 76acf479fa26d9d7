"""Score files (bring your own scores): the format's round trip, scorers with exact bounds over loaded
arrays, bounded memory on a large file, ``lpparse scores export`` and ``--scores`` on the commands (same
objectives as ``--model`` for every decoder; mismatched files refused before any work)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from test_cli_errors import conll, fails, lpparse

from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.experiments.runner import read_results
from lpparse.io import DataError
from lpparse.scores import (
    SentenceScores,
    SparseParts,
    _members,
    load_scores,
    random_scores,
    save_scores,
)
from lpparse.trees import allowed_mask_shape
from lpparse.triples import sibling_mask, triple_mask

SAMPLE = sample_treebank_path()
DECODERS = ("cle", "eisner", "mbr", "gp-eisner", "ppc", "bf", "exact", "bp")


def _entries(rng: np.random.Generator, lengths: list[int], sparse: bool = False) -> list[SentenceScores]:
    """Random scores: arcs with one pruned arc, dense or sparse grandparent and sibling parts."""
    out = []
    for i, n in enumerate(lengths):
        size = n + 1
        arcs = random_scores(n, rng)
        arcs[0, n] = -np.inf
        gp = rng.normal(size=(size,) * 3)
        sib = rng.normal(size=(size,) * 3)
        if sparse:
            gp = SparseParts(np.array([[0, 1, 2], [2, 1, n]]), np.array([1.5, -2.0]), -0.25)
            sib = SparseParts(np.array([[0, 1, 2]]), np.array([3.0]), 0.0)
        out.append(SentenceScores(f"id-{i}", arcs, gp, sib))
    return out


@pytest.mark.parametrize("sparse", [False, True])
def test_round_trip(tmp_path: Path, sparse: bool) -> None:
    entries = _entries(np.random.default_rng(0), [3, 6, 3, 4], sparse)
    path = tmp_path / "s.npz"
    save_scores(path, entries, {"model": "numpy"})
    loaded = load_scores(path)
    assert (len(loaded), loaded.sent_ids, loaded.lengths) == (4, ["id-0", "id-1", "id-2", "id-3"], [3, 6, 3, 4])
    assert (loaded.order, loaded.siblings, loaded.meta["source"]) == (2, True, {"model": "numpy"})
    for got, want in zip(loaded, entries):
        assert isinstance(got.arcs, np.memmap) and got.sent_id == want.sent_id
        assert np.array_equal(got.arcs, want.arcs)
        size = want.n + 1
        for kind in ("gp", "sib"):
            mine, theirs = getattr(got, kind), getattr(want, kind)
            if sparse:
                assert isinstance(mine, SparseParts) and mine.default == theirs.default
                assert np.array_equal(mine.dense(size), theirs.dense(size))
            else:
                assert np.array_equal(mine, theirs)
        assert np.array_equal(got.triples().scores, want.triples().scores)
        assert np.array_equal(got.siblings().scores, want.siblings().scores)
    with np.load(path) as plain:  # a plain numpy archive
        assert np.array_equal(plain["arcs/1"], entries[1].arcs)


def test_arcs_only_file_and_its_scorers(tmp_path: Path) -> None:
    path = tmp_path / "arcs.npz"
    save_scores(path, [SentenceScores("a", random_scores(3, 1))])
    entry = load_scores(path)[0]
    assert load_scores(path).order == 1 and entry.triples() is None and entry.siblings() is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda e: SentenceScores("x", e.arcs, None, e.sib), "same kinds of parts"),
        (lambda e: SentenceScores("x", e.arcs, e.gp[:, :, :-1], e.sib), "shape"),
        (lambda e: SentenceScores("x", np.where(np.eye(e.n + 1, k=1) > 0, np.nan, e.arcs), e.gp, e.sib), "NaN"),
        (lambda e: SentenceScores("x", e.arcs, np.full_like(e.gp, np.inf), e.sib), r"\+inf"),
        (lambda e: SentenceScores("x", e.arcs, e.gp, np.full_like(e.sib, np.nan)), "NaN"),
        (lambda e: SentenceScores("x", e.arcs, e.gp, SparseParts(np.array([[0, 2, 1]]), np.ones(1))), "0 < m < m'"),
        (lambda e: SentenceScores("x", e.arcs, e.gp, SparseParts(np.zeros((2, 3), int) + [0, 1, 2], np.ones(2))), "twice"),
    ],
)
def test_save_refuses_malformed_sentences(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    first, second = _entries(np.random.default_rng(1), [3, 4])
    with pytest.raises(ValueError, match=message) as err:
        save_scores(tmp_path / "bad.npz", [first, change(second)])
    assert str(err.value).startswith("sentence 2 (x)")
    assert not (tmp_path / "bad.npz").exists()


@pytest.mark.parametrize("sparse", [False, True])
def test_pruned_parts_round_trip(tmp_path: Path, sparse: bool) -> None:
    """-inf prunes single triples and sibling parts whose arcs are both candidates (dense, sparse values or a
    sparse default); NaN where no part can be is ignored, as on the arcs' diagonal."""
    (entry,) = _entries(np.random.default_rng(2), [4])
    gp, sib = entry.gp.copy(), entry.sib.copy()
    gp[1, 0, 4] = np.nan  # p = 0: no triple
    gp[[0, 2, 3], [1, 1, 2], [2, 3, 1]] = -np.inf
    sib[[1, 2], [2, 1], [3, 4]] = -np.inf
    if sparse:
        gp = SparseParts(np.array([[0, 1, 2], [2, 1, 3], [3, 2, 1]]), np.array([-np.inf, 1.0, -np.inf]), 0.5)
        sib = SparseParts(np.array([[1, 2, 3]]), np.array([2.0]), -np.inf)
    save_scores(tmp_path / "p.npz", [SentenceScores("p", entry.arcs, gp, sib)])
    loaded = load_scores(tmp_path / "p.npz")[0]
    triples, siblings = loaded.triples(), loaded.siblings()
    kept = 1.0 if sparse else gp[2, 1, 3]
    assert np.array_equal(triples.score([0, 2, 3], [1, 1, 2], [2, 3, 1]), [-np.inf, kept, -np.inf])
    assert siblings.score([2], [1], [4])[0] == -np.inf
    assert np.isfinite(siblings.score([1], [2], [3])[0]) == sparse
    g, p, c = np.nonzero(triple_mask(allowed_mask_shape(5)))
    scores = triples.score(g, p, c)  # the factorized bounds stay valid over pruned parts
    assert (scores <= triples.bound_gp()[g, p]).all() and (scores <= triples.bound_pc()[p, c]).all()


@pytest.mark.parametrize("seed", range(4))
def test_bounds_from_arrays_are_exact_and_valid(tmp_path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 6
    size = n + 1
    gp, sib = rng.normal(size=(2, size, size, size))
    cut = rng.random((size,) * 3) < 0.2  # some non-candidate entries pruned: bounds stay exact over the rest
    gp[cut & ~triple_mask(allowed_mask_shape(size))] = -np.inf
    save_scores(tmp_path / "b.npz", [SentenceScores("b", random_scores(n, rng), gp, sib)])
    entry = load_scores(tmp_path / "b.npz")[0]
    triples, siblings = entry.triples(), entry.siblings()
    valid = triple_mask(allowed_mask_shape(size))
    masked = np.where(valid, gp, -np.inf)
    assert np.array_equal(triples.bound_gp(), masked.max(axis=2))
    assert np.array_equal(triples.bound_pc(), masked.max(axis=0))
    g, p, c = np.nonzero(valid)
    scores = triples.score(g, p, c)
    assert triples.scored == g.size
    assert (scores <= triples.bound_gp()[g, p]).all() and (scores <= triples.bound_pc()[p, c]).all()
    h, m, m2 = np.nonzero(sibling_mask(allowed_mask_shape(size)))
    values = siblings.score(h, m, m2)
    bound = siblings.bound_hm()
    assert (values <= bound[h, m]).all() and (values <= bound[h, m2]).all()
    best = np.full((size, size), -np.inf)
    np.maximum.at(best, (h, m), values)
    np.maximum.at(best, (h, m2), values)
    assert np.array_equal(bound, best)
    assert siblings.scored == h.size


MEMORY_PROBE = """
import resource, sys, tracemalloc
from lpparse.scores import load_scores
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
scores = load_scores(sys.argv[1])  # validates every sentence: reads every cube once
total = 0.0
for entry in scores:
    triples = entry.triples()
    total += float(triples.bound_gp().max()) + float(entry.arc_scores().max())
peak = tracemalloc.get_traced_memory()[1]
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, before, after, len(scores))
"""


def test_large_file_loads_one_cube_at_a_time(tmp_path: Path) -> None:
    """100 sentences of 60 tokens with dense grandparent scores (100 x 61^3 x 8 bytes = 182 MB): loading,
    validating and scoring every sentence never holds more than a few cubes."""
    n, count = 60, 100
    cube_bytes = (n + 1) ** 3 * 8
    rng = np.random.default_rng(0)
    path = tmp_path / "large.npz"
    save_scores(path, (SentenceScores(f"s{i}", random_scores(n, rng), rng.normal(size=(n + 1,) * 3)) for i in range(count)))
    assert path.stat().st_size > count * cube_bytes
    done = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(path)], capture_output=True, text=True, check=True)
    peak, before, after, sentences = map(int, done.stdout.split())
    print(f"\nscore file {path.stat().st_size / 1e6:.0f} MB: tracemalloc peak {peak / 1e6:.1f} MB, "
          f"max RSS {before / 1e3:.0f} MB before loading, {after / 1e3:.0f} MB after")
    assert sentences == count
    assert peak < 8 * cube_bytes  # every cube at once would be 100 cubes
    assert (after - before) * 1024 < 20 * cube_bytes  # memory maps are dropped with their sentence


PEAK_RSS = """
import resource, subprocess, sys
subprocess.run([sys.executable, "-m", "lpparse", *sys.argv[1:]], check=True, capture_output=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)  # KiB: the largest process of the command
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss of children in KiB")
def test_parse_on_two_workers_holds_few_cubes(tmp_path: Path) -> None:
    """``parse --workers 2 --scores`` over 60 sentences of 50 tokens with dense grandparent cubes (64 MB):
    no process of the command grows by more than a few cubes over a run of 2 sentences."""
    n, count = 50, 60
    cube_bytes = (n + 1) ** 3 * 8
    rng = np.random.default_rng(1)
    treebank = conll(tmp_path / "long.conllu", [n] * count)
    path = tmp_path / "large.npz"
    save_scores(path, (SentenceScores(f"s{i}", random_scores(n, rng), rng.normal(size=(n + 1,) * 3)) for i in range(count)))
    argv = ["parse", "--scores", str(path), "--treebank", str(treebank), "--decoder", "gp-eisner", "--workers", "2"]
    peaks = []
    for limit in ("2", str(count)):
        done = subprocess.run([sys.executable, "-c", PEAK_RSS, *argv, "--limit", limit], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        peaks.append(int(done.stdout) * 1024)
    print(f"\npeak RSS: {peaks[0] / 1e6:.0f} MB over 2 sentences, {peaks[1] / 1e6:.0f} MB over {count}")
    assert peaks[1] - peaks[0] < 20 * cube_bytes  # all of them would be 60


# ----------------------------------------------------------------------------- the commands


@pytest.fixture(scope="module")
def model_and_scores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny grandparent model with sibling parts trained on the sample, and its exported score file."""
    folder = tmp_path_factory.mktemp("byos")
    model, scores = folder / "model.npz", folder / "scores.npz"
    train = ["train", "--treebank", SAMPLE, "--order", "2", "--siblings", "--epochs", "1", "--bits", "14"]
    assert lpparse(*train, "--max-length", "12", "--no-progress", "--out", model).returncode == 0
    done = lpparse("scores", "export", "--model", model, "--treebank", SAMPLE, "--out", scores, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "50 sentences" in done.stdout and "grandparent, sibling" in done.stdout
    return model, scores


def _summary(done: subprocess.CompletedProcess[str]) -> str:
    """The summary line without its time: sentences, decoder, UAS and mean objective."""
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if "mean objective" in line)
    counts, _, results = line.partition(" s; ")
    return counts.rsplit(", ", 1)[0] + results


@pytest.mark.parametrize("decoder", DECODERS)
def test_scores_give_the_model_objectives(model_and_scores: tuple[Path, Path], decoder: str, tmp_path: Path) -> None:
    model, scores = model_and_scores
    common = ["--treebank", SAMPLE, "--decoder", decoder, "--max-length", "9", "--no-progress"]
    by_model = lpparse("parse", "--model", model, *common, "--out", tmp_path / "model.conllu")
    by_scores = lpparse("parse", "--scores", scores, "--single-root", *common, "--out", tmp_path / "scores.conllu")
    assert _summary(by_scores) == _summary(by_model)
    assert (tmp_path / "model.conllu").read_text() == (tmp_path / "scores.conllu").read_text()


def test_experiment_through_scores_matches_the_model(model_and_scores: tuple[Path, Path], tmp_path: Path) -> None:
    model, scores = model_and_scores
    common = ["ppc", "--treebank", SAMPLE, "--max-length", "9", "--limit", "6", "--no-progress"]
    assert lpparse("experiment", *common, "--model", model, "--out", tmp_path / "m.jsonl").returncode == 0
    done = lpparse("experiment", *common, "--scores", scores, "--out", tmp_path / "s.jsonl")
    assert done.returncode == 0, done.stderr
    assert f"score file {scores.name}" in done.stdout and str(scores.parent) not in done.stdout
    by_model, by_scores = read_results(tmp_path / "m.jsonl"), read_results(tmp_path / "s.jsonl")
    assert [r["sent_id"] for r in by_model] == [r["sent_id"] for r in by_scores]
    for a, b in zip(by_model, by_scores):
        for method in ("bf", "ppc", "exact"):
            assert b[method]["objective"] == pytest.approx(a[method]["objective"], abs=1e-7)
        counted = [{f: c["scored"] for f, c in r["bf"]["parts"].items()} for r in (a, b)]
        assert counted[0] == counted[1] and len(counted[0]) == 2  # grandparents and siblings, counted alike
    header = json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])["header"]["settings"]
    assert len(header["scores_sha256"]) == 64 and header["model_sha256"] is None
    other = tmp_path / "other.npz"
    save_scores(other, (SentenceScores(e.sent_id, e.arcs, np.asarray(e.gp) + 1.0) for e in load_scores(scores)))
    fails(lpparse("experiment", *common, "--scores", other, "--out", tmp_path / "s.jsonl"), 2, "other settings", "scores_sha256")
    dd = lpparse("dd", "--scores", scores, "--treebank", SAMPLE, "--max-length", "9", "--limit", "4", "--no-progress", "--out", tmp_path / "dd.jsonl")
    assert dd.returncode == 0 and "certified" in dd.stdout, dd.stderr


def test_solve_reads_arc_scores(tmp_path: Path) -> None:
    sentences = read_treebank(SAMPLE)
    path = tmp_path / "arcs.npz"
    save_scores(path, (SentenceScores(s.sent_id, random_scores(s.n, i)) for i, s in enumerate(sentences)))
    done = lpparse("solve", "--scores", path, "--limit", "5", "--quiet")
    assert done.returncode == 0 and "certified 5/5" in done.stdout and "score file" in done.stdout, done.stderr
    fails(lpparse("experiment", "ppc", "--scores", path, "--out", tmp_path / "r.jsonl"), 1, "needs second-order scores")
    fails(lpparse("parse", "--scores", path, "--treebank", SAMPLE, "--decoder", "ppc"), 2, "needs grandparent scores")


def test_commands_decode_files_with_pruned_parts(tmp_path: Path) -> None:
    """A score file with a tenth of the triples and sibling parts at -inf: every second-order decoder parses
    with it, ``solve`` reads its arcs, and the experiment's BF, PPC and exact agree on it. A sentence whose
    every tree holds a pruned part is not parsed, with a warning."""
    sentences = read_treebank(SAMPLE)
    rng = np.random.default_rng(5)
    path = tmp_path / "pruned.npz"
    entries = []
    for s in sentences:
        gp, sib = rng.normal(size=(2,) + (s.n + 1,) * 3)
        gp[rng.random(gp.shape) < 0.1] = -np.inf
        sib[rng.random(sib.shape) < 0.1] = -np.inf
        entries.append(SentenceScores(s.sent_id, random_scores(s.n, rng), gp, sib))
    save_scores(path, entries)
    common = ["--treebank", SAMPLE, "--max-length", "8", "--limit", "5", "--no-progress"]
    for decoder in ("ppc", "bf", "exact", "gp-eisner", "bp"):
        done = lpparse("parse", "--scores", path, "--decoder", decoder, *common)
        assert done.returncode == 0 and "mean objective" in done.stdout, (decoder, done.stderr)
    done = lpparse("solve", "--scores", path, "--limit", "3", "--quiet")
    assert done.returncode == 0 and "certified 3/3" in done.stdout, done.stderr
    done = lpparse("experiment", "ppc", "--scores", path, *common, "--out", tmp_path / "r.jsonl")
    assert done.returncode == 0, done.stderr
    for record in read_results(tmp_path / "r.jsonl"):
        assert record["ppc"]["objective"] == pytest.approx(record["bf"]["objective"], abs=1e-6)
        assert record["exact"]["objective"] <= record["bf"]["objective"] + 1e-6
    first = next(i for i, s in enumerate(sentences) if 2 <= s.n <= 8)  # every single-root tree has a triple
    cube = np.full((sentences[first].n + 1,) * 3, -np.inf)
    entries[first] = SentenceScores(entries[first].sent_id, entries[first].arcs, cube)
    save_scores(path, (SentenceScores(e.sent_id, e.arcs, e.gp) for e in entries))
    for decoder in ("exact", "ppc", "bf"):
        done = lpparse("parse", "--scores", path, "--decoder", decoder, "--single-root", *common)
        assert done.returncode == 1 and "4 sentences (1 not parsed)" in done.stdout, (decoder, done.stdout)
        assert f"sentence {sentences[first].sent_id}" in done.stderr and "pruned part" in done.stderr


def _mismatched(tmp_path: Path, kind: str) -> Path:
    """A score file for the sample with one defect in sentence 3 (or one sentence too few)."""
    sentences = read_treebank(SAMPLE)
    rng = np.random.default_rng(0)
    arrays: dict[str, np.ndarray] = {}
    entries = []
    for i, s in enumerate(sentences[: -1 if kind == "count" else None]):
        n = s.n + (kind == "length" and i == 2)
        arrays[f"arcs/{i}"] = random_scores(n, rng)
        arrays[f"gp/{i}"] = rng.normal(size=(n + 1, n + 1, n + (kind != "shape" or i != 2)))
        entries.append({"sent_id": "wrong" if kind == "id" and i == 2 else s.sent_id, "gp": "dense"})
    if kind == "nan":
        arrays["arcs/2"][0, 1] = np.nan
    meta = {"format": "lpparse-scores", "version": 1, "grandparent": True, "siblings": False, "sentences": entries}
    path = tmp_path / f"{kind}.npz"
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)  # plain numpy, bypassing save_scores' checks
    return path


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("count", ("holds 49 sentences", "has 50")),
        ("id", ("sentence 3 (wrong)", "line")),
        ("length", ("sentence 3", "tokens")),
        ("shape", ("sentence 3", "shape")),
        ("nan", ("sentence 3", "NaN")),
    ],
)
def test_mismatched_files_are_refused_before_any_work(tmp_path: Path, kind: str, words: tuple[str, ...]) -> None:
    path = _mismatched(tmp_path, kind)
    out = tmp_path / "out"
    fails(lpparse("parse", "--scores", path, "--treebank", SAMPLE, "--out", out / "p.conllu"), 1, str(path), *words)
    if kind == "nan":  # the other commands share the check
        fails(lpparse("experiment", "bounds", "--scores", path, "--out", out / "b.jsonl"), 1, *words)
        fails(lpparse("dd", "--scores", path, "--out", out / "d.jsonl"), 1, *words)
        fails(lpparse("solve", "--scores", path), 1, *words)
    assert not any(out.rglob("*.*"))


def test_scores_on_the_command_line(model_and_scores: tuple[Path, Path], tmp_path: Path) -> None:
    model, scores = model_and_scores
    fails(lpparse("parse", "--model", model, "--scores", scores, "--treebank", SAMPLE), 2, "not allowed with")
    fails(lpparse("experiment", "ppc", "--synthetic", "--scores", scores), 2, "not allowed with")
    fails(lpparse("parse", "--scores", tmp_path / "none.npz", "--treebank", SAMPLE), 2, "not found")
    fails(lpparse("parse", "--model", model, "--single-root", "--treebank", SAMPLE), 2, "--scores only")
    fails(lpparse("parse", "--scores", scores, "--bounds", "offline", "--decoder", "ppc", "--treebank", SAMPLE), 2, "exact")
    squeezed = tmp_path / "compressed.npz"
    with zipfile.ZipFile(scores) as source, zipfile.ZipFile(squeezed, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            target.writestr(name, source.read(name))
    fails(lpparse("parse", "--scores", squeezed, "--treebank", SAMPLE), 1, "compressed", "memory-mapped")
    (tmp_path / "junk.npz").write_text("not a zip")
    fails(lpparse("parse", "--scores", tmp_path / "junk.npz", "--treebank", SAMPLE), 1, "not an lpparse score file")


def test_a_flipped_bit_is_refused(tmp_path: Path) -> None:
    """A score file with one changed byte inside a score is still a valid zip of valid numbers; its CRC-32 is
    not: load_scores refuses it, naming the member, and the CLI exits 1 with one line."""
    sentences = read_treebank(SAMPLE)
    path = tmp_path / "scores.npz"
    save_scores(path, (SentenceScores(s.sent_id, random_scores(s.n, i)) for i, s in enumerate(sentences)))
    member = _members(path)["arcs/1"]
    raw = bytearray(path.read_bytes())
    raw[member.offset + 8 * (sentences[1].n + 3) + 6] ^= 0x10  # a bit of the exponent of S[1, 2]
    path.write_bytes(bytes(raw))
    with pytest.raises(DataError, match="arcs/1.npy does not match its CRC-32"):
        load_scores(path)
    assert load_scores(path, validate=False).lengths[:2] == [s.n for s in sentences[:2]]  # the index still reads
    fails(lpparse("solve", "--scores", path), 1, "CRC-32")


def test_a_model_given_as_scores_is_named(model_and_scores: tuple[Path, Path]) -> None:
    model, _ = model_and_scores
    fails(lpparse("parse", "--scores", model, "--treebank", SAMPLE), 1, "is an lpparse model file", "--model")


def test_text_without_gold_trees_is_exported_and_parsed_and_copies_keep_their_ids(
    tmp_path: Path, model_and_scores: tuple[Path, Path]
) -> None:
    """HEAD '_' throughout (text to parse): scores export and parse read it and write trees, UAS is reported
    only where gold trees exist; training refuses it naming the line. A CoNLL-X file (no sent_id comments)
    copied under another name still matches the score file exported from the original."""
    model, _ = model_and_scores
    sentences = read_treebank(SAMPLE)[:3]
    text = SAMPLE.read_text().split("\n\n")
    blind = []
    for block in text[:3]:
        rows = [line.split("\t") if line and not line.startswith("#") else line for line in block.split("\n")]
        blind.append("\n".join("\t".join([*r[:6], "_", "_", *r[8:]]) if isinstance(r, list) else r for r in rows))
    raw = tmp_path / "raw.conllu"
    raw.write_text("\n\n".join(blind) + "\n\n")
    scores = tmp_path / "raw.npz"
    done = lpparse("scores", "export", "--model", model, "--treebank", raw, "--out", scores, "--no-progress")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "parsed.conllu"
    done = lpparse("parse", "--scores", scores, "--treebank", raw, "--decoder", "auto", "--out", out, "--no-progress")
    assert done.returncode == 0 and "no gold trees to score" in done.stdout, done.stderr
    assert [s.n for s in read_treebank(out)] == [s.n for s in sentences]
    assert all(s.annotated for s in read_treebank(out))
    done = lpparse("train", "--treebank", raw, "--out", tmp_path / "m.npz", "--epochs", "1")
    assert done.returncode == 1 and "raw.conllu:3: head '_' of token 1: no gold tree" in done.stderr
    assert "Traceback" not in done.stderr
    conllx = tmp_path / "a.conll"
    conllx.write_text("\n\n".join("\n".join("\t".join(line.split("\t")[:10]) for line in block.split("\n")
                                            if line and not line.startswith("#")) for block in text[:3]) + "\n\n")
    exported = tmp_path / "a.npz"
    assert lpparse("scores", "export", "--model", model, "--treebank", conllx, "--out", exported).returncode == 0
    copy = tmp_path / "b.conll"
    copy.write_bytes(conllx.read_bytes())
    done = lpparse("parse", "--scores", exported, "--treebank", copy, "--decoder", "cle", "--no-progress")
    assert done.returncode == 0, done.stderr


def test_dd_and_experiments_say_they_leave_sibling_parts_out(tmp_path: Path, model_and_scores: tuple[Path, Path]) -> None:
    model, scores = model_and_scores
    for source in (["--model", model], ["--scores", scores]):
        done = lpparse("dd", *source, "--limit", "2", "--max-length", "8", "--out", tmp_path / "d.jsonl", "--no-progress")
        assert done.returncode == 0 and "the sibling parts of" in done.stderr and "left out" in done.stderr
        (tmp_path / "d.jsonl").unlink()


# the member handle the test leaves open fails to flush into the closed file when it is collected
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_inside_a_member_write_propagates_and_leaves_no_file(tmp_path: Path, monkeypatch) -> None:
    """An interrupt (SIGTERM raises in the main thread) while ``save_scores`` opens a member: the interrupt
    propagates as raised, not ZipFile's "open writing handle" ValueError, and nothing is left behind."""
    from lpparse import scores as scores_module

    left_open = []

    def interrupted(archive, name, array):
        left_open.append(archive.open(f"{name}.npy", "w"))  # as an interrupt inside ZipFile.open leaves it
        raise KeyboardInterrupt

    monkeypatch.setattr(scores_module, "_write", interrupted)
    out = tmp_path / "s.npz"
    out.write_bytes(b"an older archive")
    entry = SentenceScores("s1", np.zeros((3, 3)))
    with pytest.raises(KeyboardInterrupt):
        save_scores(out, [entry])
    assert out.read_bytes() == b"an older archive"
    assert [p.name for p in tmp_path.iterdir()] == ["s.npz"]
