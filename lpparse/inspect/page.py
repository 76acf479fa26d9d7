"""Self-contained HTML pages over inspected sentences: one page per sentence and an index sorted by gap.

:func:`write_pages` takes what ``lpparse inspect`` computes (an :class:`~lpparse.inspect.Inspection`, or the
dict of one line of ``--json FILE``) and writes, for each sentence, a page that a person can read at a
glance:

* the tokens in a row, the selected relaxation's arcs drawn **above** them (stroke width and opacity grow
  with the arc's value; fractional arcs are orange and labelled with their value) and the best tree drawn
  **below** them (dashed where the selected LP gives the tree arc less than 1);
* buttons to switch between relaxations (the one with the largest gap is shown first; ``page.html#rel=NAME``
  opens another), a table of the relaxations side by side (bound, gap, integral, time, columns, rows, the
  generic MIP solvers' verdicts), and for the selected relaxation its fractional parts, its binding rows per
  family (collapsible), the cut that removes its fractional point and the MIP runs;
* the bound-order checks, and every disagreement in a red banner at the top.

Everything is inline (SVG, CSS, a few lines of plain JavaScript); nothing is fetched from the network, no
web font is used. The SVG elements carry data attributes so that a test (or a script) can read the drawing
back: ``<g class="token" data-index="i">``, ``<path class="arc lp" data-head data-mod data-value>`` inside
``<g class="lp-arcs" data-relaxation="NAME">`` (the shown one has class ``active``), and
``<path class="arc tree" data-head data-mod>``.
"""

from __future__ import annotations

import html
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

__all__ = ["as_record", "index_page", "page_filename", "sentence_page", "write_pages"]

EPS = 1e-6  # an arc value within EPS of 0 or 1 is integral on the page
FONT_PX = 14  # token font size in the SVG
ROOT_WORD = "ROOT"


# --------------------------------------------------------------------------------------------- input


def as_record(item: Any) -> dict:
    """The JSON dict of one inspected sentence, from a dict, a JSON string, or an object with ``to_json()``."""
    if isinstance(item, Mapping):
        return dict(item)
    for attr in ("as_json", "to_json", "to_dict", "as_dict"):
        fn = getattr(item, attr, None)
        if callable(fn):
            out = fn()
            if isinstance(out, (str, bytes)):
                out = json.loads(out)
            if isinstance(out, Mapping):
                return dict(out)
            raise TypeError(f"{type(item).__name__}.{attr}() returned {type(out).__name__}, not a dict")
    if isinstance(item, (str, bytes)):
        return json.loads(item)
    raise TypeError(f"cannot read an inspected sentence from {type(item).__name__}")


def _num(x: Any, default: float | None = None) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return default
    return v if math.isfinite(v) else default


def _gap(rel: Mapping) -> float:
    g = _num(rel.get("gap"))
    return g if g is not None else 0.0


def sentence_gap(rec: Mapping) -> float:
    """The largest integrality gap over a sentence's relaxations (0 if it has none)."""
    return max((_gap(r) for r in rec.get("relaxations") or []), default=0.0)


def default_relaxation(rec: Mapping) -> int:
    """Index of the relaxation shown first: the one with the largest gap (the first of equals); -1 if none."""
    rels = rec.get("relaxations") or []
    if not rels:
        return -1
    return max(range(len(rels)), key=lambda i: (_gap(rels[i]), -i))


def page_filename(sent_id: str, taken: set[str] | None = None) -> str:
    """A safe, unique file name for a sentence's page (``taken`` collects the names already used)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", str(sent_id)).strip("._") or "sentence"
    base = base[:80]
    name, k = f"{base}.html", 2
    while (taken is not None and name.lower() in taken) or name.lower() == "index.html":
        name, k = f"{base}-{k}.html", k + 1
    if taken is not None:
        taken.add(name.lower())
    return name


# ------------------------------------------------------------------------------------------- helpers

_e = html.escape


def _fmt(x: Any, digits: int = 4) -> str:
    v = _num(x)
    if v is None:
        return "—"
    return f"{v:.{digits}f}"


def _fmt_value(v: float) -> str:
    """An arc value as a short label: 0.5, 0.33, 0.67; <0.01 and >0.99 for values that round to 0 or 1."""
    if 0 < v < 0.005:
        return "<0.01"
    if 0.995 < v < 1:
        return ">0.99"
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return s if s not in ("", "-0") else "0"


def _fmt_seconds(x: Any) -> str:
    v = _num(x)
    if v is None:
        return "—"
    if v < 0.01:
        return f"{v * 1000:.1f} ms"
    if v < 10:
        return f"{v:.2f} s"
    return f"{v:.1f} s"


def _flat(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        out = []
        for y in x:
            out.extend(_flat(y))
        return out
    return [x]


def fmt_label(label: Any, block: str = "") -> str:
    """A row or part label as ``Name[i, j, k]`` (``["ArcGP", [0, 1, 2]]``, ``["ArcGP", 0, 1, 2]``, ``[0, 1, 2]``)."""
    parts = _flat(label)
    if parts and isinstance(parts[0], str):
        name, idx = parts[0], parts[1:]
    else:
        name, idx = block, parts
    return f"{name}[{', '.join(map(str, idx))}]" if idx else str(name)


def text_width(word: str, px: float = FONT_PX) -> float:
    """Estimated rendered width (pixels) of ``word`` in a sans-serif font of ``px`` pixels."""
    w = 0.0
    for ch in word:
        if ch in "ijlI.,;:!|'`\u00a0 ":
            w += 0.30
        elif ch in 'frtJ()[]{}"-/\\':
            w += 0.40
        elif ch in "mwMW@%\u2014&":
            w += 0.92
        elif ch.isdigit():
            w += 0.58
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            w += 1.05
        elif unicodedata.combining(ch):
            continue
        elif ch.isupper():
            w += 0.72
        else:
            w += 0.58
    return w * px


def _tree_heads(rec: Mapping) -> list[int] | None:
    best = rec.get("best_tree") or {}
    heads = best.get("heads")
    if not heads:
        return None
    return [int(h) for h in heads]


def _arcs(rel: Mapping) -> list[tuple[int, int, float]]:
    out = []
    for a in rel.get("arcs") or []:
        if len(a) >= 3 and _num(a[2], 0.0) > 1e-9:
            out.append((int(a[0]), int(a[1]), float(a[2])))
    return out


# ----------------------------------------------------------------------------------------- the drawing


class _Layout:
    """Token x positions (from an estimate of each word's width) and arc heights (by span, capped)."""

    PAD = 16  # horizontal space around a word
    MIN_SLOT = 50
    MARGIN = 24
    ARC_MIN, ARC_STEP, ARC_CAP = 22.0, 30.0, 230.0

    def __init__(self, words: list[str]):
        self.words = words
        self.slots = [max(self.MIN_SLOT, text_width(w) + self.PAD) for w in words]
        self.x = []
        cur = self.MARGIN
        for s in self.slots:
            self.x.append(cur + s / 2)
            cur += s
        self.width = cur + self.MARGIN

    def height(self, h: int, m: int) -> float:
        span = abs(h - m)
        return min(self.ARC_CAP, self.ARC_MIN + self.ARC_STEP * math.sqrt(max(span - 1, 0)))

    def ends(self, h: int, m: int) -> tuple[float, float]:
        """x of an arc's two ends: it leaves the head a little toward the modifier, enters the modifier's centre."""
        xh, xm = self.x[h], self.x[m]
        off = min(6.0, self.slots[h] / 6)
        return (xh + off if m > h else xh - off), xm


def _arc_curve(lay: _Layout, h: int, m: int, y0: float, up: bool) -> list[tuple[float, float]]:
    """The 4 control points of the cubic arc from h to m at baseline y0 (upward or downward)."""
    x1, x2 = lay.ends(h, m)
    c = lay.height(h, m) * 4.0 / 3.0  # a cubic with both control points at 4/3 h peaks at h
    y1 = y0 - c if up else y0 + c
    dx = (x2 - x1) * 0.08
    return [(x1, y0), (x1 + dx, y1), (x2 - dx, y1), (x2, y0)]


def _arc_path(lay: _Layout, h: int, m: int, y0: float, up: bool) -> str:
    """SVG path data of the arc from h to m at baseline y0."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = _arc_curve(lay, h, m, y0, up)
    return f"M{ax:.1f},{ay:.1f} C{bx:.1f},{by:.1f} {cx:.1f},{cy:.1f} {dx:.1f},{dy:.1f}"


def _bezier(pts: list[tuple[float, float]], t: float) -> tuple[float, float]:
    u = 1 - t
    w = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
    return sum(k * p[0] for k, p in zip(w, pts)), sum(k * p[1] for k, p in zip(w, pts))


class _Labels:
    """Places value labels on arcs without overlaps: at the peak if free, else further along the arc; a label
    that finds no free place is left out (the arc's tooltip and the fractional-arcs table hold its value)."""

    T = (0.5, 0.36, 0.64, 0.26, 0.74, 0.18, 0.82)
    H = 12.0

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []

    def place(self, pts: list[tuple[float, float]], text: str) -> tuple[float, float] | None:
        w = 6.4 * len(text) + 4
        for t in self.T:
            x, y = _bezier(pts, t)
            y -= 3  # the text sits on the curve
            box = (x - w / 2, y - self.H + 2, x + w / 2, y + 2)
            if all(box[2] <= b[0] or box[0] >= b[2] or box[3] <= b[1] or box[1] >= b[3] for b in self.boxes):
                self.boxes.append(box)
                return x, y
        return None


def _arrow(x: float, y: float, up: bool, size: float = 5.0) -> str:
    """A small triangle at the modifier's end pointing into the token."""
    if up:  # arc comes from above: arrow points down
        pts = [(x - size * 0.7, y - size * 1.4), (x + size * 0.7, y - size * 1.4), (x, y)]
    else:
        pts = [(x - size * 0.7, y + size * 1.4), (x + size * 0.7, y + size * 1.4), (x, y)]
    return " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)


def _svg(rec: Mapping, default: int) -> str:
    """The sentence's arcs: its tokens, each relaxation's LP arcs above them (``default``'s shown), the best
    tree below."""
    tokens = [str(t) for t in rec.get("tokens") or []]
    words = [ROOT_WORD] + tokens
    n = len(tokens)
    lay = _Layout(words)
    rels = rec.get("relaxations") or []
    heads = _tree_heads(rec)
    tree = set()
    if heads:
        tree = {(heads[m], m) for m in range(1, min(len(heads), n + 1)) if 0 <= heads[m] <= n}

    rel_arcs = [[a for a in _arcs(r) if 0 <= a[0] <= n and 1 <= a[1] <= n and a[0] != a[1]] for r in rels]
    up_h = max((lay.height(h, m) for arcs in rel_arcs for h, m, _ in arcs), default=30.0)
    down_h = max((lay.height(h, m) for h, m in tree), default=30.0)
    top = up_h + 34  # room for the value labels at the peaks
    tok_top, tok_h = top, 40.0
    tok_bottom = tok_top + tok_h
    height = tok_bottom + down_h + 26
    out = [
        (
            f'<svg class="parse" xmlns="http://www.w3.org/2000/svg" width="{lay.width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {lay.width:.0f} {height:.0f}" data-tokens="{n}" '
            f'role="img" aria-label="arcs of {_e(str(rec.get("sent_id", "")))}">'
        )
    ]
    out += _token_row(lay, words, tok_top, tok_h)
    for k, (rel, arcs) in enumerate(zip(rels, rel_arcs)):  # LP arcs, one group per relaxation
        name = str(rel.get("name", f"relaxation {k}"))
        active = " active" if k == default else ""
        out.append(f'<g class="lp-arcs{active}" data-rel="{k}" data-relaxation="{_e(name)}">')
        out += _lp_arcs(lay, words, name, arcs, tree, tok_top)
        out.append("</g>")
    if tree:  # best tree, below the tokens
        out += _tree_arcs(lay, words, tree, tok_bottom)
    out.append("</svg>")
    return "".join(out)


def _token_row(lay: _Layout, words: list[str], tok_top: float, tok_h: float) -> list[str]:
    """The SVG group of the tokens, ``tok_h`` high from ``tok_top``."""
    out = ['<g class="tokens">']
    for i, w in enumerate(words):
        cls = "token root" if i == 0 else "token"
        x = lay.x[i]
        out.append(
            f'<g class="{cls}" data-index="{i}"><title>{i}: {_e(w)}</title>'
            f'<rect class="tok-bg" x="{x - lay.slots[i] / 2 + 3:.1f}" y="{tok_top + 2:.1f}" '
            f'width="{lay.slots[i] - 6:.1f}" height="{tok_h - 4:.1f}" rx="5"/>'
            f'<text class="word" x="{x:.1f}" y="{tok_top + 19:.1f}">{_e(w)}</text>'
            f'<text class="idx" x="{x:.1f}" y="{tok_top + 33:.1f}">{i}</text></g>'
        )
    out.append("</g>")
    return out


def _lp_arcs(
    lay: _Layout,
    words: list[str],
    name: str,
    arcs: list[tuple[int, int, float]],
    tree: set[tuple[int, int]],
    tok_top: float,
) -> list[str]:
    """The SVG of one relaxation's LP arcs above the tokens, fractional ones labelled with their values."""
    out: list[str] = []
    labels, placer = [], _Labels()
    # labels of the largest fractional values first: they are the ones worth reading
    for h, m, v in sorted(arcs, key=lambda a: (-a[2] if EPS < a[2] < 1 - EPS else 0, abs(a[0] - a[1]))):
        if EPS < v < 1 - EPS:
            spot = placer.place(_arc_curve(lay, h, m, tok_top, up=True), _fmt_value(v))
            if spot is not None:
                labels.append((h, m, v, spot))
    placed = {(h, m) for h, m, _, _ in labels}
    # thin (fractional) arcs on top of the thick ones so that they stay visible
    for h, m, v in sorted(arcs, key=lambda a: -a[2]):
        d = _arc_path(lay, h, m, tok_top, up=True)
        frac = EPS < v < 1 - EPS
        kind = "frac" if frac else ("on-tree" if (h, m) in tree else "off-tree")
        vv = min(max(v, 0.0), 1.0)
        sw = 0.8 + 2.6 * vv
        op = 0.30 + 0.70 * vv
        tip = f"{name}: {h}\u2192{m} ({words[h]} \u2192 {words[m]}) value {v:.4g}"
        if (h, m) not in tree:
            tip += ", not in the best tree"
        lab = (' data-label="1"' if (h, m) in placed else ' data-label="0"') if frac else ""
        out.append(
            f'<g class="arc-g {kind}" opacity="{op:.2f}"><title>{_e(tip)}</title>'
            f'<path class="arc lp {kind}" data-head="{h}" data-mod="{m}" data-value="{v:.6g}"{lab} '
            f'd="{d}" stroke-width="{sw:.2f}"/>'
            f'<polygon class="arrow {kind}" points="{_arrow(lay.x[m], tok_top, True)}"/></g>'
        )
    for h, m, v, (px, py) in labels:
        tip = f"{name}: {h}\u2192{m} ({words[h]} \u2192 {words[m]}) value {v:.4g}"
        out.append(
            f'<text class="arc-label" x="{px:.1f}" y="{py:.1f}" data-head="{h}" data-mod="{m}">'
            f"{_fmt_value(v)}<title>{_e(tip)}</title></text>"
        )
    return out


def _tree_arcs(lay: _Layout, words: list[str], tree: set[tuple[int, int]], tok_bottom: float) -> list[str]:
    """The SVG group of the best tree's arcs, below the tokens."""
    out = ['<g class="tree-arcs">']
    for h, m in sorted(tree, key=lambda a: (a[1], a[0])):
        d = _arc_path(lay, h, m, tok_bottom, up=False)
        tip = f"best tree: {h}\u2192{m} ({words[h]} \u2192 {words[m]})"
        out.append(
            f'<g class="arc-g tree"><title>{_e(tip)}</title>'
            f'<path class="arc tree" data-head="{h}" data-mod="{m}" d="{d}"/>'
            f'<polygon class="arrow tree" points="{_arrow(lay.x[m], tok_bottom, False)}"/></g>'
        )
    out.append("</g>")
    return out


# ---------------------------------------------------------------------------------------- the tables


def _verdict(mip: Mapping | None) -> tuple[str, str]:
    """(css class, short text) of a generic MIP solver's verdict."""
    if not mip:
        return "na", "not run"
    agrees = mip.get("agrees")
    status = str(mip.get("status") or "")
    if agrees is True:
        return "ok", "agrees"
    if agrees is False:
        return "bad", "DISAGREES"
    return "na", f"no verdict ({status})" if status else "no verdict"


def _mip_cell(mip: Mapping | None) -> str:
    cls, text = _verdict(mip)
    tip = ""
    if mip:
        tip = (
            f"{mip.get('solver', '')}: status {mip.get('status', '')}, objective {_fmt(mip.get('objective'))}, "
            f"{_fmt_seconds(mip.get('seconds'))}"
        )
    return f'<td class="verdict {cls}" title="{_e(tip)}">{_e(text)}</td>'


def _families_text(rel: Mapping) -> str:
    fams = rel.get("families") or {}
    if isinstance(fams, Mapping):
        items = []
        for fam, rows in fams.items():
            rows = list(rows) if isinstance(rows, (list, tuple)) else [rows]
            items.append(f"{fam}: {', '.join(map(str, rows))}" if rows else str(fam))
        return "; ".join(items) or "arcs only"
    if isinstance(fams, (list, tuple)):
        return ", ".join(map(str, fams)) or "arcs only"
    return str(fams)


def _relaxation_table(rec: Mapping, default: int) -> str:
    rels = rec.get("relaxations") or []
    if not rels:
        return '<p class="muted">No relaxation was inspected.</p>'
    rows = []
    for k, rel in enumerate(rels):
        integral = bool(rel.get("integral"))
        g = _num(rel.get("gap"))
        gcls = "gap-zero" if g is not None and abs(g) <= 1e-9 else "gap-pos"
        sel = " selected" if k == default else ""
        name = str(rel.get("name", k))
        rows.append(
            f'<tr class="rel-row{sel}" data-rel="{k}" data-relaxation="{_e(name)}">'
            f'<td><label><input type="radio" name="rel" value="{k}"{" checked" if k == default else ""}> '
            f"<b>{_e(name)}</b></label></td>"
            f'<td class="small">{_e(str(rel.get("base", "")))}</td>'
            f'<td class="small">{_e(_families_text(rel))}</td>'
            f'<td class="num">{_fmt(rel.get("bound"))}</td>'
            f'<td class="num {gcls}">{_fmt(rel.get("gap"))}</td>'
            f'<td class="{"ok" if integral else "warn"}">{"integral" if integral else "fractional"}</td>'
            f'<td class="num">{_fmt_seconds(rel.get("seconds"))}</td>'
            f'<td class="num">{_e(str(rel.get("columns", "—")))}</td>'
            f'<td class="num">{_e(str(rel.get("rows", "—")))}</td>'
            f"{_mip_cell(rel.get('mip'))}{_mip_cell(rel.get('pyomo_mip'))}</tr>"
        )
    return (
        '<table class="rels"><thead><tr><th>relaxation</th><th>base</th><th>families: rows</th>'
        '<th class="num">bound</th><th class="num">gap</th><th>LP optimum</th><th class="num">time</th>'
        '<th class="num">columns</th><th class="num">rows</th><th>MIP (highspy)</th><th>MIP (Pyomo)</th>'
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def _cut_html(rel: Mapping) -> str:
    cut = rel.get("cut")
    integral = bool(rel.get("integral"))
    note = str(rel.get("cut_note") or "")
    note_html = f'<p class="small muted">{_e(note)}</p>' if note else ""
    if not cut:
        if integral:
            return '<p class="muted">The LP optimum is integral: nothing to cut.</p>' + note_html
        return (
            '<p class="alert">No valid inequality violated by this fractional point was found.</p>'
            + note_html
        )
    found = cut.get("found")
    found_html = ""
    if isinstance(found, Mapping) and found:
        found_html = (
            '<tr><th>violated rows</th><td class="small">'
            + ", ".join(f"{_e(str(k))} {_e(str(v))}" for k, v in found.items())
            + "</td></tr>"
        )
    src = str(cut.get("source", ""))
    src_text = {
        "lpparse": "lpparse's own separation",
        "mip-root": "HiGHS's MIP root cut pool",
        "objective": "the objective: no tree scores more than the proved best tree",
    }.get(src, src)
    block = str(cut.get("block", ""))
    label = fmt_label(cut.get("label") or [], block)
    block_note = f" (block {_e(block)})" if label != block else ""
    return (
        '<div class="cut">'
        f'<div class="cut-text"><code>{_e(str(cut.get("text", "")))}</code></div>'
        '<table class="kv">'
        f"<tr><th>row</th><td><code>{_e(label)}</code>{block_note}</td></tr>"
        f"<tr><th>found by</th><td>{_e(src_text)}</td></tr>"
        f'<tr><th>violation</th><td class="num">{_fmt(cut.get("violation"), 6)}</td></tr>'
        f'<tr><th>bound after</th><td class="num">{_fmt(cut.get("bound_after"))} '
        f'<span class="muted">(before: {_fmt(rel.get("bound"))})</span></td></tr>'
        f"{found_html}</table>{note_html}</div>"
    )


def _mip_html(rel: Mapping, rec: Mapping) -> str:
    best = rec.get("best_tree") or {}
    rows = []
    for key, title in (("mip", "HiGHS MIP"), ("pyomo_mip", "Pyomo MIP")):
        mip = rel.get(key)
        cls, text = _verdict(mip)
        if not mip:
            rows.append(f'<tr><th>{title}</th><td class="verdict na" colspan="5">not run</td></tr>')
            continue
        heads = mip.get("heads")
        heads_text = " ".join(map(str, heads[1:] if heads and heads[0] == -1 else heads)) if heads else "—"
        extra = []
        if mip.get("objective") is None and mip.get("incumbent") is not None:
            extra.append(f"incumbent {_fmt(mip.get('incumbent'))}")
        if mip.get("note"):
            extra.append(str(mip.get("note")))
        rows.append(
            f'<tr><th>{title}<br><span class="small muted">{_e(str(mip.get("solver", "")))}</span></th>'
            f"<td>{_e(str(mip.get('status', '')))}</td>"
            f'<td class="num">{_fmt(mip.get("objective"))}</td>'
            f'<td class="num">{_fmt(mip.get("dual_bound"))}</td>'
            f'<td class="num">{_fmt_seconds(mip.get("seconds"))}</td>'
            f'<td class="verdict {cls}">{_e(text)}</td></tr>'
            f'<tr class="heads"><td></td><td colspan="5" class="small">heads: <code>{_e(heads_text)}</code>'
            + (f'<br><span class="muted">{_e("; ".join(extra))}</span>' if extra else "")
            + "</td></tr>"
        )
    return (
        '<table class="mip"><thead><tr><th>solver</th><th>status</th><th class="num">objective</th>'
        '<th class="num">dual bound</th><th class="num">time</th><th>verdict</th></tr></thead><tbody>'
        + "".join(rows)
        + f'</tbody></table><p class="small muted">The same compact program as a MIP, against the proved '
        f"best tree (score {_fmt(best.get('score'))}).</p>"
    )


def _block_html(block: str, info: Mapping | None) -> tuple[int, str]:
    info = info or {}
    rows = info.get("rows") or []
    count = int(info.get("count", len(rows)) or 0)
    body = "".join(
        f"<tr><td><code>{_e(fmt_label(r.get('label') or [], block))}</code></td>"
        f'<td class="num">{_fmt(r.get("dual"), 6)}</td></tr>'
        for r in rows
    )
    more = f" ({len(rows)} with the largest |dual| shown)" if len(rows) < count else ""
    return count, (
        f'<details class="binding" data-block="{_e(block)}"><summary><b>{_e(block)}</b> '
        f'<span class="muted">{count} binding row{"s" if count != 1 else ""}{more}</span></summary>'
        + (
            f'<div class="rows-box"><table class="rows"><thead><tr><th>row</th><th class="num">dual</th></tr>'
            f"</thead><tbody>{body}</tbody></table></div>"
            if rows
            else ""
        )
        + "</details>"
    )


def _binding_html(rel: Mapping) -> str:
    """Binding rows (nonzero dual at the optimum) grouped by part family, then by row block."""
    binding = rel.get("binding") or {}
    if not binding:
        return '<p class="muted">No binding rows reported.</p>'
    fams = rel.get("families") if isinstance(rel.get("families"), Mapping) else {}
    owner: dict[str, str] = {}
    for fam, rows in (fams or {}).items():
        for block in rows if isinstance(rows, (list, tuple)) else [rows]:
            owner.setdefault(str(block), str(fam))
    base = f"arborescence ({rel.get('base')})" if rel.get("base") else "arborescence"
    base_blocks = {"OneHead", "Source", "Consume", "NoFlow", "Flow", "Cap", "Cycle", "Root", "OneRoot"}
    groups: dict[str, list[str]] = {}
    for block in binding:
        b = str(block)
        fam = owner.get(b) or (
            base if b in base_blocks or b.startswith(("Flow", "Cycle", "Root")) else "cuts and other rows"
        )
        groups.setdefault(fam, []).append(b)
    order = [base] + [str(f) for f in (fams or {})] + ["cuts and other rows"]
    out = []
    for fam in sorted(groups, key=lambda f: order.index(f) if f in order else len(order)):
        inner, total = [], 0
        for b in groups[fam]:
            count, text = _block_html(b, binding[b])
            total += count
            inner.append(text)
        out.append(
            f'<details class="family" data-family="{_e(fam)}" open><summary><b>{_e(fam)}</b> '
            f'<span class="muted">{total} binding row{"s" if total != 1 else ""}</span></summary>'
            f'<div class="blocks">{"".join(inner)}</div></details>'
        )
    return "".join(out)


def _fractional_html(rel: Mapping, words: list[str]) -> str:
    fa = [a for a in rel.get("fractional_arcs") or [] if len(a) >= 3]
    parts = rel.get("fractional_parts") or {}
    if not fa and not any(parts.values()):
        return '<p class="muted">No fractional arcs or parts.</p>'
    out = []
    if fa:
        cells = "".join(
            f'<tr><td>{int(h)}\u2192{int(m)}</td><td class="small">{_e(_word(words, h))} \u2192 '
            f'{_e(_word(words, m))}</td><td class="num">{_fmt(v)}</td></tr>'
            for h, m, v, *_ in sorted(fa, key=lambda a: (int(a[1]), int(a[0])))
        )
        out.append(
            f'<details class="frac" open><summary><b>arcs</b> <span class="muted">{len(fa)} fractional'
            f'</span></summary><div class="rows-box"><table class="rows"><thead><tr><th>arc</th><th>words</th>'
            f'<th class="num">value</th></tr></thead><tbody>{cells}</tbody></table></div></details>'
        )
    for fam, items in parts.items():
        items = [p for p in items or [] if len(p) >= 2]
        if not items:
            continue
        cells = "".join(
            f"<tr><td><code>{_e(str(fam))}[{', '.join(str(int(i)) for i in p[:-1])}]</code></td>"
            f'<td class="num">{_fmt(p[-1])}</td></tr>'
            for p in items
        )
        out.append(
            f'<details class="frac" data-family="{_e(str(fam))}"><summary><b>{_e(str(fam))}</b> '
            f'<span class="muted">{len(items)} fractional part{"s" if len(items) != 1 else ""}</span>'
            f'</summary><div class="rows-box"><table class="rows"><thead><tr><th>part</th>'
            f'<th class="num">value</th></tr></thead><tbody>{cells}</tbody></table></div></details>'
        )
    return "".join(out)


def _word(words: list[str], i: Any) -> str:
    try:
        return words[int(i)]
    except (IndexError, ValueError, TypeError):
        return "?"


def _order_html(rec: Mapping) -> str:
    checks = rec.get("order_checks") or []
    if not checks:
        return '<p class="muted">No bound-order checks.</p>'
    rows = "".join(
        f'<tr class="{"ok" if c.get("holds") else "bad"}"><td><code>{_e(str(c.get("claim", "")))}</code></td>'
        f'<td class="num">{_fmt(c.get("left"))}</td><td class="num">{_fmt(c.get("right"))}</td>'
        f'<td class="verdict {"ok" if c.get("holds") else "bad"}">{"holds" if c.get("holds") else "FAILS"}</td></tr>'
        for c in checks
    )
    return (
        '<table class="order"><thead><tr><th>claim</th><th class="num">left</th><th class="num">right</th>'
        f"<th></th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _all_good(rec: Mapping) -> str:
    """What was checked, when nothing disagrees (saying so when no MIP run finished)."""
    runs = [r.get(k) for r in rec.get("relaxations") or [] for k in ("mip", "pyomo_mip") if r.get(k)]
    agreed = sum(m.get("agrees") is True for m in runs)
    checks = rec.get("order_checks") or []
    order = f"the {len(checks)} bound-order check{'s' if len(checks) != 1 else ''} hold" if checks else ""
    if not runs:
        mips = "no MIP was run"
    elif agreed == len(runs):
        mips = f"all {len(runs)} MIP runs agree with the proved tree"
    elif agreed:
        mips = f"{agreed} of {len(runs)} MIP runs finished and agree with the proved tree (the others have no verdict)"
    else:
        mips = f"none of the {len(runs)} MIP runs finished within its limit: no verdict"
    return "No disagreement: " + "; ".join(x for x in (mips, order) if x) + "."


def _problems(rec: Mapping) -> list[str]:
    """The disagreements to show in the red banner (derived from the verdicts if none is listed)."""
    dis = [str(d) for d in rec.get("disagreements") or []]
    if dis:
        return dis
    for rel in rec.get("relaxations") or []:
        for key, who in (("mip", "HiGHS MIP"), ("pyomo_mip", "Pyomo MIP")):
            mip = rel.get(key) or {}
            if mip.get("agrees") is False:
                dis.append(
                    f"{who} on {rel.get('name')}: objective {_fmt(mip.get('objective'))} but the proved tree "
                    f"scores {_fmt((rec.get('best_tree') or {}).get('score'))}"
                )
    for c in rec.get("order_checks") or []:
        if c.get("holds") is False:
            dis.append(
                f"bound order fails: {c.get('claim')} ({_fmt(c.get('left'))} vs {_fmt(c.get('right'))})"
            )
    return dis


# ------------------------------------------------------------------------------------------ the pages

CSS = """
:root { --fg:#1f2933; --muted:#6b7785; --line:#e3e8ee; --bg:#f7f9fb; --card:#fff;
  --lp:#2b6cb0; --frac:#dd6b20; --off:#805ad5; --tree:#2f855a; --bad:#c53030; --badbg:#fff5f5;
  --ok:#2f855a; --okbg:#f0fff4; --warn:#b7791f; }
* { box-sizing: border-box; }
body { margin:0; padding:20px 28px 40px; background:var(--bg); color:var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans",
  "Liberation Sans", sans-serif; }
h1 { font-size:20px; margin:0 0 4px; font-weight:600; }
h2 { font-size:15px; margin:22px 0 8px; font-weight:600; }
a { color:var(--lp); }
code { font: 12.5px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; }
.muted { color:var(--muted); }
.small { font-size:12.5px; }
.num { text-align:right; font-variant-numeric: tabular-nums; white-space:nowrap; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 16px; }
.meta { color:var(--muted); margin-bottom:12px; }
.meta b { color:var(--fg); font-weight:600; }
.banner { background:var(--badbg); border:2px solid var(--bad); color:var(--bad); border-radius:8px;
  padding:10px 16px; margin:10px 0 14px; font-weight:600; }
.banner ul { margin:4px 0 0; padding-left:20px; font-weight:500; }
.allgood { background:var(--okbg); border:1px solid #c6f6d5; color:var(--ok); border-radius:8px;
  padding:6px 14px; margin:10px 0 14px; }
.switch { display:flex; flex-wrap:wrap; gap:6px; align-items:center; margin:8px 0; }
.switch button { font:inherit; font-size:13px; padding:4px 11px; border-radius:14px; cursor:pointer;
  border:1px solid var(--line); background:var(--card); color:var(--fg); }
.switch button.on { background:var(--lp); border-color:var(--lp); color:#fff; }
.switch button .g { opacity:.75; font-size:12px; margin-left:4px; }
.scroll { overflow-x:auto; overflow-y:hidden; background:var(--card); border:1px solid var(--line);
  border-radius:8px; }
svg.parse { display:block; font-family: inherit; }
svg .tok-bg { fill:#f1f4f8; stroke:#dde3ea; }
svg .root .tok-bg { fill:#e9edf2; }
svg text.word { font-size:14px; text-anchor:middle; fill:var(--fg); }
svg .root text.word { font-size:11px; fill:var(--muted); letter-spacing:.04em; }
svg text.idx { font-size:10px; text-anchor:middle; fill:var(--muted); }
svg .arc { fill:none; stroke-linecap:round; }
svg .arc.lp.on-tree { stroke:var(--lp); }
svg .arc.lp.off-tree { stroke:var(--off); }
svg .arc.lp.frac { stroke:var(--frac); }
svg .arrow.on-tree { fill:var(--lp); } svg .arrow.off-tree { fill:var(--off); } svg .arrow.frac { fill:var(--frac); }
svg .arc.tree { stroke:var(--tree); stroke-width:1.6; opacity:.85; }
svg .arrow.tree { fill:var(--tree); opacity:.85; }
svg .arc.tree.lp-below-one { stroke-dasharray:5 4; }
svg .arc-g:hover .arc { stroke:var(--bad); } svg .arc-g:hover .arrow { fill:var(--bad); }
svg .arc-g:hover { opacity:1; }
svg text.arc-label { font-size:11px; text-anchor:middle; fill:#9c4221; font-weight:600;
  paint-order:stroke; stroke:#fff; stroke-width:3px; stroke-linejoin:round; }
svg .lp-arcs:not(.active) { display:none; }
.legend { display:flex; flex-wrap:wrap; gap:14px; margin:6px 2px 0; color:var(--muted); font-size:12.5px; }
.legend i { display:inline-block; width:22px; height:0; border-top:3px solid; vertical-align:middle;
  margin-right:5px; }
table { border-collapse:collapse; background:var(--card); }
th, td { padding:4px 10px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { font-weight:600; font-size:12.5px; color:var(--muted); }
table.rels tr.rel-row { cursor:pointer; }
table.rels td:first-child { white-space:nowrap; }
table.rels tr.selected { background:#ebf4ff; }
table.rels tr:hover { background:#f5f9ff; }
td.ok, .verdict.ok { color:var(--ok); }
td.warn { color:var(--warn); }
.verdict.bad, tr.bad td { color:var(--bad); font-weight:700; }
.verdict.bad { background:var(--badbg); }
.verdict.na { color:var(--muted); }
.gap-pos { color:var(--frac); font-weight:600; }
.wrap { overflow-x:auto; }
.relax-detail[hidden] { display:none; }
.cols { display:grid; grid-template-columns: repeat(auto-fit, minmax(540px, 1fr)); gap:14px; }
.card { overflow-x:auto; }
table.mip td, table.mip th { white-space:nowrap; }
table.mip tr.heads td { white-space:normal; max-width:520px; overflow-wrap:anywhere; }
details { margin:4px 0; } summary { cursor:pointer; }
details table { margin:4px 0 8px 14px; }
details.family > .blocks { margin-left:14px; }
.rows-box { max-height:320px; overflow-y:auto; }
.alert { color:var(--bad); font-weight:700; }
.cut-text { background:#fffaf0; border:1px solid #fbd38d; border-radius:6px; padding:6px 10px;
  margin-bottom:6px; overflow-x:auto; }
table.kv th { width:110px; }
nav { margin-bottom:10px; font-size:13px; }
"""

JS = """
(function () {
  "use strict";
  window.addEventListener("error", function (ev) {
    document.body.setAttribute("data-js-error", String(ev.message || "error"));
  });
  var body = document.body;
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  var tree = all("path.arc.tree");
  var lpValues = {};
  all("g.lp-arcs").forEach(function (g) {
    var vals = {};
    Array.prototype.forEach.call(g.querySelectorAll("path.arc.lp"), function (p) {
      vals[p.getAttribute("data-head") + "-" + p.getAttribute("data-mod")] = parseFloat(p.getAttribute("data-value"));
    });
    lpValues[g.getAttribute("data-rel")] = vals;
  });
  function select(k) {
    k = String(k);
    all("g.lp-arcs").forEach(function (g) { g.classList.toggle("active", g.getAttribute("data-rel") === k); });
    all(".relax-detail").forEach(function (s) { s.hidden = s.getAttribute("data-rel") !== k; });
    all("tr.rel-row").forEach(function (r) { r.classList.toggle("selected", r.getAttribute("data-rel") === k); });
    all("input[name=rel]").forEach(function (r) {
      r.checked = r.value === k;
      if (r.checked) { r.setAttribute("checked", ""); } else { r.removeAttribute("checked"); }
    });
    all(".switch button").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-rel") === k); });
    var vals = lpValues[k] || {};
    tree.forEach(function (p) {
      var v = vals[p.getAttribute("data-head") + "-" + p.getAttribute("data-mod")] || 0;
      p.classList.toggle("lp-below-one", v < 1 - 1e-6);
    });
    body.setAttribute("data-selected", k);
  }
  all(".switch button").forEach(function (b) {
    b.addEventListener("click", function () { select(b.getAttribute("data-rel")); });
  });
  all("tr.rel-row").forEach(function (r) {
    r.addEventListener("click", function () { select(r.getAttribute("data-rel")); });
  });
  var start = body.getAttribute("data-default");
  var m = /(?:^#|&)rel=([^&]*)/.exec(window.location.hash || "");
  if (m) {
    var want = m[1];
    try { want = decodeURIComponent(want); } catch (e) { /* a malformed fragment: take it as it is */ }
    all("g.lp-arcs").forEach(function (g) {
      if (g.getAttribute("data-relaxation") === want || g.getAttribute("data-rel") === want) {
        start = g.getAttribute("data-rel");
      }
    });
  }
  if (start !== null && start !== "-1") { select(start); }
  // what the browser laid out, for tests and scripts: the drawing's width, how far the row scrolls, and
  // how many neighbouring words overlap (the widths are estimated when the page is written)
  var svg = document.querySelector("svg.parse");
  if (svg) {
    var box = svg.getBoundingClientRect();
    body.setAttribute("data-svg-width", String(Math.round(box.width)));
    var sc = document.querySelector(".scroll");
    if (sc) { body.setAttribute("data-scroll-width", String(sc.scrollWidth)); }
    var words = all("svg.parse g.token text.word"), overlaps = 0;
    for (var i = 1; i < words.length; i++) {
      var a = words[i - 1].getBoundingClientRect(), c = words[i].getBoundingClientRect();
      if (a.right > c.left + 0.5) { overlaps++; }
    }
    body.setAttribute("data-token-overlaps", String(overlaps));
  }
  body.setAttribute("data-js-ok", "1");
})();
"""


def sentence_page(record: Any, index_href: str | None = "index.html") -> str:
    """The HTML page of one inspected sentence."""
    rec = as_record(record)
    sent_id = str(rec.get("sent_id", ""))
    tokens = [str(t) for t in rec.get("tokens") or []]
    words = [ROOT_WORD] + tokens
    n = int(rec.get("n", len(tokens)) or len(tokens))
    rels = rec.get("relaxations") or []
    default = default_relaxation(rec)
    best = rec.get("best_tree") or {}
    problems = _problems(rec)

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(sent_id)} \u00b7 lpparse inspect</title>",
        f"<style>{CSS}</style></head>",
        f'<body class="sentence" data-sent-id="{_e(sent_id)}" data-default="{default}">',
    ]
    if index_href:
        parts.append(f'<nav><a href="{_e(index_href)}">\u2190 all inspected sentences</a></nav>')
    parts.append(f"<h1>Sentence <code>{_e(sent_id)}</code></h1>")
    parts.append(_meta_html(rec, n, best))
    if problems:
        items = "".join(f"<li>{_e(p)}</li>" for p in problems)
        parts.append(
            f'<div class="banner" id="disagreements">\u26a0 {len(problems)} disagreement'
            f"{'s' if len(problems) != 1 else ''}: look here first<ul>{items}</ul></div>"
        )
    elif rels:
        parts.append(f'<div class="allgood">{_e(_all_good(rec))}</div>')

    if rels:
        buttons = "".join(
            f'<button type="button" data-rel="{k}" class="{"on" if k == default else ""}">'
            f'{_e(str(r.get("name", k)))}<span class="g">gap {_fmt(r.get("gap"), 3)}</span></button>'
            for k, r in enumerate(rels)
        )
        parts.append(
            f'<div class="switch"><span class="muted">LP arcs above the words:</span>{buttons}</div>'
        )
    parts.append(f'<div class="scroll">{_svg(rec, default)}</div>')
    parts.append(
        '<div class="legend"><span><i style="border-color:var(--lp)"></i>LP arc at 1, in the best tree</span>'
        '<span><i style="border-color:var(--off)"></i>LP arc at 1, not in the tree</span>'
        '<span><i style="border-color:var(--frac)"></i>fractional LP arc (labelled; width and opacity = value)</span>'
        '<span><i style="border-color:var(--tree)"></i>best tree, below (dashed: the LP gives it less than 1)</span>'
        "</div>"
    )
    parts.append("<h2>Relaxations side by side</h2>")
    parts.append(f'<div class="wrap">{_relaxation_table(rec, default)}</div>')

    parts += [_detail_html(rec, k, rel, default, words) for k, rel in enumerate(rels)]
    parts.append("<h2>Bound order</h2>")
    parts.append(_order_html(rec))
    parts.append(f"<script>{JS}</script></body></html>")
    return "\n".join(parts) + "\n"


def _meta_html(rec: Mapping, n: int, best: Mapping) -> str:
    """The line under a sentence page's title: tokens, root rule, the best tree and the largest gap."""
    cert = best.get("certified")
    return (
        '<div class="meta">'
        f"<b>{n}</b> tokens \u00b7 {'single root' if rec.get('single_root') else 'any number of root children'}"
        f" \u00b7 best tree score <b>{_fmt(best.get('score'))}</b> "
        f"({'certified optimal' if cert else 'NOT certified' if cert is False else 'certificate unknown'}"
        f", {_e(str(best.get('nodes', '—')))} nodes, {_fmt_seconds(best.get('seconds'))})"
        f" \u00b7 largest gap <b>{_fmt(sentence_gap(rec))}</b></div>"
    )


def _detail_html(rec: Mapping, k: int, rel: Mapping, default: int, words: list[str]) -> str:
    """The section of relaxation ``k`` (hidden unless it is the ``default``): its cut, the MIP solvers'
    verdicts, its fractional arcs and parts, its binding rows."""
    name = str(rel.get("name", k))
    hidden = "" if k == default else " hidden"
    return (
        f'<section class="relax-detail" data-rel="{k}" data-relaxation="{_e(name)}"{hidden}>'
        f"<h2>{_e(name)}: what holds the LP where it is</h2>"
        '<div class="cols">'
        f'<div class="card"><h2 style="margin-top:0">The cut</h2>{_cut_html(rel)}</div>'
        f'<div class="card"><h2 style="margin-top:0">Generic MIP solvers</h2>{_mip_html(rel, rec)}</div>'
        f'<div class="card"><h2 style="margin-top:0">Fractional arcs and parts</h2>'
        f"{_fractional_html(rel, words)}</div>"
        f'<div class="card"><h2 style="margin-top:0">Binding rows per family</h2>{_binding_html(rel)}</div>'
        "</div></section>"
    )


def index_page(records: list[dict], files: list[str]) -> str:
    """The index over inspected sentences, sorted by gap (largest first), each row linking to its page."""
    order = sorted(range(len(records)), key=lambda i: (-sentence_gap(records[i]), i))
    rows = []
    for rank, i in enumerate(order, 1):
        rec = records[i]
        rels = rec.get("relaxations") or []
        k = default_relaxation(rec)
        worst = str(rels[k].get("name", "")) if k >= 0 else "—"
        n_frac = sum(not r.get("integral") for r in rels)
        mips = [(r.get(key) or {}).get("agrees") for r in rels for key in ("mip", "pyomo_mip") if r.get(key)]
        if any(a is False for a in mips):
            mip_cell = '<td class="verdict bad">DISAGREES</td>'
        elif mips and all(a is True for a in mips):
            mip_cell = '<td class="verdict ok">agrees</td>'
        elif mips:
            mip_cell = f'<td class="verdict na">{sum(a is True for a in mips)}/{len(mips)} agree</td>'
        else:
            mip_cell = '<td class="verdict na">not run</td>'
        problems = _problems(rec)
        prob_cell = (
            f'<td class="verdict bad">{len(problems)}</td>' if problems else '<td class="verdict ok">0</td>'
        )
        tokens = " ".join(str(t) for t in rec.get("tokens") or [])
        preview = tokens if len(tokens) <= 90 else tokens[:87] + "\u2026"
        rows.append(
            f'<tr class="sentence-row" data-sent-id="{_e(str(rec.get("sent_id", "")))}" '
            f'data-gap="{sentence_gap(rec):.9g}"><td class="num">{rank}</td>'
            f'<td><a href="{_e(quote(files[i]))}">{_e(str(rec.get("sent_id", "")))}</a></td>'
            f'<td class="num">{_e(str(rec.get("n", len(rec.get("tokens") or []))))}</td>'
            f'<td class="num gap-pos">{_fmt(sentence_gap(rec))}</td><td>{_e(worst)}</td>'
            f'<td class="num">{n_frac}/{len(rels)}</td>{mip_cell}{prob_cell}'
            f'<td class="small muted">{_e(preview)}</td></tr>'
        )
    n_bad = sum(bool(_problems(r)) for r in records)
    banner = (
        f'<div class="banner">\u26a0 {n_bad} of {len(records)} sentences have disagreements (red below).</div>'
        if n_bad
        else ""
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>lpparse inspect \u00b7 {len(records)} sentences</title><style>{CSS}</style></head>"
        f'<body class="index" data-sentences="{len(records)}">'
        f"<h1>Inspected sentences</h1>"
        f'<div class="meta">{len(records)} sentence{"s" if len(records) != 1 else ""}, sorted by their largest integrality gap '
        "(relaxation bound minus the best tree's score).</div>"
        f"{banner}"
        '<div class="wrap"><table class="index"><thead><tr><th class="num">#</th><th>sentence</th>'
        '<th class="num">tokens</th><th class="num">largest gap</th><th>relaxation</th>'
        '<th class="num">fractional</th><th>MIP verdicts</th><th class="num">disagreements</th>'
        "<th>words</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
        '<script>window.addEventListener("error",function(e){document.body.setAttribute("data-js-error",'
        'String(e.message||"error"));});document.body.setAttribute("data-js-ok","1");</script>'
        "</body></html>\n"
    )


def write_pages(inspections: Iterable[Any], out_dir: str | Path) -> Path:
    """Write one self-contained HTML page per inspected sentence and ``index.html`` into ``out_dir``.

    ``inspections``: :class:`~lpparse.inspect.Inspection` objects (anything with ``to_json()``) or the dicts
    of ``lpparse inspect --json`` lines. Returns the path of the index page.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = [as_record(x) for x in inspections]
    taken: set[str] = set()
    files = [page_filename(str(r.get("sent_id", f"sentence-{i}")), taken) for i, r in enumerate(records)]
    for rec, name in zip(records, files):
        (out / name).write_text(sentence_page(rec), encoding="utf-8")
    index = out / "index.html"
    index.write_text(index_page(records, files), encoding="utf-8")
    return index
