"""`import tau2` on hostile gzip files: bounded inflation, no silent empty import.

The bombs are built at test time from one compressed mebibyte repeated as gzip members (a
gzip file may hold several, read one after the other), so the test file stays a few kB and
the bomb a few MB on disk however far it inflates.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from hostile_run import run_cli

from ragtriage.importers import TAU2_MAX_BYTES

MIB = 1024 * 1024


def _bomb(path: Path, mebibytes: int, head: bytes = b"[") -> None:
    """A gzip file inflating to `head` and then `mebibytes` MiB of spaces."""
    member = gzip.compress(b" " * MIB, compresslevel=9)
    with path.open("wb") as handle:
        handle.write(gzip.compress(head))
        for _ in range(mebibytes):
            handle.write(member)


def _tasks(path: Path) -> None:
    task = {"id": "t1", "user_scenario": {"instructions": "ask"}, "required_documents": ["d1"]}
    path.write_text(json.dumps([task]), encoding="utf-8")


def test_a_gzip_inflating_to_2_gib_is_refused_at_the_bound(tmp_path: Path) -> None:
    _bomb(tmp_path / "documents.json.gz", 2048)
    _tasks(tmp_path / "tasks.json")
    assert (tmp_path / "documents.json.gz").stat().st_size < 3 * MIB
    result = run_cli("import", "tau2", tmp_path, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "Error: 1 problem found in the input:",
        f"- {tmp_path / 'documents.json.gz'}: (file): expected at most {TAU2_MAX_BYTES} bytes "
        f"unpacked; found more than {TAU2_MAX_BYTES}",
    ]
    assert not (tmp_path / "out").exists()


def test_a_large_plain_tasks_file_is_refused_too(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "documents.json.gz", "wt", encoding="utf-8") as handle:
        json.dump([{"id": "d1", "title": "T", "content": "C"}], handle)
    with (tmp_path / "tasks.json").open("wb") as handle:
        handle.write(b"[")
        handle.truncate(TAU2_MAX_BYTES + 2)  # sparse: no real bytes written
    result = run_cli("import", "tau2", tmp_path, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.splitlines()[1] == (
        f"- {tmp_path / 'tasks.json'}: (file): expected at most {TAU2_MAX_BYTES} bytes; "
        f"found more than {TAU2_MAX_BYTES}"
    )


def test_zero_documents_or_tasks_is_an_error_not_an_empty_import(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "documents.json.gz", "wt", encoding="utf-8") as handle:
        handle.write("[" + " " * 1000 + "]")
    (tmp_path / "tasks.json").write_text("[]", encoding="utf-8")
    result = run_cli("import", "tau2", tmp_path, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "Error: 2 problems found in the input:",
        f"- {tmp_path / 'documents.json.gz'}: (top level): expected at least one document; "
        "found an empty array",
        f"- {tmp_path / 'tasks.json'}: (top level): expected at least one task; "
        "found an empty array",
    ]
    assert "wrote 0 documents" not in result.stdout
    assert not (tmp_path / "out").exists()


def test_documents_or_tasks_that_are_no_array_are_named_each(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "documents.json.gz", "wt", encoding="utf-8") as handle:
        json.dump({"id": "d1"}, handle)
    (tmp_path / "tasks.json").write_text("3", encoding="utf-8")
    result = run_cli("import", "tau2", tmp_path, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "Error: 2 problems found in the input:",
        f"- {tmp_path / 'documents.json.gz'}: (top level): expected a JSON array of documents; "
        'found {"id": "d1"}',
        f"- {tmp_path / 'tasks.json'}: (top level): expected a JSON array of tasks; found 3",
    ]
    assert not (tmp_path / "out").exists()


def test_a_truncated_bomb_is_a_read_error(tmp_path: Path) -> None:
    _bomb(tmp_path / "documents.json.gz", 4)
    data = (tmp_path / "documents.json.gz").read_bytes()
    (tmp_path / "documents.json.gz").write_bytes(data[: len(data) // 2])
    _tasks(tmp_path / "tasks.json")
    result = run_cli("import", "tau2", tmp_path, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.splitlines()[1] == (
        f"- {tmp_path / 'documents.json.gz'}: (file): expected a readable (gzip) file; "
        "found EOFError"
    )
