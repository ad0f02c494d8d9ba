"""`ragtriage run`: usage errors and bad inputs exit 2 with one clear message."""

from __future__ import annotations

import json
from pathlib import Path

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
        "- ragtriage:example/zh/evalset.json: kind: expected snapshot; found 'evalset'\n"
        "- ragtriage:example/zh/snapshot.json: kind: expected evalset; found 'snapshot'\n"
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
