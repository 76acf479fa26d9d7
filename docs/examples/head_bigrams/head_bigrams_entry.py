"""The head-bigram family as lpparse's registry finds it (entry point ``bigram`` in this package's
``pyproject.toml``): its score-file member, the check of a sparse part index, and its feature templates for
training a model with it (``lpparse train --order 2 --families bigram``)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from head_bigrams import HeadBigramParts
from lpparse.families import Family
from lpparse.scoring.part_templates import PartTemplates
from lpparse.triples import DensePartScorer


def check_bigram_batch(n: int, h: NDArray[np.int64], h2: NDArray[np.int64], m: NDArray[np.int64]) -> None:
    """ValueError unless every ⟨h, h', m⟩ names a head bigram of an n-token sentence: 1 <= m < n, h and h'
    in 0..n, h != m, h' != m + 1."""
    h, h2, m = (np.asarray(a, dtype=np.int64) for a in (h, h2, m))
    bad = (m < 1) | (m >= n) | (h < 0) | (h > n) | (h2 < 0) | (h2 > n) | (h == m) | (h2 == m + 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"⟨{h[i]}, {h2[i]}, {m[i]}⟩ is not a head bigram of a {n}-token sentence")


#: feature templates of ⟨h, h', m⟩: tags of the three tokens, directions and distance between the heads
TEMPLATES = PartTemplates(
    "bigram",
    3,
    (
        ("0.pos", "1.pos"),
        ("0.pos", "1.pos", "2.pos"),
        ("0.cpos", "1.cpos", "dir01", "dist01"),
        ("0.pos", "2.pos", "dir02"),
        ("1.pos", "2.pos", "dir12"),
        ("0.gword", "1.pos"),
        ("0.pos", "1.gword"),
    ),
)

#: the family as lpparse's registry finds it (entry point ``bigram`` in this package's pyproject.toml):
#: score files hold its scores under ``bigram/i``, dense (n+1)^3 cubes over ⟨h, h', m⟩
FAMILY = Family(
    "bigram",
    3,
    "bigram",
    lambda scorer, rows: HeadBigramParts(scorer),
    DensePartScorer,
    check_index=check_bigram_batch,
    features=TEMPLATES,
    rank=30,
)
