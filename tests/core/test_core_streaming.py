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
