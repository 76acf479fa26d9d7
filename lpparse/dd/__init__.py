"""Dual decomposition and Lagrangian relaxation: subgradient engine, oracles, the papers' problems, compact LPs."""
