"""The longest dev sentences, unpruned: how long an LP decoder takes where it takes longest.

For each dev set, the ``--count`` longest sentences (or, with ``--min-tokens N``, every sentence of at least
N tokens, and at most ``--max-tokens``) are decoded with every arc a candidate (no pruning) by each decoder of
``--decoders`` (default ``auto``, which runs parse-price-cut on sentences this long) under each model
``<models>/<treebank>-<suffix>.npz`` of ``--models-suffixes`` (default the grandparent model ``2`` and the
grandparent + sibling model ``2s-lp``), one core, features included, at most ``--time-limit`` seconds a
sentence (wall clock; a run over it is reported as such). Reported per run: CPU seconds, the LP's rounds, its
final rows and columns, whether its optimum is integral, and the parts scored per family; per model, the tail
(runs over 60 s, the median, the three slowest). Writes ``benchmarks/results/<out>.{json,md}`` (default
``longest``). Run a dev set per part (``--treebanks <dev file> --out <part>``), then ``--combine <part>.json
...``. Ablations of the devices that keep grandparent + sibling masters small: ``--no-purge``, the LP
decoders' masters keep every column (:mod:`lpparse.colgen.purge`); ``--release R``, held-back triples enter
R·n at a time (:data:`lpparse.colgen.options.RELEASE`); ``--no-stall``, a degenerate master's primal re-solves
never give way to the dual simplex (:data:`lpparse.colgen.options.DEGENERATE_STALL_ROWS`). ``--memory``: each
run in a fresh process, which reports its peak resident memory (the model loaded included, HiGHS's too), for
the tail of long sentences (train files hold sentences of up to 290 tokens, the dev sets up to 77).
"""

from __future__ import annotations

import multiprocessing
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from ppc import LANGUAGE, add_combine, commands_line, run_treebanks, treebank_parser

from lpparse.colgen.options import DEGENERATE_MASTER
from lpparse.corpus import read_treebank
from lpparse.parsing import decode_sentence
from lpparse.scoring.model import Model
from lpparse.table import markdown_table


def _options(args: Any) -> dict[str, Any]:
    """The decoder options of the ablations that ``args`` asks for (module docstring)."""
    options: dict[str, Any] = {} if args.purge else {"purge": False}
    if args.release is not None:
        options["release"] = args.release
    if args.no_stall:
        options["master"] = replace(DEGENERATE_MASTER, stall_rows=None)
    return options


def _run(
    model: Model, sentence: Any, decoder: str, time_limit: float, options: dict[str, Any]
) -> dict[str, Any]:
    """One decoder on one sentence (with the decoder ``options``): CPU seconds and the LP's size, rounds and
    outcome."""
    start, wall = time.process_time(), time.perf_counter()
    if not model.siblings:  # a degenerate master's settings are for sibling models only
        options = {k: v for k, v in options.items() if k != "master"}
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


def _run_alone(
    model_path: Path, sentence: Any, decoder: str, time_limit: float, options: dict[str, Any]
) -> dict[str, Any]:
    """:func:`_run` in this (fresh) process, with its peak resident memory in MB (Linux reports kB)."""
    row = _run(Model.load(model_path), sentence, decoder, time_limit, options)
    return row | {"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _measured(path: Path, sentence: Any, decoder: str, args: Any) -> dict[str, Any]:
    """One run: in this process, or with ``--memory`` in a fresh one (nothing left from earlier runs)."""
    options = _options(args)
    if not args.memory:
        return _run(Model.load(path), sentence, decoder, args.time_limit, options)
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
        return pool.submit(_run_alone, path, sentence, decoder, args.time_limit, options).result()


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    name = path.parent.name
    sentences = read_treebank(path)
    longest = sorted(range(len(sentences)), key=lambda i: -sentences[i].n)
    if args.min_tokens is None:
        longest = longest[: args.count]
    else:
        most = args.max_tokens or sentences[longest[0]].n
        longest = [i for i in longest if args.min_tokens <= sentences[i].n <= most]
    runs = []
    for suffix in args.models_suffixes:
        for i in longest:
            for decoder in args.decoders:
                row = {"sentence": i, "n": sentences[i].n, "model": suffix, "decoder": decoder}
                row.update(_measured(args.models / f"{name}-{suffix}.npz", sentences[i], decoder, args))
                print(name, row, flush=True)
                runs.append(row)
    return {"treebank": name, "language": LANGUAGE.get(name, name), "runs": runs}


def markdown(result: dict[str, Any]) -> str:
    memory = result.get("memory", False)
    head = (
        "treebank", "sentence", "model", "decoder", "CPU s", *(("peak MB",) if memory else ()), "outcome",
        "rounds", "rows", "columns", "purged", "scored",
    )
    rows = [
        [
            tb["language"], f"#{r['sentence']} (n={r['n']})", r["model"], r["decoder"], r["seconds"],
            *((round(r["peak_mb"]),) if memory else ()),
            r["status"] + (", integral" if r.get("integral") else ""),
            *("-" if r.get(key) is None else r[key] for key in ("rounds", "rows", "cols", "purged")),
            ", ".join(f"{k} {v:,}" for k, v in r.get("scored", {}).items()) or "-",
        ]
        for tb in result["treebanks"]
        for r in tb["runs"]
    ]
    return "\n".join(
        [
            "# The longest sentences, unpruned",
            "",
            commands_line(result),
            "",
            f"One core, features included, every arc a candidate; at most {result['time_limit']:g} s a sentence "
            "(wall clock). CPU seconds of the whole decode; rounds, rows and columns of its LP's last run (the "
            "program's: purged columns and rows count), columns purged from its master"
            + ("." if result.get("purge", True) else " (purging off: `--no-purge`).")
            + (f" Held-back triples enter {result['release']:g}·n at once." if result.get("release") else "")
            + (" Primal re-solves never give way to the dual simplex." if result.get("no_stall") else "")
            + (
                " Each run in a fresh process; peak MB: its peak resident memory, the model and HiGHS"
                " included."
                if memory
                else ""
            ),
            "",
            markdown_table(list(head), rows, digits=1),
            "",
            _tail(result),
            "",
        ]
    )


#: the must-show's ceiling on one sentence's decode, unpruned (CPU seconds)
CEILING = 60.0


def _tail(result: dict[str, Any]) -> str:
    """The tail of the runs above, per model: how many, how many over :data:`CEILING` seconds or not
    certified, the median and the three slowest."""
    lines = []
    for model in dict.fromkeys(r["model"] for tb in result["treebanks"] for r in tb["runs"]):
        runs = [(r, tb["language"]) for tb in result["treebanks"] for r in tb["runs"] if r["model"] == model]
        slow = sorted(runs, key=lambda x: -x[0]["seconds"])
        over = [x for x in slow if x[0]["seconds"] > CEILING or x[0]["status"] != "certified"]
        median = statistics.median(r["seconds"] for r, _ in runs)
        top = ", ".join(f"{lang} #{r['sentence']} (n={r['n']}) {r['seconds']:.1f} s" for r, lang in slow[:3])
        lines.append(
            f"Model {model}: {len(runs)} runs, {len(over)} over {CEILING:g} s or not certified; median "
            f"{median:.1f} s; slowest {top}."
        )
    return "\n".join(lines)


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "longest")
    parser.add_argument("--count", type=int, default=2, help="longest sentences per treebank file")
    parser.add_argument(
        "--min-tokens", type=int, default=None, metavar="N",
        help="instead of --count, every sentence of at least N tokens, longest first",
    )
    parser.add_argument(
        "--max-tokens", type=int, default=None, metavar="N", help="with --min-tokens: and of at most N tokens"
    )
    parser.add_argument("--models-suffixes", nargs="+", default=["2", "2s-lp"], metavar="SUFFIX")
    parser.add_argument("--decoders", nargs="+", default=["auto"])
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds a sentence")
    parser.add_argument(
        "--no-purge",
        action="store_true",
        help="LP decoders keep every column in the master (lpparse.colgen.purge)",
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="run each decode in a fresh process and report its peak resident memory",
    )
    parser.add_argument(
        "--release", type=float, default=None, metavar="R",
        help="held-back triples enter R·n at a time (default: lpparse.colgen.options.RELEASE)",
    )
    parser.add_argument(
        "--no-stall",
        action="store_true",
        help="a degenerate master's primal re-solves never give way to the dual simplex",
    )
    add_combine(parser)
    args = parser.parse_args()
    args.purge = not args.no_purge
    settings = {
        "time_limit": args.time_limit,
        "purge": args.purge,
        "memory": args.memory,
        **({"release": args.release} if args.release is not None else {}),
        **({"no_stall": True} if args.no_stall else {}),
    }
    run_treebanks("longest.py", args, run_treebank, markdown, settings)

if __name__ == "__main__":
    main()
