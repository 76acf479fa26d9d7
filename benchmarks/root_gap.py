"""Which valid rows would close the root gap of exact grandparent decoding: a measurement on the dev
sentences whose branch and bound needs the most nodes.

For each dev set, every sentence's exact search runs (trained grandparent model, as ``benchmarks/exact.py``);
the ``--hardest`` sentences by nodes are kept. On each, over the arcs that the root's reduced-cost fixing
leaves, the full grandparent LP (every candidate triple, :func:`lpparse.families.grandparent.rows.
full_grandparent_program`) is tightened by:

* **cycles of consecutive triples**: Σ_i zgp[v(i-1), v(i), v(i+1)] <= k - 2 around a cycle v(1..k) of the LP
  point's arcs (valid: k - 1 consecutive triples of the cycle hold all its k arcs, and a tree has no cycle),
  separated on the support graph (``networkx.simple_cycles``, cycles of at most ``--cycle-length`` tokens)
  until none is violated;
* **HiGHS's MIP root** (presolve off, one node, ``--mip-limit`` seconds): its dual bound after its own
  separators, and its cut pool at the end, classified by the variable blocks each cut touches (``z`` arcs,
  ``zgp`` triples, ``phi`` flows).

Reported: the share of the gap between the root bound and the optimum that each closes. Writes
``benchmarks/results/<out>.{json,md}`` (default ``root_gap``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from ppc import LANGUAGE, MULTI_ROOT, commands_line, run_treebanks, score_source, treebank_parser

from lpparse.corpus import read_treebank
from lpparse.exact.second_order import parse_exact
from lpparse.experiments.grandparent_tables import sentence_scores
from lpparse.families.grandparent.rows import GrandparentProgram, full_grandparent_program
from lpparse.lp.cut_pool import blocks, mip_pool
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import Terms
from lpparse.table import markdown_table


def _closed(bound: float, root: float, optimum: float) -> float:
    """The percentage of the root gap that ``bound`` closes."""
    return 100.0 * (root - bound) / (root - optimum) if root > optimum else float("nan")


def triple_cycles(prog: GrandparentProgram, length: int) -> dict[str, Any]:
    """The LP bound after separating cycles of consecutive triples on ``prog`` until none is violated."""
    lp, start = prog.lp, time.process_time()
    g, p, c = prog.triples()
    column = np.full((prog.n + 1,) * 3, -1, np.int64)
    column[g, p, c] = lp.cols("zgp")
    rows, rounds = 0, 0
    while True:
        sol = HighsModel(lp).solve(certify=False)
        z = prog.arc_values(sol.x)
        support = nx.DiGraph(zip(*(a.tolist() for a in np.nonzero(z > 1e-6))))
        cuts = []
        for cycle in nx.simple_cycles(support, length_bound=length):
            k = len(cycle)
            if k < 3:
                continue
            cols = column[cycle[-1:] + cycle[:-1], cycle, cycle[1:] + cycle[:1]]
            if cols.min() >= 0 and sol.x[cols].sum() > k - 2 + 1e-6:
                cuts.append(cols)
        if not cuts:
            break
        sizes = np.array([cols.size for cols in cuts])
        labels = np.column_stack([rows + np.arange(sizes.size), sizes])
        terms = Terms.columns(np.concatenate(cuts)).at(np.repeat(labels, sizes, axis=0))
        lp.constrain("TripleCycle", labels, terms, upper=sizes - 2.0)
        rows, rounds = rows + sizes.size, rounds + 1
    return {"bound": sol.objective, "rows": rows, "rounds": rounds, "seconds": time.process_time() - start}


def mip_root(prog: GrandparentProgram, limit: float) -> dict[str, Any]:
    """HiGHS's MIP at its root node (presolve off): its dual bound and its final cut pool by blocks."""
    bound, cuts, seconds = mip_pool(prog.lp, limit)
    return {"bound": bound, "cuts": dict(blocks(prog.lp, cuts)), "seconds": seconds}


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    source = score_source(name, args.models)
    single_root = name not in MULTI_ROOT
    sentences = read_treebank(path)
    nodes = []
    for i, sentence in enumerate(sentences):
        arcs, triples = sentence_scores(sentence, source, i)
        nodes.append((parse_exact(arcs, triples, "all", single_root).stats.nodes, i))
    rows = []
    for count, i in sorted(nodes, reverse=True)[: args.hardest]:
        arcs, triples = sentence_scores(sentences[i], source, i)
        exact = parse_exact(arcs, triples, "all", single_root)
        root = exact.nodes[0]
        program = lambda: full_grandparent_program(  # noqa: E731
            np.where(root.base_mask(), arcs, -np.inf), triples, "all", single_root
        )
        cycles, mip = triple_cycles(program(), args.cycle_length), mip_root(program(), args.mip_limit)
        row = {
            "sentence": i,
            "n": sentences[i].n,
            "nodes": count,
            "root": root.bound,
            "optimum": exact.objective,
            "cycles": cycles,
            "mip": mip,
        }
        rows.append(row)
        print(
            f"{name} #{i} n={sentences[i].n}: {count} nodes, gap {root.bound - exact.objective:.3f}; "
            f"triple cycles close {_closed(cycles['bound'], root.bound, exact.objective):.1f}%, "
            f"HiGHS's root {_closed(mip['bound'], root.bound, exact.objective):.1f}% "
            f"({sum(mip['cuts'].values())} cuts)",
            flush=True,
        )
    return {"treebank": name, "language": LANGUAGE.get(name, name), "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    head = [
        "sentence", "n", "nodes", "root bound", "optimum", "triple cycles: rows / % closed",
        "HiGHS root: % closed", "HiGHS's cut pool by blocks",
    ]
    body = []
    for tb in result["treebanks"]:
        for r in tb["rows"]:
            root, opt = r["root"], r["optimum"]
            cuts = ", ".join(f"{k}: {v}" for k, v in sorted(r["mip"]["cuts"].items(), key=lambda kv: -kv[1]))
            body.append([
                f"{tb['language']} #{r['sentence']}", r["n"], r["nodes"], root, opt,
                f"{r['cycles']['rows']} / {_closed(r['cycles']['bound'], root, opt):.1f}",
                f"{_closed(r['mip']['bound'], root, opt):.1f}", cuts or "-",
            ])
    return (
        "# Root gap of exact grandparent decoding: which rows close it\n\n"
        f"{commands_line(result)}\n\n" + "\n\n".join(__doc__.split("\n\n")[1:4]) + "\n\n"
        f"{markdown_table(head, body, digits=2)}\n"
    )


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "root_gap")
    parser.add_argument("--hardest", type=int, default=3, help="sentences per dev set, by nodes")
    parser.add_argument("--cycle-length", type=int, default=6, help="longest cycle separated")
    parser.add_argument("--mip-limit", type=float, default=120.0, help="seconds for HiGHS's MIP root")
    args = parser.parse_args()
    run_treebanks("root_gap.py", args, run_treebank, markdown)


if __name__ == "__main__":
    main()
