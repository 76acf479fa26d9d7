"""What each device of lpparse's parse-price-cut buys: PPC with one device switched off (or back to
Algorithm 1 of Riedel, Smith & McCallum (2012) as printed, §4) against the default, on dev sentences
of the treebanks with their trained grandparent models.

For every sampled sentence all variants run back to back (so drift hits them alike), each on a fresh counted
triple scorer; times are PPC's own (scoring triples and building the LPs included, feature extraction not).
Every variant must reach the default's objective with a certificate, or the script stops. Run on one core:
``taskset -c 1 python benchmarks/ppc_ablation.py``. Writes ``benchmarks/results/ppc_ablation.json`` and
``.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from lpparse.corpus import read_treebank
from lpparse.experiments.grandparent_tables import sentence_scores
from lpparse.ppc import parse_price_cut
from lpparse.table import markdown_table

sys.path.insert(0, str(Path(__file__).parent))
from ppc import LANGUAGE, MULTI_ROOT, run_treebanks, score_source, treebank_parser

#: (name, parse_price_cut keyword arguments, what it switches off)
VARIANTS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("default", {}, "lpparse's PPC"),
    ("dead arcs in HiGHS", {"dead_arcs": False}, "arcs without a triple stay in the master"),
    ("2 seed heads", {"seed_heads": 2}, "⟨0,h,m⟩ for the 2 best heads of each m at the start"),
    ("every arc seeded", {"seed_heads": None}, "⟨0,h,m⟩ for every arc at the start (§4.2)"),
    ("price all", {"per_pair": None}, "every priced triple enters, not 8 per ⟨p,c⟩"),
    ("no deferral", {"defer": None}, "triples with both arcs at 0 enter at once"),
    ("no GPArc duals", {"parent_duals": False}, "tightening on OneGP duals only (§4.3.3)"),
    ("no tightening", {"tighten": False}, "the solver's duals as they come"),
    ("eager ArcGP rows", {"lazy_arcgp": False}, "ArcGP rows held back until violated (§4: with the column)"),
    (
        "Algorithm 1",
        {
            "dead_arcs": False,
            "seed_heads": None,
            "per_pair": None,
            "defer": None,
            "parent_duals": False,
            "lazy_arcgp": False,
        },
        "all of the above as the paper prints it (tightening on)",
    ),
)
HEADERS = (
    "variant",
    "switches off",
    "CPU rel. default",
    "PPC s",
    "rounds",
    "simplex it.",
    "GPs scored",
    "GPs added",
)


def run_treebank(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    name = path.parent.name
    source = score_source(name, args.models)
    if source.model is None:
        raise SystemExit(f"no trained model for {name} under {args.models}")
    single_root = name not in MULTI_ROOT
    sentences = read_treebank(path)
    pool = [i for i, s in enumerate(sentences) if args.min_n <= s.n <= args.max_n]
    chosen = sorted(np.random.default_rng(0).permutation(pool)[: args.sentences].tolist())
    totals = {v: np.zeros(6) for v, _, _ in VARIANTS}  # seconds, rounds, simplex, scored, added, candidates
    for i in tqdm(chosen, desc=name, unit="sent"):
        reference = None
        for variant, options, _ in VARIANTS:
            arcs, triples = sentence_scores(sentences[i], source, i)
            result = parse_price_cut(arcs, triples, "all", single_root, **options)
            if not result.certified:
                raise SystemExit(f"{name} #{i}: {variant} is not certified ({result.status.value})")
            reference = result.objective if reference is None else reference
            if abs(result.objective - reference) > 1e-6 * (1 + abs(reference)):
                raise SystemExit(f"{name} #{i}: {variant} objective {result.objective} != {reference}")
            st = result.stats
            totals[variant] += [
                st.time_total,
                st.iterations,
                st.simplex_iterations,
                result.counts["grandparent"].scored,
                result.counts["grandparent"].added,
                result.counts["grandparent"].candidates,
            ]
    base = totals["default"][0]
    rows = []
    for variant, options, what in VARIANTS:
        t = totals[variant]
        rows.append(
            {
                "variant": variant,
                "options": options,
                "switches_off": what,
                "cpu_rel_default": t[0] / base,
                "seconds": t[0],
                "rounds": t[1] / len(chosen),
                "simplex_iterations": t[2] / len(chosen),
                "gps_scored": t[3] / t[5],
                "gps_added": t[4] / t[5],
            }
        )
    return {
        "treebank": name,
        "language": LANGUAGE.get(name, name),
        "score_model": source.describe(),
        "sentences": len(chosen),
        "lengths": [args.min_n, args.max_n],
        "variants": rows,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# What each PPC device buys (ablation)",
        "",
        __doc__.split("\n\n")[0].replace("\n", " "),
        "",
        f"Command: `{result['command']}`",
        "",
        (
            "CPU: summed PPC time relative to the default (> 1: the device helps); rounds and simplex "
            "iterations per sentence; GPs relative to all candidate triples. Every variant reached the "
            "default's objective with a certificate on every sentence."
        ),
        "",
    ]
    for tb in result["treebanks"]:
        lo, hi = tb["lengths"]
        lines += [
            (
                f"## {tb['treebank']} ({tb['language']}; {tb['score_model']}; {tb['sentences']} sentences "
                f"of {lo}-{hi} tokens)"
            ),
            "",
            markdown_table(
                HEADERS,
                [
                    [
                        r["variant"],
                        r["switches_off"],
                        f"{r['cpu_rel_default']:.2f}x",
                        f"{r['seconds']:.2f}",
                        f"{r['rounds']:.1f}",
                        f"{r['simplex_iterations']:.0f}",
                        f"{100 * r['gps_scored']:.1f}%",
                        f"{100 * r['gps_added']:.1f}%",
                    ]
                    for r in tb["variants"]
                ],
                digits=3,
            ),
            "",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = treebank_parser(__doc__.split("\n\n")[0], "ppc_ablation")
    parser.add_argument("--sentences", type=int, default=15, help="sentences per treebank")
    parser.add_argument("--min-n", type=int, default=21, help="shortest sentence")
    parser.add_argument("--max-n", type=int, default=40, help="longest sentence")
    args = parser.parse_args()
    run_treebanks("ppc_ablation.py", args, run_treebank, markdown)


if __name__ == "__main__":
    main()
