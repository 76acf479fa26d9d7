"""Column-and-row generation: an engine that owns the loop over a restricted master
(:mod:`lpparse.colgen.engine`, which needs HiGHS and so is not imported here), the protocol of the part
families it prices and separates (:mod:`.family`), its options (:mod:`.options`), its certificate
(:mod:`.certificate`), the score cache its families share (:mod:`.cache`) and the purging of its master
(:mod:`.purge`). Nothing here knows of parsing: the part families of dependency parsing are
:mod:`lpparse.families`."""

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.certificate import ppc_certificate
from lpparse.colgen.family import DualState, NodeFamily, PartFamily, Priced, Separated, Warm
from lpparse.colgen.options import ColgenOptions, MasterSettings
from lpparse.colgen.purge import Purge

__all__ = [
    "ColgenOptions",
    "DualState",
    "MasterSettings",
    "NodeFamily",
    "PartFamily",
    "Priced",
    "Purge",
    "ScoreCache",
    "Separated",
    "Warm",
    "ppc_certificate",
]
