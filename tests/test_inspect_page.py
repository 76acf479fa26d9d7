"""The pages of ``lpparse inspect --html``, rendered in a real headless Chromium (Debian's package).

The browser is driven without any extra dependency: ``chromium --headless --dump-dom`` prints the DOM after
the page's scripts ran, ``--screenshot`` writes a PNG, and ``--enable-logging=stderr`` puts every console
message and uncaught exception on stderr (``...:CONSOLE...`` lines). The page writes back what the browser
laid out as attributes of ``<body>`` (``data-js-ok``, ``data-svg-width``, ``data-token-overlaps``...), so that
the dumped DOM says what the script did. ``.ci/run`` installs Chromium if it is absent; these tests skip
(saying so) only when no Chromium can be found.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest

from lpparse.inspect.page import as_record, default_relaxation, sentence_gap, sentence_page, write_pages

# ------------------------------------------------------------------------------------------ fixtures

RELAXATIONS = ("martins", "onegp", "all")


def _tree(n: int, rng: random.Random, single_root: bool = True) -> list[int]:
    """A random dependency tree (heads[0] = -1): each word takes a head among the words placed before it."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [-1] + [0] * n
    placed = [0]
    for k, m in enumerate(order):
        if single_root and k > 0:
            heads[m] = rng.choice(placed[1:])
        else:
            heads[m] = rng.choice(placed)
        placed.append(m)
    return heads


def fake_inspection(
    sent_id: str,
    tokens: list[str],
    seed: int,
    gap_scale: float = 1.0,
    n_frac: int = 2,
    disagree: bool = False,
    extra_keys: bool = False,
) -> dict:
    """A dict with the keys of one line of ``lpparse inspect --json`` (values made up, shapes right)."""
    rng = random.Random(seed)
    n = len(tokens)
    heads = _tree(n, rng)
    score = round(rng.uniform(5, 20), 4)
    rels = []
    for r, name in enumerate(RELAXATIONS):
        arcs: dict[tuple[int, int], float] = {(heads[m], m): 1.0 for m in range(1, n + 1)}
        frac_arcs = []
        mods = rng.sample(range(1, n + 1), min(n, n_frac * (len(RELAXATIONS) - r))) if r < 2 else []
        for m in mods:  # split a tree arc in two halves (thirds for the first relaxation)
            other = rng.choice([h for h in range(n + 1) if h not in (m, heads[m])])
            v = 2 / 3 if r == 0 else 0.5
            arcs[(heads[m], m)] = v
            arcs[(other, m)] = 1 - v
            frac_arcs += [[heads[m], m, v], [other, m, 1 - v]]
        if r == 2 and n > 3:  # an integral arc off the best tree
            m = rng.randrange(2, n + 1)
            del arcs[(heads[m], m)]
            arcs[(0, m)] = 1.0
        integral = not frac_arcs
        gap = 0.0 if integral else round(gap_scale * (len(RELAXATIONS) - r) * 0.37, 4)
        mip = {
            "solver": "highspy",
            "status": "optimal",
            "objective": score + (1.5 if disagree and r == 1 else 0.0),
            "heads": heads,
            "seconds": 0.02,
            "agrees": not (disagree and r == 1),
        }
        rels.append(
            {
                "name": name,
                "families": {"grandparent": ["ArcGP", "GPArc"] if r != 1 else ["OneGP", "NoGP"]},
                "base": "single-flow",
                "bound": score + gap,
                "integral": integral,
                "gap": gap,
                "seconds": 0.011 * (r + 1),
                "columns": 40 * n,
                "rows": 55 * n,
                "arcs": [[h, m, v] for (h, m), v in arcs.items()],
                "fractional_arcs": frac_arcs,
                "fractional_parts": {"grandparent": [[0, h, m, 0.5] for h, m, v in frac_arcs[:3]]},
                "binding": {
                    "OneHead": {
                        "count": n,
                        "rows": [{"label": ["OneHead", [m]], "dual": 0.25 * m} for m in range(1, 4)],
                    },
                    "ArcGP": {"count": 2, "rows": [{"label": ["ArcGP", [0, 1, 2]], "dual": 0.5}]},
                },
                "cut": None
                if integral
                else {
                    "source": "lpparse" if r == 0 else "mip-root",
                    "block": "OneGP",
                    "label": ["OneGP", [1, 2]],
                    "text": "zgp[0,1,2] + zgp[3,1,2] - z[1,2] <= 0",
                    "violation": 0.5,
                    "bound_after": score + gap / 2,
                },
                "mip": mip,
                "pyomo_mip": dict(mip, solver="appsi_highs"),
            }
        )
    rec = {
        "sent_id": sent_id,
        "tokens": tokens,
        "n": n,
        "single_root": True,
        "best_tree": {"heads": heads, "score": score, "certified": True, "nodes": 3, "seconds": 0.05},
        "relaxations": rels,
        "order_checks": [
            {"claim": "all <= martins", "holds": True, "left": rels[2]["bound"], "right": rels[0]["bound"]},
            {"claim": "all <= onegp", "holds": True, "left": rels[2]["bound"], "right": rels[1]["bound"]},
        ],
        "disagreements": ["onegp: HiGHS MIP objective 1.5 above the proved tree"] if disagree else [],
    }
    if extra_keys:
        rec["something_new"] = {"nested": [1, 2]}
        rec["relaxations"][0]["extra"] = "ignored"
    return rec


TRICKY = ["Il", "<b>gatto</b>", "&amp;", 'dice "ciao"', "città", "東京", "WWWWMMMM", "."]
WORDS = [
    "the",
    "a",
    "of",
    "to",
    "in",
    "and",
    "that",
    "it",
    "is",
    "was",
    "for",
    "on",
    "are",
    "as",
    "with",
    "his",
]


def sentences() -> list[dict]:
    rng = random.Random(7)
    long_tokens = [rng.choice(WORDS + ["extraordinarily", "I", "Mm", ","]) for _ in range(100)]
    return [
        fake_inspection("s-small", TRICKY[:6], seed=1, gap_scale=1.0, disagree=True),
        fake_inspection("dev/8 tokens?", TRICKY, seed=2, gap_scale=2.0, extra_keys=True),
        fake_inspection("s-tiny", ["Ciao", "!"], seed=3, gap_scale=0.5, n_frac=0),
        fake_inspection("s-long", long_tokens, seed=4, gap_scale=0.8, n_frac=6),
    ]


# ------------------------------------------------------------------------------------------- browser


def chromium() -> str | None:
    for cand in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        path = shutil.which(cand)
        if path:
            return path
    return None


CHROMIUM = chromium()
needs_browser = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (/usr/bin/chromium; `apt-get install chromium`, as .ci/run does)",
)


def render(
    path: Path,
    workdir: Path,
    fragment: str = "",
    screenshot: Path | None = None,
    size: tuple[int, int] = (1280, 900),
) -> tuple[str, list[str]]:
    """(the DOM after the page's scripts ran, the console lines) of ``path`` in headless Chromium."""
    profile = workdir / f"profile-{time.monotonic_ns()}"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-extensions",
        "--disable-default-apps",
        "--mute-audio",
        "--hide-scrollbars",
        "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing may come from the network
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        f"--window-size={size[0]},{size[1]}",
        "--dump-dom",
    ]
    if screenshot is not None:
        cmd.append(f"--screenshot={screenshot}")
    cmd.append(path.resolve().as_uri() + fragment)
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=90, env=dict(os.environ, LANG="C.UTF-8"), check=False
    )
    shutil.rmtree(profile, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [ln for ln in proc.stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]
    return proc.stdout, console


class Dom(HTMLParser):
    """The few things the tests read back from a dumped DOM."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.body: dict[str, str] = {}
        self.tokens: dict[int, str] = {}
        self.groups: dict[str, dict] = {}  # data-relaxation -> {"active": bool, "arcs": {(h, m): v}}
        self.tree: set[tuple[int, int]] = set()
        self.links: list[str] = []
        self.rows: list[dict[str, str]] = []
        self.hidden_sections: dict[str, bool] = {}
        self.checked: list[str] = []
        self.svg_width: float | None = None
        self._stack: list[tuple[str, dict[str, str]]] = []
        self._token: int | None = None
        self._word = False
        self._group: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        cls = a.get("class", "").split()
        self._stack.append((tag, a))
        if tag == "body":
            self.body = a
        elif tag == "svg" and "parse" in cls:
            self.svg_width = float(a["width"])
        elif tag == "g" and "token" in cls:
            self._token = int(a["data-index"])
            self.tokens[self._token] = ""
        elif tag == "text" and "word" in cls and self._token is not None:
            self._word = True
        elif tag == "g" and "lp-arcs" in cls:
            self._group = a["data-relaxation"]
            self.groups[self._group] = {"active": "active" in cls, "arcs": {}}
        elif tag == "path" and "arc" in cls and "lp" in cls:
            key = (int(a["data-head"]), int(a["data-mod"]))
            assert key not in self.groups[self._group]["arcs"], key
            self.groups[self._group]["arcs"][key] = float(a["data-value"])
        elif tag == "path" and "arc" in cls and "tree" in cls:
            self.tree.add((int(a["data-head"]), int(a["data-mod"])))
        elif tag == "a":
            self.links.append(a.get("href", ""))
        elif tag == "tr" and "sentence-row" in cls:
            self.rows.append(a)
        elif tag == "section" and "relax-detail" in cls:
            self.hidden_sections[a["data-relaxation"]] = "hidden" in a
        elif tag == "input" and a.get("name") == "rel" and "checked" in a:
            self.checked.append(a["value"])

    def handle_endtag(self, tag):
        while self._stack:
            t, a = self._stack.pop()
            if t == "g" and "token" in a.get("class", "").split():
                self._token = None
            if t == "g" and "lp-arcs" in a.get("class", "").split():
                self._group = None
            if t == "text":
                self._word = False
            if t == tag:
                break

    def handle_data(self, data):
        if self._word and self._token is not None:
            self.tokens[self._token] += data


def png_pixels(path: Path) -> np.ndarray:
    import matplotlib.image

    return matplotlib.image.imread(str(path))


def assert_clean(dom: Dom, console: list[str]) -> None:
    assert not console, "console output or uncaught errors:\n" + "\n".join(console)
    assert dom.body.get("data-js-ok") == "1", "the page's script did not run to the end"
    assert "data-js-error" not in dom.body, dom.body.get("data-js-error")


def assert_drawing_matches(dom: Dom, rec: dict, relaxation: str) -> None:
    """The SVG holds the sentence's tokens, exactly the relaxation's arcs (values included) and the tree."""
    assert dom.tokens == {0: "ROOT", **{i + 1: t for i, t in enumerate(rec["tokens"])}}
    active = [name for name, g in dom.groups.items() if g["active"]]
    assert active == [relaxation]
    assert set(dom.groups) == {r["name"] for r in rec["relaxations"]}
    for rel in rec["relaxations"]:
        want = {(h, m): v for h, m, v in rel["arcs"]}
        got = dom.groups[rel["name"]]["arcs"]
        assert set(got) == set(want), rel["name"]
        assert all(abs(got[k] - want[k]) < 1e-5 for k in want)
    heads = rec["best_tree"]["heads"]
    assert dom.tree == {(heads[m], m) for m in range(1, len(heads))}
    assert dom.hidden_sections == {r["name"]: r["name"] != relaxation for r in rec["relaxations"]}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Pages for the fixture sentences, rendered once: the DOMs, console lines and screenshots."""
    if CHROMIUM is None:
        pytest.skip("no Chromium found (/usr/bin/chromium; `apt-get install chromium`, as .ci/run does)")
    root = tmp_path_factory.mktemp("inspect-pages")
    out = root / "pages"
    recs = sentences()
    index = write_pages(recs, out)
    t0 = time.perf_counter()
    idx_dom, idx_console = render(index, root)
    index_dom = Dom(idx_dom)
    pages = {
        row["data-sent-id"]: out / unquote(urlsplit(href).path)
        for href, row in zip(index_dom.links, index_dom.rows)
    }
    rendered = {}
    for sid, shot in (("s-small", "small.png"), ("s-long", "long.png")):
        dom, console = render(pages[sid], root, screenshot=root / shot)
        rendered[sid] = (Dom(dom), console, root / shot)
    # another relaxation chosen by the page's fragment: the script switches the drawing and the details
    frag_dom, frag_console = render(pages["dev/8 tokens?"], root, fragment="#rel=onegp")
    return {
        "recs": {r["sent_id"]: r for r in recs},
        "out": out,
        "index": index,
        "index_dom": index_dom,
        "index_console": idx_console,
        "pages": pages,
        "rendered": rendered,
        "fragment": (Dom(frag_dom), frag_console),
        "seconds": time.perf_counter() - t0,
    }


# ----------------------------------------------------------------------------------- browser tests


@needs_browser
def test_sentence_page_renders_the_json_in_chromium(site: dict) -> None:
    rec = site["recs"]["s-small"]
    dom, console, _ = site["rendered"]["s-small"]
    assert_clean(dom, console)
    default = rec["relaxations"][default_relaxation(rec)]["name"]
    assert default == "martins"  # the largest gap is shown first
    assert_drawing_matches(dom, rec, default)
    assert dom.checked == [str(default_relaxation(rec))]
    assert dom.body["data-token-overlaps"] == "0"  # the estimated widths leave room for every word
    # the escaped words came back as text (the static test below checks the escaping and the red banner)
    assert "<b>gatto</b>" in dom.tokens.values()


@needs_browser
def test_fragment_switches_the_relaxation(site: dict) -> None:
    dom, console = site["fragment"]
    rec = site["recs"]["dev/8 tokens?"]
    assert_clean(dom, console)
    assert rec["relaxations"][default_relaxation(rec)]["name"] != "onegp"
    assert_drawing_matches(dom, rec, "onegp")
    assert dom.checked == ["1"] and dom.body["data-selected"] == "1"


@needs_browser
def test_index_lists_every_sentence_by_gap_with_working_links(site: dict) -> None:
    dom: Dom = site["index_dom"]
    assert_clean(dom, site["index_console"])
    recs = site["recs"]
    assert [r["data-sent-id"] for r in dom.rows] == sorted(recs, key=lambda s: -sentence_gap(recs[s]))
    gaps = [float(r["data-gap"]) for r in dom.rows]
    assert gaps == sorted(gaps, reverse=True) and len(set(gaps)) == len(gaps)
    assert len(dom.links) == len(recs)
    for href, row in zip(dom.links, dom.rows):
        parts = urlsplit(href)
        assert not parts.scheme and not parts.netloc and not href.startswith("/")  # relative
        page = site["out"] / unquote(parts.path)
        assert page.is_file() and page.parent == site["out"]
        assert Dom(page.read_text(encoding="utf-8")).body["data-sent-id"] == row["data-sent-id"]


@needs_browser
def test_screenshot_is_a_picture(site: dict) -> None:
    *_, shot = site["rendered"]["s-small"]
    assert shot.is_file() and shot.stat().st_size > 20_000
    px = png_pixels(shot)[..., :3]
    assert px.shape[0] >= 800 and px.shape[1] >= 1200
    rgb = (px * 255).round().astype(np.int32)
    colours = np.unique((rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2])
    assert len(colours) > 50 and px.std() > 0.03  # not blank
    # the palette's arc colours are in the picture: blue (arcs at 1), orange (fractional), green (tree)

    def near(c: tuple[int, int, int]) -> int:
        return int((np.abs(rgb - np.array(c)).sum(axis=-1) < 40).sum())

    assert near((0x2B, 0x6C, 0xB0)) > 50 and near((0xDD, 0x6B, 0x20)) > 50 and near((0x2F, 0x85, 0x5A)) > 50


@needs_browser
def test_a_100_token_sentence_is_usable(site: dict) -> None:
    rec = site["recs"]["s-long"]
    dom, console, shot = site["rendered"]["s-long"]
    assert_clean(dom, console)
    assert_drawing_matches(dom, rec, rec["relaxations"][default_relaxation(rec)]["name"])
    small = site["rendered"]["s-small"][0]
    width = int(dom.body["data-svg-width"])
    assert width > 4000 and width > 5 * int(small.body["data-svg-width"])  # the drawing grows with the words
    assert int(dom.body["data-scroll-width"]) >= width > 1280  # ... and the row scrolls in its window
    assert dom.body["data-token-overlaps"] == "0"
    assert shot.is_file() and shot.stat().st_size > 20_000
    assert site["seconds"] < 30


# ------------------------------------------------------------------------------------- static tests


def test_page_is_self_contained_and_escaped(tmp_path: Path) -> None:
    rec = sentences()[0]
    page = sentence_page(rec)
    low = page.lower()
    for needle in ("<link", "src=", "@import", "url(", "https://", "@font-face"):
        assert needle not in low, needle
    assert low.count("http://") == low.count('xmlns="http://www.w3.org/2000/svg"')  # a namespace, not a fetch
    assert "<b>gatto</b>" not in page and "&lt;b&gt;gatto&lt;/b&gt;" in page
    assert "dice &quot;ciao&quot;" in page and "&amp;amp;" in page
    assert 'class="banner"' in page and "DISAGREES" in page  # the MIP disagreement is loud


def test_accepts_objects_missing_optional_keys_and_extra_keys(tmp_path: Path) -> None:
    rec = fake_inspection("bare", ["a", "b", "c", "d"], seed=5, extra_keys=True)
    for rel in rec["relaxations"]:
        for key in ("pyomo_mip", "cut", "binding", "fractional_parts", "families", "columns"):
            rel.pop(key)
    for key in ("order_checks", "disagreements", "single_root"):
        rec.pop(key)

    class Inspected:
        def to_json(self) -> dict:
            return rec

    class AsText:
        def to_json(self) -> str:
            return json.dumps(dict(rec, sent_id="as text"))

    empty = {
        "sent_id": "no relaxations",
        "tokens": ["x"],
        "n": 1,
        "best_tree": {"heads": [-1, 0], "score": 1.0, "certified": True},
        "relaxations": [],
    }
    index = write_pages([Inspected(), AsText(), empty, dict(rec)], tmp_path)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["as_text.html", "bare-2.html", "bare.html", "index.html", "no_relaxations.html"]
    assert index == tmp_path / "index.html"
    assert as_record(AsText())["sent_id"] == "as text"
    assert "not run" in (tmp_path / "bare.html").read_text()


def test_pages_of_a_real_inspection(tmp_path: Path) -> None:
    """write_pages takes the API's Inspection objects; the drawing holds their arcs and best tree."""
    from lpparse.families.grandparent.family import GrandparentParts
    from lpparse.inspect.mip import MipOptions
    from lpparse.inspect.sentence import inspect_sentence
    from lpparse.scores import random_scores
    from lpparse.triples import synthetic_triple_scorer

    rng = np.random.default_rng(3)
    n = 5
    ins = inspect_sentence(
        random_scores(n, rng),
        [GrandparentParts(synthetic_triple_scorer(n, rng))],
        relaxations=["grandparent:martins", "grandparent:all"],
        mip=MipOptions(highs=False, pyomo_solver=None, root_cuts=False),
        sent_id="random <5>",
        tokens=["a", "b", "c", "d", "e"],
    )
    index = write_pages([ins], tmp_path)
    rec = json.loads(ins.to_json())
    page = tmp_path / "random_5.html"
    assert Dom(index.read_text()).links == ["random_5.html"]
    dom = Dom(page.read_text(encoding="utf-8"))
    assert_drawing_matches(dom, rec, rec["relaxations"][default_relaxation(rec)]["name"])
    assert dom.body["data-sent-id"] == "random <5>"
