"""The oracle and the engine agree on generated data, the files read by the loader and by the
file reader."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ragtriage.errors import InputError

from . import evaluate_files, measure_names
from .engines import (
    compare_readers,
    compare_with_oracle,
    run_by_file_reader,
    run_by_loader,
    write_files,
)
from .strategies import DETECTORS, Generated, datasets

RANK_KS = (1, 3, 5)
NAMES = measure_names(RANK_KS)

options = st.fixed_dictionaries({
    "k": st.sampled_from([None, None, 1, 4]),
    "label_policy": st.sampled_from(["human-first", "human-first", "human", "judge"]),
    "allow_unreviewed": st.booleans(),
    "evidence_level": st.sampled_from(["auto", "auto", "document", "chunk", "span"]),
})


def check(g: Generated, opts: dict[str, Any], jsonl: bool) -> None:
    """Oracle == the engine on the files read by the loader == the engine on the files read by
    the file reader, or both refuse with the same problems (the package matches evidence only
    in its arrays: every number, and every view's `evidence`, comes from them)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), g, jsonl)
        try:
            loaded = run_by_loader(files, NAMES, opts)
        except InputError as refused:
            # Only a label policy or --allow-unreviewed can make a generated dataset invalid.
            with pytest.raises(InputError) as caught:
                run_by_file_reader(files, NAMES, opts)
            assert caught.value.problems == refused.problems
            return
        read = run_by_file_reader(files, NAMES, opts)
        oracle = evaluate_files(
            files.evalset, files.snapshot, files.runs, labels=files.labels, k=opts["k"],
            label_policy=opts["label_policy"], evidence_level_choice=opts["evidence_level"],
            rank_ks=RANK_KS, detectors=DETECTORS,
        )
        assert compare_with_oracle(oracle, loaded) == []
        assert compare_readers(read, loaded) == []


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(), opts=options, jsonl=st.booleans())
def test_oracle_equals_both_readers(g: Generated, opts: dict[str, Any], jsonl: bool) -> None:
    check(g, opts, jsonl)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(labels_file=True), opts=options, jsonl=st.booleans())
def test_oracle_equals_both_readers_with_a_labels_file(
    g: Generated, opts: dict[str, Any], jsonl: bool
) -> None:
    """Every label policy on labels read from the runs and from a labels file per run, some
    labels given in both."""
    check(g, opts, jsonl)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    g=datasets(crowded=True),
    opts=st.fixed_dictionaries({
        "k": st.sampled_from([None, 1, 4]),
        "label_policy": st.just("human-first"),
        "allow_unreviewed": st.booleans(),
        "evidence_level": st.sampled_from(["auto", "document", "chunk", "span", "span"]),
    }),
    jsonl=st.booleans(),
)
def test_oracle_equals_both_readers_on_shared_units_and_spans(
    g: Generated, opts: dict[str, Any], jsonl: bool
) -> None:
    check(g, opts, jsonl)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(), opts=options, jsonl=st.booleans())
def test_oracle_equals_both_readers_many(
    g: Generated, opts: dict[str, Any], jsonl: bool
) -> None:
    check(g, opts, jsonl)
