"""`native_report_pieces`: the columnar JSON report written from the arrays is, byte for byte,
`dumps(native_report_json(...))`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from native_layers_data import write_dataset

from ragtriage.columnar import (
    NativeEvaluation,
    evaluate_native,
    native_report_json,
    native_report_pieces,
)
from ragtriage.render import dumps

ODD_IDS = ['q "quoted"', "q %s %d 100%", "q\tTab\nline", "q é 中文 😀", "q \\ back", "q \x7f\x01"]


def _both(result: NativeEvaluation, measures: list[str]) -> tuple[str, str]:
    fast = "".join(native_report_pieces(result, measures))
    return fast, dumps(native_report_json(result, measures))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pieces_equal_dumps_on_generated_data(tmp_path: Path, seed: int) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 40)
    result = evaluate_native(evalset, snapshot, [run], workers=1)
    assert result.engine == "columnar"
    result = dataclasses.replace(
        result, runs=(*result.runs, dataclasses.replace(result.runs[0], name="second"))
    )
    fast, slow = _both(result, list(result.measures))
    assert fast == slow
    fast, slow = _both(result, list(result.measures)[::-3])
    assert fast == slow


def test_pieces_equal_dumps_with_odd_ids_names_and_piece_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ragtriage.columnar._native_report._ROWS_PER_PIECE", 4)
    evalset, snapshot, run = write_dataset(tmp_path, 5, 30)
    result = evaluate_native(evalset, snapshot, [run], workers=1)
    assert result.engine == "columnar"
    base = result.runs[0]
    ids = tuple(ODD_IDS[n % len(ODD_IDS)] + str(n) for n in range(len(base.question_ids)))
    odd = dataclasses.replace(base, question_ids=ids, name="@questions of run 1@ % \"x\"")
    empty = dataclasses.replace(
        base,
        name="empty",
        question_ids=(),
        scores={
            name: dataclasses.replace(
                part, numerator=part.numerator[:0], denominator=part.denominator[:0]
            )
            for name, part in base.scores.items()
        },
        findings={s: f[:0] for s, f in base.findings.items()},
        primary=np.zeros(0, dtype=np.int64),
    )
    marked = dataclasses.replace(base, name="@questions of run 0@")  # the splice's own mark
    for runs in ((odd, empty, base), (empty,), (base, odd), (), (marked,)):
        fast, slow = _both(dataclasses.replace(result, runs=runs), list(result.measures))
        assert fast == slow
    assert '"secondary": [\n' in fast
