"""Formulations: programs (:class:`lpparse.lp.LinearProgram`) for structured inference problems."""
