"""Semiring-generic dynamic programming: log-space semirings with derivatives, dense chart programs, and
the DPs written as programs (Eisner's first-order chart)."""
