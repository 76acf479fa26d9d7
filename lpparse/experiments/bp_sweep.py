"""UAS by BP iterations K and training objective (Gormley, Dredze & Eisner 2015, Fig. 3 and Table 2 shape).

For every K in ``--iterations`` and objective in ``--objectives`` a fresh grandparent model (hashed features of
:mod:`lpparse.scoring`) is trained on a treebank subset with K iterations of BP (PTREE factor, grandparent
factors) inside the objective, and evaluated on the dev subset with BP-MBR decoding at the same K (as the
paper does), next to exact projective grandparent decoding of the same model (``gp-eisner``):

* ``cll``: surrogate likelihood with the BP beliefs (gold projectivized, Carreras 2007);
* ``l2``: L2 distance of beliefs to gold, back-propagated through the K iterations (eq. 12);
* ``l2+ar``: ``l2`` for ``--epochs`` epochs, then annealed risk (T linear 0.1 → 1e-4 over the AR steps) for
  ``--epochs`` more, from the L2 weights (§4.3); ``ar`` alone is also accepted.

Optimizer: ℓ2-regularized AdaGrad (composite mirror descent, λ = 1 spread over the sentences) of
:mod:`lpparse.training`. Run ``python -m lpparse.experiments.bp_sweep TRAIN DEV``; writes a JSON and a
Markdown table (``--out``, default ``benchmarks/results/bp.sweep.<treebank>``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import lpparse.bp.decoder  # noqa: F401  (registers the "bp" decoder)
from lpparse.bp import factor_graph
from lpparse.bp.objectives import OBJECTIVES, objective_gradients, temperature
from lpparse.corpus import Sentence, corpus_uas, read_treebank
from lpparse.io import relative_paths
from lpparse.oracles import eisner
from lpparse.parsing import parse
from lpparse.scoring import Model, Vocabulary
from lpparse.training import AdaGrad, TripleTable, usable
from lpparse.trees import heads_to_matrix, is_projective

__all__ = ["main", "projectivize", "sweep", "train_bp"]


def projectivize(heads: NDArray[np.int64], single_root: bool) -> NDArray[np.int64]:
    """The projective tree sharing most arcs with ``heads`` (Eisner on arc scores 1[arc ∈ heads]; Carreras 2007)."""
    if is_projective(heads):
        return heads
    scores = heads_to_matrix(heads)
    scores[:, 0] = -np.inf
    np.fill_diagonal(scores, -np.inf)
    return eisner(scores, single_root=single_root)


def _phases(objective: str, epochs: int) -> list[tuple[str, int]]:
    if objective == "l2+ar":
        return [("l2", epochs), ("ar", epochs)]
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose from {sorted(OBJECTIVES)} or 'l2+ar'")
    return [(objective, epochs)]


def train_bp(
    model: Model,
    sentences: Sequence[Sentence],
    objective: str,
    iterations: int,
    epochs: int,
    rate: float = 0.1,
    seed: int = 0,
) -> list[float]:
    """Train ``model`` (order 2) in place with ``objective`` through ``iterations`` BP iterations; returns the
    mean loss of each epoch."""
    rng = np.random.default_rng(seed)
    opt = AdaGrad(model.weights.size, rate, 1.0 / len(sentences), 1.0)
    losses = []
    for phase, phase_epochs in _phases(objective, epochs):
        golds = [projectivize(s.heads, model.single_root) if phase == "cll" else s.heads for s in sentences]
        steps, total_steps = 0, phase_epochs * len(sentences)
        for _ in range(phase_epochs):
            total = 0.0
            for i in rng.permutation(len(sentences)):
                scorer = model.scorer(sentences[i])
                arcs = scorer.arc_scores()
                table = TripleTable.of(scorer, arcs)
                graph = factor_graph(arcs, table.scores, None, model.single_root, True)
                loss, grads, _ = objective_gradients(
                    phase, golds[i], graph, iterations, temperature=temperature(steps, total_steps)
                )
                opt.step(model.weights, *table.feature_gradient(scorer, grads.arc, grads.grandparent))
                total += loss
                steps += 1
            losses.append(total / len(sentences))
    model.invalidate_bounds()
    return losses


def sweep(
    train: Sequence[Sentence],
    dev: Sequence[Sentence],
    iterations: Sequence[int],
    objectives: Sequence[str],
    epochs: int,
    single_root: bool,
    bits: int = 20,
    log=print,
) -> list[dict]:
    """One trained model per (K, objective); rows with dev UAS (BP-MBR at K, and exact gp-eisner)."""
    vocab = Vocabulary.build(train)
    rows = []
    for k in iterations:
        for objective in objectives:
            start = time.perf_counter()
            model = Model(vocab, order=2, bits=bits, single_root=single_root)
            losses = train_bp(model, train, objective, k, epochs)
            seconds = time.perf_counter() - start
            bp = corpus_uas(dev, [r.heads for r in parse(model, dev, "bp", iterations=k)])
            exact = corpus_uas(dev, [r.heads for r in parse(model, dev, "gp-eisner")])
            row = {
                "iterations": k,
                "objective": objective,
                "uas_bp": bp.uas_no_punct,
                "uas_exact": exact.uas_no_punct,
                "losses": losses,
                "train_seconds": seconds,
            }
            rows.append(row)
            log(
                f"K={k} {objective:6s}: dev UAS (no punct) BP-MBR {100 * bp.uas_no_punct:.2f}, exact GP "
                f"{100 * exact.uas_no_punct:.2f}; losses {', '.join(f'{x:.3f}' for x in losses)}; {seconds:.0f} s"
            )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("train", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("--limit", type=int, default=200, help="training sentences (default 200)")
    parser.add_argument("--dev-limit", type=int, default=100)
    parser.add_argument("--max-length", type=int, default=15)
    parser.add_argument("--iterations", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--objectives", nargs="+", default=["cll", "l2", "l2+ar"])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--bits", type=int, default=20)
    parser.add_argument("--single-root", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    train = usable(read_treebank(args.train, on_error="skip", max_length=args.max_length), args.single_root)[
        : args.limit
    ]
    dev = usable(read_treebank(args.dev, on_error="skip", max_length=args.max_length), args.single_root)[
        : args.dev_limit
    ]
    print(f"{len(train)} training and {len(dev)} dev sentences of at most {args.max_length} tokens")
    rows = sweep(train, dev, args.iterations, args.objectives, args.epochs, args.single_root, args.bits)
    name = args.train.parent.name or args.train.stem
    out = args.out or Path(__file__).resolve().parents[2] / "benchmarks" / "results" / f"bp.sweep.{name}"
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    meta.update(train_sentences=len(train), dev_sentences=len(dev))
    text = json.dumps({"meta": meta, "rows": rows}, indent=1)
    out.parent.joinpath(out.name + ".json").write_text(relative_paths(text, Path(__file__).parents[2]))
    lines = [
        f"# UAS by BP iterations and objective: {name}",
        "",
        (
            f"{len(train)} training sentences, {len(dev)} dev sentences, at most {args.max_length} tokens; "
            f"{args.epochs} epochs per phase; grandparent model, PTREE; dev UAS without punctuation (%)."
        ),
        "Train and test with the same K; `exact` decodes the same model with the O(n⁴) grandparent DP.",
        "",
        "| K | " + " | ".join(f"{o} BP | {o} exact" for o in args.objectives) + " |",
        "|---|" + "---|---|" * len(args.objectives),
    ]
    for k in args.iterations:
        cells = []
        for o in args.objectives:
            r = next(r for r in rows if r["iterations"] == k and r["objective"] == o)
            cells += [f"{100 * r['uas_bp']:.2f}", f"{100 * r['uas_exact']:.2f}"]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    out.parent.joinpath(out.name + ".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
