"""Parse, Price and Cut against brute force on treebank dev sets: Riedel, Smith & McCallum (2012)
Tables 1 and 2 by sentence-length bucket, with the paper's numbers next to ours.

The per-sentence work is :mod:`lpparse.experiments.grandparent_tables` (``ppc_task``: BF and PPC on the
``all`` LP; ``bounds_task``: BF under ``martins``, ``onegp``, ``all``; ``summarize``: the tables); this
script only chooses treebanks and models, samples sentences per length bucket, caps BF's sentence length,
measures PPC's one-core throughput over a whole dev set and writes JSON and Markdown.

Score model per treebank: the trained grandparent model ``<models>/v2/<treebank>-2.npz``, else
``<models>/<treebank>-2.npz`` (``benchmarks/train_treebanks.sh``), else the synthetic noisy-gold stand-in
(:class:`~lpparse.experiments.grandparent_tables.ScoreSource`); the tables say which. Times include
scoring triples and building the LPs, not feature extraction. Run on one core:
``taskset -c 1 python benchmarks/ppc.py --throughput ../shared/treebanks/da_ddt/ddt-cdt-dev.conll``.
Writes ``benchmarks/results/ppc.json`` and ``ppc.md`` (``--out`` changes the stem).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lpparse.corpus import Sentence, read_treebank
from lpparse.experiments.grandparent_tables import (
    BUCKETS,
    PAPER_TABLE1,
    PAPER_TABLE2,
    ScoreSource,
    bounds_task,
    ppc_task,
    sentence_scores,
    summarize,
)
from lpparse.io import relative_paths
from lpparse.ppc import parse_price_cut
from lpparse.table import markdown_table

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
MULTI_ROOT = {"da_ddt"}  # CoNLL-X Danish allows several roots; the UD treebanks have one
LANGUAGE = {"da_ddt": "Danish", "it_partut": "Italian", "hu_szeged": "Hungarian", "en_ewt": "English"}
TABLE1 = (
    "sentences",
    "count",
    "speed rel. BF",
    "median speed-up",
    "PPC sent/s",
    "grandparent scored rel. BF",
    "grandparent added rel. BF",
    "objective = BF",
    "% integral BF",
    "% integral PPC",
    "PPC iterations",
)
TABLE2 = (
    "sentences",
    "count",
    "onegp speed rel. martins",
    "all speed rel. martins",
    "martins % integral",
    "onegp % integral",
    "all % integral",
    "all <= martins, onegp",
)


def score_source(name: str, models: Path) -> ScoreSource:
    for path in (models / "v2" / f"{name}-2.npz", models / f"{name}-2.npz"):
        if path.exists():
            return ScoreSource(model=str(path))
    return ScoreSource()


def sample(sentences: list[Sentence], per_bucket: int, max_n: int, rng: np.random.Generator) -> list[int]:
    """``per_bucket`` random sentences of each length bucket (up to ``max_n`` tokens), in file order."""
    chosen: list[int] = []
    for lo, hi in BUCKETS:
        idx = [i for i, s in enumerate(sentences) if lo <= s.n <= min(hi, max_n)]
        chosen += rng.permutation(idx)[:per_bucket].tolist()
    return sorted(chosen)


def run_treebank(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    name = path.parent.name
    source = score_source(name, args.models)
    sentences = read_treebank(path)
    ppc, bounds = [], []
    for i in sample(sentences, args.per_bucket, args.bf_max_n, np.random.default_rng(0)):
        s = sentences[i]
        payload = {"sentence": s, "source": source, "seed": i, "single_root": name not in MULTI_ROOT}
        ppc.append(ppc_task(payload))
        if s.n <= args.table2_max_n:
            bounds.append(bounds_task(payload))
        r = ppc[-1]
        print(
            f"{name} #{i} n={s.n}: PPC {r['ppc']['time_total']:.3f}s BF {r['bf']['time_total']:.3f}s",
            flush=True,
        )
    return {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "score_model": source.describe(),
        "single_root": name not in MULTI_ROOT,
        "table1": summarize("ppc", ppc),
        "table2": summarize("bounds", bounds) if bounds else [],
        "ppc": ppc,
        "bounds": bounds,
    }


def throughput(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """PPC over a whole dev set: wall time per sentence including scoring (feature extraction apart)."""
    name = path.parent.name
    source = score_source(name, args.models)
    single_root = name not in MULTI_ROOT
    sentences = read_treebank(path)
    certified = integral = 0
    seconds = features = 0.0
    for i, s in enumerate(sentences):
        start = time.perf_counter()
        arcs, triples = sentence_scores(s, source, i)
        mid = time.perf_counter()
        result = parse_price_cut(arcs, triples, "all", single_root)
        seconds += time.perf_counter() - mid
        features += mid - start
        certified += result.certified
        integral += result.integral
    return {
        "treebank": name,
        "score_model": source.describe(),
        "sentences": len(sentences),
        "seconds": seconds,
        "feature_seconds": features,
        "sentences_per_second": len(sentences) / seconds,
        "sentences_per_second_with_features": len(sentences) / (seconds + features),
        "certified": certified,
        "integral": integral,
    }


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _cells(row: dict[str, Any], keys: tuple[str, ...]) -> list[Any]:
    """Table cells; shares of BF's triples as percentages, speeds as factors."""
    out: list[Any] = []
    for k in keys:
        v = row[k]
        if k.endswith(("scored rel. BF", "added rel. BF")) and isinstance(v, float):
            v = f"{100 * v:.1f}%"
        elif ("speed" in k) and isinstance(v, float):
            v = f"{v:.2f}x"
        out.append(v)
    return out


def paper_rows(language: str) -> list[str]:
    lines = []
    if language in PAPER_TABLE1:
        p = PAPER_TABLE1[language]
        lines.append(
            f"Paper (Table 1, {language} test set): speed rel. BF {p['speed']}x, GPs scored {_pct(p['scored'])}, "
            f"added {_pct(p['added'])}, {_pct(p['integral'])} integral, UAS {_pct(p['uas'])}."
        )
    if language in PAPER_TABLE2:
        cells = ", ".join(f"{k} {v[0]}x / {_pct(v[1])} integral" for k, v in PAPER_TABLE2[language].items())
        lines.append(f"Paper (Table 2, {language}): speed rel. martins / % integral: {cells}.")
    return lines


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Parse, Price and Cut vs brute force (Riedel, Smith & McCallum 2012, Tables 1-2)",
        "",
        __doc__.split("\n\n")[1],
        "",
        f"Command: `{result['command']}`",
        "",
        *([result["note"], ""] if result.get("note") else []),
        (
            "Targets on 20+ tokens (one core): median speed-up >= 8x, GPs scored <= 13%, added <= 7%; "
            "PPC >= 20 sentences/s over the whole Danish dev set. BF (and so Table 1) is capped at "
            f"{result['bf_max_n']} tokens, Table 2 at {result['table2_max_n']}."
        ),
        "",
    ]
    for tb in result["treebanks"]:
        root = "single-root" if tb["single_root"] else "multi-root"
        lines += [
            f"## {tb['treebank']} ({tb['language']}; {tb['score_model']}; {root})",
            "",
            "Table 1: PPC vs BF (preset all)",
            "",
            markdown_table(TABLE1, [_cells(r, TABLE1) for r in tb["table1"]], digits=1),
            "",
        ]
        lines += paper_rows(tb["language"]) + [""]
        if tb["table2"]:
            lines += [
                "Table 2: outer bounds (BF)",
                "",
                markdown_table(TABLE2, [_cells(r, TABLE2) for r in tb["table2"]], digits=1),
                "",
            ]
    for t in result["throughput"]:
        lines.append(
            f"Throughput, whole {t['treebank']} dev set ({t['score_model']}): {t['sentences']} sentences, PPC "
            f"{t['seconds']:.1f} s = **{t['sentences_per_second']:.1f} sentences/s** "
            f"({t['sentences_per_second_with_features']:.1f}/s with feature extraction); certified "
            f"{t['certified']}, integral {t['integral']}. Paper: about 1 sentence/s."
        )
    lines += ["", SIBLINGS_POINTER]
    return "\n".join(lines) + "\n"


#: Where the grandparent + sibling tables live (benchmarks/siblings.py writes them)
SIBLINGS_POINTER = (
    "Grandparent + sibling parts: `benchmarks/results/siblings.md` (`benchmarks/siblings.py`) has PPC against "
    "BF on the four dev sets, the dev UAS of the first-order, grandparent and grandparent + sibling models "
    "(rounded LP, BP, and exact over pruned arcs) and the Danish throughput of every decoder."
)


def pinned() -> list[str]:
    """``taskset -c <cpu>`` when the process runs on one core (the benchmark's setting), else nothing."""
    cpus = os.sched_getaffinity(0)
    return ["taskset", "-c", str(min(cpus))] if len(cpus) == 1 else []


def treebank_parser(description: str, out: str) -> argparse.ArgumentParser:
    """The options every treebank benchmark shares: ``--treebanks``, ``--shared``, ``--models``, ``--out``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--treebanks", type=Path, nargs="*", default=None, help="dev files (default: all)")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "treebanks")
    parser.add_argument("--models", type=Path, default=REPO.parent / "models")
    parser.add_argument("--out", default=out, help="stem of the files written to benchmarks/results/")
    return parser


def dev_files(args: argparse.Namespace) -> list[Path]:
    return args.treebanks if args.treebanks is not None else sorted(args.shared.glob("*/*dev*.conll*"))


def commands_line(result: dict[str, Any]) -> str:
    """The Markdown line naming the commands of a result (one run's ``command``, or a combined ``commands``)."""
    return "Command: " + ", ".join(f"`{c}`" for c in result.get("commands", [result.get("command")]))


def document(title: str, result: dict[str, Any], note: str, table: str, footer: str) -> str:
    """A result's Markdown: its title, commands, a note on how it was measured, its table and a footer."""
    return "\n".join([f"# {title}", "", commands_line(result), "", note, "", table, "", footer, ""])


def run_header(script: str) -> dict[str, Any]:
    """The command (with its one-core pinning), machine and Python of this run."""
    return {
        "command": shlex.join([*pinned(), "python", f"benchmarks/{script}", *sys.argv[1:]]),
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
    }


def _row_key(row: dict[str, Any]) -> Any:
    """What a result row is of: its treebank, or the size and seed of a random instance."""
    return row["treebank"] if "treebank" in row else (row["n"], row["seed"])


def _merge(rows: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` and then ``new``, whose row of a treebank (or random instance) replaces ``rows``' own."""
    names = {_row_key(row) for row in new}
    return [row for row in rows if _row_key(row) not in names] + new


def combine(paths: list[Path], keys: tuple[str, ...], per_treebank: tuple[str, ...] = ()) -> dict[str, Any]:
    """One result from the results of parts run separately: the treebanks of all files in order, and likewise
    the rows of each of ``per_treebank`` (a later file's run of a treebank or random instance replaces an
    earlier one), the last non-empty value of each of ``keys``, and every file's command."""
    lists = ("treebanks", *per_treebank)
    result: dict[str, Any] = {"commands": [], **{key: [] for key in lists}}
    for path in paths:
        part = json.loads(path.read_text())
        result["commands"] += part.get("commands", [part.get("command")])
        result.update({key: part[key] for key in keys if part.get(key)})
        for key in lists:
            result[key] = _merge(result[key], part.get(key, []))
    return result


def add_combine(parser: argparse.ArgumentParser) -> None:
    """``--combine``: merge the JSON results of dev sets run separately instead of running
    (:func:`run_treebanks`)."""
    parser.add_argument(
        "--combine", type=Path, nargs="+", default=None, metavar="JSON",
        help="write --out from the JSON results of dev sets run separately (no run)",
    )


def run_treebanks(
    script: str,
    args: argparse.Namespace,
    run: Callable[[Path, argparse.Namespace], dict[str, Any]],
    markdown: Callable[[dict[str, Any]], str],
    header: dict[str, Any] | None = None,
) -> None:
    """A treebank benchmark's run: ``run`` on every dev file of ``args``, the result (with the fields of
    ``header``) written under ``args.out`` as JSON and as ``markdown``; with ``args.combine``
    (:func:`add_combine`), the parts it names merged instead."""
    header = header or {}
    if getattr(args, "combine", None):
        result = combine(args.combine, ("machine", "python", *header))
    else:
        result = {**run_header(script), **header, "treebanks": [run(p, args) for p in dev_files(args)]}
    write_results(result, args.out, markdown(result))


def write_results(result: dict[str, Any], out: str, text: str) -> None:
    """``benchmarks/results/<out>.json`` and ``.md``; prints the Markdown."""
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{out}.json").write_text(relative_paths(json.dumps(result, indent=1, default=float), REPO))
    (RESULTS / f"{out}.md").write_text(relative_paths(text, REPO))
    print(text)


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "ppc")
    parser.add_argument("--per-bucket", type=int, default=6, help="sentences per length bucket")
    parser.add_argument("--bf-max-n", type=int, default=60, help="longest sentence for Table 1 (BF)")
    parser.add_argument("--table2-max-n", type=int, default=30)
    parser.add_argument("--throughput", type=Path, nargs="*", default=[], help="dev files to parse whole")
    parser.add_argument("--note", default="", help="a sentence on the run's conditions, printed under the command")
    args = parser.parse_args()
    result: dict[str, Any] = {
        **run_header("ppc.py"),
        "note": args.note,
        "bf_max_n": args.bf_max_n,
        "table2_max_n": args.table2_max_n,
        "treebanks": [run_treebank(p, args) for p in dev_files(args)],
        "throughput": [throughput(p, args) for p in args.throughput],
    }
    write_results(result, args.out, markdown(result))


if __name__ == "__main__":
    main()
