"""What certifying exact decoding by the standalone check (:func:`lpparse.proofs.check.check_proof`, which trusts
no family's pricing) costs besides the search, for lpparse's own families: the price of making it the default
for them too (``ExactOptions.verify``; today it is the default for families written elsewhere only,
:func:`lpparse.exact.search.verify_by_default`).

Random scores (``--part random``): N(0,1) arc scores, N(0, 0.25) part scores (grandparents; grandparents and
arbitrary siblings; the standard model: consecutive siblings, grandparents, arbitrary siblings), of the
lengths :data:`SIZES`, a few seeded instances each. Treebanks (``--part treebanks``): every ``--every``-th dev
sentence decoded as ``lpparse parse --decoder exact`` decodes it with the trained model ``<treebank>-<model>``
(over arcs pruned by ``<treebank>-1`` at 0.005), the search timed by wrapping
:func:`lpparse.exact.search.exact_search`. For each search: its CPU time (certified by its own records,
:func:`lpparse.exact.search.check_records`, as by default), then the CPU time of :func:`check_proof` and of
:func:`check_records` (without the search's score caches) on its result. Run on one core: ``taskset -c 0
python benchmarks/verify_cost.py``. Writes ``benchmarks/results/<out>.{json,md}`` (default ``verify_cost``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from ppc import LANGUAGE, MULTI_ROOT, dev_files, run_header, treebank_parser, write_results

from lpparse.corpus import read_treebank
from lpparse.exact import search as exact_module
from lpparse.exact.search import ExactOptions, check_records
from lpparse.families.base import Parts, exact_parts
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import synthetic_csib_scorer
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.family_kit import random_arc_scores
from lpparse.proofs.check import check_proof
from lpparse.table import markdown_table
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer

#: sentence lengths per random model: with random sibling scores, searches of n = 15 take 30 s and more
SIZES = {"grandparent": (10, 20, 30), "grandparent + sibling": (8, 10), "standard": (8, 10)}
KEYS = ["searches", "branched", "nodes", "search s", "check_proof s", "check_records s", "proof/search"]


#: the scale of the random part scores (arcs N(0,1)): at 1.0 the standard model's searches at n = 10 take
#: hundreds of nodes
SCALE = 0.5


def _cube(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.normal(scale=SCALE, size=(n + 1,) * 3)


#: the random models: (arc scores, rng) -> families
MODELS: dict[str, Callable[[int, np.random.Generator], list[Parts]]] = {
    "grandparent": lambda n, rng: [GrandparentParts(DenseTripleScorer(_cube(rng, n)))],
    "grandparent + sibling": lambda n, rng: [
        GrandparentParts(DenseTripleScorer(_cube(rng, n))),
        SiblingParts(DenseSiblingScorer(_cube(rng, n))),
    ],
    "standard": lambda n, rng: [
        ConsecutiveSiblingParts(synthetic_csib_scorer(n, rng, SCALE)),
        GrandparentParts(DenseTripleScorer(_cube(rng, n)), "martins"),
        SiblingParts(DenseSiblingScorer(_cube(rng, n))),
    ],
}


class Timer:
    """Wraps :func:`exact_search`: each search's CPU time, then its checks' on its result."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.search = exact_module.exact_search

    def __call__(self, s: Any, parts: Any, single_root: bool = False, *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        result = self.search(s, parts, single_root, *args, **kwargs)
        searched = time.process_time()
        full = exact_parts(parts)
        proof = check_proof(s, full, result)
        proved = time.process_time()
        records = check_records(s, full, result)
        self.rows.append(
            {
                "n": s.shape[0] - 1,
                "nodes": len(result.nodes),
                "certified": result.certified,
                "proof holds": proof is None,
                "records hold": records is None,
                "search s": searched - start,
                "check_proof s": proved - searched,
                "check_records s": time.process_time() - proved,
            }
        )
        return result


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    search = sum(r["search s"] for r in rows)
    proof = sum(r["check_proof s"] for r in rows)
    worst = max((r["check_proof s"] / r["search s"] for r in rows), default=0.0)
    return {
        "searches": len(rows),
        "branched": sum(r["nodes"] > 1 for r in rows),
        "nodes": sum(r["nodes"] for r in rows),
        "search s": search,
        "check_proof s": proof,
        "check_records s": sum(r["check_records s"] for r in rows),
        "proof/search": proof / search if search else 0.0,
        "worst proof/search": worst,
        "all certified": all(r["certified"] for r in rows),
        "all proofs hold": all(r["proof holds"] for r in rows),
    }


def run_random(args: Any) -> list[dict[str, Any]]:
    out = []
    for name, make in MODELS.items():
        for n in args.sizes or SIZES[name]:
            timer = Timer()
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                s = random_arc_scores(n, rng, prune=0.0)
                parts = make(n, rng)
                timer(s, parts, False, args.time_limit, ExactOptions(verify=False))
            row = {"model": name, "n": n, **summary(timer.rows)}
            print(row, flush=True)
            out.append(row)
    return out


def run_treebank(path: Path, args: Any) -> dict[str, Any]:
    from lpparse.experiments.grandparent_tables import ScoreSource, sentence_scores
    from lpparse.parsing import decode_sentence
    from lpparse.pruning import ArcPruning
    from lpparse.scoring.model import Model

    name = path.parent.name
    sentences = read_treebank(path)[:: args.every]
    single_root = name not in MULTI_ROOT
    timer = Timer()
    if args.model == "synthetic":  # noisy gold grandparent scores, unpruned (no trained model needed)
        for i, sentence in enumerate(sentences):
            arcs, triples = sentence_scores(sentence, ScoreSource(), i)
            timer(arcs, [GrandparentParts(triples)], single_root, args.time_limit, ExactOptions(verify=False))
    else:
        model = Model.load(str(args.models / f"{name}-{args.model}.npz"))
        pruner, pruning = Model.load(str(args.models / f"{name}-1.npz")), ArcPruning(0.005)
        with mock.patch("lpparse.exact.decoder.exact_search", timer):
            for sentence in sentences:
                limit = args.time_limit
                decode_sentence(model, sentence, "exact", pruner=pruner, pruning=pruning, time_limit=limit)
    row = {"treebank": name, "language": LANGUAGE.get(name, name), "model": f"{name}-{args.model}"}
    row.update(summary(timer.rows))
    print(row, flush=True)
    return row


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "verify_cost")
    parser.add_argument("--part", choices=("random", "treebanks", "both"), default="both")
    parser.add_argument("--sizes", type=int, nargs="*", help="sentence lengths (default: SIZES)")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument(
        "--model", default="2", help="model suffix: <treebank>-<model>.npz, or synthetic (noisy gold triples)"
    )
    parser.add_argument("--every", type=int, default=1, help="every k-th dev sentence")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds a search")
    args = parser.parse_args()
    result: dict[str, Any] = run_header("verify_cost.py")
    lines = [
        "# What the standalone proof check costs besides exact decoding, lpparse's own families",
        "",
        f"Command: `{result['command']}`",
        "",
        "CPU seconds of the searches (certified by their own records, the default for lpparse's families), "
        "of `check_proof` on their results (what `ExactOptions(verify=True)` adds, less `check_records`), "
        "and of `check_records` without the search's score caches; `proof/search` is the total's ratio, "
        "`worst` the largest of one search.",
        "",
    ]
    keys = [*KEYS, "worst proof/search", "all proofs hold"]
    if args.part in ("random", "both"):
        result["random"] = rows = run_random(args)
        head = ["model", "n", *keys]
        lines += ["## Random scores", "", markdown_table(head, [[r[k] for k in head] for r in rows]), ""]
    if args.part in ("treebanks", "both"):
        files = [
            p
            for p in dev_files(args)
            if args.model == "synthetic" or (args.models / f"{p.parent.name}-{args.model}.npz").exists()
        ]
        result["treebanks"] = rows = [run_treebank(p, args) for p in files]
        head = ["language", "model", *keys]
        lines += ["## Dev sentences", "", markdown_table(head, [[r[k] for k in head] for r in rows]), ""]
    write_results(result, args.out, "\n".join(lines))


if __name__ == "__main__":
    main()
