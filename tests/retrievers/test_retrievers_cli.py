"""`ragtriage run`: usage errors and bad inputs exit 2 with one clear message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli import cli
from ragtriage.example import example_paths
from ragtriage.example.zh import zh_example_paths


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["run", *args])
    return result.exit_code, result.output


def test_chunking_needs_a_place_for_the_chunked_snapshot(tmp_path: Path) -> None:
    paths = zh_example_paths()
    code, output = _run(
        "--snapshot",
        str(paths.snapshot),
        str(paths.evalset),
        "--chunk-chars",
        "100",
        "--output",
        str(tmp_path / "r.jsonl"),
    )
    assert code == 2
    assert output.endswith(
        "Error: --chunk-chars/--chunk-sentences need --chunked-snapshot PATH "
        "(the run's chunk IDs live there)\n"
    )


def test_generation_options_go_together(tmp_path: Path) -> None:
    paths = zh_example_paths()
    code, output = _run(
        "--snapshot",
        str(paths.snapshot),
        str(paths.evalset),
        "--base-url",
        "http://127.0.0.1:1/v1",
        "--output",
        str(tmp_path / "r.jsonl"),
    )
    assert code == 2
    assert output.endswith("Error: --base-url and --model go together\n")


def test_swapped_files_are_reported_by_kind(tmp_path: Path) -> None:
    paths = zh_example_paths()
    code, output = _run(
        "--snapshot",
        str(paths.evalset),
        str(paths.snapshot),
        "--output",
        str(tmp_path / "r.jsonl"),
    )
    assert code == 2
    assert output == (
        "Error: 2 problems found in the input:\n"
        # bundled files are named as in every other problem with them (package-relative)
        "- ragtriage:example/zh/snapshot.json: kind: expected an evaluation set or an "
        "article-format file; found 'snapshot'\n"
        "- ragtriage:example/zh/evalset.json: kind: expected snapshot; found 'evalset'\n"
    )
    assert not (tmp_path / "r.jsonl").exists()


def test_reruns_without_latency_are_byte_identical(tmp_path: Path) -> None:
    paths = zh_example_paths()
    outputs = []
    for n in (1, 2):
        out = tmp_path / f"r{n}.jsonl"
        code, output = _run(
            "--snapshot",
            str(paths.snapshot),
            str(paths.evalset),
            "--retriever",
            "bm25",
            "--no-latency",
            "--cache-dir",
            str(tmp_path / "c"),
            "--output",
            str(out),
        )
        assert code == 0, output
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert b'"latency_ms": null' in outputs[0] and b'"stage_latency_ms": {}' in outputs[0]


def test_one_question_is_counted_in_the_singular(tmp_path: Path) -> None:
    paths = example_paths()
    evalset = json.loads(paths.evalset.read_text(encoding="utf-8"))
    evalset["questions"] = evalset["questions"][:1]
    (tmp_path / "e.json").write_text(json.dumps(evalset), encoding="utf-8")
    result = CliRunner().invoke(cli, [
        "run", "--snapshot", str(paths.snapshot), str(tmp_path / "e.json"), "--retriever",
        "bm25", "--no-cache", "--no-progress", "--output", str(tmp_path / "r.jsonl"),
    ])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("bm25: 1 question, 17 units (index built in ")


def test_documents_with_nothing_to_index_are_named_in_a_note(tmp_path: Path) -> None:
    # Before: left out of the index without a word (a title alone is indexed)
    paths = example_paths()
    snapshot = json.loads(paths.snapshot.read_text(encoding="utf-8"))
    for document in snapshot["documents"][:7]:
        document["text"] = ""
        document.pop("title", None)
    (tmp_path / "s.json").write_text(json.dumps(snapshot), encoding="utf-8")
    result = CliRunner().invoke(cli, [
        "run", "--snapshot", str(tmp_path / "s.json"), str(paths.evalset), "--no-cache",
        "--no-progress", "--output", str(tmp_path / "r.jsonl"),
    ])
    assert result.exit_code == 0, result.output
    ids = ", ".join(repr(d["id"]) for d in snapshot["documents"][:5])
    assert result.stderr.startswith("bm25: 17 questions, 10 units (index built in ")
    assert result.stderr.endswith(
        "note: 7 documents have neither text nor a title: nothing to index, never retrieved: "
        f"{ids}, ... (7 in all)\n"
    )


def test_the_dataset_is_checked_as_evaluate_checks_it(tmp_path: Path) -> None:
    # a repeated document or question ID, or evidence naming no document, is refused before
    # any retrieval, with every problem at once (it was written into a run evaluate refuses)
    paths = example_paths()
    snapshot = json.loads(paths.snapshot.read_text(encoding="utf-8"))
    snapshot["documents"].append(snapshot["documents"][0])
    evalset = json.loads(paths.evalset.read_text(encoding="utf-8"))
    evalset["questions"].append(evalset["questions"][0])
    evalset["questions"][1]["required_evidence"] = [{"any_of": ["no-such-doc"]}]
    (tmp_path / "s.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (tmp_path / "e.json").write_text(json.dumps(evalset), encoding="utf-8")
    code, output = _run(
        "--snapshot", str(tmp_path / "s.json"), str(tmp_path / "e.json"), "--no-cache",
        "--output", str(tmp_path / "r.jsonl"),
    )
    assert code == 2
    doc, first, second = (
        snapshot["documents"][0]["id"], evalset["questions"][0]["id"], evalset["questions"][1]["id"]
    )
    assert output == (
        "Error: 3 problems found in the input:\n"
        f"- {tmp_path / 's.json'}: documents[id={doc}]: expected unique document IDs; "
        f"found {doc!r} more than once\n"
        f"- {tmp_path / 'e.json'}: question {first!r}: id: expected unique question IDs; "
        f"found {first!r} more than once\n"
        f"- {tmp_path / 'e.json'}: question {second!r}: required_evidence[0]: expected IDs of "
        "documents or chunks in the snapshot; found 'no-such-doc'\n"
    )
    assert not (tmp_path / "r.jsonl").exists()


def test_a_snapshot_without_text_is_named_by_its_file(tmp_path: Path) -> None:
    paths = example_paths()
    snapshot = json.loads(paths.snapshot.read_text(encoding="utf-8"))
    for document in snapshot["documents"]:
        document["text"] = ""
        document.pop("title", None)  # a title alone is indexed
    (tmp_path / "s.json").write_text(json.dumps(snapshot), encoding="utf-8")
    # A canary's instruction must be in its document's text: the set's canary goes too.
    evalset = json.loads(paths.evalset.read_text(encoding="utf-8"))
    for question in evalset["questions"]:
        question.pop("canary", None)
    (tmp_path / "e.json").write_text(json.dumps(evalset), encoding="utf-8")
    code, output = _run(
        "--snapshot", str(tmp_path / "s.json"), str(tmp_path / "e.json"), "--no-cache",
        "--output", str(tmp_path / "r.jsonl"),
    )
    assert code == 2
    assert output == (
        "Error: 1 problem found in the input:\n"
        f"- {tmp_path / 's.json'}: documents: expected at least one document with text or a "
        "title; found none\n"
    )


def test_an_article_file_is_retrieved_over_its_own_corpus(tmp_path: Path) -> None:
    # Its corpus is the snapshot: with no --snapshot it was 'give --snapshot', with one 'no
    # snapshot option for an article-format file'. A native evaluation set still needs one.
    article = Path(__file__).resolve().parents[1] / "data" / "article-fixture.json"
    out = tmp_path / "r.jsonl"
    code, output = _run(str(article), "--no-cache", "--no-latency", "--output", str(out))
    assert code == 0, output
    cases = json.loads(article.read_text(encoding="utf-8"))["cases"]
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["question_id"] for line in lines[1:]] == [case["id"] for case in cases]
    code, output = _run(str(example_paths().evalset), "--output", str(out))
    assert (code, output) == (2, (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --snapshot: expected a snapshot file for a native evaluation set; "
        "found none given\n"
    ))


def test_a_cut_chunk_id_that_clashes_is_refused_before_any_retrieval(tmp_path: Path) -> None:
    # 'a#0-11' is the ID --chunk-sentences 1 gives the first sentence of document 'a': as a
    # document's ID the chunked snapshot could not be read back; as the ID of a chunk over
    # another span, the cut chunk was left out of it while the run's context held its text
    documents = [{"id": "a", "text": "apple pie. banana split."}]
    question = {
        "id": "q1",
        "text": "apple",
        "answerability": "answerable",
        "required_evidence": [{"any_of": ["a"]}],
    }
    evalset = {"kind": "evalset", "schema_version": 1, "evalset_id": "e", "questions": [question]}
    (tmp_path / "e.json").write_text(json.dumps(evalset), encoding="utf-8")
    clash_chunk = [{"id": "a#0-11", "document_id": "a", "start": 11, "end": 24}]
    cases = {
        "document": (
            [*documents, {"id": "a#0-11", "text": "cherry tart"}],
            [],
            "chunks[id=a#0-11].id: expected a chunk ID distinct from every document ID; "
            "found 'a#0-11'",
        ),
        "chunk": (
            documents,
            clash_chunk,
            "chunks[id=a#0-11]: expected unique chunk IDs; found 'a#0-11' more than once",
        ),
    }
    for name, (docs, chunks, problem) in cases.items():
        snapshot = {"kind": "snapshot", "schema_version": 1, "snapshot_id": "s"}
        snapshot |= {"documents": docs, "chunks": chunks}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(snapshot), encoding="utf-8")
        code, output = _run(
            "--snapshot", str(path), str(tmp_path / "e.json"), "--chunk-sentences", "1",
            "--chunked-snapshot", str(tmp_path / "c.json"), "--no-cache",
            "--output", str(tmp_path / "r.jsonl"),
        )
        assert code == 2
        assert output == (
            "Error: 1 problem found in the input:\n"
            f"- {path}: {problem} (--chunk-sentences 1 names each chunk it cuts "
            "DOCUMENT#START-END: give the snapshot's document or chunk another ID)\n"
        )
        assert not (tmp_path / "r.jsonl").exists() and not (tmp_path / "c.json").exists()
    # a chunk the snapshot already holds over the same span is the same chunk, kept once
    snapshot = {"kind": "snapshot", "schema_version": 1, "snapshot_id": "s", "documents": documents}
    snapshot["chunks"] = [{"id": "a#0-11", "document_id": "a", "start": 0, "end": 11}]
    (tmp_path / "same.json").write_text(json.dumps(snapshot), encoding="utf-8")
    code, _ = _run(
        "--snapshot", str(tmp_path / "same.json"), str(tmp_path / "e.json"),
        "--chunk-sentences", "1", "--chunked-snapshot", str(tmp_path / "c.json"), "--no-cache",
        "--output", str(tmp_path / "r.jsonl"),
    )
    chunked = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert code == 0 and [c["id"] for c in chunked["chunks"]] == ["a#0-11", "a#11-24"]


def test_a_cache_folder_that_cannot_be_written_is_refused_before_the_work(tmp_path: Path) -> None:
    # Before, only --cache-dir was checked: $RAGTRIAGE_CACHE_DIR (or the user cache folder)
    # ended in a NotADirectoryError traceback, and run_files(cache_dir=...) raised it.
    import pytest

    from ragtriage import run_files
    from ragtriage.fileio import OutputError

    paths = example_paths()
    (tmp_path / "afile").write_text("", encoding="utf-8")
    cache, out = tmp_path / "afile" / "cache", tmp_path / "r.jsonl"
    message = (
        f"cannot write {cache}: '{tmp_path / 'afile'}' is a file, not a folder. "
        "Nothing was written."
    )
    result = CliRunner(env={"RAGTRIAGE_CACHE_DIR": str(cache)}).invoke(cli, [
        "run", "--snapshot", str(paths.snapshot), str(paths.evalset), "--no-progress",
        "--output", str(out),
    ])
    assert (result.exit_code, result.output) == (2, f"Error: {message}\n")
    with pytest.raises(OutputError) as refused:
        run_files(paths.evalset, snapshot=paths.snapshot, output=out, cache_dir=cache)
    assert str(refused.value) == message
    assert not out.exists()


def test_a_cache_folder_the_permission_check_passes_but_refuses_a_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, a folder that os.access calls writable but that refuses a new entry (root on a
    # read-only share, a sysfs path) ended in a PermissionError traceback when the index was
    # stored; run_retrieval, which has no pre-check, raised NotADirectoryError for any bad root.
    import errno
    import tempfile

    from ragtriage.fileio import OutputError
    from ragtriage.retrievers import RetrievalConfig, run_retrieval
    from ragtriage.validation import load_checked

    def refuse(*args: object, **kwargs: object) -> str:
        raise PermissionError(errno.EACCES, "Permission denied")

    paths = example_paths()
    cache, out = tmp_path / "cache", tmp_path / "r.jsonl"
    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    result = CliRunner().invoke(cli, [
        "run", "--snapshot", str(paths.snapshot), str(paths.evalset), "--no-progress",
        "--cache-dir", str(cache), "--output", str(out),
    ])
    message = f"cannot write {cache}: permission denied. Nothing was written."
    assert (result.exit_code, result.output) == (2, f"Error: {message}\n")
    assert not out.exists() and list(cache.iterdir()) == []
    monkeypatch.undo()
    (tmp_path / "afile").write_text("", encoding="utf-8")
    data = load_checked(paths.evalset, paths.snapshot)
    below_a_file = tmp_path / "afile" / "cache"
    with pytest.raises(OutputError) as refused:
        run_retrieval(
            data.snapshot, data.evalset, RetrievalConfig(), name="b", cache_dir=below_a_file
        )
    assert str(refused.value) == (
        f"cannot write {below_a_file}: a part of the path is a file, not a folder. "
        "Nothing was written."
    )


def test_a_run_started_without_stderr_is_written(tmp_path: Path) -> None:
    # Before: `2>&-` (Python's sys.stderr is then None) ended the command with an
    # AttributeError from asking it whether it is a terminal, status 1 and no run.
    article = Path(__file__).resolve().parents[1] / "data" / "article-fixture.json"
    out = tmp_path / "r.jsonl"
    done = subprocess.run(
        f"{sys.executable} -m ragtriage run {article} --no-cache -o {out} 2>&-",
        shell=True, capture_output=True, timeout=120, check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"")
    assert out.read_text(encoding="utf-8").count("\n") == 5
