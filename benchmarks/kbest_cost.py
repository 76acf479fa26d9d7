"""What the K best trees cost against the best tree: exact decoding with ``k_best=K`` against ``k_best=None``
(K = 1), on ``--limit`` dev sentences of each treebank from ``--start`` with its grandparent model
``<treebank>-2.npz`` (decoded as ``lpparse parse --decoder exact`` decodes it: unpruned, as these models were
trained). Each (code, treebank) runs in a subprocess of its own that decodes every sentence at K = 1 and at K,
one right after the other (K = 1 first on even sentences, K first on odd ones), so that a slow phase of the
machine (it is shared) weighs on both alike: separate runs of all K = 1 and then all K = 5 decodings moved the
ratio by 10% while the K = 1 time of the same code moved by 15%. Read per decoding: CPU seconds
(``time.process_time``). Peak memory is read apart, from a subprocess per K that decodes the sentences at that
K alone (``ru_maxrss``, the model's load included; ``loaded``: the RSS once model and treebank are loaded):
in one process, the allocator keeps what one K's decodings freed for the other's.
``--before DIR`` also runs the code of another checkout (a ``git worktree`` of an earlier commit), imported by
``PYTHONPATH``, so that one table shows both. Run on one core: ``taskset -c 0 python
benchmarks/kbest_cost.py --before ../lpparse-before``. Writes ``benchmarks/results/<out>.{json,md}`` (default
``kbest_cost``).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from ppc import LANGUAGE, REPO, dev_files, run_header, treebank_parser, write_results

from lpparse.table import markdown_table

#: the sentence lengths of the issue's "12x" (issue 57)
MID = (15, 30)
#: the sentence lengths of the table by length (the last open above)
LENGTHS = ((1, 10), (11, 20), (21, 30), (31, 50), (51, None))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _decode_row(decode: Any, sentence: Any, k: int, time_limit: float) -> dict[str, Any]:
    """Decode one sentence at ``k`` (1: the best tree alone); its CPU seconds and statistics."""
    before = time.process_time()
    try:
        result = decode(sentence, k, time_limit)
    except Exception as err:  # noqa: BLE001 - reported, not fatal
        return {"n": sentence.n, "cpu": time.process_time() - before, "error": repr(err)}
    cpu = time.process_time() - before
    stats = result.stats
    return {
        "n": sentence.n,
        "cpu": cpu,
        "certified": bool(stats.get("certified")),
        "trees": len(stats.get("kbest", [None])),
        "subproblems": stats.get("kbest_subproblems"),
        "solved": stats.get("kbest_solved"),
        "closed": stats.get("kbest_closed"),
        "enumerated": stats.get("kbest_enumerated"),
        "bounded": stats.get("kbest_bounded"),
        "by_scores": stats.get("kbest_by_scores"),
        "paired": stats.get("kbest_paired"),
    }


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """Decode one treebank's sentences at each K of ``spec["ks"]`` (1: the best tree alone), sentence by
    sentence, alternating which goes first, and measure each decoding; the process's peak RSS is each K's
    when ``ks`` holds one K (in a subprocess: its memory is its own)."""
    import lpparse
    from lpparse.corpus import read_treebank
    from lpparse.parsing import decode_sentence
    from lpparse.scoring.model import Model

    model = Model.load(spec["model"])
    sentences = read_treebank(spec["treebank"])[spec["start"] : spec["start"] + spec["limit"]]
    loaded = _rss_mb()

    def decode(sentence: Any, k: int, time_limit: float) -> Any:
        return decode_sentence(model, sentence, "exact", k_best=k if k > 1 else None, time_limit=time_limit)

    ks = [int(k) for k in spec["ks"]]
    rows: dict[str, list[dict[str, Any]]] = {str(k): [] for k in ks}
    for i, sentence in enumerate(sentences):
        for k in ks if i % 2 == 0 else ks[::-1]:
            rows[str(k)].append(_decode_row(decode, sentence, k, spec["time_limit"]))
    runs = {
        k: {"cpu": sum(r["cpu"] for r in got), "peak_mb": _rss_mb(), "loaded_mb": loaded, "rows": got}
        for k, got in rows.items()
    }
    return {"lpparse": lpparse.__file__, "runs": runs}


def run(code: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """:func:`worker` in a subprocess importing lpparse from ``code``: its runs by K (as a string), or the
    error."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(spec)],
        env=env,
        cwd=code,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return {
            "error": done.stderr.strip().splitlines()[-1]
            if done.stderr.strip()
            else f"exit {done.returncode}"
        }
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if not out["lpparse"].startswith(str(code)):
        raise RuntimeError(f"imported {out['lpparse']}, not the code of {code}")
    imported = os.path.relpath(out["lpparse"], code)  # no path of this machine in the results
    return {k: {**one, "lpparse": imported} for k, one in out["runs"].items()}


def fastest(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs of one (code, treebank, K) as one: each sentence's least CPU seconds, the total the least, the
    peak RSS the largest (the machine is shared: the least CPU time is the least disturbed)."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    out = {**runs[0], "cpu": min(r["cpu"] for r in runs), "peak_mb": max(r["peak_mb"] for r in runs)}
    out["rows"] = [
        {**rows[0], "cpu": min(r["cpu"] for r in rows)} for rows in zip(*(r["rows"] for r in runs))
    ]
    out["repeats"] = len(runs)
    return out


def summary(one: dict[str, Any], many: dict[str, Any], k: int, start: int = 0) -> dict[str, Any]:
    """The table row of K = 1 (``one``) against K = k (``many``), over the dev sentences from ``start``."""
    if "error" in one or "error" in many:
        return {"error": one.get("error") or many.get("error")}
    rows = many["rows"]
    mid = [i for i, r in enumerate(rows) if MID[0] <= r["n"] <= MID[1]]

    def mid_cpu(runs: dict[str, Any]) -> float:
        return sum(runs["rows"][i]["cpu"] for i in mid)

    solved = [r["solved"] for r in rows if r.get("solved") is not None]
    ratios = np.array([b["cpu"] / max(a["cpu"], 1e-9) for a, b in zip(one["rows"], rows)])
    worst = int(np.argmax(ratios))
    return {
        "sentences": len(rows),
        "K=1 s": one["cpu"],
        f"K={k} s": many["cpu"],
        "time ratio": many["cpu"] / one["cpu"],
        f"time ratio {MID[0]}-{MID[1]} tokens": mid_cpu(many) / max(mid_cpu(one), 1e-9),
        "median sentence ratio": float(np.median(ratios)),
        "90% sentence ratio": float(np.quantile(ratios, 0.9)),
        "worst sentence ratio": float(ratios[worst]),
        "worst sentence": f"#{start + worst} ({rows[worst]['n']} tokens)",
        "K=1 peak MB": one["peak_mb"],
        f"K={k} peak MB": many["peak_mb"],
        "memory ratio": many["peak_mb"] / one["peak_mb"],
        "loaded MB": many["loaded_mb"],
        "memory ratio above loaded": (many["peak_mb"] - many["loaded_mb"])
        / max(one["peak_mb"] - one["loaded_mb"], 1.0),
        "trees proved": sum(r.get("trees", 0) for r in rows if r.get("certified")),
        "sentences certified": sum(bool(r.get("certified")) for r in rows),
        "errors": sum("error" in r for r in rows),
        "subproblems solved": sum(solved) if solved else None,
        "subproblems closed": sum(r["closed"] for r in rows if r.get("closed") is not None)
        if solved
        else None,
        "subproblems": sum(r["subproblems"] for r in rows if r.get("subproblems") is not None)
        if solved
        else None,
        "subproblems enumerated": sum(r.get("enumerated") or 0 for r in rows) if solved else None,
        "subproblems solved by bound": sum(r.get("bounded") or 0 for r in rows) if solved else None,
        "of them by scores": sum(r.get("by_scores") or 0 for r in rows) if solved else None,
        "by duals and scores": sum(r.get("paired") or 0 for r in rows) if solved else None,
    }


def columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Per-sentence ``rows`` as the JSON result stores them: a list per field (seconds to 10 µs), without the
    fields no row has (the whole dev sets' rows as one object per sentence came to 3 MB)."""
    fields = [
        f
        for f in dict.fromkeys(f for row in rows for f in row)
        if any(row.get(f) is not None for row in rows)
    ]
    return {
        f: [round(v, 5) if isinstance(v, float) else v for v in (row.get(f) for row in rows)] for f in fields
    }


def stored(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with every run's per-sentence rows stored by :func:`columns`."""
    treebanks = []
    for row in result["treebanks"]:
        runs = {
            k: {**run, "rows": columns(run["rows"])} if "rows" in run else run
            for k, run in row["runs"].items()
        }
        treebanks.append({**row, "runs": runs})
    return {**result, "treebanks": treebanks}


def by_length(row: dict[str, Any], k: int) -> list[list[Any]]:
    """The table by sentence length of one (treebank, code): per :data:`LENGTHS` range, its sentences, K = 1
    and K = k CPU seconds over them, their ratio, and its worst sentence ratio."""
    one, many = row["runs"]["1"], row["runs"][str(k)]
    if "error" in one or "error" in many:
        return []
    lengths = np.array([r["n"] for r in many["rows"]])
    a = np.array([r["cpu"] for r in one["rows"]])
    b = np.array([r["cpu"] for r in many["rows"]])
    out = []
    for low, high in LENGTHS:
        at = (lengths >= low) & (lengths <= (high if high is not None else lengths.max(initial=0)))
        if at.any():
            name = f"{low}-{high}" if high is not None else f"{low}+"
            worst = float((b[at] / np.maximum(a[at], 1e-9)).max())
            out.append(
                [
                    row["language"],
                    row["code"],
                    name,
                    int(at.sum()),
                    a[at].sum(),
                    b[at].sum(),
                    b[at].sum() / max(a[at].sum(), 1e-9),
                    worst,
                ]
            )
    return out


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        print(json.dumps(worker(json.loads(sys.argv[2]))))
        return
    parser = treebank_parser(__doc__.split("\n\n")[0], "kbest_cost")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=int, default=60, help="LIMIT dev sentences of each treebank")
    parser.add_argument(
        "--start",
        type=int,
        default=0,
        help="the position of the first (0: from the start; a later slice is "
        "data the defaults were not tuned on)",
    )
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds a sentence")
    parser.add_argument("--before", type=Path, help="a checkout of earlier code, run too")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each (code, treebank, K): the least CPU time counts"
    )
    args = parser.parse_args()
    result: dict[str, Any] = {
        **run_header("kbest_cost.py"),
        "k": args.k,
        "limit": args.limit,
        "start": args.start,
        "treebanks": [],
    }
    codes = ([("before", args.before.resolve())] if args.before else []) + [("after", REPO)]
    head = [
        "language",
        "code",
        "sentences",
        "K=1 s",
        f"K={args.k} s",
        "time ratio",
        f"time ratio {MID[0]}-{MID[1]} tokens",
        "median sentence ratio",
        "90% sentence ratio",
        "worst sentence ratio",
        "worst sentence",
        "K=1 peak MB",
        f"K={args.k} peak MB",
        "memory ratio",
        "memory ratio above loaded",
        "trees proved",
        "subproblems",
        "subproblems solved",
        "subproblems closed",
        "subproblems enumerated",
        "subproblems solved by bound",
        "of them by scores",
        "by duals and scores",
    ]
    table: list[list[Any]] = []
    lengths: list[list[Any]] = []
    for path in dev_files(args):
        name = path.parent.name
        model = args.models / f"{name}-2.npz"
        if not model.exists():
            print(f"{name}: no model {model}", flush=True)
            continue
        for label, code in codes:
            spec = {
                "model": str(model),
                "treebank": str(path),
                "limit": args.limit,
                "start": args.start,
                "time_limit": args.time_limit,
            }
            outs = [run(code, {**spec, "ks": [1, args.k]}) for _ in range(args.repeat)]
            one, many = (fastest([out.get(k, out) for out in outs]) for k in ("1", str(args.k)))
            for timed, k in ((one, 1), (many, args.k)):  # peak memory: a process per K, its decodings alone
                alone = run(code, {**spec, "ks": [k]})
                if "error" in alone:
                    timed.update(error=alone["error"])
                else:
                    timed.update(peak_mb=alone[str(k)]["peak_mb"], loaded_mb=alone[str(k)]["loaded_mb"])
            row = {
                "treebank": name,
                "language": LANGUAGE.get(name, name),
                "code": label,
                **summary(one, many, args.k, args.start),
            }
            row["runs"] = {"1": one, str(args.k): many}
            result["treebanks"].append(row)
            print({key: value for key, value in row.items() if key != "runs"}, flush=True)
            table.append([row.get(key, "error" if "error" in row else None) for key in head])
            lengths.extend(by_length(row, args.k))
    note = (
        f"Dev sentences from #{args.start} of each treebank (counting from 0), at most {args.limit}, "
        "grandparent model `<treebank>-2.npz`, exact "
        f"decoding (unpruned, as trained), K = 1 against K = {args.k}, one subprocess per code and treebank "
        f"decoding each sentence at K = 1 and at K = {args.k} one right after the other (alternating which "
        f"first): CPU seconds of decoding (the least of {args.repeat} runs, per sentence and in all: the "
        "machine is shared), peak RSS (`ru_maxrss` of a process per K decoding the sentences at that K "
        "alone, the model's load included), their ratios, and the ratio of the RSS "
        f"above the loaded model and treebank; `{MID[0]}-{MID[1]} tokens`: the time ratio over those "
        "sentences alone; median, 90% and worst sentence ratio: of each sentence's K = "
        f"{args.k} and K = 1 CPU seconds (the worst: its position in the dev set and length); trees proved: "
        "the trees of the certified sentences; subproblems: the partition's, those searched (to their best "
        "tree, or stopped at the K-th best score found), those closed unsolved by an ancestor's bound (the "
        "lazy search only), those proved by enumerating their trees, those whose best tree an ancestor's "
        "refined bound proves (never searched), and of the closed and solved by bound those bounded by their "
        "scores alone (no duals) and those by an ancestor's duals and their scores together."
    )
    lines = [
        f"# k-best cost: K = {args.k} against K = 1",
        "",
        f"Command: `{result['command']}`",
        "",
        note,
        "",
        markdown_table(head, table),
        "",
        "By sentence length (tokens): the sentences of each range, their CPU seconds at K = 1 and K = "
        f"{args.k}, the ratio of those, and the range's worst sentence ratio.",
        "",
        markdown_table(
            [
                "language",
                "code",
                "tokens",
                "sentences",
                "K=1 s",
                f"K={args.k} s",
                "time ratio",
                "worst ratio",
            ],
            lengths,
        ),
        "",
    ]
    write_results(stored(result), args.out, "\n".join(lines))


if __name__ == "__main__":
    main()
