"""Column-and-row generation: an engine that owns the loop over a restricted master (:mod:`.engine`), the
protocol of the part families it prices and separates (:mod:`.family`), its options (:mod:`.options`) and its
certificate (:mod:`.certificate`). The part families of dependency parsing live in
:mod:`lpparse.ppc.families`."""

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.certificate import ppc_certificate
from lpparse.colgen.engine import Engine, EngineResult, FamilyRound, FamilyTotals, Round
from lpparse.colgen.family import DualState, PartFamily, Priced, Separated, Warm
from lpparse.colgen.options import ColgenOptions

__all__ = [
    "ColgenOptions",
    "DualState",
    "Engine",
    "EngineResult",
    "FamilyRound",
    "FamilyTotals",
    "PartFamily",
    "Priced",
    "Round",
    "ScoreCache",
    "Separated",
    "Warm",
    "ppc_certificate",
]
