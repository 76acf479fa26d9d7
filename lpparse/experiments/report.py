"""Reports on experiment results: plots (matplotlib, PNG) and a Markdown page with the summary tables.

Reads the JSONL files written by ``lpparse experiment`` and recognizes each kind by its records: ``ppc``
(Table 1: ``bf`` and ``ppc`` per sentence) and ``bounds`` (Table 2: ``martins``, ``onegp``, ``all``, or with
other part families their relaxations and ``single-flow``/``multi-flow``); the
JSONL of ``lpparse dd`` (``dd``: Rush et al. 2010 Table 1, the certificate curve and dual-gap traces, Rush &
Collins 2012 §7.1 Fig. 8) and the JSON of :mod:`lpparse.experiments.bp_sweep` (``bp-sweep``: UAS against BP
iterations K per training objective, Gormley et al. 2015 Fig. 3).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from numpy.typing import NDArray

from lpparse.experiments.dd_table import bucket_table, from_dict
from lpparse.experiments.grandparent_tables import (
    BASES,
    BUCKETS,
    PRESETS,
    bound_labels,
    family_counts,
    summarize,
)
from lpparse.experiments.runner import read_results
from lpparse.io import DataError, atomic_path, atomic_write
from lpparse.table import markdown_table

__all__ = ["experiment_kind", "load_results", "write_report"]

Record = dict[str, Any]


def load_results(path: str | Path) -> list[Record]:
    """The records of a results file: JSONL lines (but those of failed tasks), or the ``rows`` of a
    ``{"meta", "rows"}`` JSON (BP sweep)."""
    path = Path(path)
    if path.suffix == ".json":
        try:
            return json.loads(path.read_text(encoding="utf-8"))["rows"]
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise DataError(f"{path}: not a BP sweep file ({type(err).__name__}: {err})") from None
    return [r for r in read_results(path) if not r.get("failed")]


def experiment_kind(records: Sequence[Record]) -> str:
    """``ppc``, ``bounds``, ``dd`` or ``bp-sweep``, from the fields of the records."""
    if not records:
        raise ValueError("no records")
    keys = set(records[0])
    if {"bf", "ppc"} <= keys:
        return "ppc"
    if set(PRESETS) <= keys or set(BASES) & keys:
        return "bounds"
    if {"certified_at", "dual", "primal", "dd_bound"} <= keys:
        return "dd"
    if {"iterations", "objective", "uas_bp", "uas_exact"} <= keys:
        return "bp-sweep"
    raise DataError(f"records of an unknown experiment (fields {sorted(keys)})")


def _scatter_by_length(ax: plt.Axes, records: Sequence[Record], series: dict[str, str], field: str) -> None:
    n = np.array([r["n"] for r in records])
    for label, key in series.items():
        ax.scatter(n, [r[key][field] for r in records], s=10, alpha=0.6, label=label)
    ax.set_xlabel("sentence length n")
    ax.legend()


def _ppc_figures(records: Sequence[Record], stem: Path) -> list[tuple[str, Path]]:
    """Time, parts scored and added, and objective agreement of PPC against BF."""
    return [_time_figure(records, stem), _parts_figure(records, stem), _objective_figure(records, stem)]


def _time_figure(records: Sequence[Record], stem: Path) -> tuple[str, Path]:
    fig, ax = plt.subplots(figsize=(6, 4))
    _scatter_by_length(ax, records, {"BF": "bf", "PPC": "ppc"}, "time_total")
    ax.set_yscale("log")
    ax.set_ylabel("seconds per sentence")
    ax.set_title("Time against length")
    return "Time against sentence length (log scale)", _save(fig, stem, "time")


def _counts(records: Sequence[Record], name: str, method: str, what: str) -> NDArray[np.float64]:
    """Per record, the ``what`` count (scored, added) of the part family ``name`` in ``method``'s run."""
    return np.array([family_counts(r[method]).get(name, {}).get(what, 0) for r in records], float)


def _parts_figure(records: Sequence[Record], stem: Path) -> tuple[str, Path]:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    n = np.array([r["n"] for r in records])
    names = list(dict.fromkeys(name for r in records for name in family_counts(r["bf"])))
    for i, name in enumerate(names):
        count = functools.partial(_counts, records, name)
        total = count("bf", "scored")
        axes[0].scatter(n, total, s=10, alpha=0.6, color=f"C{i}", marker="o", label=f"{name}: BF (all)")
        axes[0].scatter(
            n, count("ppc", "scored"), s=10, alpha=0.6, color=f"C{i}", marker="^", label=f"{name}: PPC scored"
        )
        axes[0].scatter(
            n, count("ppc", "added"), s=10, alpha=0.6, color=f"C{i}", marker="x", label=f"{name}: PPC added"
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            axes[1].scatter(
                n,
                count("ppc", "scored") / total,
                s=10,
                color=f"C{i}",
                marker="^",
                label=f"{name}: scored / BF",
            )
            axes[1].scatter(
                n, count("ppc", "added") / total, s=10, color=f"C{i}", marker="x", label=f"{name}: added / BF"
            )
    axes[0].set_xlabel("sentence length n")
    axes[0].legend(fontsize=7)
    axes[0].set_yscale("log")
    axes[0].set_ylabel("parts")
    axes[1].set_xlabel("sentence length n")
    axes[1].set_ylabel("fraction of all candidate parts")
    axes[1].legend(fontsize=7)
    fig.suptitle("Parts scored and added, per family")
    return "Parts scored and added per family, against length", _save(fig, stem, "triples")


def _objective_figure(records: Sequence[Record], stem: Path) -> tuple[str, Path]:
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
    return "Objective agreement and PPC iterations", _save(fig, stem, "objective")


def _bounds_figures(records: Sequence[Record], stem: Path) -> list[tuple[str, Path]]:
    bounds = bound_labels(records[0])
    labels: list[str] = []
    fractions: dict[str, list[float]] = {b: [] for b in bounds}
    for lo, hi in BUCKETS:
        members = [r for r in records if lo <= r["n"] <= hi]
        if not members:
            continue
        labels.append(f"{lo}-{hi}" if hi < 10_000 else f"{lo}+")
        for bound in bounds:
            fractions[bound].append(float(np.mean([r[bound]["integral"] for r in members])))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    x = np.arange(len(labels))
    width = 0.8 / len(bounds)
    for i, bound in enumerate(bounds):
        axes[0].bar(x + (i - (len(bounds) - 1) / 2) * width, fractions[bound], width=width, label=bound)
    axes[0].set_xticks(x, labels)
    axes[0].set_xlabel("sentence length")
    axes[0].set_ylabel("fraction integral")
    axes[0].set_ylim(0, 1.2)
    axes[0].legend(ncol=3, loc="upper center", fontsize=7)
    _scatter_by_length(axes[1], records, {b: b for b in bounds}, "time_total")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("seconds per sentence")
    fig.suptitle("Outer bounds of the second-order polytope")
    return [("Fraction of integral LP optima and time, per outer bound", _save(fig, stem, "bounds"))]


def _dd_figures(records: Sequence[Record], stem: Path) -> list[tuple[str, Path]]:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    k_max = max(len(r["dual"]) for r in records)
    at = np.array([r["certified_at"] or np.inf for r in records], dtype=float)
    k = np.arange(1, k_max + 1)
    axes[0].step(k, [100.0 * np.mean(at <= i) for i in k], where="post")
    axes[0].set_xscale("log")
    axes[0].set_ylim(0, 105)
    axes[0].set_xlabel("iteration k")
    axes[0].set_ylabel("% of sentences certified by k")
    axes[0].set_title(f"Certificates ({100 * np.mean(np.isfinite(at)):.1f}% in the end)")
    # the hardest sentences: never certified first, then the latest certificates
    for r in sorted(records, key=lambda r: -(r["certified_at"] or np.inf))[:5]:
        dual = np.minimum.accumulate(np.array(r["dual"], dtype=float))
        primal = np.fmax.accumulate(np.array(r["primal"], dtype=float))
        axes[1].plot(np.arange(1, dual.shape[0] + 1), dual - primal, label=f"{r['sent_id']} (n={r['n']})")
    axes[1].set_yscale("symlog", linthresh=1e-3)
    axes[1].set_xlabel("iteration k")
    axes[1].set_ylabel("min L(u) − best primal")
    axes[1].set_title("Dual gap of the slowest sentences")
    axes[1].legend(fontsize=7)
    return [("Certificate curve and dual-gap traces", _save(fig, stem, "dd"))]


def _bp_sweep_figures(records: Sequence[Record], stem: Path) -> list[tuple[str, Path]]:
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, objective in enumerate(dict.fromkeys(r["objective"] for r in records)):
        rows = sorted((r for r in records if r["objective"] == objective), key=lambda r: r["iterations"])
        k = [r["iterations"] for r in rows]
        ax.plot(k, [100 * r["uas_bp"] for r in rows], "o-", color=f"C{i}", label=f"{objective}: BP-MBR")
        ax.plot(k, [100 * r["uas_exact"] for r in rows], "s--", color=f"C{i}", label=f"{objective}: exact GP")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("BP iterations K (training and decoding)")
    ax.set_ylabel("dev UAS (%)")
    ax.legend(fontsize=7)
    ax.set_title("UAS against BP iterations, per training objective")
    return [("UAS against BP iterations K per objective", _save(fig, stem, "bp"))]


def _summary(kind: str, records: Sequence[Record]) -> tuple[str, list[str], list[list[Any]]]:
    """Section title, table headers and rows of one results file."""
    if kind == "dd":
        buckets = bucket_table([from_dict(r) for r in records], max(r["iterations"] for r in records))
        title = "Dependency DD, % certified per iteration bucket (Rush et al. 2010, Table 1)"
        return title, [b for b, _ in buckets], [[p for _, p in buckets]]
    if kind == "bp-sweep":
        objectives = list(dict.fromkeys(r["objective"] for r in records))
        headers = ["K"] + [f"{o} {m}" for o in objectives for m in ("BP", "exact")]
        uas = {(r["iterations"], r["objective"]): r for r in records}
        table = [
            [k]
            + [
                100 * uas[k, o][f"uas_{m}"] if (k, o) in uas else None
                for o in objectives
                for m in ("bp", "exact")
            ]
            for k in sorted({r["iterations"] for r in records})
        ]
        return "BP sweep: dev UAS (%) by iterations K and objective", headers, table
    rows = summarize(kind, records)
    headers = list(rows[0])
    title = "Table 1: PPC against BF" if kind == "ppc" else "Table 2: outer bounds"
    return title, headers, [[r[h] for h in headers] for r in rows]


FIGURES = {"ppc": _ppc_figures, "bounds": _bounds_figures, "dd": _dd_figures, "bp-sweep": _bp_sweep_figures}


def _save(fig: plt.Figure, stem: Path, name: str) -> Path:
    path = stem.with_name(f"{stem.name}-{name}.png")
    fig.tight_layout()
    with atomic_path(path) as temporary:
        fig.savefig(temporary, dpi=110)
    plt.close(fig)
    return path


def write_report(results: Sequence[str | Path], out: str | Path) -> Path:
    """Write ``out`` (Markdown) with a table and plots for each results file; plots go beside it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    sections = [f"# lpparse report\n\nResults: {', '.join(str(r) for r in results)}\n"]
    loaded = []
    for path in map(Path, results):  # every input read and checked before any plot is written
        records = load_results(path)
        if not records:
            raise DataError(f"{path}: no results")
        loaded.append((path, records, experiment_kind(records)))
    stems = [path.stem for path in map(Path, results)]
    for i, (path, records, kind) in enumerate(loaded):
        title, headers, table = _summary(kind, records)
        label = (
            path.stem if stems.count(path.stem) == 1 else f"{path.stem}-{i + 1}"
        )  # a/ppc, b/ppc: ppc-1, ppc-2
        stem = out.with_name(f"{out.stem}-{label}")
        figures = FIGURES[kind](records, stem)
        count = f"{len(records)} runs" if kind == "bp-sweep" else f"{len(records)} sentences"
        section = [f"## {path}: {title} ({count})\n"]
        section.append(markdown_table(headers, table, digits=3) + "\n")
        for caption, figure in figures:
            section.append(f"![{caption}]({figure.name})\n")
        sections.append("\n".join(section))
    with atomic_write(out) as handle:
        handle.write("\n".join(sections))
    return out
