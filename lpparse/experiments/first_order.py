"""Per-sentence task of the first-order comparison: the non-projective optimum (Chu-Liu-Edmonds) against
the projective one (Eisner) under seeded noisy-gold scores. The smallest real experiment, and the one the
runner's tests use."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lpparse.corpus import Sentence, sentence_uas
from lpparse.oracles import chu_liu_edmonds, eisner
from lpparse.scores import noisy_gold_scores
from lpparse.trees import tree_score

__all__ = ["first_order_task"]


def first_order_task(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload``: sentence (:class:`Sentence`), seed, noise, single_root. Returns one JSON-able record."""
    sentence: Sentence = payload["sentence"]
    scores = noisy_gold_scores(sentence.heads, noise=payload["noise"], rng=payload["seed"])
    record: dict[str, Any] = {"sent_id": sentence.sent_id, "n": sentence.n}
    for name, decode in (("cle", chu_liu_edmonds), ("eisner", eisner)):
        start = time.perf_counter()
        heads = decode(scores, single_root=payload["single_root"])
        record[f"time_{name}"] = time.perf_counter() - start
        record[f"objective_{name}"] = tree_score(scores, heads)
        record[f"uas_{name}"] = sentence_uas(sentence, heads).uas
        record[f"heads_{name}"] = np.asarray(heads).tolist()
    return record
