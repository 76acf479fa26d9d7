"""Branch and bound under two settings of one option of ``ExactOptions`` on the sentences of the dev sets
whose exact search branches: ``--option warm_basis --values false true`` (the default: a node's first LP
solve cold, or from its parent's final basis placed by label) or, say, ``--option branching --values gub
arc``; ``--set KEY=VALUE`` fixes another field in both settings.

Each dev set is first decoded by ``ppc`` to find the sentences whose root LP is fractional (the only ones
with children); on those, ``parse_exact`` runs under both settings in alternation on the same scores (one
core: ``taskset -c 0``), and the optima, nodes, first-solve simplex iterations and CPU times are compared.
Both proofs are re-checked from their duals (:func:`lpparse.exact.second_order.check_exact`). Writes
``benchmarks/results/<out>.{json,md}`` (default ``exact_<option>``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ppc import (
    LANGUAGE,
    MULTI_ROOT,
    combine,
    commands_line,
    dev_files,
    run_header,
    score_source,
    treebank_parser,
    write_results,
)

from lpparse.corpus import read_treebank
from lpparse.decoding import decode
from lpparse.exact.search import ExactOptions
from lpparse.exact.second_order import check_exact, parse_exact
from lpparse.experiments.grandparent_tables import sentence_scores
from lpparse.table import markdown_table


def _search(arcs: Any, triples: Any, single_root: bool, options: ExactOptions) -> dict[str, Any]:
    start = time.process_time()
    result = parse_exact(arcs, triples, "all", single_root, options=options)
    seconds = time.process_time() - start
    first = [r.rounds[0] for r in result.node_results.values() if r.rounds]
    return {
        "seconds": seconds,
        "objective": result.objective,
        "certified": result.certified and check_exact(arcs, triples, result) is None,
        "nodes": result.stats.nodes,
        "first_iterations": sum(r.simplex_iterations for r in first),
        "first_seconds": sum(r.solve_seconds for r in first),
    }


def _value(text: str) -> Any:
    """An option value from the command line: true/false, a number, or the text."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` from the command line as an ExactOptions field and its value."""
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--set takes KEY=VALUE, got {text!r}")
    return key, _value(value)


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    source = score_source(name, args.models)
    single_root = name not in MULTI_ROOT
    a, b = (str(v) for v in args.values)
    fixed = dict(_setting(text) for text in args.set)
    settings = {
        str(v): ExactOptions(keep_results=True, **{**fixed, args.option: _value(v)}) for v in args.values
    }
    rows = []
    for i, sentence in enumerate(read_treebank(path)):
        arcs, triples = sentence_scores(sentence, source, i)
        if decode("ppc", arcs, triples, single_root).stats["integral"]:
            continue
        row: dict[str, Any] = {"sentence": i, "n": sentence.n}
        for label, options in settings.items():
            arcs, triples = sentence_scores(sentence, source, i)  # fresh scorers: nothing scored yet
            row[label] = _search(arcs, triples, single_root, options)
        rows.append(row)
        print(
            f"{name} #{i} n={sentence.n}: "
            + ", ".join(f"{k} {row[k]['seconds']:.2f}s {row[k]['nodes']} nodes" for k in (a, b)),
            flush=True,
        )
    total = {k: sum(r[k]["seconds"] for r in rows) for k in (a, b)}
    worst = max(rows, key=lambda r: max(r[a]["seconds"], r[b]["seconds"]), default=None)
    return {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "score_model": source.describe(),
        "branching_sentences": len(rows),
        "same_optimum": all(abs(r[a]["objective"] - r[b]["objective"]) <= 1e-7 for r in rows),
        "certified": all(r[a]["certified"] and r[b]["certified"] for r in rows),
        "seconds": total,
        "speedup": total[a] / total[b] if total[b] else float("nan"),
        "nodes": {k: sum(r[k]["nodes"] for r in rows) for k in (a, b)},
        "first_iterations": {k: sum(r[k]["first_iterations"] for r in rows) for k in (a, b)},
        "worst": worst,
        "rows": rows,
    }


def markdown(result: dict[str, Any]) -> str:
    a, b = result["values"]
    table = []
    for tb in result["treebanks"]:
        worst = tb["worst"]
        table.append(
            {
                "dev set": tb["language"],
                "branching sentences": tb["branching_sentences"],
                "same optimum": tb["same_optimum"],
                "certified": tb["certified"],
                f"{a} s": tb["seconds"][a],
                f"{b} s": tb["seconds"][b],
                f"speed-up of {b}": tb["speedup"],
                f"nodes {a} / {b}": f"{tb['nodes'][a]} / {tb['nodes'][b]}",
                f"first-solve iterations {a} / {b}": f"{tb['first_iterations'][a]} / {tb['first_iterations'][b]}",
                "slowest sentence": (
                    f"#{worst['sentence']} n={worst['n']}: {worst[a]['seconds']:.2f} s / {worst[b]['seconds']:.2f} s"
                    if worst
                    else "-"
                ),
            }
        )
    return "\n".join(
        [
            f"# Branch and bound: {result['option']} = {a} against {b}",
            "",
            commands_line(result),
            "",
            "Sentences whose root LP is fractional; CPU seconds of `parse_exact` (features apart), the two settings "
            "alternated on the same scores. Both proofs re-checked from their duals.",
            "",
            markdown_table(list(table[0]), [list(row.values()) for row in table]) if table else "(none)",
            "",
        ]
    )


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "")
    parser.add_argument("--option", default="warm_basis", help="a field of ExactOptions")
    parser.add_argument("--values", nargs=2, default=["false", "true"], help="its two settings")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another field, the same in both settings",
    )
    parser.add_argument(
        "--combine", type=Path, nargs="+", default=None, metavar="JSON",
        help="write --out from the JSON results of dev sets run separately, say one per core (no run)",
    )
    args = parser.parse_args()
    args.out = args.out or f"exact_{args.option}"
    if args.combine:
        result = combine(args.combine, ("machine", "python", "option", "values", "set"))
        write_results(result, args.out, markdown(result))
        return
    result = {
        **run_header("exact_ablation.py"),
        "option": args.option,
        "values": [str(v) for v in args.values],
        "set": list(args.set),
        "treebanks": [run_treebank(p, args) for p in dev_files(args)],
    }
    write_results(result, args.out, markdown(result))


if __name__ == "__main__":
    main()
