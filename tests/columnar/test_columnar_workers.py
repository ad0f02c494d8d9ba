"""The engine on native files gives the same results whatever work it hands to forked
workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from native_layers_data import write_dataset

import ragtriage.columnar._native_explain as native_explain
import ragtriage.columnar._native_snapshot as native_snapshot
import ragtriage.columnar._row_columns as row_columns
from ragtriage.columnar import evaluate_native
from ragtriage.render import dumps, evaluation_json


@pytest.mark.parametrize("seed", [1, 2])
def test_snapshot_scan_split_among_workers_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 60, exotic=False)
    metrics = ["injection_in_context", "sensitive_in_context", "evidence_recall"]
    alone = evaluate_native(evalset, snapshot, [run], metrics=metrics, workers=1)
    monkeypatch.setattr(native_snapshot, "_SCAN_PER_WORKER", 1)
    calls = []
    real = native_snapshot.in_parallel

    def counted(function: Any, arguments: Any) -> Any:
        calls.append(len(arguments))
        return real(function, arguments)

    monkeypatch.setattr(native_snapshot, "in_parallel", counted)
    split = evaluate_native(evalset, snapshot, [run], metrics=metrics, workers=2)
    assert calls == [2, 2]  # the injection scan, then the sensitive-content scan
    report = dumps(evaluation_json(alone))
    assert '"injection_in_context": true' in report
    assert dumps(evaluation_json(split)) == report


@pytest.mark.parametrize(("seed", "exotic"), [(25, True), (27, False)])
def test_explanations_spread_over_workers_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, exotic: bool
) -> None:
    """A run's explanation chunks split among this process and two forked workers give the
    report one process gives (records, verdicts, label sources, boundaries in order)."""
    evalset, snapshot, run = write_dataset(tmp_path, seed, 60, exotic=exotic)
    monkeypatch.setattr(native_explain, "CHUNK", 7)
    alone = evaluate_native(evalset, snapshot, [run], workers=1)
    monkeypatch.setattr(native_explain, "_PER_WORKER", 20)
    monkeypatch.setattr(native_explain, "_SENT", 2)
    shares = []
    real = native_explain.alongside

    def counted(function: Any, arguments: Any, processes: int) -> Any:
        shares.append(([chunks for (chunks,) in arguments], processes))
        return real(function, arguments, processes)

    monkeypatch.setattr(native_explain, "alongside", counted)
    split = evaluate_native(evalset, snapshot, [run], workers=3)
    # 60 questions, 9 chunks of 7 rows, three processes: this one explains the first 3
    # chunks, two forked workers the others, 2 chunks (`_SENT`) at a time.
    assert shares == [([[0, 7, 14], [21, 28], [35, 42], [49, 56]], 3)]
    report = dumps(evaluation_json(alone))
    assert dumps(evaluation_json(split)) == report
    assert split == alone
    # The workers' records name the run's score columns this process holds (one table).
    records = split.runs[0].questions
    first, last = records[0], records[-1]
    assert first.scores._table is last.scores._table  # type: ignore[attr-defined]
    assert first.cannot_judge._table is last.cannot_judge._table  # type: ignore[attr-defined]
    assert not row_columns.SHARED_TABLES
