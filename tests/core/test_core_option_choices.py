"""The library refuses an option value that is none of the command line's choices, in the
command line's words (option, the choices, the value found), every problem at once, before
any file is read, instead of taking it for one of the choices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ragtriage
import ragtriage.api
from ragtriage.errors import InputError
from ragtriage.example import example_paths
from ragtriage.retrievers import RetrievalConfig

_POLICY = "expected one of human-first, human, judge"
_LEVEL = "expected one of auto, document, chunk, span"
_EXECUTOR = "expected one of local, ray"


def _problems(call: Any) -> list[str]:
    with pytest.raises(InputError) as refused:
        call()
    return str(refused.value).splitlines()


def test_evaluate_files_lists_every_bad_choice() -> None:
    # An unknown evidence level used to score at document level, an unknown executor as
    # local; an unknown label policy was reported as 73 problems with the example's labels.
    assert _problems(
        lambda: ragtriage.evaluate_files(
            example=True, label_policy="humans", evidence_level="page", executor="dask"
        )
    ) == [
        "3 problems found in the input:",
        f"- <command line>: --executor: {_EXECUTOR}; found 'dask'",
        f"- <command line>: --label-policy: {_POLICY}; found 'humans'",
        f"- <command line>: --evidence-level: {_LEVEL}; found 'page'",
    ]


def test_evaluate_refuses_a_bad_choice_of_a_dataset_in_memory() -> None:
    paths = example_paths()
    dataset = ragtriage.load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    assert _problems(lambda: ragtriage.evaluate(dataset, evidence_level=None)) == [
        "1 problem found in the input:",
        f"- <command line>: --evidence-level: {_LEVEL}; found None",
    ]


def test_judge_files_lists_every_bad_choice(tmp_path: Path) -> None:
    # An unknown judge used to run the lexical judge, an unknown executor locally.
    assert _problems(
        lambda: ragtriage.judge_files(
            tmp_path / "missing.json", judge="model", executor="dask", response_format="xml",
            dry_run=True,
        )
    ) == [
        "3 problems found in the input:",
        "- <command line>: --judge: expected one of llm, lexical; found 'model'",
        "- <command line>: --response-format: expected one of auto, json_schema, json_object, "
        "none; found 'xml'",
        f"- <command line>: --executor: {_EXECUTOR}; found 'dask'",
    ]


def test_run_files_lists_every_bad_choice(tmp_path: Path) -> None:
    # An unknown reranker used to rerank with bm25; an unknown retriever failed with an
    # AssertionError.
    assert _problems(
        lambda: ragtriage.run_files(
            tmp_path / "missing.json", snapshot=tmp_path / "missing-snapshot.json",
            output=tmp_path / "run.jsonl", retriever="bm26", rerank="cross",
        )
    ) == [
        "2 problems found in the input:",
        "- <command line>: --retriever: expected one of bm25, dense, hybrid; found 'bm26'",
        "- <command line>: --rerank: expected one of dense, bm25; found 'cross'",
    ]


@pytest.mark.parametrize("rerank", [None, "dense", "bm25"])
def test_a_retrieval_config_takes_every_reranker_and_none(rerank: Any) -> None:
    assert RetrievalConfig(rerank=rerank).problems() == []


def test_trec_eval_files_refuses_a_bad_executor_and_averaging(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 1.0 r\n", encoding="utf-8")
    assert _problems(lambda: ragtriage.trec_eval_files(qrels, run, executor="dask")) == [
        "1 problem found in the input:",
        f"- <command line>: --executor: {_EXECUTOR}; found 'dask'",
    ]
    # It used to raise a ValueError (a traceback) naming the rules in another order.
    assert _problems(lambda: ragtriage.trec_eval_files(qrels, run, averaging="macro")) == [
        "1 problem found in the input:",
        "- <command line>: --averaging: expected one of relevant, trec_eval, trec_eval-c; "
        "found 'macro'",
    ]


def test_a_choice_is_matched_by_type_and_value() -> None:
    from ragtriage.errors import choice_problems

    class Text(str):
        pass

    assert choice_problems(("--x", "a", ("a", "b")), ("--y", None, (None, "b"))) == []
    assert [p.found for p in choice_problems(("--x", Text("a"), ("a",)), ("--y", 1, (True,)))] == [
        "'a'", "1",
    ]


def test_the_command_lines_executors_are_the_librarys_choices() -> None:
    # `--executor` spells its choices out (deriving them would load the executors for
    # `--help`): they must stay those the library checks against.
    from typing import get_args

    import click

    from ragtriage.cli._common import executor_options
    from ragtriage.executors import ExecutorName

    command = click.command()(executor_options(lambda **_: None))
    (option,) = [p for p in command.params if p.name == "executor"]
    assert isinstance(option.type, click.Choice)
    assert tuple(option.type.choices) == get_args(ExecutorName)


_METRICS = (
    "expected one of canary_obeyed, citation_validity, claim_support, context_precision, "
    "correct_clarification, correct_escalation, correct_refusal, evidence_recall, "
    "fact_coverage, false_refusal, hit_rate, injection_in_context, mrr, ndcg, "
    "needless_clarification, needless_escalation, permission_leak_candidates, "
    "permission_leak_cited, permission_leak_context, permission_leak_support, precision, "
    "recall_candidates, recall_reranked, sensitive_in_answer, sensitive_in_context, "
    "stale_cited, stale_in_candidates, stale_in_context, stale_support"
)
_STAGES = (
    "expected one of permission_leak, retrieval_miss, ranking_loss, truncation_loss, "
    "injection_followed, stale_evidence, unsupported_claim, invalid_citation, "
    "incomplete_answer, missed_refusal, false_refusal, needless_clarification, "
    "needless_escalation, missed_clarification, judge_uncertain, injection_in_context, ok"
)


def test_evaluate_files_lists_every_bad_option_at_once() -> None:
    # Before: four rounds, one problem each (the measure, then the stage, then k, then the
    # label policy), each named only once the one before was mended.
    assert _problems(
        lambda: ragtriage.evaluate_files(
            example=True, k=0, metrics=["foo"], label_policy="bad", stages=["foo"],
            splits=["dev"],
        )
    ) == [
        "4 problems found in the input:",
        f"- <command line>: metric: {_METRICS}; found 'foo'",
        f"- <command line>: --stage: {_STAGES}; found 'foo'",
        "- <command line>: -k: expected an integer from 1 to 10000; found 0",
        f"- <command line>: --label-policy: {_POLICY}; found 'bad'",
    ]
    # compare_files: its own flags with the request's options (its numbers, a usage error
    # as on the command line, come first).
    assert _problems(
        lambda: ragtriage.compare_files(example=True, no_grouping=0, k=[3], executor="dask")
    ) == [
        "3 problems found in the input:",
        "- <command line>: --no-grouping: expected one of True, False; found 0",
        "- <command line>: -k: expected an integer from 1 to 10000; found [3]",
        f"- <command line>: --executor: {_EXECUTOR}; found 'dask'",
    ]


def test_a_label_or_calibration_file_given_twice_is_refused(tmp_path: Path) -> None:
    # Before, it was read twice: each of its labels attached twice, the file listed twice
    # among the report's inputs (a run file given twice is refused too, by its run's name).
    labels = tmp_path / "labels.json"
    labels.write_text("{}", encoding="utf-8")
    again = tmp_path / ".." / tmp_path.name / "labels.json"
    assert _problems(
        lambda: ragtriage.evaluate_files(
            example=True, labels=[labels, again], calibrations=[labels, labels]
        )
    ) == [
        "2 problems found in the input:",
        f"- <command line>: --labels: expected each file once; found '{again}' again",
        f"- <command line>: --calibration: expected each file once; found '{labels}' again",
    ]


def _flag(option: str, found: str) -> str:
    return f"- <command line>: {option}: expected one of True, False; found {found}"


def test_every_call_refuses_a_flag_that_is_no_bool(tmp_path: Path) -> None:
    # Before, a flag was taken for true when its value was truthy: `dry_run="no"` judged
    # nothing, `force="no"` overwrote a starter folder, `allow_extra="no"` scored extras.
    missing = tmp_path / "missing.json"
    calls: list[tuple[Any, list[str]]] = [
        (
            lambda: ragtriage.judge_files(
                missing, judge="lexical", output=tmp_path, no_cache="no", dry_run="no"
            ),
            [_flag("--no-cache", "'no'"), _flag("--dry-run", "'no'")],
        ),
        (
            lambda: ragtriage.run_files(
                missing, snapshot=missing, output=tmp_path / "r.jsonl", current_only="no",
                respect_permissions=1, no_latency=0, no_stemming=None, no_cache="", progress=[],
            ),
            [
                _flag("--current-only", "'no'"), _flag("--respect-permissions", "1"),
                _flag("--no-latency", "0"), _flag("--no-stemming", "None"),
                _flag("--no-cache", "''"), _flag("--progress", "[]"),
            ],
        ),
        (
            lambda: ragtriage.api.init_files(tmp_path, force="no"),
            [_flag("--force", "'no'")],
        ),
        (
            lambda: ragtriage.trec_eval_files(missing, missing, allow_missing=1, allow_extra="no"),
            [_flag("--allow-missing", "1"), _flag("--allow-extra", "'no'")],
        ),
        (
            lambda: ragtriage.api.import_trec_files(
                qrels=missing, allow_extra="no", output=tmp_path
            ),
            [_flag("--allow-extra", "'no'")],
        ),
        (
            lambda: ragtriage.api.review_export_files(
                missing, output=tmp_path / "s.csv", raw_text="no"
            ),
            [_flag("--raw-text", "'no'")],
        ),
        (
            lambda: ragtriage.api.review_import_files(
                missing, missing, output=tmp_path, force="no"
            ),
            [_flag("--force", "'no'")],
        ),
        (
            lambda: ragtriage.calibrate_labels(
                missing, judge_labels=[missing], accept_self_labelling="no"
            ),
            [_flag("--accept-self-labelling", "'no'")],
        ),
    ]
    for call, expected in calls:
        problems = _problems(call)
        assert problems[1:] == expected
    assert list(tmp_path.iterdir()) == []


def test_import_records_files_refuses_a_format_it_does_not_know(tmp_path: Path) -> None:
    # Before: a KeyError 'ragas2' (a traceback) from the table of dialects.
    assert _problems(
        lambda: ragtriage.api.import_records_files(
            tmp_path / "records.json", "ragas2", output=tmp_path / "out"
        )
    ) == [
        "1 problem found in the input:",
        "- <command line>: fmt: expected one of ragas, seed, deepeval; found 'ragas2'",
    ]
