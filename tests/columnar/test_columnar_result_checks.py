"""The views are built from each result as parsed, never validated as a model on the default
path: the first read's checks must refuse every result the `QuestionResult` model refuses
(what the model would have caught when the views validated each result is then caught there,
and the loader names it)."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from native_layers_data import value_places, write_dataset

from ragtriage.columnar import _native_eval, evaluate_native
from ragtriage.columnar._trec import _Fallback
from ragtriage.metrics import measures
from ragtriage.render import dumps, evaluation_json
from ragtriage.schemas import (
    Claim,
    ClaimLabel,
    ContextItem,
    FactLabel,
    Labeller,
    QuestionResult,
    RankedItem,
    Usage,
)

VALUES: list[Any] = [
    None, "", " ", "x", 0, -1, 3, 1.5, -0.5, -0.0, 1e308, 2**63, True, False, [], {}, [""],
    [None], [0], ["d0"], ["d0", "d0"], {"x": 1}, {"id": "d0"}, [{"id": "d0"}], "answered",
    "refused", "supported", "unsupported", "covered", "human", "judge", "d0", "c0", "q1", "f0",
    "sha256:" + "0" * 64,
]
"""Values put in place of a field: of every JSON kind, and strings the schema knows."""

FIELDS = sorted({
    name
    for model in (QuestionResult, RankedItem, ContextItem, Claim, ClaimLabel, FactLabel,
                  Labeller, Usage)
    for name in model.model_fields
} | {"extra"})
"""Keys put into an object of a result: every field of the result's models, and one none
has."""


def _edit(record: dict[str, Any], pick: int, op: str, value: Any) -> None:
    """Change one place of a result: its value replaced, its key removed, a key (of the
    schema or not) set beside it, or its list item written twice."""
    places = value_places(record) or [("question_id",)]
    where = places[pick % len(places)]
    parent: Any = record
    for step in where[:-1]:
        parent = parent[step]
    last = where[-1]
    if op == "drop" and isinstance(parent, dict):
        del parent[last]
    elif op == "set" and isinstance(parent, dict):
        parent[FIELDS[pick % len(FIELDS)]] = value
    elif op == "twice" and isinstance(parent, list):
        parent.append(parent[last])
    else:
        parent[last] = value


@settings(max_examples=1000, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    pick=st.integers(0, 10**6),
    op=st.sampled_from(["replace", "replace", "drop", "set", "set", "twice"]),
    value=st.sampled_from(VALUES),
)
def test_a_result_the_checks_accept_is_one_the_model_accepts(
    seed: int, pick: int, op: str, value: Any
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        evalset, snapshot, run = write_dataset(Path(tmp), seed, 5, exotic=True, jsonl=True)
        lines = run.read_text("utf-8").splitlines()
        line = 1 + pick % (len(lines) - 1)
        record = json.loads(lines[line])
        _edit(record, pick // 7, op, value)
        lines[line] = json.dumps(record)
        run.write_text("\n".join(lines) + "\n", "utf-8")
        try:
            evaluation = _native_eval._on_files(
                evalset, snapshot, [run], measures(None), workers=1
            )
        except _Fallback:
            return  # refused: the loader names the problem
        for text in lines[1:]:
            QuestionResult.model_validate_json(text)
        assert all(view.result is not None for view in evaluation.runs[0].views)


def test_the_default_path_validates_no_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Evaluating and the report never ask a view for its result's model; a registered stage
    or a caller that does gets it validated then."""
    evalset, snapshot, run = write_dataset(tmp_path, 7, 12, exotic=True, jsonl=True)
    want = dumps(evaluation_json(evaluate_native(evalset, snapshot, [run], workers=1)))

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a result was validated")

    with monkeypatch.context() as patched:
        patched.setattr(QuestionResult, "model_validate", refused)
        patched.setattr(QuestionResult, "model_validate_json", refused)
        evaluation = _native_eval._on_files(evalset, snapshot, [run], measures(None), workers=1)
        assert dumps(evaluation_json(evaluation)) == want
        views = evaluation.runs[0].views
        assert all("result" not in vars(view) for view in views)
    texts = run.read_text("utf-8").splitlines()[1:]
    by_id = {r.question_id: r for r in map(QuestionResult.model_validate_json, texts)}
    assert [view.result for view in views] == [by_id[view.question.id] for view in views]


def test_a_result_the_model_refuses_is_named_when_asked_for(tmp_path: Path) -> None:
    """A view's record is validated when its model is first asked for; one the model refuses
    (which the first read's checks never let through) is a bug, said so."""
    evalset, snapshot, run = write_dataset(tmp_path, 3, 4, exotic=False, jsonl=True)
    view = _native_eval._on_files(
        evalset, snapshot, [run], measures(None), workers=1
    ).runs[0].views[0]
    broken = replace(view, record={**view.record, "latency_ms": -1})
    with pytest.raises(RuntimeError, match=f"question {view.question.id} that its schema"):
        assert broken.result is None  # never reached: asking raises
