"""The columnar path gives the same results whatever work it hands to forked workers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from native_layers_data import write_dataset

from ragtriage.columnar import NativeEvaluation, evaluate_native


def _same(one: NativeEvaluation, other: NativeEvaluation) -> None:
    assert (one.engine, one.reference_rows) == (other.engine, other.reference_rows)
    for a, b in zip(one.runs, other.runs, strict=True):
        assert a.question_ids == b.question_ids
        for name, part in a.scores.items():
            assert np.array_equal(part.numerator, b.scores[name].numerator)
            assert np.array_equal(part.denominator, b.scores[name].denominator)
        for stage, found in a.findings.items():
            assert np.array_equal(found, b.findings[stage]), stage
        assert a.summary == b.summary


@pytest.mark.parametrize("seed", [1, 2])
def test_snapshot_scan_split_among_workers_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 60, exotic=False)
    alone = evaluate_native(evalset, snapshot, [run], workers=1)
    monkeypatch.setattr("ragtriage.columnar._native_eval._SCAN_PER_WORKER", 1)
    split = evaluate_native(evalset, snapshot, [run], workers=2)
    assert alone.engine == "columnar"
    assert alone.runs[0].findings["injection_in_context"].any()
    _same(alone, split)
