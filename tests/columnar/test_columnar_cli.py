"""`evaluate` on files read by the file reader (`evaluate_native`) against the same files read
by the loader, and `judge --executor ray` against the local judge."""

from __future__ import annotations

import contextlib
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from native_layers_data import write_dataset

from loader_path import loader_path
from ragtriage.cli.main import cli
from ragtriage.columnar import NATIVE_MEASURES, _native_explain
from ragtriage.errors import InputError
from ragtriage.example import example_paths
from ragtriage.metrics import REGISTRY
from ragtriage.request import Request

NAMES = [f"{name}@3" if REGISTRY[name].params else name for name in NATIVE_MEASURES]
"""Every measure the engine computes on native files, rank measures at k = 3."""
ALL_METRICS = [arg for name in NAMES for arg in ("--metric", name)]
USAGE_HEAD = (
    "Usage: cli evaluate [OPTIONS] [DATASET]\nTry 'cli evaluate --help' for help.\n\n"
)
FORMATS = ("json", "markdown", "table")


def _outputs(args: list[str], fmt: str) -> tuple[str, str]:
    """(loaded, read): the report text, the files read by the loader and by the file reader."""
    runner = CliRunner()
    with loader_path():
        loaded = runner.invoke(cli, ["evaluate", *args, "--format", fmt])
    read = runner.invoke(cli, ["evaluate", *args, "--format", fmt])
    assert loaded.exit_code == 0, loaded.output
    assert read.exit_code == 0, read.output
    return loaded.stdout, read.stdout


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_file_reader_report_is_the_loader_report_on_generated_data(
    tmp_path: Path, seed: int, fmt: str
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 40)
    loaded, read = _outputs(
        [str(evalset), "--snapshot", str(snapshot), "--run", str(run)], fmt
    )
    assert read == loaded
    if fmt == "json":
        questions = json.loads(read)["runs"][0]["questions"]
        assert 0 < len(questions) <= 40  # holdout questions left out


@pytest.mark.parametrize("jsonl", [True, False])
@pytest.mark.parametrize("seed", [25, 27, 30])
def test_explanations_in_small_chunks_are_the_loader_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, jsonl: bool
) -> None:
    """A run's explanations built 7 questions at a time (label sources, boundaries and the
    diagnosis merged over the chunks; questions read again per chunk) are the loader's."""
    monkeypatch.setattr(_native_explain, "CHUNK", 7)
    evalset, snapshot, run = write_dataset(tmp_path, seed, 40, jsonl=jsonl)
    args = [str(evalset), "--snapshot", str(snapshot), "--run", str(run), "--include-holdout"]
    loaded, read = _outputs(args, "json")
    assert read == loaded
    report = json.loads(read)
    assert len(report["runs"][0]["questions"]) == 40
    details = [q["details"] for q in report["runs"][0]["questions"]]
    # The generated texts reach both kinds of sensitive context findings.
    assert any(":email[" in f for d in details for f in d.get("sensitive_context", ()))
    assert any(":card_number[" in f for d in details for f in d.get("sensitive_context", ()))


@pytest.mark.parametrize("fmt", FORMATS)
def test_file_reader_report_is_the_loader_report_on_the_example(fmt: str) -> None:
    loaded, read = _outputs(["--example", "-k", "2"], fmt)
    assert read == loaded


@pytest.mark.parametrize("seed", [1, 2])
def test_every_measure_is_the_same_by_both_readers(tmp_path: Path, seed: int) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 40)
    loaded, read = _outputs(
        [str(evalset), "--snapshot", str(snapshot), "--run", str(run), *ALL_METRICS], "json"
    )
    assert read == loaded
    assert [m["name"] for m in json.loads(read)["metrics"]] == NAMES


def test_file_reader_default_measures_are_the_loader_default_set() -> None:
    loaded, read = _outputs(["--example"], "json")
    assert read == loaded
    assert len(json.loads(read)["metrics"]) == 21


def test_file_reader_accepts_rank_measures_by_alias() -> None:
    loaded, read = _outputs(
        ["--example", "-k", "2", "--metric", "recall@2", "--metric", "MAP@5"], "json"
    )
    assert read == loaded
    names = [m["name"] for m in json.loads(read)["metrics"]]
    assert names == ["recall_candidates@2", "context_precision@5"]


def test_file_reader_json_leaves_out_the_holdout_as_the_loader_does() -> None:
    runs = json.loads(_outputs(["--example", "-k", "2"], "json")[1])["runs"]
    assert [len(run["questions"]) for run in runs] == [15, 15]
    summary = runs[0]["summary"]["evidence_recall"]
    assert summary == {
        "averaging": "macro",
        "denominator": 12,
        "not_applicable": 3,
        "numerator": 9.5,
        "value": 9.5 / 12,
    }


def test_both_readers_say_when_k_is_not_used() -> None:
    notes = [
        f"note: -k 10000 is not used for run {name!r}: every result records its context"
        for name in ("baseline", "improved")
    ]
    header = "baseline (context recorded, k not used)"
    for by_loader in (True, False):
        with loader_path() if by_loader else contextlib.nullcontext():
            out = CliRunner().invoke(cli, ["evaluate", "--example", "-k", "10000"])
        assert out.exit_code == 0, out.output
        assert [line for line in out.stderr.splitlines() if "-k" in line] == notes
        assert header in out.stdout
    loaded, read = _outputs(["--example", "-k", "10000"], "json")
    assert [run["k_used"] for run in json.loads(read)["runs"]] == [False, False]
    assert read == loaded


@pytest.mark.parametrize("metric", ["claim_support", "ndcg@10"])
def test_file_reader_metric_picks_summary_and_question_keys(metric: str) -> None:
    loaded, read = _outputs(["--example", "--metric", metric], "json")
    assert read == loaded
    run = json.loads(read)["runs"][0]
    assert list(run["summary"]) == [metric]
    assert sorted(run["questions"][0]) == sorted(
        ["answerability", "details", "diagnosis", "id", metric, "outcome", "split", "tags"]
    )


def test_a_native_set_needs_its_snapshot(tmp_path: Path) -> None:
    evalset, _, run = write_dataset(tmp_path, 1, 3)
    result = CliRunner().invoke(
        cli, ["evaluate", str(evalset), "--run", str(run)]
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: 1 problem found in the input:\n- <command line>: --snapshot: expected a "
        "snapshot file for a native evaluation set; found none given\n"
    )


def test_file_reader_markdown_is_the_loader_markdown() -> None:
    result = CliRunner().invoke(
        cli, ["evaluate", "--example", "--format", "markdown"]
    )
    assert result.exit_code == 0, result.output
    row = ("| evidence_recall | macro, higher is better | 0.79 (9.5/12) · 3 n/a "
           "| 0.92 (11/12) · 3 n/a |")
    assert row in result.stdout.splitlines()
    assert result.stderr == (
        "note: 2 holdout questions left out; --include-holdout scores them (and records the "
        "look)\n"
    )
    loaded, read = _outputs(["--example"], "markdown")
    assert read == loaded


def test_judge_ray_address_needs_engine_ray(tmp_path: Path) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, 1, 3)
    result = CliRunner().invoke(
        cli,
        ["judge", str(evalset), "--snapshot", str(snapshot), "--run", str(run),
         "--judge", "lexical", "--output", str(tmp_path / "out"), "--ray-address", "auto"],
    )
    assert result.exit_code == 2
    assert result.stderr.endswith("Error: --ray-address needs --executor ray\n")


def test_a_ray_address_is_checked_after_the_values_of_every_call_that_takes_one(
    tmp_path: Path,
) -> None:
    # One check for the request, judge and trec-eval: a value no executor has is the
    # problem shown first, then the address without the Ray executor.
    from ragtriage.api import judge_files, trec_eval_files

    evalset, snapshot, run = write_dataset(tmp_path, 1, 3)
    executor: Any = "bogus"
    problem = "<command line>: --executor: expected one of local, ray; found 'bogus'"
    calls = [
        lambda: judge_files(evalset, snapshot=snapshot, runs=[run], judge="lexical",
                            output=tmp_path / "out", executor=executor, ray_address="auto"),
        lambda: trec_eval_files(tmp_path / "q", tmp_path / "r", executor=executor,
                                ray_address="auto"),
        lambda: Request.build(evalset, snapshot=snapshot, runs=[run], executor=executor,
                              ray_address="auto").evaluate(),
    ]
    for call in calls:
        with pytest.raises(InputError) as refused:
            call()
        assert [p.message() for p in refused.value.problems] == [problem]


def test_judge_on_ray_needs_the_lexical_judge(tmp_path: Path) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, 1, 3)
    result = CliRunner().invoke(
        cli,
        ["judge", str(evalset), "--snapshot", str(snapshot), "--run", str(run),
         "--output", str(tmp_path / "out"), "--executor", "ray"],
    )
    assert result.exit_code == 2
    assert result.stderr.endswith("Error: --executor ray supports --judge lexical only\n")


@pytest.mark.slow
def test_judge_on_ray_writes_the_same_label_files_as_local(tmp_path: Path) -> None:
    from ragtriage.example import example_paths

    paths = example_paths()
    base = ["judge", str(paths.evalset), "--snapshot", str(paths.snapshot),
            *[arg for run in paths.runs for arg in ("--run", str(run))],
            "--judge", "lexical", "--no-progress", "--no-cache"]
    runner = CliRunner()
    local = runner.invoke(cli, [*base, "--output", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    remote = runner.invoke(cli, [*base, "--output", str(tmp_path / "ray"), "--executor", "ray"])
    assert remote.exit_code == 0, remote.output
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray").iterdir())
    assert "baseline.labels.json" in names
    for name in names:
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert remote.stdout == local.stdout.replace(str(tmp_path / "local"), str(tmp_path / "ray"))


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "compare", "gate", "report"])
def test_a_scoring_command_takes_a_ray_address_only_with_the_ray_executor(
    tmp_path: Path, command: str
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, 1, 3)
    extra = {
        "gate": ["--policy", str(example_paths().policy)],
        "report": ["-o", str(tmp_path / "page.html")],
    }.get(command, [])
    result = CliRunner().invoke(
        cli, [command, str(evalset), "--snapshot", str(snapshot), "--run", str(run),
              "--ray-address", "auto", *extra],
    )
    assert result.exit_code == 2
    assert result.stderr.endswith("Error: --ray-address needs --executor ray\n")


def _ray_address_refused(tmp_path: Path, address: str) -> str:
    """The error `trec-eval --executor ray --ray-address ADDRESS` ends with (exit 2, nothing on
    stdout), for a one-line qrels and run."""
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        ["trec-eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), "--executor", "ray",
         "--ray-address", address],
    )
    assert (result.exit_code, result.stdout) == (2, "")
    return result.stderr


def _not_a_cluster(address: str, reason: str) -> str:
    return (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --ray-address: expected the address of a running Ray cluster "
        f"(ray://HOST:PORT or auto); found {address!r} ({reason})\n"
    )


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("garbage", "Invalid address format: garbage"),
        ("bogus://x", "Module: bogus does not exist."),
    ],
)
def test_a_ray_address_ray_cannot_use_is_an_option_problem(
    tmp_path: Path, address: str, reason: str
) -> None:
    pytest.importorskip("ray")
    assert _ray_address_refused(tmp_path, address) == _not_a_cluster(address, reason)


def test_a_ray_address_where_no_cluster_answers_is_an_option_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # When a cluster at a HOST:PORT that accepts connections stops answering, Ray gives up
    # after its timeout by exiting the process (sys.exit(15)); the command still refuses the
    # option, exit code 2.
    ray = pytest.importorskip("ray")

    def exits(*args: object, **kwargs: object) -> None:
        raise SystemExit(15)

    monkeypatch.setattr(ray, "init", exits)
    with socket.socket() as listening:  # accepts connections (the kernel's backlog)
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        address = f"127.0.0.1:{listening.getsockname()[1]}"
        refused = _ray_address_refused(tmp_path, address)
    assert refused == _not_a_cluster(address, "no Ray cluster answered there")


def test_a_ray_address_where_nothing_listens_is_refused_without_waiting_for_ray(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ray 2.60 waits without end for a cluster at a HOST:PORT nothing listens on (over 6
    # minutes, printing its retries); the address is tried first, and refused at once.
    ray = pytest.importorskip("ray")

    def waits(*args: object, **kwargs: object) -> None:
        raise AssertionError("ray.init was called")

    monkeypatch.setattr(ray, "init", waits)
    with socket.socket() as probe:  # a port of this machine that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    assert _ray_address_refused(tmp_path, address) == _not_a_cluster(
        address, "no Ray cluster answered there"
    )


def test_the_ray_executor_needs_a_native_set(article_fixture: Path) -> None:
    result = CliRunner().invoke(cli, ["evaluate", str(article_fixture), "--executor", "ray"])
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "Error: --executor ray needs a native evaluation set and its --snapshot\n"
    )
