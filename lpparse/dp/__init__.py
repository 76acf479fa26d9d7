"""Semiring-generic dynamic programming: log-space semirings with their derivatives (:mod:`.semiring`), dense
chart programs run forward and differentiated backward (:mod:`.chart`), and the DPs written as programs:
Eisner's first-order chart (:mod:`.eisner`) and the grandparent chart (:mod:`.grandparent`). The hypergraph
passes of :mod:`lpparse.hypergraph.core` run under the same semirings and read the same programs."""
