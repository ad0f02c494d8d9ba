"""`write_native` then `read_file` gives back the same model, as JSON and as JSONL."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st

from ragtriage.errors import ProblemCollector
from ragtriage.importers import write_native
from ragtriage.loading import read_file
from ragtriage.schemas import (
    ContextItem,
    Document,
    EvalSet,
    EvidenceGroup,
    Question,
    QuestionResult,
    RankedItem,
    Run,
    Snapshot,
    is_text,
)

ids = st.text(alphabet="abcdefghij0123456789-_#文档", min_size=1, max_size=8)
texts = st.text(max_size=40)
scores = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False, width=32))

documents = st.builds(Document, id=ids, text=texts, title=st.one_of(st.none(), texts))
questions = st.builds(
    Question,
    id=ids,
    text=texts.filter(is_text),  # a question's text is not only whitespace
    answerability=st.just("answerable"),
    required_evidence=st.lists(
        st.builds(EvidenceGroup, any_of=st.lists(ids, min_size=1, max_size=3)), max_size=3
    ),
    tags=st.lists(ids, max_size=2),
)
results = st.builds(
    QuestionResult,
    question_id=ids,
    candidates=st.lists(st.builds(RankedItem, id=ids, score=scores), max_size=4),
    context=st.one_of(
        st.none(),
        st.lists(st.builds(ContextItem, id=ids, text=st.one_of(st.none(), texts)), max_size=3),
    ),
    latency_ms=st.one_of(st.none(), st.floats(min_value=0, max_value=1e6)),
)


def _read_back(model: Snapshot | EvalSet | Run, suffix: str) -> object:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"file{suffix}"
        write_native(model, path)
        collector = ProblemCollector()
        content = read_file(path, collector).content
        assert collector.problems == ()
        return content


@settings(max_examples=40, deadline=None)
@given(docs=st.lists(documents, max_size=4), suffix=st.sampled_from([".json", ".jsonl"]))
def test_snapshot_round_trip(docs: list[Document], suffix: str) -> None:
    snapshot = Snapshot(snapshot_id="s", documents=docs, metadata={"source": "test"})
    assert _read_back(snapshot, suffix) == snapshot


@settings(max_examples=40, deadline=None)
@given(qs=st.lists(questions, min_size=1, max_size=4), suffix=st.sampled_from([".json", ".jsonl"]))
def test_evalset_round_trip(qs: list[Question], suffix: str) -> None:
    evalset = EvalSet(evalset_id="e", questions=qs)
    assert _read_back(evalset, suffix) == evalset


@settings(max_examples=40, deadline=None)
@given(rs=st.lists(results, max_size=4), suffix=st.sampled_from([".json", ".jsonl"]))
def test_run_round_trip(rs: list[QuestionResult], suffix: str) -> None:
    run = Run(name="r", results=rs)
    back = _read_back(run, suffix)
    assert isinstance(back, Run) and back.model_dump() == run.model_dump()
