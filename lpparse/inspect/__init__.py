"""See inside a relaxation: for one sentence, every LP relaxation's optimum, fractional parts, binding rows and
a cut, against the best tree with a proof and a generic MIP solver on the same program (``lpparse inspect``;
issue 55). :func:`inspect_sentence` takes scores and part families; :func:`inspect_file_sentence` a model or
score file and a treebank sentence."""

from lpparse.inspect.cuts import Cut, ReferenceProgram, find_cut
from lpparse.inspect.mip import MipOptions, MipRun
from lpparse.inspect.relaxations import Relaxation, default_relaxations, order_claims, parse_relaxation
from lpparse.inspect.report import BestTree, Inspection, OrderCheck, RelaxationReport
from lpparse.inspect.sentence import InspectOptions, inspect_sentence, write_program
from lpparse.inspect.sources import (
    SentenceProblem,
    TreebankInspector,
    find_sentences,
    inspect_file_sentence,
    sentence_problem,
)

__all__ = [
    "BestTree",
    "Cut",
    "InspectOptions",
    "Inspection",
    "MipOptions",
    "MipRun",
    "OrderCheck",
    "ReferenceProgram",
    "Relaxation",
    "RelaxationReport",
    "SentenceProblem",
    "TreebankInspector",
    "default_relaxations",
    "find_cut",
    "find_sentences",
    "inspect_file_sentence",
    "inspect_sentence",
    "order_claims",
    "parse_relaxation",
    "sentence_problem",
    "write_program",
]
