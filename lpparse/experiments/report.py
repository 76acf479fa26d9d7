"""Reports on experiment results: plots (matplotlib, PNG) and a Markdown page with the summary tables.

Reads the JSONL files written by ``lpparse experiment`` and recognizes each kind by its records: ``ppc``
(Table 1: ``bf`` and ``ppc`` per sentence) and ``bounds`` (Table 2: ``martins``, ``onegp``, ``all``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from lpparse.experiments.grandparent_tables import BUCKETS, PRESETS, summarize
from lpparse.experiments.runner import read_results
from lpparse.table import markdown_table

__all__ = ["experiment_kind", "write_report"]

Record = dict[str, Any]


def experiment_kind(records: Sequence[Record]) -> str:
    """``ppc`` or ``bounds``, from the fields of the records."""
    if not records:
        raise ValueError("no records")
    keys = set(records[0])
    if {"bf", "ppc"} <= keys:
        return "ppc"
    if set(PRESETS) <= keys:
        return "bounds"
    raise ValueError(f"records of an unknown experiment (fields {sorted(keys)})")


def _scatter_by_length(ax: plt.Axes, records: Sequence[Record], series: dict[str, str], field: str) -> None:
    n = np.array([r["n"] for r in records])
    for label, key in series.items():
        ax.scatter(n, [r[key][field] for r in records], s=10, alpha=0.6, label=label)
    ax.set_xlabel("sentence length n")
    ax.legend()


def _ppc_figures(records: Sequence[Record], stem: Path) -> list[tuple[str, Path]]:
    figures = []
    fig, ax = plt.subplots(figsize=(6, 4))
    _scatter_by_length(ax, records, {"BF": "bf", "PPC": "ppc"}, "time_total")
    ax.set_yscale("log")
    ax.set_ylabel("seconds per sentence")
    ax.set_title("Time against length")
    figures.append(("Time against sentence length (log scale)", _save(fig, stem, "time")))

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    _scatter_by_length(axes[0], records, {"BF (all)": "bf", "PPC scored": "ppc"}, "gps_scored")
    axes[0].scatter([r["n"] for r in records], [r["ppc"]["gps_added"] for r in records], s=10, alpha=0.6, label="PPC added")
    axes[0].legend()
    axes[0].set_yscale("log")
    axes[0].set_ylabel("grandparent triples")
    n = np.array([r["n"] for r in records])
    total = np.array([r["bf"]["gps_scored"] for r in records], dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        axes[1].scatter(n, [r["ppc"]["gps_scored"] for r in records] / total, s=10, label="scored / BF")
        axes[1].scatter(n, [r["ppc"]["gps_added"] for r in records] / total, s=10, label="added / BF")
    axes[1].set_xlabel("sentence length n")
    axes[1].set_ylabel("fraction of all triples")
    axes[1].legend()
    fig.suptitle("Grandparent triples scored and added")
    figures.append(("Grandparent triples scored and added, against length", _save(fig, stem, "triples")))

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    bf = np.array([r["bf"]["objective"] for r in records])
    ppc = np.array([r["ppc"]["objective"] for r in records])
    axes[0].scatter(bf, ppc, s=10)
    lo, hi = float(np.nanmin(bf)), float(np.nanmax(bf))
    axes[0].plot([lo, hi], [lo, hi], "k--", lw=0.8)
    axes[0].set_xlabel("BF objective")
    axes[0].set_ylabel("PPC objective")
    axes[0].set_title(f"max |PPC - BF| = {np.nanmax(np.abs(ppc - bf)):.2e}")
    iterations = [r["ppc"]["iterations"] for r in records]
    axes[1].hist(iterations, bins=np.arange(0.5, max(iterations) + 1.5))
    axes[1].set_xlabel("PPC iterations (LP solves)")
    axes[1].set_ylabel("sentences")
    figures.append(("Objective agreement and PPC iterations", _save(fig, stem, "objective")))
    return figures


def _bounds_figures(records: Sequence[Record], stem: Path) -> list[tuple[str, Path]]:
    labels, fractions = [], {p: [] for p in PRESETS}
    for lo, hi in BUCKETS:
        members = [r for r in records if lo <= r["n"] <= hi]
        if not members:
            continue
        labels.append(f"{lo}-{hi}" if hi < 10_000 else f"{lo}+")
        for preset in PRESETS:
            fractions[preset].append(np.mean([r[preset]["integral"] for r in members]))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    x = np.arange(len(labels))
    for i, preset in enumerate(PRESETS):
        axes[0].bar(x + (i - 1) * 0.27, fractions[preset], width=0.27, label=preset)
    axes[0].set_xticks(x, labels)
    axes[0].set_xlabel("sentence length")
    axes[0].set_ylabel("fraction integral")
    axes[0].set_ylim(0, 1.2)
    axes[0].legend(ncol=3, loc="upper center")
    _scatter_by_length(axes[1], records, {p: p for p in PRESETS}, "time_total")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("seconds per sentence")
    fig.suptitle("Outer bounds on the grandparent polytope")
    return [("Fraction of integral LP optima and time, per outer bound", _save(fig, stem, "bounds"))]


def _save(fig: plt.Figure, stem: Path, name: str) -> Path:
    path = stem.with_name(f"{stem.name}-{name}.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(results: Sequence[str | Path], out: str | Path) -> Path:
    """Write ``out`` (Markdown) with a table and plots for each results file; plots go beside it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    sections = [f"# lpparse report\n\nResults: {', '.join(str(r) for r in results)}\n"]
    for path in map(Path, results):
        records = read_results(path)
        if not records:
            raise ValueError(f"{path}: no results")
        kind = experiment_kind(records)
        rows = summarize(kind, records)
        headers = list(rows[0])
        stem = out.with_name(f"{out.stem}-{path.stem}")
        figures = _ppc_figures(records, stem) if kind == "ppc" else _bounds_figures(records, stem)
        title = "Table 1: PPC against BF" if kind == "ppc" else "Table 2: outer bounds"
        section = [f"## {path.stem}: {title} ({len(records)} sentences)\n"]
        section.append(markdown_table(headers, [[r[h] for h in headers] for r in rows], digits=3) + "\n")
        for caption, figure in figures:
            section.append(f"![{caption}]({figure.name})\n")
        sections.append("\n".join(section))
    out.write_text("\n".join(sections), encoding="utf-8")
    return out
