"""Which valid rows would close the root gap of the full model's exact decoding (consecutive siblings, grand-
and tri-siblings, grandparents, arbitrary siblings): HiGHS's MIP root cuts on the Danish dev sentences whose
search needs the most nodes.

Each dev sentence is decoded exactly over the pruner's arcs, as ``benchmarks/exact_siblings.py --model 2f-lp``
does; the ``--hardest`` sentences by nodes are kept. On each, the root's own program (every candidate part,
the root's GSibGP cuts and NoCycle rows) goes to HiGHS's MIP with every column integer, presolve off (so that
its cut pool speaks of the program's columns) and one node (``--mip-limit`` seconds). Reported: the share of
the gap between the root bound and the optimum that HiGHS's root closes, that its final cut pool closes on the
LP, and that the pool's cuts of at most ``--small`` terms close alone, with those small cuts by the variable
blocks they touch and a few of them written out (cliques of parts no tree holds together, such cliques tied
to an arc they all imply, flow aggregations over one head's windows). Writes
``benchmarks/results/<out>.{json,md}`` (default ``root_gap_full``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from ppc import LANGUAGE, commands_line, run_treebanks, treebank_parser
from root_gap import Cut, _closed, blocks, mip_pool

from lpparse.corpus import read_treebank
from lpparse.decoding import pruning_keep
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.families.third_order.family import window_parts
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import LinearProgram
from lpparse.parsing import triple_bounds
from lpparse.ppc.loop import second_order_parts
from lpparse.pruning import ArcPruning
from lpparse.scoring.model import Model
from lpparse.table import markdown_table


def root_program(
    model: Model, pruner: Model, sentence: Any, time_limit: float
) -> tuple[Any, LinearProgram]:
    """The exact search of one sentence (full model over the pruner's arcs) and its root's program."""
    pruning = ArcPruning(**((model.training or {}).get("config", {}).get("pruning") or {}))
    keep = pruning_keep("exact", pruner.scorer(sentence).arc_scores(), pruning, model.single_root)
    scorer = model.scorer(sentence, keep)
    sibling = scorer.siblings() if model.siblings else None
    windows = window_parts(sentence.n, *scorer.window_scorers())
    triples = scorer.triples(triple_bounds("auto", True))
    parts = second_order_parts(triples, "all", sibling, "martins", windows)
    options = ExactOptions(keep_results=True, branching="arc")
    result = exact_search(scorer.arc_scores(), parts, model.single_root, time_limit, options)
    return result, result.node_results[0].program.lp


def lp_with(lp: LinearProgram, cuts: list[Cut]) -> float:
    """The LP value of ``lp`` with ``cuts`` added."""
    model = HighsModel(lp, options={"presolve": "off"})
    for cols, vals, lo, up in cuts:
        model.highs.addRow(lo, up, cols.size, cols.astype(np.int32), vals.astype(np.float64))
    model.highs.run()
    return float(model.highs.getInfo().objective_function_value)


def _written(lp: LinearProgram, cut: Cut) -> str:
    names = list(lp.col_names())
    cols, vals, lo, up = cut
    terms = " ".join(f"{v:+g} {names[c]}" for c, v in zip(cols, vals))
    return f"{terms} <= {up:g}" if np.isinf(lo) else f"{lo:g} <= {terms} <= {up:g}"


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    model = Model.load(args.models / f"{name}-{args.model}.npz")
    pruner = Model.load(args.models / f"{name}-1.npz")
    sentences = read_treebank(path)
    nodes = []
    for i, sentence in enumerate(sentences):
        result, _ = root_program(model, pruner, sentence, args.time_limit)
        nodes.append((result.stats.nodes, i))
    rows = []
    for count, i in sorted(nodes, reverse=True)[: args.hardest]:
        result, lp = root_program(model, pruner, sentences[i], args.time_limit)
        root, optimum = result.stats.root_bound, result.objective
        mip, cuts, seconds = mip_pool(lp, args.mip_limit, all_integer=True)
        small = [c for c in cuts if c[0].size <= args.small]
        kinds = blocks(lp, small)
        row = {
            "sentence": i, "n": sentences[i].n, "nodes": count, "root": root, "optimum": optimum,
            "mip": mip, "mip_seconds": seconds, "cuts": len(cuts), "small": len(small),
            "pool": lp_with(lp, cuts) if cuts else root, "small_pool": lp_with(lp, small) if small else root,
            "small_kinds": dict(kinds), "examples": [_written(lp, c) for c in small[: args.examples]],
        }
        rows.append(row)
        print(
            f"{name} #{i} n={sentences[i].n}: {count} nodes, gap {root - optimum:.3f}; HiGHS's root closes "
            f"{_closed(mip, root, optimum):.1f}%, its {len(cuts)} cuts "
            f"{_closed(row['pool'], root, optimum):.1f}%, "
            f"the {len(small)} small ones {_closed(row['small_pool'], root, optimum):.1f}%",
            flush=True,
        )
    return {"treebank": name, "language": LANGUAGE.get(name, name), "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    head = [
        "sentence", "n", "nodes", "root bound", "optimum", "HiGHS root: % closed", "pool: cuts / % closed",
        "small cuts: count / % closed", "small cuts by blocks",
    ]
    body, examples = [], []
    for tb in result["treebanks"]:
        for r in tb["rows"]:
            root, opt = r["root"], r["optimum"]
            kinds = ", ".join(f"{k}: {v}" for k, v in sorted(r["small_kinds"].items(), key=lambda kv: -kv[1]))
            body.append([
                f"{tb['language']} #{r['sentence']}", r["n"], r["nodes"], root, opt,
                f"{_closed(r['mip'], root, opt):.1f}", f"{r['cuts']} / {_closed(r['pool'], root, opt):.1f}",
                f"{r['small']} / {_closed(r['small_pool'], root, opt):.1f}", kinds or "-",
            ])
            examples += [f"- {tb['language']} #{r['sentence']}: `{e}`" for e in r["examples"]]
    return (
        "# Root gap of the full model's exact decoding: HiGHS's root cuts\n\n"
        f"{commands_line(result)}\n\n" + "\n\n".join(__doc__.split("\n\n")[1:2]) + "\n\n"
        f"{markdown_table(head, body, digits=2)}\n\nSmall cuts, written out:\n\n" + "\n".join(examples) + "\n"
    )


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "root_gap_full")
    parser.add_argument("--model", default="2f-lp", help="model suffix: <treebank>-<suffix>.npz")
    parser.add_argument("--hardest", type=int, default=3, help="sentences per dev set, by nodes")
    parser.add_argument("--mip-limit", type=float, default=120.0, help="seconds for HiGHS's MIP root")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds for each exact search")
    parser.add_argument("--small", type=int, default=7, help="the most terms of a small cut")
    parser.add_argument("--examples", type=int, default=4, help="small cuts written out per sentence")
    args = parser.parse_args()
    run_treebanks("root_gap_full.py", args, run_treebank, markdown)


if __name__ == "__main__":
    main()
