"""A 100,000-question JSONL run loads line by line: the raw text is never held whole.

Measured with tracemalloc: the peak while loading minus what the parsed run keeps afterwards
(the transient overhead) must stay far below the file's size. Reading the whole file first
and then parsing it would need at least one full copy of the text on top of the objects.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from pathlib import Path

import pytest

from ragtriage.errors import ProblemCollector
from ragtriage.loading import read_file
from ragtriage.schemas import Run

QUESTIONS = 100_000


def _write_run(path: Path) -> int:
    line = {
        "candidates": [{"id": f"doc-{i}", "score": 1.0 / (i + 1)} for i in range(5)],
        "answer": "An answer long enough to matter: " + "x" * 120,
        "outcome": "answered",
        "claims": [{"text": "a claim", "citations": ["doc-0"]}],
        "latency_ms": 12.5,
    }
    with path.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps({"kind": "run", "schema_version": 1, "name": "big"}) + "\n")
        for n in range(QUESTIONS):
            handle.write(json.dumps({"question_id": f"q{n}", **line}) + "\n")
    return path.stat().st_size


@pytest.mark.slow
def test_large_jsonl_run_streams(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    size = _write_run(path)
    gc.collect()
    tracemalloc.start()
    try:
        collector = ProblemCollector()
        loaded = read_file(path, collector)
        retained, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert collector.problems == ()
    assert isinstance(loaded.content, Run)
    assert len(loaded.content.results) == QUESTIONS
    transient = peak - retained
    # Well below one copy of the raw text (a whole-file read would exceed `size` alone).
    assert transient < size / 4, (transient, size, retained)


_RESULT = {
    "question_id": "q1",
    "candidates": [{"id": "d1", "score": 2.0}, {"id": "d2"}],
    "outcome": "answered",
    "answer": "a",
    "claims": [{"text": "c", "citations": ["d1"], "labels": [
        {"verdict": "supported", "supported_by": ["d1"], "labeller": {"kind": "human", "name": "mo"}},
    ]}],
}
_TWICE = {**_RESULT, "question_id": "q2", "claims": [{**_RESULT["claims"][0], "labels": [  # type: ignore[dict-item]
    *_RESULT["claims"][0]["labels"], {"verdict": "unsupported", "labeller": {"kind": "human", "name": "mo"}},  # type: ignore[index]
]}]}
_RUN_HEAD = {"kind": "run", "schema_version": 1, "name": "r"}
_SET_HEAD = {"kind": "evalset", "schema_version": 1, "evalset_id": "e"}
_QUESTION = {"id": "q1", "text": "t", "answerability": "answerable",
             "required_evidence": [{"any_of": ["d1"]}]}
_KEPT_CASES = {
    "valid run": (_RUN_HEAD, _RESULT, {**_RESULT, "question_id": "q3"}),
    "labelled twice, after a bad line": (_RUN_HEAD, {"question_id": 5}, _TWICE, "{not json"),
    "a bad header, labelled twice": ({**_RUN_HEAD, "name": ""}, _TWICE),
    "an evaluation set given": (_SET_HEAD, _QUESTION),
    "no result": (_RUN_HEAD,),
    "valid set": (_SET_HEAD, _QUESTION, {**_QUESTION, "id": "q2", "split": "holdout"}),
    "a bad question": (_SET_HEAD, {**_QUESTION, "answerability": "maybe"}),
}


@pytest.mark.parametrize("case", list(_KEPT_CASES))
@pytest.mark.parametrize("suffix", ["jsonl", "json"])
def test_read_kept_reports_what_read_file_reports(tmp_path: Path, case: str, suffix: str) -> None:
    """`read_kept` reads a line at a time what `read_file` reads whole: the same problems in
    the same order, and of a valid file `keep` of the same items."""
    from ragtriage.loading import Wanted, read_kept

    head, *items = _KEPT_CASES[case]
    path = tmp_path / f"file.{suffix}"
    if suffix == "jsonl":
        path.write_text("".join(
            (x if isinstance(x, str) else json.dumps(x)) + "\n" for x in (head, *items)
        ), encoding="utf-8")
    elif any(isinstance(x, str) for x in items):
        return  # a JSON file has no lines to read apart
    else:
        key = "questions" if head["kind"] == "evalset" else "results"
        path.write_text(json.dumps({**head, key: items}), encoding="utf-8")
    kind = "evalset" if case.endswith("set") or "question" in case else "run"
    whole, kept = ProblemCollector(), ProblemCollector()
    loaded = read_file(path, whole, wanted=Wanted((kind,), kind))
    read = read_kept(path, kind, repr, kept)
    assert kept.problems == whole.problems
    if read is None:
        assert whole.problems
        return
    assert not whole.problems
    content = loaded.content
    assert content is not None
    listed = content.questions if kind == "evalset" else content.results  # type: ignore[union-attr]
    assert read[1] == [repr(item) for item in listed]
    assert (read[0].name if kind == "run" else read[0].evalset_id) == ("r" if kind == "run" else "e")


def test_read_kept_holds_what_keep_returns(tmp_path: Path) -> None:
    """Read a line at a time, a run of 20,000 results costs what `keep` keeps of it, not the
    models: the peak is a fraction of what `read_file`'s run holds."""
    from ragtriage.loading import read_kept

    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [_RUN_HEAD, *(
        {**_RESULT, "question_id": f"q{n}"} for n in range(20_000)
    )]), encoding="utf-8")
    gc.collect()
    tracemalloc.start()
    try:
        read = read_kept(path, "run", lambda res: res.question_id, ProblemCollector())
        kept_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        loaded = read_file(path, ProblemCollector())
        whole = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert read is not None and read[1][-1] == "q19999"
    assert isinstance(loaded.content, Run)
    assert kept_peak < whole / 20, (kept_peak, whole)
