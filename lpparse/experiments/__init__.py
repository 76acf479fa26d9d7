"""Experiments on top of the algorithms: sweeps, tables and reports."""
