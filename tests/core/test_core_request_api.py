"""The library owns the request: the Python API and the command line score the same questions."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import logging
import operator
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import ragtriage
import ragtriage.api
import ragtriage.testing
from ragtriage import Request, RequestError
from ragtriage.cli.compare import compare_command
from ragtriage.cli.gate import gate_command
from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate, evaluate_trec, load_and_evaluate
from ragtriage.compare import compare, comparison_json
from ragtriage.errors import InputError
from ragtriage.example import example_paths
from ragtriage.gate import gate, gate_json
from ragtriage.holdout import HoldoutPolicy, Notice
from ragtriage.loading import load_dataset
from ragtriage.render import dumps, evaluation_json
from ragtriage.validation import GATE_RESAMPLES_DEFAULT, PERMUTATIONS_DEFAULT, RESAMPLES_DEFAULT


@pytest.fixture()
def example(tmp_path: Path) -> Path:
    """A copy of the bundled example, so holdout ledgers land in a temporary folder."""
    target = tmp_path / "example"
    shutil.copytree(example_paths().root, target)
    return target


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_api_and_cli_score_the_same_questions_of_the_example() -> None:
    notes: list[Notice] = []
    result = ragtriage.evaluate_files(example=True, notify=notes.append)
    assert [len(run.views) for run in result.runs] == [15, 15]
    assert dumps(evaluation_json(result)) == _cli("evaluate", "--example", "--format", "json")
    assert [str(n) for n in notes] == [
        "note: 2 holdout questions left out; --include-holdout scores them (and records the look)"
    ]


def test_api_takes_str_paths_and_matches_the_cli(article_fixture: Path) -> None:
    result = ragtriage.evaluate_files(str(article_fixture), k=2, metrics=["claim_support"])
    expected = _cli(
        "evaluate", str(article_fixture), "-k", "2", "--metric", "claim_support",
        "--format", "json",
    )
    assert dumps(evaluation_json(result)) == expected


def test_including_the_holdout_records_the_look_from_python(example: Path) -> None:
    ledger = example / "looks.jsonl"
    result = ragtriage.evaluate_files(
        example / "evalset.json",
        snapshot=example / "snapshot.json",
        runs=[str(example / "runs" / "baseline.json")],
        include_holdout=True,
        who="notebook",
        ledger=str(ledger),
    )
    assert [len(run.views) for run in result.runs] == [17]
    entry = json.loads(ledger.read_text(encoding="utf-8"))
    assert (entry["command"], entry["user"], entry["runs"], entry["holdout_questions"]) == (
        "evaluate",
        "notebook",
        ["baseline"],
        2,
    )


def test_a_call_refused_after_scoring_records_no_look_from_python(example: Path) -> None:
    ledger = example / "looks.jsonl"
    options = {
        "snapshot": example / "snapshot.json",
        "runs": [example / "runs" / "baseline.json", example / "runs" / "improved.json"],
        "include_holdout": True,
        "who": "notebook",
        "ledger": ledger,
    }
    unknown = (
        "1 problem found in the input:\n"
        "- <command line>: --baseline: expected the name of a loaded run (baseline, improved); "
        "found 'nope'"
    )
    calls = [
        lambda: ragtriage.compare_files(example / "evalset.json", baseline="nope", **options),
        lambda: ragtriage.gate_files(
            example / "evalset.json", policy=example / "policy.toml", candidate="improved",
            baseline="nope", **options,
        ),
        lambda: ragtriage.testing.gate(
            example / "evalset.json", policy=example / "policy.toml", candidate="improved",
            baseline="nope", **options,
        ),
    ]
    for call in calls:
        with pytest.raises(InputError) as refused:
            call()
        assert str(refused.value) == unknown
    assert not ledger.exists()
    ragtriage.compare_files(example / "evalset.json", resamples=200, **options)
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [(e["command"], e["holdout_questions"], e["runs"], e["user"]) for e in entries] == [
        ("compare", 2, ["baseline", "improved"], "notebook")
    ]


def test_a_scored_request_records_its_look_when_shown(example: Path) -> None:
    ledger = example / "looks.jsonl"
    request = Request.build(
        example / "evalset.json",
        snapshot=example / "snapshot.json",
        runs=[example / "runs" / "baseline.json"],
        include_holdout=True,
        who="notebook",
        holdout_warn_after=0,
        ledger=ledger,
    )
    notes: list[Notice] = []
    scored = request.score("diagnose", notes.append)
    assert (scored.command, scored.holdout_questions, notes) == ("diagnose", 2, [])
    assert not ledger.exists()
    assert scored.shown() is scored.evaluation
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [(e["command"], e["holdout_questions"], e["runs"], e["user"]) for e in entries] == [
        ("diagnose", 2, ["baseline"], "notebook")
    ]
    assert [str(n) for n in notes] == [
        f"warning: the holdout of {example / 'evalset.json'} has been looked at 1 times "
        "(more than 0); every look tunes against it, so its scores are drifting towards "
        f"optimistic (ledger: {ledger})"
    ]
    # Left out, the holdout is said to be left out when scored, and nothing is recorded.
    notes.clear()
    left_out = Request.build(
        example / "evalset.json", snapshot=example / "snapshot.json", ledger=ledger
    ).score("evaluate", notes.append)
    assert (left_out.holdout_questions, [str(n) for n in notes]) == (
        0,
        [
            "note: 2 holdout questions left out; --include-holdout scores them "
            "(and records the look)"
        ],
    )
    left_out.shown()
    assert len(ledger.read_text(encoding="utf-8").splitlines()) == 1


def test_python_notes_go_to_the_ragtriage_logger(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="ragtriage"):
        ragtriage.diagnose_files(example=True)
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "INFO",
            "note: 2 holdout questions left out; --include-holdout scores them "
            "(and records the look)",
        )
    ]


def test_no_dataset_is_a_request_error() -> None:
    with pytest.raises(RequestError, match=r"^give DATASET or --example$"):
        ragtriage.evaluate_files()


def test_a_dataset_or_snapshot_with_the_example_is_refused(tmp_path: Path) -> None:
    # The example's files would take their place unread (a missing file went unnoticed).
    missing = tmp_path / "mine.json"
    with pytest.raises(RequestError) as caught:
        ragtriage.evaluate_files(missing, example=True)
    assert str(caught.value) == (
        "--example brings its own evaluation set and snapshot: give it without DATASET and "
        f"--snapshot (found DATASET '{missing}')"
    )
    result = CliRunner().invoke(cli, ["diagnose", "--example", "--snapshot", "s.json"])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "Error: --example brings its own evaluation set and snapshot: give it without "
        "DATASET and --snapshot (found --snapshot 's.json')"
    )


def test_compare_files_equals_compare_command() -> None:
    result = ragtriage.compare_files(
        example=True, baseline="baseline", candidates=["improved"], resamples=200,
        notify=lambda notice: None,
    )
    expected = _cli("compare", "--example", "--resamples", "200", "--format", "json")
    assert dumps(comparison_json(result)) == expected


def test_gate_files_equals_gate_command() -> None:
    result = ragtriage.gate_files(example=True, candidate="improved", notify=lambda n: None)
    assert result.passed is True
    expected = _cli("gate", "--example", "--candidate", "improved", "--format", "json")
    assert dumps(gate_json(result)) == expected


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (ragtriage.api.evaluate_files, "evaluate_files"),
        (ragtriage.api.diagnose_files, "diagnose_files"),
        (ragtriage.api.report_html, "report_html"),
        (ragtriage.api.compare_files, "compare_files"),
        (ragtriage.api.gate_files, "gate_files"),
        (ragtriage.testing.gate, "gate"),
    ],
)
def test_a_misspelled_keyword_names_the_function_called(call: Any, name: str) -> None:
    # the keywords are passed on with **: the error named Request.build, compare_request or
    # gate_request
    with pytest.raises(TypeError) as one:
        call(example=True, snapshots=["s.json"])
    assert str(one.value) == f"{name}() got an unexpected keyword argument 'snapshots'"
    with pytest.raises(TypeError) as two:
        call(example=True, runz=["r.json"], k=3, metric=["evidence_recall"])
    assert str(two.value) == f"{name}() got unexpected keyword arguments 'runz', 'metric'"


def test_diagnose_files_takes_no_metrics_as_diagnose_takes_no_metric() -> None:
    # Before, the names were accepted and dropped unread ('no_such_metric' too).
    with pytest.raises(TypeError) as raised:
        ragtriage.diagnose_files(example=True, metrics=["no_such_metric", "ndcg@0"])  # type: ignore[call-arg]
    assert str(raised.value) == "diagnose_files() got an unexpected keyword argument 'metrics'"
    refused = CliRunner().invoke(cli, ["diagnose", "--example", "--metric", "ndcg@0"])
    assert (refused.exit_code, refused.stderr.splitlines()[-1]) == (
        2, "Error: No such option '--metric'."
    )
    # The commands with --metric take it, and refuse what they cannot use.
    with pytest.raises(InputError) as unknown:
        ragtriage.report_html(example=True, metrics=["ndcg@0"], notify=lambda notice: None)
    assert str(unknown.value) == (
        "1 problem found in the input:\n- <command line>: metric ndcg parameter k: expected an "
        "integer from 1 to 10000; found '0'"
    )


def test_the_misspelled_keyword_error_is_worded_as_python_words_it() -> None:
    def compare_files(*, resamples: int = 0) -> None:
        """A function whose keywords Python itself checks."""

    compare_files.__qualname__ = "compare_files"  # Python names a function by its qualname
    with pytest.raises(TypeError) as python:
        compare_files(resample=10)  # type: ignore[call-arg]
    with pytest.raises(TypeError) as ours:
        ragtriage.api.compare_files(example=True, resample=10)  # type: ignore[call-arg]
    assert str(ours.value) == str(python.value)


def _defaults(call: Callable[..., Any]) -> dict[str, Any]:
    return {name: p.default for name, p in inspect.signature(call).parameters.items()}


def test_the_statistics_defaults_are_one_value_in_every_layer() -> None:
    # written as literals in compare(), gate(), the API and the click options, they could drift
    compared = {"resamples": RESAMPLES_DEFAULT, "permutations": PERMUTATIONS_DEFAULT}
    gated = {"resamples": GATE_RESAMPLES_DEFAULT}
    commands = {c.name: {p.name: p.default for p in c.params} for c in (compare_command, gate_command)}
    for defaults, expected in [
        (_defaults(compare), compared),
        (_defaults(ragtriage.api.compare_request), compared),
        (commands["compare"], compared),
        (_defaults(gate), {**gated, "permutations": PERMUTATIONS_DEFAULT}),
        (_defaults(ragtriage.api.gate_request), gated),
        (commands["gate"], gated),
    ]:
        assert {name: defaults[name] for name in expected} == expected
    # the values `--help` has always shown
    assert (RESAMPLES_DEFAULT, PERMUTATIONS_DEFAULT, GATE_RESAMPLES_DEFAULT) == (5000, 10000, 2000)


def test_gate_without_a_candidate_among_two_runs_names_them() -> None:
    with pytest.raises(
        RequestError,
        match=r"^give --candidate NAME: the run to gate \(loaded runs: baseline, improved\)$",
    ):
        ragtriage.gate_files(example=True, notify=lambda n: None)


def test_baseline_may_name_a_run_file(example: Path) -> None:
    base, new = example / "runs" / "baseline.json", example / "runs" / "improved.json"
    result = ragtriage.compare_files(
        example / "evalset.json",
        snapshot=example / "snapshot.json",
        runs=[new, base],
        baseline=str(base),
        resamples=200,
        notify=lambda n: None,
    )
    assert [(pair.base.label, pair.candidate.label) for pair in result.pairs] == [
        ("baseline", "improved")
    ]


def test_report_html_is_the_report_command_page(tmp_path: Path) -> None:
    page = ragtriage.report_html(example=True, notify=lambda n: None)
    out = tmp_path / "report.html"
    CliRunner().invoke(cli, ["report", "--example", "-o", str(out)])
    assert out.read_text(encoding="utf-8") == page


def test_trec_functions_take_str_paths(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 2.0 t\nq2 Q0 c 1 2.0 t\nq2 Q0 b 2 1.0 t\n", encoding="utf-8")
    direct = evaluate_trec(str(qrels), str(run), metrics=["mrr@10"])
    mirrored = ragtriage.trec_eval_files(str(qrels), str(run), metrics=["mrr@10"])
    assert direct.scores.summary["mrr@10"].value == 0.75
    assert mirrored.scores.summary["mrr@10"].value == 0.75


def test_request_build_turns_words_into_paths_and_policy() -> None:
    request = Request.build(
        "set.json", runs="one.jsonl", tags="billing", include_holdout=True, ledger="l.jsonl"
    )
    assert request.dataset == Path("set.json")
    assert request.runs == (Path("one.jsonl"),)
    assert request.selection.tags == ("billing",)
    assert request.holdout == HoldoutPolicy(include=True, ledger=Path("l.jsonl"))


def test_judge_files_writes_what_the_judge_command_writes(
    article_fixture: Path, tmp_path: Path
) -> None:
    outcome = ragtriage.api.judge_files(
        str(article_fixture), judge="lexical", output=str(tmp_path / "py")
    )
    assert outcome.estimate is None and outcome.result is not None
    result = CliRunner().invoke(
        cli,
        ["judge", str(article_fixture), "--judge", "lexical", "-o", str(tmp_path / "cli"),
         "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "py").iterdir())
    assert [(tmp_path / "py" / n).read_bytes() for n in names] == [
        (tmp_path / "cli" / n).read_bytes() for n in names
    ]
    assert [w.labels.name for w in outcome.written] == [
        "synthetic-baseline.labels.json",
        "synthetic-corrected.labels.json",
    ]


def _imported(tmp_path: Path, qrels_text: str, run_text: str) -> tuple[str, Result]:
    """`import trec` of these files from Python (into py/) and from the command (into cli/):
    the call's summary and the command's result."""
    qrels, run = tmp_path / "q.qrels", tmp_path / "bm25.run"
    qrels.write_text(qrels_text, encoding="utf-8")
    run.write_text(run_text, encoding="utf-8")
    written = ragtriage.api.import_trec_files(
        qrels=str(qrels), trec_runs=str(run), output=str(tmp_path / "py")
    )
    result = CliRunner().invoke(
        cli, ["import", "trec", "--qrels", str(qrels), "--trec-run", str(run),
              "-o", str(tmp_path / "cli")]
    )
    assert result.exit_code == 0, result.output
    return written.summary(), result


def test_an_import_of_one_document_and_one_question_says_so_in_the_singular(
    tmp_path: Path,
) -> None:
    summary, result = _imported(tmp_path, "q1 0 d1 1\n", "q1 Q0 d1 1 2.0 t\n")
    assert summary == f"wrote 1 document, 1 question and 1 run (bm25.jsonl) to {tmp_path / 'py'}"
    assert f"wrote 1 document, 1 question and 1 run (bm25.jsonl) to {tmp_path / 'cli'}" in (
        result.output
    )


def test_import_and_export_calls_write_what_the_commands_write(tmp_path: Path) -> None:
    summary, _ = _imported(
        tmp_path, "q1 0 d1 1\nq2 0 d4 1\n", "q1 Q0 d1 1 2.0 t\nq2 Q0 d4 1 2.0 t\n"
    )
    assert summary == (
        f"wrote 2 documents, 2 questions and 1 run (bm25.jsonl) to {tmp_path / 'py'}"
    )
    for name in ("snapshot.json", "evalset.json", "bm25.jsonl"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    ragtriage.api.export_trec_files(str(tmp_path / "py" / "evalset.json"),
                                    qrels_out=str(tmp_path / "back.qrels"))
    assert (tmp_path / "back.qrels").read_text(encoding="utf-8") == "q1 0 d1 1\nq2 0 d4 1\n"


@pytest.mark.parametrize("k", [0, -3, 10_001, 2.5, True])
def test_the_library_refuses_the_cut_offs_the_command_line_refuses(
    k: object, tmp_path: Path
) -> None:
    # The request owns -k's range: 0 is not "no k", a negative k is not a cut-off. The review
    # sheet calls used to take any k (a sheet exported with k=0 as `review export -k 0` is not).
    paths = example_paths()
    expected = f"- <command line>: -k: expected an integer from 1 to 10000; found {k!r}"
    calls = [
        lambda: ragtriage.evaluate_files(example=True, k=k),
        lambda: load_and_evaluate(paths.evalset, snapshot=paths.snapshot, runs=paths.runs, k=k),
        lambda: evaluate(
            load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs), k=k
        ),
        lambda: ragtriage.api.review_export_files(
            paths.evalset, snapshot=paths.snapshot, runs=paths.runs, k=k,
            output=tmp_path / "sheet.csv",
        ),
        lambda: ragtriage.api.review_import_files(
            paths.evalset, tmp_path / "sheet.csv", snapshot=paths.snapshot, runs=paths.runs,
            k=k, output=tmp_path,
        ),
    ]
    for call in calls:
        with pytest.raises(InputError) as refused:
            call()
        assert str(refused.value).splitlines()[1:] == [expected]
    assert list(tmp_path.iterdir()) == []


def test_a_whole_float_cut_off_is_the_integer() -> None:
    assert [run.k for run in ragtriage.evaluate_files(example=True, k=2.0).runs] == [2, 2]


def _example_dataset() -> Any:
    paths = example_paths()
    return load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)


def _refused(call: Callable[[], object]) -> list[str]:
    with pytest.raises(InputError) as refused:
        call()
    return str(refused.value).splitlines()


def test_a_dataset_in_memory_with_two_runs_of_one_name_is_refused_as_files_are() -> None:
    loaded = _example_dataset()
    run = loaded.runs[0]
    twice = dataclasses.replace(loaded, runs=(run, run))
    assert _refused(lambda: evaluate(twice)) == [
        "1 problem found in the input:",
        f"- {loaded.run_file(run.name)}: name: expected a run name not used by another run; "
        f"found {run.name!r}, as the run of {loaded.run_file(run.name)}",
    ]


def test_evaluate_names_every_bad_option_at_once_as_evaluate_files_does() -> None:
    # As with files, the options are refused before the input is checked: the two runs of
    # one name are not named with them.
    loaded = _example_dataset()
    bad: dict[str, Any] = {
        "metrics": ["nope"], "k": 0, "label_policy": "x", "evidence_level": "y", "stages": ["zz"],
    }
    files = _refused(lambda: ragtriage.evaluate_files(example=True, **bad))
    twice = dataclasses.replace(loaded, runs=(loaded.runs[0], loaded.runs[0]))
    assert _refused(lambda: evaluate(twice, **bad)) == files
    assert files[0] == "5 problems found in the input:"
    assert [line.split(": ")[1] for line in files[1:]] == [
        "metric", "--stage", "-k", "--label-policy", "--evidence-level",
    ]
    assert files[3] == "- <command line>: -k: expected an integer from 1 to 10000; found 0"


def test_a_dataset_without_sources_is_refused_when_made() -> None:
    loaded = _example_dataset()
    with pytest.raises(RequestError) as refused:
        dataclasses.replace(loaded, sources=())
    assert str(refused.value) == (
        "sources: expected the files read, the evaluation set's first (its path names the "
        "dataset in messages: SourceFile('<memory>', 'evalset', '') for one made in memory); "
        "found none"
    )


def test_a_dataset_in_memory_without_runs_is_refused_as_files_without_runs_are() -> None:
    paths = example_paths()
    none = dataclasses.replace(_example_dataset(), runs=())
    files = _refused(lambda: ragtriage.evaluate_files(paths.evalset, snapshot=paths.snapshot))
    assert _refused(lambda: evaluate(none)) == files == [
        "1 problem found in the input:",
        "- <command line>: --run: expected at least one run to evaluate (a --run file, or runs "
        "in DATASET); found none",
    ]


@pytest.mark.parametrize(("workers", "found"), [(-1, "-1"), (0, "0"), ("2", "'2'"), (True, "True")])
def test_evaluate_refuses_a_number_of_workers_that_is_no_count(workers: object, found: str) -> None:
    assert _refused(lambda: evaluate(_example_dataset(), workers=workers)) == [
        "1 problem found in the input:",
        f"- <command line>: workers: expected an integer from 1 to 1024; found {found}",
    ]


def test_a_run_evaluation_s_aggregates_are_read_only() -> None:
    # The result is frozen: a caller's write into its aggregates is refused, not kept for the
    # renderers to trip over.
    run = ragtriage.evaluate_files(example=True).runs[0]
    tag = next(iter(run.slices))
    writes: list[tuple[Any, str]] = [
        (run.summary, "claim_support"), (run.slices, "tag:new"), (run.slices[tag], "mrr"),
        (run.label_sources, "claim_support"),
    ]
    for mapping, key in writes:
        with pytest.raises(TypeError) as refused:
            operator.setitem(mapping, key, None)
        assert str(refused.value) == "'mappingproxy' object does not support item assignment"
    again = copy.deepcopy(run)
    assert again == run and dict(again.summary) == dict(run.summary)
