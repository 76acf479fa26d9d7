"""Column-and-row generation: an engine that owns the loop over a restricted master (:mod:`.engine`), the
protocol of the part families it prices and separates (:mod:`.family`), its options (:mod:`.options`), its
certificate (:mod:`.certificate`) and the purging of its master (:mod:`.purge`). The part families of
dependency parsing live in :mod:`lpparse.ppc.families`."""

from lpparse._lazy import lazy_exports

#: submodule -> the names it gives this package (imported on first use: :mod:`lpparse._lazy`)
__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "cache": ("ScoreCache",),
        "certificate": ("ppc_certificate",),
        "engine": ("Engine", "EngineResult", "FamilyRound", "FamilyTotals", "Round"),
        "family": ("DualState", "NodeFamily", "PartFamily", "Priced", "Separated", "Warm"),
        "options": ("ColgenOptions", "MasterSettings"),
        "purge": ("Purge",),
    },
)
