"""The longest dev sentences, unpruned: how long an LP decoder takes where it takes longest.

For each dev set, the ``--count`` longest sentences are decoded with every arc a candidate (no pruning) by
each decoder of ``--decoders`` (default ``auto``, which runs parse-price-cut on sentences this long) under
each model ``<models>/<treebank>-<suffix>.npz`` of ``--models-suffixes`` (default the grandparent model ``2``
and the grandparent + sibling model ``2s-lp``), one core, features included, at most ``--time-limit``
seconds a sentence (wall clock; a run over it is reported as such). Reported per run: CPU seconds, the LP's
rounds, its final rows and columns, whether its optimum is integral, and the parts scored per family. Writes
``benchmarks/results/<out>.{json,md}`` (default ``longest``). Run a dev set per part (``--treebanks <dev
file> --out <part>``), then ``--combine <part>.json ...``. ``--no-purge``: the LP decoders' masters keep every
column (the ablation of :mod:`lpparse.colgen.purge`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ppc import LANGUAGE, add_combine, commands_line, run_treebanks, treebank_parser

from lpparse.corpus import read_treebank
from lpparse.parsing import decode_sentence
from lpparse.scoring.model import Model
from lpparse.table import markdown_table


def _run(model: Model, sentence: Any, decoder: str, time_limit: float, purge: bool) -> dict[str, Any]:
    """One decoder on one sentence: CPU seconds and the LP's size, rounds and outcome."""
    start, wall = time.process_time(), time.perf_counter()
    options: dict[str, Any] = {} if purge else {"purge": False}
    try:
        stats = decode_sentence(model, sentence, decoder, time_limit=time_limit, **options).stats
    except RuntimeError as err:  # an LP decoder's run not certified: the time limit, or the solver's status
        over = time.perf_counter() - wall >= time_limit
        return {"seconds": time.process_time() - start, "status": f"over {time_limit:g} s" if over else str(err)}
    seconds = time.process_time() - start
    counted = stats.get("families_counted", [])
    return {
        "seconds": seconds,
        "status": "certified" if stats.get("certified") else "uncertified",
        "rounds": stats.get("iterations"),
        "rows": stats.get("rows"),
        "cols": stats.get("cols"),
        "integral": bool(stats.get("integral")),
        "scored": {key: stats[f"{key}_scored"] for key in counted},
        "purged": stats.get("purged", 0),
    }


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    sentences = read_treebank(path)
    longest = sorted(range(len(sentences)), key=lambda i: -sentences[i].n)[: args.count]
    runs = []
    for suffix in args.models_suffixes:
        model = Model.load(args.models / f"{name}-{suffix}.npz")
        for i in longest:
            for decoder in args.decoders:
                row = {"sentence": i, "n": sentences[i].n, "model": suffix, "decoder": decoder}
                row.update(_run(model, sentences[i], decoder, args.time_limit, not args.no_purge))
                print(name, row, flush=True)
                runs.append(row)
    return {"treebank": name, "language": LANGUAGE.get(name, name), "runs": runs}


def markdown(result: dict[str, Any]) -> str:
    head = (
        "dev set", "sentence", "model", "decoder", "CPU s", "outcome", "rounds", "rows", "columns", "purged",
        "scored",
    )
    rows = [
        [
            tb["language"], f"#{r['sentence']} (n={r['n']})", r["model"], r["decoder"], r["seconds"],
            r["status"] + (", integral" if r.get("integral") else ""), r.get("rounds", "-"), r.get("rows", "-"),
            r.get("cols", "-"), r.get("purged", "-"),
            ", ".join(f"{k} {v:,}" for k, v in r.get("scored", {}).items()) or "-",
        ]
        for tb in result["treebanks"]
        for r in tb["runs"]
    ]
    return "\n".join(
        [
            "# The longest dev sentences, unpruned",
            "",
            commands_line(result),
            "",
            f"One core, features included, every arc a candidate; at most {result['time_limit']:g} s a sentence "
            "(wall clock). CPU seconds of the whole decode; rounds, rows and columns of its LP's last run (the "
            "program's: purged columns and rows count), columns purged from its master"
            + ("." if result.get("purge", True) else " (purging off: `--no-purge`)."),
            "",
            markdown_table(list(head), rows, digits=1),
            "",
        ]
    )


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "longest")
    parser.add_argument("--count", type=int, default=2, help="longest sentences per dev set")
    parser.add_argument("--models-suffixes", nargs="+", default=["2", "2s-lp"], metavar="SUFFIX")
    parser.add_argument("--decoders", nargs="+", default=["auto"])
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds a sentence")
    parser.add_argument(
        "--no-purge",
        action="store_true",
        help="LP decoders keep every column in the master (lpparse.colgen.purge)",
    )
    add_combine(parser)
    args = parser.parse_args()
    run_treebanks(
        "longest.py", args, run_treebank, markdown, {"time_limit": args.time_limit, "purge": not args.no_purge}
    )

if __name__ == "__main__":
    main()
