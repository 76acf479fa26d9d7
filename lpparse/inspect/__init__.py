"""See inside a relaxation: for one sentence, every LP relaxation's optimum, fractional parts, binding rows and
a cut, against the best tree with a proof and a generic MIP solver on the same program (``lpparse inspect``;
issue 55). :func:`inspect_sentence` takes scores and part families; :func:`inspect_file_sentence` a model or
score file and a treebank sentence."""

from lpparse._lazy import lazy_exports

#: submodule -> the names it gives this package (imported on first use: :mod:`lpparse._lazy`)
__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "cuts": ("Cut", "ReferenceProgram", "find_cut"),
        "mip": ("MipOptions", "MipRun"),
        "relaxations": ("Relaxation", "default_relaxations", "order_claims", "parse_relaxation"),
        "report": ("BestTree", "Inspection", "OrderCheck", "RelaxationReport"),
        "sentence": ("InspectOptions", "inspect_sentence", "write_program"),
        "sources": (
            "SentenceProblem",
            "TreebankInspector",
            "find_sentences",
            "inspect_file_sentence",
            "sentence_problem",
        ),
    },
)
