"""Values of parts kept once computed, dense or by sorted flat keys (lpparse.part_values)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.part_values import PartValues, find_sorted


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 6), arity=st.integers(1, 4), seed=st.integers(0, 2**32 - 1), rounds=st.integers(1, 5))
def test_dense_and_sparse_stores_compute_each_part_once(
    size: int, arity: int, seed: int, rounds: int
) -> None:
    """Both forms return the function's values batch after batch, and compute a part only the first time a
    batch holds it."""
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(size,) * arity)
    for limit in (size**arity, 0):  # dense, then sparse
        computed: list[int] = []

        def compute(*parts: np.ndarray) -> np.ndarray:
            computed.extend(np.ravel_multi_index(parts, table.shape).tolist())
            return table[parts]

        store = PartValues(compute, table.shape, limit)
        assert (store.values is None) == (limit == 0)
        seen: set[int] = set()
        for _ in range(rounds):
            flat = rng.choice(table.size, size=rng.integers(0, table.size + 1), replace=False)
            batch = np.unravel_index(flat, table.shape)
            np.testing.assert_array_equal(store.get(*(np.asarray(a, np.int64) for a in batch)), table[batch])
            seen |= set(flat.tolist())
        assert sorted(computed) == sorted(seen)  # each part once


@given(st.lists(st.integers(-5, 5), unique=True), st.lists(st.integers(-7, 7)))
def test_find_sorted_finds_exactly_the_keys_of_the_table(table: list[int], keys: list[int]) -> None:
    ordered = np.array(sorted(table), np.int64)
    at, found = find_sorted(ordered, np.array(keys, np.int64))
    assert found.tolist() == [k in table for k in keys]
    assert (ordered[at[found]] == np.array(keys, np.int64)[found]).all()
