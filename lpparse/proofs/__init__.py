"""Proofs of optimality and the program that checks them (in the manner of VIPR's certificates for exact
MIP: a small separate program re-checks what the solver claims). A search's record (:mod:`.search_tree`:
its nodes, branching, and every node's labelled duals or ray) is written and read back as JSON
(:mod:`.record`, :mod:`.kbest` for the K best trees); :func:`check_proof` rebuilds the full program of every
candidate part and recomputes every node's bound from its duals, trusting no family's pricing. Nothing here
imports a solver."""

from lpparse.proofs.check import ProofProgram, check_proof
from lpparse.proofs.kbest import check_kbest_record, is_kbest_record, kbest_record
from lpparse.proofs.record import proof_record, read_proof_record
from lpparse.proofs.search_tree import BranchNode, ExactResult, ExactStats

__all__ = [
    "BranchNode",
    "ExactResult",
    "ExactStats",
    "ProofProgram",
    "check_kbest_record",
    "check_proof",
    "is_kbest_record",
    "kbest_record",
    "proof_record",
    "read_proof_record",
]
