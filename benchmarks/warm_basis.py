"""Branch and bound with and without warm node starts (``ExactOptions.warm_basis``: a node's first LP solve
starts from its parent's final basis, placed by label) on the sentences of the dev sets whose exact search
branches.

Each dev set is first decoded by ``ppc`` to find the sentences whose root LP is fractional (the only ones
with children); on those, ``parse_exact`` runs cold and warm in alternation on the same scores (one core:
``taskset -c 0``), and the optima, nodes, first-solve simplex iterations and CPU times are compared. Both
proofs are re-checked from their duals (:func:`lpparse.ppc.exact.check_exact`). Writes
``benchmarks/results/warm_basis.{json,md}``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ppc import LANGUAGE, MULTI_ROOT, dev_files, run_header, score_source, treebank_parser, write_results

from lpparse.corpus import read_treebank
from lpparse.decoding import decode
from lpparse.experiments.grandparent_tables import sentence_scores
from lpparse.ppc.exact import ExactOptions, check_exact, parse_exact
from lpparse.table import markdown_table


def _search(arcs: Any, triples: Any, single_root: bool, warm: bool) -> dict[str, Any]:
    start = time.process_time()
    result = parse_exact(
        arcs, triples, "all", single_root, options=ExactOptions(warm_basis=warm, keep_results=True)
    )
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


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    source = score_source(name, args.models)
    single_root = name not in MULTI_ROOT
    rows = []
    for i, sentence in enumerate(read_treebank(path)):
        arcs, triples = sentence_scores(sentence, source, i)
        if decode("ppc", arcs, triples, single_root).stats["integral"]:
            continue
        row: dict[str, Any] = {"sentence": i, "n": sentence.n}
        for warm in (False, True):
            arcs, triples = sentence_scores(sentence, source, i)  # fresh scorers: nothing scored yet
            row["warm" if warm else "cold"] = _search(arcs, triples, single_root, warm)
        rows.append(row)
        cold, warm = row["cold"], row["warm"]
        print(
            f"{name} #{i} n={sentence.n}: cold {cold['seconds']:.2f}s {cold['nodes']} nodes, "
            f"warm {warm['seconds']:.2f}s {warm['nodes']} nodes",
            flush=True,
        )
    total = {k: sum(r[k]["seconds"] for r in rows) for k in ("cold", "warm")}
    worst = max(rows, key=lambda r: r["cold"]["seconds"], default=None)
    return {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "score_model": source.describe(),
        "branching_sentences": len(rows),
        "same_optimum": all(abs(r["cold"]["objective"] - r["warm"]["objective"]) <= 1e-7 for r in rows),
        "certified": all(r["cold"]["certified"] and r["warm"]["certified"] for r in rows),
        "seconds": total,
        "speedup": total["cold"] / total["warm"] if total["warm"] else float("nan"),
        "nodes": {k: sum(r[k]["nodes"] for r in rows) for k in ("cold", "warm")},
        "first_iterations": {k: sum(r[k]["first_iterations"] for r in rows) for k in ("cold", "warm")},
        "worst": worst,
        "rows": rows,
    }


def markdown(result: dict[str, Any]) -> str:
    table = []
    for tb in result["treebanks"]:
        worst = tb["worst"]
        table.append(
            {
                "dev set": tb["language"],
                "branching sentences": tb["branching_sentences"],
                "same optimum": tb["same_optimum"],
                "certified": tb["certified"],
                "cold s": tb["seconds"]["cold"],
                "warm s": tb["seconds"]["warm"],
                "speed-up": tb["speedup"],
                "nodes cold / warm": f"{tb['nodes']['cold']} / {tb['nodes']['warm']}",
                "first-solve iterations cold / warm": (
                    f"{tb['first_iterations']['cold']} / {tb['first_iterations']['warm']}"
                ),
                "slowest (cold) sentence": (
                    f"#{worst['sentence']} n={worst['n']}: {worst['cold']['seconds']:.2f} s / "
                    f"{worst['warm']['seconds']:.2f} s"
                    if worst
                    else "-"
                ),
            }
        )
    return "\n".join(
        [
            "# Warm node starts in branch and bound",
            "",
            f"Command: `{result['command']}`",
            "",
            "Sentences whose root LP is fractional; CPU seconds of `parse_exact` (features apart), cold and warm "
            "node starts alternated on the same scores. Both proofs re-checked from their duals.",
            "",
            markdown_table(list(table[0]), [list(row.values()) for row in table]) if table else "(none)",
            "",
        ]
    )


def main() -> None:
    args = treebank_parser(__doc__.split("\n\n")[0], "warm_basis").parse_args()
    result = {**run_header("warm_basis.py"), "treebanks": [run_treebank(p, args) for p in dev_files(args)]}
    write_results(result, args.out, markdown(result))


if __name__ == "__main__":
    main()
