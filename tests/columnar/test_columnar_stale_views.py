"""A stale-evidence failure is explained on what the engine read of its question, without a
view, unless the question is a version question (its explanation names the versions its
answer used): the finding the check gives on the question's view."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from native_layers_data import write_dataset

from ragtriage.columnar import _native_explain, evaluate_native
from ragtriage.diagnosis import INPUT_STAGES, diagnose_view
from ragtriage.metrics import QuestionView


def _version(question: dict[str, Any]) -> bool:
    applies = question.get("applies_to") or {}
    return "version-conflict" in question["tags"] or applies.get("version") is not None


def test_stale_evidence_needs_a_view_only_for_a_version_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    viewed: list[int] = []
    build = _native_explain.RunViews.__call__

    def counted(self: _native_explain.RunViews, part: Sequence[int]) -> list[QuestionView]:
        viewed.extend(part)
        return build(self, part)

    monkeypatch.setattr(_native_explain.RunViews, "__call__", counted)
    without_view = with_view = 0
    for seed in range(8):
        directory = tmp_path / str(seed)
        directory.mkdir()
        evalset, snapshot, run = write_dataset(directory, seed, 40)
        questions = [json.loads(line) for line in evalset.read_text("utf-8").splitlines()[1:]]
        viewed.clear()
        result = evaluate_native(evalset, snapshot, [run], workers=1).runs[0]
        seen = {questions[row]["id"] for row in viewed}
        for verdict, question in zip(result.diagnosis.questions, questions, strict=True):
            assert verdict.question_id == question["id"]
            if "stale_evidence" not in verdict.stages:
                continue
            (view,) = result.build_views([verdict.question_id])
            assert diagnose_view(view, verdict.stages) == verdict
            if set(verdict.stages) <= INPUT_STAGES:
                assert (verdict.question_id in seen) == _version(question)
                without_view += not _version(question)
                with_view += _version(question)
    assert without_view > 5 and with_view > 2
