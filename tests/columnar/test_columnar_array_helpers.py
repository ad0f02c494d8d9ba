"""The engine's array helpers that replace a sort or a full column by a cheaper form give what
the plain form gives; the snapshot is read with the cycle collector paused."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings, strategies as st
from native_layers_data import write_dataset

from ragtriage.columnar import _native_eval, evaluate_native
from ragtriage.columnar._native_stages import _owner, distinct, distinct_codes, owners
from ragtriage.evaluation import QuestionRecord, slice_rows


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(
    lambda size: st.tuples(st.just(size), st.lists(st.integers(0, size - 1), max_size=60))
))
def test_distinct_codes_gives_what_the_sort_gives(case: tuple[int, list[int]]) -> None:
    size, codes = case
    values = np.array(codes, dtype=np.int64)
    got = distinct_codes(values, size)
    assert got.tolist() == distinct(values).tolist() == sorted(set(codes))
    assert got.dtype == np.int64


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=30), st.data())
def test_owners_gives_the_owner_of_each_position(lengths: list[int], data: Any) -> None:
    # Lists of 0 to 4 items, empty lists included: a position is in the non-empty list that
    # holds it, whatever empty lists stand before or after it.
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    total = int(offsets[-1])
    positions = sorted(set(data.draw(st.lists(st.integers(0, max(total - 1, 0)), max_size=20))))
    at = np.array(positions if total else [], dtype=np.int64)
    plain = [n for n, length in enumerate(lengths) for _ in range(length)]
    got = owners(offsets, at)
    assert got.tolist() == [plain[p] for p in at.tolist()] == _owner(offsets)[at].tolist()
    assert got.dtype == np.int64


def _record(n: int, tags: tuple[str, ...], split: str) -> QuestionRecord:
    return QuestionRecord(f"q{n}", tags, split, "answerable", "answered", {}, {})


def test_slice_rows_gives_each_slice_its_records_rows_in_order() -> None:
    records = [
        _record(0, ("a", "b"), "dev"), _record(1, (), "test"), _record(2, ("b", "b"), "dev"),
        _record(3, ("a", "b"), "dev"), _record(4, ("c",), "holdout"), _record(5, (), "test"),
    ]
    rows = slice_rows(records)
    assert {key: value.tolist() for key, value in rows.items()} == {
        "split:dev": [0, 2, 3], "tag:a": [0, 3], "tag:b": [0, 2, 3], "split:test": [1, 5],
        "split:holdout": [4], "tag:c": [4],
    }
    assert all(value.dtype == np.int64 for value in rows.values())
    assert slice_rows([]) == {}


def test_the_snapshot_is_read_with_the_cycle_collector_paused(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # Its documents are many acyclic models: a collection while they are made would only
    # scan them (at 100,000 documents, 0.35 s of a 1.1 s read).
    evalset, snapshot, run = write_dataset(tmp_path, 3, 4)
    seen: list[bool] = []
    read = _native_eval.load_snapshot

    def load_snapshot(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return read(*args)

    monkeypatch.setattr(_native_eval, "load_snapshot", load_snapshot)
    assert gc.isenabled()
    evaluate_native(evalset, snapshot, [run], workers=1)
    assert (seen, gc.isenabled()) == ([False], True)
