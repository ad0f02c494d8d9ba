"""Exact messages for representative broken files (the whole of stderr, pinned).

The matrix in `test_hostile_files.py` checks that every case names its file and problem;
these tests pin the full wording of one case of each kind, and the reader messages of the
first hour (issue 14): an empty `.json`, real JSONL line and column, a snapshot document
called a document, one problem for a duplicate question ID, a file that does not exist.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hostile_batch import run_batch

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "data"
DATA = ["evalset.json", "--snapshot", "snapshot.json"]
RUN_HEAD = '{"kind": "run", "schema_version": 1, "name": "baseline"}\n'


def _write(root: Path) -> None:
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    os.mkfifo(root / "fifo.jsonl")
    (root / "empty.json").write_bytes(b"")
    (root / "gbk.json").write_bytes(b'{\n  "kind": "run",\n  "name": "' + "基线".encode("gbk")
                                    + b'"\n}\n')
    (root / "cut.jsonl").write_text(
        RUN_HEAD + '{"question_id": "refund"}\n{"question_id": "sso", "latency_ms": 12 "x": 1}\n',
        encoding="utf-8",
    )
    (root / "nan.jsonl").write_text(
        RUN_HEAD + '{"question_id": "refund",\t"latency_ms": NaN}\n', encoding="utf-8"
    )
    (root / "nan.json").write_text(
        '{"kind": "run",\n "results": [{"cost_usd": Infinity}]}', encoding="utf-8"
    )
    (root / "dup.json").write_text(
        '{"kind": "labels", "schema_version": 1, "run": "baseline", "claim_labels": [],'
        ' "fact_labels": [{"question_id": "refund", "fact_id": "f", "verdict": "covered",'
        ' "verdict": "not_covered"}]}',
        encoding="utf-8",
    )
    (root / "deep.toml").write_text("rules = " + "[" * 50_000 + "]" * 50_000 + "\n",
                                    encoding="utf-8")
    with (root / "nonewline.jsonl").open("wb") as handle:
        handle.write(RUN_HEAD.encode())
        handle.truncate(100 * 1024 * 1024)
    snapshot = json.loads((root / "snapshot.json").read_text(encoding="utf-8"))
    first = snapshot["documents"][0]
    del first["text"]
    (root / "missing.snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    evalset = json.loads((root / "evalset.json").read_text(encoding="utf-8"))
    evalset["questions"][1]["id"] = evalset["questions"][0]["id"]
    (root / "dup.evalset.json").write_text(json.dumps(evalset), encoding="utf-8")
    article = json.loads((FIXTURE / "article-fixture.json").read_text(encoding="utf-8"))
    article["runs"][0]["results"][0]["retrievedIds"][0] = ""
    (root / "emptyid.json").write_text(json.dumps(article), encoding="utf-8")


CASES: dict[str, tuple[list[str], str | list[str]]] = {
    "fifo run": (
        ["evaluate", *DATA, "--run", "fifo.jsonl"],
        "- fifo.jsonl: (file): expected a regular file; found a named pipe (FIFO)",
    ),
    "empty .json": (
        ["evaluate", *DATA, "--run", "empty.json"],
        "- empty.json: (file): expected a JSON document; found an empty file",
    ),
    "GBK bytes": (
        ["evaluate", *DATA, "--run", "gbk.json"],
        "- gbk.json: line 3 column 12: expected UTF-8 text; found the byte 0xBB, which is not "
        "UTF-8 (is the file GBK, Latin-1 or UTF-16?); convert it to UTF-8, e.g. "
        "`iconv -f GBK -t UTF-8 gbk.json > gbk.utf8.json`",
    ),
    "JSONL line and column": (
        ["evaluate", *DATA, "--run", "cut.jsonl"],
        "- cut.jsonl: line 3 column 41: expected valid JSON; found a missing comma between "
        "two items",
    ),
    "NaN in a JSONL run": (
        ["evaluate", *DATA, "--run", "nan.jsonl"],
        "- nan.jsonl: line 2 column 41: expected a finite number; found NaN",
    ),
    "Infinity in a JSON run": (
        ["evaluate", *DATA, "--run", "nan.json"],
        "- nan.json: line 2 column 27: expected a finite number; found Infinity",
    ),
    "duplicate key": (
        ["evaluate", *DATA, "--run", "runs/baseline.json", "--labels", "dup.json"],
        "- dup.json: line 1 column 160: expected each key at most once in an object; "
        "found the key 'verdict' twice",
    ),
    "deep TOML policy": (
        ["gate", *DATA, "--run", "runs/baseline.json", "--policy", "deep.toml"],
        "- deep.toml: (file): expected at most 200 levels of nested arrays and objects; "
        "found deeper nesting",
    ),
    "100 MiB without a line break": (
        ["evaluate", *DATA, "--run", "nonewline.jsonl"],
        "- nonewline.jsonl: line 2: expected a line of at most 64 MiB; found a longer line",
    ),
    "a snapshot document": (
        ["evaluate", "evalset.json", "--snapshot", "missing.snapshot.json", "--run",
         "runs/baseline.json"],
        "- missing.snapshot.json: document 'retry-e4291': text: expected a value (required "
        "field); found nothing",
    ),
    "duplicate question ID": (
        ["evaluate", "dup.evalset.json", "--snapshot", "snapshot.json", "--run",
         "runs/baseline.json"],
        [
            "- dup.evalset.json: question 'exact-code': id: expected unique question IDs; "
            "found 'exact-code' more than once",
            # The run's other checks do not depend on which 'exact-code' a result answers.
            "- runs/baseline.json: question 'two-facts': results.question_id: expected a "
            "question of the evaluation set; found no such question",
        ],
    ),
    "empty retrievedIds entry": (
        ["evaluate", "emptyid.json", "-k", "2"],
        "- emptyid.json: question 'exact-code': runs[synthetic-baseline].retrievedIds[0]: "
        "expected a non-empty string; found an empty string",
    ),
    "compare with a file that does not exist": (
        ["compare", *DATA, "--run", "runs/baseline.json", "--candidate", "nothere.jsonl"],
        "- <command line>: --candidate: expected the name of a loaded run (baseline); "
        "found 'nothere.jsonl', a file that does not exist",
    ),
}


@pytest.fixture(scope="module")
def stderr(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int | str, list[str]]]:
    root = tmp_path_factory.mktemp("messages")
    _write(root)
    results = run_batch([args for args, _ in CASES.values()], root)
    return {
        name: (r.code, [line for line in r.stderr.splitlines() if not line.startswith("note:")])
        for name, r in zip(CASES, results, strict=True)
    }


@pytest.mark.parametrize("name", list(CASES))
def test_message_is_pinned(stderr: dict[str, tuple[int | str, list[str]]], name: str) -> None:
    pinned = CASES[name][1]
    lines = [pinned] if isinstance(pinned, str) else pinned
    head = f"Error: {len(lines)} problem{'s' if len(lines) > 1 else ''} found in the input:"
    assert stderr[name] == (2, [head, *lines])
