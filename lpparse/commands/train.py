"""``lpparse train``: train a first-order, grandparent or grandparent + sibling (arbitrary and/or consecutive)
model on a treebank, and its second-stage label model (:func:`lpparse.training.train_labels`), and write a
model file."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.commands._common import SELECTION_OPTIONS, selected_sentences
from lpparse.corpus import Sentence, read_treebank
from lpparse.io import DataError, UsageError, output_path, readable_file
from lpparse.options import (
    ROOT_OPTIONS,
    Command,
    Option,
    family_names,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    pruning_group,
    pruning_options,
    ranged,
    resolve_single_root,
)
from lpparse.parsing import default_decoder, default_decoder_options, evaluate
from lpparse.pruning import ArcPruning, decoding_pruning
from lpparse.scoring import CONSECUTIVE_TEMPLATES, SIBLING_TEMPLATES, Model, Vocabulary
from lpparse.scoring.model import MAX_BITS
from lpparse.scoring.third_order import GRANDSIBLING_TEMPLATES, TRISIBLING_TEMPLATES
from lpparse.training import (
    EXACT_MAX_N,
    GP_MARGINALS,
    RELAXATION_DECODERS,
    TRAINERS,
    LabelConfig,
    TrainConfig,
    checked_config,
    describe,
    train,
    train_labels,
    usable,
)
from lpparse.workers import check_scheduler

#: BP (iterations, damping) of --siblings training and dev decoding. Four undamped iterations (Gormley, Dredze
#: & Eisner 2015, "Approximation-aware dependency parsing by belief propagation", TACL, who back-propagate
#: through them) leave loopy BP far from a fixed point once the O(n^3) sibling factors join: on the first 40
#: hu_szeged dev sentences the tree factor's incoming log-odds still moved by a median 5.6 at the 4th
#: iteration, 0.24 at the 10th with damping 0.5 (1e-3 at the 20th). CLL's gradient μ_BP − 1[y*] is the
#: gradient of the Bethe surrogate likelihood only at a fixed point (Wainwright 2006, "Estimating the 'wrong'
#: graphical model", JMLR 7), and damping keeps the dense sibling messages from oscillating. hu_szeged dev UAS
#: (no punct), same arguments otherwise: epoch 1 78.87 -> 79.15, epoch 2 79.06 -> 79.89.
SIBLING_BP = (10, 0.5)


COMMAND = Command(
    "train",
    help="train a first-order or grandparent scoring model on a treebank",
    description=(
        "Trains a hashed linear model (McDonald et al. 2005 first-order templates; grandparent templates "
        "of Riedel et al. 2012 eqs. 4-6 for --order 2, plus arbitrary-sibling templates with --siblings and "
        "consecutive-sibling templates with --consecutive) by conditional log-likelihood with AdaGrad (marginals "
        "from the matrix-tree theorem, inside-outside, or belief propagation for grandparent models) or by the "
        "averaged perceptron with exact decoding (first order, grandparent Eisner) or with the second-order "
        "LP, its optimum fractional or not (relaxed training, Martins et al. 2009; the default for sibling "
        "models; consecutive-sibling models train only with it, by the perceptron or the hinge loss), or by the structured hinge loss with the same decoders, optionally over pruned arcs. Keeps the epoch with the best dev UAS (no punctuation) and "
        "writes a versioned model file (npz) with weights and grandparent bound tables; lpparse parse "
        "decodes it with the dev decoder of training by default."
    ),
    epilog="Example: lpparse train --treebank train.conllu --dev dev.conllu --order 2 --out gp.npz --epochs 5",
    options=(
        Option("--treebank", type=Path, required=True, help="training treebank (CoNLL-U or CoNLL-X)"),
        Option("--dev", type=Path, default=None, help="dev treebank for early stopping (optional)"),
        Option("--order", type=int, choices=(1, 2), default=1, help="1: arcs only; 2: arcs + grandparents"),
        Option(
            "--siblings",
            action="store_true",
            help="with --order 2: add arbitrary-sibling parts (Martins et al. 2009 templates). CLL trains with BP "
            "marginals and measures dev UAS by the bp decoder with the TREE factor, iterations and damping of "
            "training; the perceptron and hinge trainers train and measure dev UAS with --decoder (default: the LP)",
        ),
        Option(
            "--consecutive",
            action="store_true",
            help="with --order 2 and --trainer perceptron or hinge: add consecutive-sibling parts <h, a, b> "
            "(head automata: a = h for the first child, b = h after the last; Koo & Collins 2010 / Martins et "
            "al. 2013 templates). They join the LP (or exact) decoder of training, dev and lpparse parse "
            "(default --decoder auto); cll cannot train them (BP has no head-automaton factor here)",
        ),
        Option(
            "--grand-siblings",
            action="store_true",
            help="with --order 2: add grand-sibling parts <g, h, a, b> (a consecutive-sibling window of h under "
            "h's head g; implies --consecutive; Koo & Collins 2010 / Martins et al. 2013 third-order templates), "
            "trained and decoded by the LP (or exact) decoder like consecutive siblings",
        ),
        Option(
            "--tri-siblings",
            action="store_true",
            help="with --order 2: add tri-sibling parts <h, x, a, b> (three consecutive children of h, START and STOP "
            "at the ends; implies --consecutive); TurboParser's full model is --siblings --grand-siblings "
            "--tri-siblings",
        ),
        Option(
            "--families",
            type=family_names,
            default=(),
            metavar="NAME[,NAME...]",
            help="with --order 2: add the parts of these part families registered by other packages (entry "
            "points 'lpparse.families', e.g. 'bigram' of docs/examples/head_bigrams), scored by their own "
            "feature templates; trained with the perceptron or hinge and the exact decoder",
        ),
        Option(
            "--out",
            type=Path,
            required=True,
            help="model file to write (.npz); with --dev, rewritten after each epoch that improves dev UAS, so that "
            "an interrupted run keeps its best epoch (training record: finished false)",
        ),
        Option(
            "--init",
            type=Path,
            default=None,
            metavar="MODEL",
            help="start from this trained model's weights, vocabulary, bits and root rule (same --order); with "
            "--siblings or --consecutive, e.g. a grandparent model (the new features start from their hashed "
            "slots' weights: 0 unless they collide)",
        ),
        Option(
            "--trainer",
            choices=TRAINERS,
            default=None,
            help="objective: conditional log-likelihood, averaged perceptron, or structured hinge loss (the "
            "perceptron's decoding and update, with --cost as margin, by AdaGrad with --l2; default cll, or "
            "perceptron with --consecutive: cll refuses consecutive-sibling parts, having no marginals for them)",
        ),
        Option(
            "--decoder",
            choices=("gp-eisner", *RELAXATION_DECODERS),
            default=None,
            help="perceptron and hinge, --order 2: the decoder of training and dev; gp-eisner (projective, "
            "grandparent models; their default), the LP by auto, bf or ppc, its optimum in the update fractional "
            "or not (default with --siblings or --consecutive: auto), or exact (the best tree by branch and "
            "bound over the LP, at most 10 s per sentence: start it from an LP-trained model with --init, as from "
            "zero weights every LP is fractional)",
        ),
        Option(
            "--cost",
            type=non_negative_float,
            default=None,
            help="perceptron or hinge with an LP or exact --decoder: Hamming cost per wrong head added in decoding "
            "(loss-augmented decoding; default 1 for hinge, 0 for the perceptron)",
        ),
        Option("--epochs", type=positive_int, default=10, help="maximum epochs (default 10)"),
        Option(
            "--patience", type=positive_int, default=2, help="stop after this many epochs without dev gain"
        ),
        *ROOT_OPTIONS,
        Option("--projective", action="store_true", help="projective training: inside-outside / Eisner"),
        Option(
            "--gp-marginals",
            choices=sorted(GP_MARGINALS),
            default="bp",
            help="grandparent CLL marginals (default bp)",
        ),
        Option(
            "--bp-iters",
            type=positive_int,
            default=None,
            help=f"BP iterations of the training marginals and of the bp dev decoder (default 4; with --siblings "
            f"{SIBLING_BP[0]})",
        ),
        Option(
            "--bp-damping",
            type=ranged(float, 0.0, high=0.99),
            default=None,
            help=f"BP message damping in [0, 1) for training marginals and the bp dev decoder (default 0; with "
            f"--siblings {SIBLING_BP[1]})",
        ),
        Option(
            "--learning-rate",
            type=positive_float,
            default=0.1,
            help="AdaGrad step size, cll and hinge (default 0.1)",
        ),
        Option(
            "--l2",
            type=non_negative_float,
            default=1.0,
            help="l2 regularization lambda of the whole objective (default 1)",
        ),
        Option(
            "--bits",
            type=ranged(int, 1, high=MAX_BITS),
            default=22,
            help="log2 of the number of hashed weights (default 22)",
        ),
        Option(
            "--gwords",
            type=non_negative_int,
            default=500,
            help="words with their own id in grandparent templates",
        ),
        pruning_group(
            "Perceptron and hinge trainers only: they decode the training sentences over the kept arcs and their gold arcs, and the dev "
            "sentences over the kept arcs (parse them with the same options). Needs --pruner.",
            "first-order model whose arc scores give the posteriors (needed for pruning)",
        ),
        *SELECTION_OPTIONS,
        Option("--dev-limit", type=positive_int, default=None, help="use the first DEV_LIMIT dev sentences"),
        Option("--seed", type=non_negative_int, default=0, help="shuffling seed (default 0)"),
        Option(
            "--workers",
            type=positive_int,
            default=1,
            help="learners trained in parallel by iterative parameter mixing (McDonald, Hall & Mann 2010): each "
            "round, learner i trains on every WORKERS-th sentence of the next WORKERS x MIX_EVERY from the mixed "
            "weights, then their weights (and optimizer states) are averaged; the dev sentences are decoded on "
            "the same workers. Local processes (never more than the cores), or the workers of --scheduler. The "
            "result does not depend on where they run; default 1: the sequential trainer",
        ),
        Option(
            "--mix-every",
            type=positive_int,
            default=200,
            help="with --workers > 1: sentences each learner trains on between two mixings (default 200)",
        ),
        Option(
            "--scheduler",
            default=None,
            help="address of a Dask scheduler (e.g. tcp://host:8786) whose workers run the --workers learners and "
            "decode the dev sentences",
        ),
        Option(
            "--no-labels",
            action="store_true",
            help="train no label model (by default one is trained when the treebank has DEPREL: a second stage "
            "over the gold arcs, McDonald, Lerman & Pereira 2006, so that parse writes predicted labels and "
            "reports LAS)",
        ),
        Option(
            "--labels-only",
            action="store_true",
            help="with --init: keep that model as it is (arcs, parts, pruner, decoder) and train its label model "
            "alone, then report its dev UAS and LAS as parse decodes it",
        ),
        Option(
            "--label-epochs",
            type=positive_int,
            default=10,
            help="label perceptron epochs at most (default 10)",
        ),
        Option(
            "--label-bits",
            type=ranged(int, 1, high=MAX_BITS),
            default=20,
            help="log2 of the number of hashed label weights (default 20)",
        ),
        Option("--no-progress", action="store_true", help="hide progress bars"),
    ),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    COMMAND.add_to(subparsers, run)


def _labels(model: Model, args: argparse.Namespace, sentences: list[Sentence], dev: list[Sentence]) -> None:
    """Train ``model``'s label model on the treebank (unless --no-labels, or it has no DEPREL)."""
    if args.no_labels or not any(s.labelled for s in sentences):
        if not args.no_labels:
            print(f"{args.treebank.name} has no labels (DEPREL): no label model")
        return
    config = LabelConfig(args.label_epochs, args.patience, args.label_bits, args.seed, not args.no_progress)
    try:
        model.labels = train_labels(model.vocab, sentences, dev, config, log=print)
    except ValueError as err:  # labels, but none to learn from: the arcs are trained all the same
        print(f"{args.treebank.name}: no label model ({err})")
        return
    print(f"label model: {len(model.labels.names)} labels, root label {model.labels.root_label!r}")


def _labels_only(args: argparse.Namespace, sentences: list[Sentence], dev: list[Sentence], out: Path) -> int:
    """--labels-only: the --init model with a label model added, its dev UAS and LAS as parse decodes it."""
    if args.init is None or args.no_labels:
        raise UsageError("--labels-only needs --init MODEL (and labels: not --no-labels)")
    model = Model.load(readable_file(args.init, "--init model"))
    if not any(s.labelled for s in sentences):
        raise DataError(f"{args.treebank}: no labels (DEPREL) to train on")
    _labels(model, args, sentences, dev)
    if dev:
        decoder = default_decoder(model)
        options = default_decoder_options(model, decoder)
        pruning = decoding_pruning(model, None)
        if pruning is not None:
            options.update(pruning=pruning, pruner=model.pruner)
        score = evaluate(model, dev, decoder, progress=not args.no_progress, **options)
        print(
            f"dev ({decoder}): UAS {100 * score.uas:.2f} (no punct {100 * score.uas_no_punct:.2f}), "
            f"LAS {100 * score.las:.2f} (no punct {100 * score.las_no_punct:.2f})"
        )
    model.save(out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0


def _trainer(args: argparse.Namespace) -> str:
    """The trainer (default cll, perceptron with consecutive siblings or --families), checked against the parts;
    ``args.consecutive`` set when third-order parts ask for it (they live on consecutive-sibling windows)."""
    if (args.grand_siblings or args.tri_siblings) and args.order != 2:
        raise UsageError("--grand-siblings and --tri-siblings need --order 2")
    args.consecutive = args.consecutive or args.grand_siblings or args.tri_siblings
    if args.siblings and args.order != 2:
        raise UsageError("--siblings needs --order 2")
    if args.consecutive and args.order != 2:
        raise UsageError("--consecutive needs --order 2")
    if args.families and args.order != 2:
        raise UsageError("--families needs --order 2")
    trainer = args.trainer or ("perceptron" if args.consecutive or args.families else "cll")
    if args.consecutive and trainer == "cll":
        raise UsageError(
            "--consecutive needs --trainer perceptron or hinge: cll has no marginals for consecutive-sibling "
            "parts (BP has no head-automaton factor here)"
        )
    if args.families and (trainer == "cll" or args.decoder not in (None, "exact")):
        raise UsageError(
            "--families trains with --trainer perceptron or hinge and the exact decoder (the update is the best "
            "tree's parts: a family from elsewhere says nothing of its LP point)"
        )
    return trainer


def _check_sentences(
    args: argparse.Namespace, treebank: Path, sentences: list[Sentence], single_root: bool
) -> None:
    """A :class:`DataError` unless some sentence fits the root rule, a :class:`UsageError` for sentences too long
    for exact grandparent marginals."""
    if not usable(sentences, single_root):
        raise DataError(f"{treebank}: no sentence has a single root child, as --single-root needs")
    longest = max((s.n for s in sentences), default=0)
    if args.order == 2 and args.gp_marginals == "exact" and longest > EXACT_MAX_N:
        raise UsageError(
            f"--gp-marginals exact enumerates every tree, up to {EXACT_MAX_N} tokens; the longest sentence has "
            f"{longest}: add --max-length {EXACT_MAX_N}, or use bp"
        )


def _check_init(args: argparse.Namespace, start: Model, single_root: bool) -> None:
    """A :class:`UsageError` unless the --init model has the order, root rule and templates asked for."""
    if start.order != args.order:
        raise UsageError(f"--init: {args.init} is an order-{start.order} model, not order {args.order}")
    if start.single_root != single_root:
        raise UsageError(f"--init: {args.init} has the other root rule")
    if start.siblings and start.siblings != (SIBLING_TEMPLATES if args.siblings else ()):
        raise UsageError(f"--init: {args.init} has other sibling templates")
    other = start.consecutive_templates != CONSECUTIVE_TEMPLATES
    if start.consecutive and (not args.consecutive or other):
        raise UsageError(
            f"--init: {args.init} has consecutive-sibling templates"
            + (" of another set" if args.consecutive else "; pass --consecutive")
        )
    for kind, has, wanted, same in (
        (
            "grand-sibling",
            start.grandsiblings,
            args.grand_siblings,
            start.grandsibling_templates == GRANDSIBLING_TEMPLATES,
        ),
        (
            "tri-sibling",
            start.trisiblings,
            args.tri_siblings,
            start.trisibling_templates == TRISIBLING_TEMPLATES,
        ),
    ):
        if has and not (wanted and same):
            flag = f"--{kind}s"
            raise UsageError(
                f"--init: {args.init} has {kind} templates"
                + ("; pass " + flag if not wanted else " of another set")
            )


def _model(args: argparse.Namespace, sentences: list[Sentence], single_root: bool) -> Model:
    """The model to train: new, or with --init that model's vocabulary, bits and weights (checked to fit)."""
    parts: dict[str, Any] = {
        "order": args.order,
        "single_root": single_root,
        "siblings": SIBLING_TEMPLATES if args.siblings else (),
        "consecutive": args.consecutive,
        "grandsiblings": args.grand_siblings,
        "trisiblings": args.tri_siblings,
        "families": args.families,
    }
    if args.init is None:
        return Model(Vocabulary.build(sentences, gwords=args.gwords), bits=args.bits, **parts)
    start = Model.load(readable_file(args.init, "--init model"))
    _check_init(args, start, single_root)
    model = Model(
        start.vocab, bits=start.bits, first_order=start.first_order, grandparent=start.grandparent, **parts
    )
    model.weights = start.weights.copy()
    return model


def _config(args: argparse.Namespace, trainer: str, pruning: ArcPruning | None) -> TrainConfig:
    """The training options as given (:func:`lpparse.training.checked_config` checks them); BP's iterations
    and damping default to :data:`SIBLING_BP` with --siblings."""
    return TrainConfig(
        trainer=trainer,
        epochs=args.epochs,
        patience=args.patience,
        learning_rate=args.learning_rate,
        l2=args.l2,
        projective=args.projective,
        gp_marginals=args.gp_marginals,
        bp_iterations=args.bp_iters or (SIBLING_BP[0] if args.siblings else None),
        bp_damping=(SIBLING_BP[1] if args.siblings else 0.0) if args.bp_damping is None else args.bp_damping,
        max_length=args.max_length,
        seed=args.seed,
        progress=not args.no_progress,
        decoder=args.decoder,
        cost=args.cost,
        pruning=pruning,
        workers=args.workers,
        mix_every=args.mix_every,
    )


def run(args: argparse.Namespace) -> int:
    trainer = _trainer(args)
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    pruning = pruning_options(args)
    if pruning and not args.pruner:
        raise UsageError("arc pruning in training needs --pruner (a first-order model)")
    treebank = readable_file(args.treebank, "treebank")
    dev_path = readable_file(args.dev, "dev treebank") if args.dev else None
    out = output_path(args.out, "--out", (args.treebank, args.dev, args.init, args.pruner))
    sentences = selected_sentences(treebank, args, on_error="skip")
    dev = read_treebank(dev_path, on_error="skip", limit=args.dev_limit) if dev_path else []
    if args.labels_only:
        return _labels_only(args, sentences, dev, out)
    pruner = Model.load(readable_file(args.pruner, "--pruner model")) if args.pruner else None
    single_root = resolve_single_root(args.single_root, sentences)
    _check_sentences(args, treebank, sentences, single_root)
    model = _model(args, sentences, single_root)
    model.training = {
        "command": shlex.join(["lpparse", *sys.argv[1:]]),
        "treebank": str(args.treebank),
        "dev": str(args.dev) if args.dev else None,
        "limit": args.limit,
        "init": str(args.init) if args.init else None,
        "pruner": str(args.pruner) if pruning else None,
    }
    try:  # the options checked against each other and the model, their defaults made explicit
        config = checked_config(model, _config(args, trainer, pruning), pruner)
    except ValueError as err:
        raise UsageError(str(err)) from None
    model.pruner = pruner if pruning else None  # inside the model file: parse then prunes as training did
    kind = "single-root" if single_root else "multi-root"
    print(
        f"{args.treebank.name}: {len(sentences)} training, {len(dev)} dev sentences; order {args.order}"
        f"{' + siblings' if args.siblings else ''}{' + consecutive siblings' if args.consecutive else ''}"
        f"{' + grand-siblings' if args.grand_siblings else ''}{' + tri-siblings' if args.tri_siblings else ''}, "
        f"{trainer}, {kind}"
    )
    _labels(model, args, sentences, dev)  # before the arcs: each epoch's dev LAS labels its trees

    def save_best(weights: NDArray[np.float64], record: dict[str, Any]) -> None:
        """Write the best epoch so far to --out: an interrupted run keeps it (``finished`` false)."""
        model.with_weights(weights, {**model.training, **record, "finished": False}).save(out)

    history = train(
        model,
        sentences,
        dev,
        config,
        log=print,
        pruner=pruner,
        checkpoint=save_best if dev else None,
        scheduler=args.scheduler,
    )
    model.training.update(summary=describe(history), finished=True)
    model.save(out)
    print(json.dumps(model.training["summary"]))
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0
