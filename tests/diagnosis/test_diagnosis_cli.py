"""`ragtriage diagnose`, the diagnosis inside `evaluate`, and the shared question filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from stage_dataset import stage_dataset

import ragtriage
from ragtriage.cli.main import cli
from ragtriage.errors import InputError
from ragtriage.filters import QuestionSelection, evaluate_selected
from ragtriage.schemas import Question

VERSIONS = {"retention-v2": {"version": "v2", "supersedes": ["retention-v1"]}}


def _invoke(*args: str) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(cli, list(args))
    return outcome.exit_code, outcome.stdout, outcome.stderr


@pytest.fixture()
def versions(tmp_path: Path) -> Path:
    path = tmp_path / "versions.json"
    path.write_text(json.dumps(VERSIONS), encoding="utf-8")
    return path


def test_markdown_is_a_paste_ready_summary(article_fixture: Path, versions: Path) -> None:
    code, out, _ = _invoke("diagnose", str(article_fixture), "--versions", str(versions),
                           "--format", "markdown", "--id", "*-*", "--stage", "retrieval_miss")
    assert code == 0
    assert out == "\n".join([
        "## ragtriage diagnosis",
        "",
        "- **synthetic-baseline**: 2 of 2 questions fail (100%); primary stages: retrieval_miss 2",
        "- **synthetic-corrected**: 0 of 2 questions fail (0%); primary stages: -",
        "",
        "Questions: stage retrieval_miss and id \\*-\\*. Rates are over each slice's questions.",
        "",
        "### synthetic-baseline (k=2, evidence matched by document)",
        "",
        "| slice | questions | failing | primary stages |",
        "| --- | --- | --- | --- |",
        "| all | 2 | 2 (100%) | retrieval_miss 2 |",
        "| split:dev | 2 | 2 (100%) | retrieval_miss 2 |",
        "",
        "| stage | primary | present (primary or secondary) |",
        "| --- | --- | --- |",
        "| retrieval_miss | 2/2 (100%) | 2/2 (100%) |",
        "| stale_evidence | 0/2 (0%) | 1/2 (50%) |",
        "| incomplete_answer | 0/2 (0%) | 2/2 (100%) |",
        "",
        "<details><summary>Failing questions</summary>",
        "",
        "| question | primary | secondary | proving IDs | why (primary) |",
        "| --- | --- | --- | --- | --- |",
        "| two-facts | retrieval_miss | incomplete_answer | export-v2 | "
        "export-v2 is not among the 2 candidates |",
        "| stale-version | retrieval_miss | stale_evidence, incomplete_answer | retention-v2 | "
        "retention-v2 is not among the 2 candidates |",
        "",
        "</details>",
        "",
        "### synthetic-corrected (k=2, evidence matched by document)",
        "",
        "| slice | questions | failing | primary stages |",
        "| --- | --- | --- | --- |",
        "| all | 2 | 0 (0%) | - |",
        "| split:dev | 2 | 0 (0%) | - |",
        "",
        "| stage | primary | present (primary or secondary) |",
        "| --- | --- | --- |",
        "| ok | 2/2 (100%) | 2/2 (100%) |",
        "",
        "### Next actions for the primary stages found",
        "",
        "| stage | try first | hold fixed |",
        "| --- | --- | --- |",
        "| retrieval_miss | combine lexical and dense retrieval so exact identifiers (model "
        "numbers, error codes) are matched; then try query rewriting | the question set, the "
        "generator and the final context budget |",
        "",
    ])


def test_json_report(article_fixture: Path) -> None:
    code, out, _ = _invoke("diagnose", str(article_fixture), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["selection"] == "all questions"
    baseline = report["runs"][0]
    assert (baseline["name"], baseline["k"], baseline["evidence_level"]) == (
        "synthetic-baseline", 2, "document"
    )
    assert baseline["questions"][3] == {
        "id": "missing-answer",
        "primary": "missed_refusal",
        "secondary": [],
        "findings": [{
            "stage": "missed_refusal",
            "ids": ["c1"],
            "why": "the material does not answer it, yet the outcome is answered with 1 claim",
        }],
    }
    overall = baseline["breakdown"]["all"]
    assert overall["failing"] == {
        "averaging": "macro", "numerator": 3, "denominator": 4, "rate": 0.75
    }
    assert overall["stages"]["retrieval_miss"] == {
        "averaging": "macro", "primary": 2, "present": 2, "denominator": 4, "primary_rate": 0.5,
        "present_rate": 0.5,
    }
    assert baseline["breakdown"]["worst_first"] == ["split:dev"]
    # Same inputs, byte-identical output.
    assert _invoke("diagnose", str(article_fixture), "--format", "json")[1] == out


def test_table_shows_the_breakdown_first(article_fixture: Path) -> None:
    code, out, _ = _invoke("diagnose", str(article_fixture))
    assert code == 0
    first = out.splitlines()[0]
    assert "synthetic-baseline (k=2, evidence by document): failing questions per" in first
    assert "│ all       │ 4         │ 3 (75%) │ retrieval_miss 2, missed_refusal 1 │" in out


def test_evaluate_json_carries_the_diagnosis(article_fixture: Path, versions: Path) -> None:
    code, out, _ = _invoke("evaluate", str(article_fixture), "--versions", str(versions),
                           "--format", "json", "--metric", "ndcg@2", "--split", "dev")
    assert code == 0
    run = json.loads(out)["runs"][0]
    stale = next(q for q in run["questions"] if q["id"] == "stale-version")
    assert stale["diagnosis"]["primary"] == "retrieval_miss"
    assert stale["diagnosis"]["secondary"] == ["stale_evidence", "incomplete_answer"]
    assert stale["ndcg@2"] == 0.0
    assert run["diagnosis_breakdown"]["all"]["failing"]["numerator"] == 3
    assert run["evidence_level"] == "document"


def test_evaluate_table_and_markdown_show_the_diagnosis(article_fixture: Path) -> None:
    code, out, _ = _invoke("evaluate", str(article_fixture), "--format", "markdown")
    assert code == 0
    assert "### synthetic-baseline: failing questions per slice, worst first" in out
    assert "| all | 4 | 3 (75%) | retrieval_miss 2, missed_refusal 1 |" in out
    assert "| missing-answer | answered |" in out and "| missed_refusal |" in out


def test_unknown_stage_is_a_usage_error(article_fixture: Path) -> None:
    code, _, err = _invoke("diagnose", str(article_fixture), "--stage", "nope")
    assert code == 2
    assert err.splitlines()[-1].startswith(
        "Error: Invalid value for '--stage': expected one of permission_leak, retrieval_miss,"
    )
    assert err.splitlines()[-1].endswith("ok; found 'nope'")


def test_every_unknown_stage_is_named_on_the_command_line(article_fixture: Path) -> None:
    code, _, err = _invoke("evaluate", str(article_fixture), "--stage", "nope",
                           "--stage", "ok", "--stage", "retrievl_miss", "--stage", "nope")
    assert code == 2
    assert err.splitlines()[-1].endswith("ok; found 'nope', 'retrievl_miss'")


def test_every_unknown_split_is_named_on_the_command_line_in_the_library_s_words(
    article_fixture: Path,
) -> None:
    # click's own choice message ("'holdot' is not one of 'dev', ...") named the first only
    code, _, err = _invoke("diagnose", str(article_fixture), "--split", "holdot",
                           "--split", "dev", "--split", "Dev")
    assert code == 2
    assert err.splitlines()[-1] == (
        "Error: Invalid value for '--split': expected one of dev, regression, holdout; "
        "found 'holdot', 'Dev'"
    )


STAGES_EXPECTED = (
    "expected one of permission_leak, retrieval_miss, ranking_loss, truncation_loss, "
    "injection_followed, stale_evidence, unsupported_claim, invalid_citation, "
    "incomplete_answer, missed_refusal, false_refusal, needless_clarification, "
    "needless_escalation, missed_clarification, judge_uncertain, injection_in_context, ok"
)


def test_a_tag_that_is_no_id_is_refused_as_a_mistyped_split_is(article_fixture: Path) -> None:
    # Before, `--tag ""` (or `tags=[""]`) selected nothing, silently: no question has it.
    code, out, err = _invoke("evaluate", str(article_fixture), "--tag", "", "--tag", " ",
                             "--tag", "multi-fact", "--tag", "")
    expected = (
        "expected a non-empty tag (an identifier without control characters, not only "
        "whitespace); found"
    )
    assert (code, out, err.splitlines()[-1]) == (
        2, "", f"Error: Invalid value for '--tag': {expected} '', ' '"
    )
    with pytest.raises(InputError) as tags:
        ragtriage.evaluate_files(article_fixture, tags=["", "multi-fact", "\t"])
    assert str(tags.value) == "\n".join([
        "2 problems found in the input:",
        f"- <command line>: --tag: {expected} ''",
        f"- <command line>: --tag: {expected} '\\t'",
    ])


def test_an_unknown_stage_or_split_is_refused_in_python_as_on_the_command_line(
    article_fixture: Path,
) -> None:
    # A mistyped stage or split selects nothing: the Python keywords are checked as the
    # options are, before anything is scored, not read as an empty selection.
    with pytest.raises(InputError) as stages:
        ragtriage.evaluate_files(article_fixture, stages=["retrievl_miss", "ok", "Ok"])
    assert str(stages.value) == "\n".join([
        "2 problems found in the input:",
        f"- <command line>: --stage: {STAGES_EXPECTED}; found 'retrievl_miss'",
        f"- <command line>: --stage: {STAGES_EXPECTED}; found 'Ok'",
    ])
    with pytest.raises(InputError) as engine:
        evaluate_selected(stage_dataset(), QuestionSelection(stages=("nope",)))
    assert str(engine.value) == (
        f"1 problem found in the input:\n- <command line>: --stage: {STAGES_EXPECTED}; found 'nope'"
    )
    with pytest.raises(InputError) as splits:
        ragtriage.diagnose_files(article_fixture, splits=["holdot", "dev", "Dev"])
    assert str(splits.value) == "\n".join([
        "2 problems found in the input:",
        "- <command line>: --split: expected one of dev, regression, holdout; found 'holdot'",
        "- <command line>: --split: expected one of dev, regression, holdout; found 'Dev'",
    ])
    kept = ragtriage.evaluate_files(article_fixture, stages="retrieval_miss", splits="dev")
    assert [[q.question_id for q in run.questions] for run in kept.runs] == [
        ["two-facts", "stale-version"]
    ] * 2


def test_a_bad_split_or_tag_in_python_is_refused_with_every_other_option_problem(
    article_fixture: Path,
) -> None:
    # Before, the split and tag problems were raised alone, as the request was built: the
    # unknown stage and the cut-off given with them went unsaid until they were mended.
    with pytest.raises(InputError) as refused:
        ragtriage.diagnose_files(
            article_fixture, splits=["holdot"], tags=[""], stages=["nope"], k=0
        )
    assert str(refused.value) == "\n".join([
        "4 problems found in the input:",
        "- <command line>: --split: expected one of dev, regression, holdout; found 'holdot'",
        "- <command line>: --tag: expected a non-empty tag (an identifier without control "
        "characters, not only whitespace); found ''",
        f"- <command line>: --stage: {STAGES_EXPECTED}; found 'nope'",
        "- <command line>: -k: expected an integer from 1 to 10000; found 0",
    ])


def test_missing_versions_file_is_an_input_error(article_fixture: Path, tmp_path: Path) -> None:
    code, _, err = _invoke("diagnose", str(article_fixture), "--versions", str(tmp_path / "v.json"))
    assert code == 2
    assert err == (
        "Error: 1 problem found in the input:\n"
        f"- {tmp_path / 'v.json'}: (file): expected an existing file; found no such file\n"
    )


def _q(qid: str, tags: list[str], split: str = "dev") -> Question:
    return Question.model_validate(
        {"id": qid, "text": "?", "answerability": "unanswerable", "tags": tags, "split": split}
    )


def test_selection_matches_questions() -> None:
    selection = QuestionSelection(tags=("a", "b"), splits=("dev",), ids=("q-*", "x?"))
    assert selection.matches_question(_q("q-1", ["b"]))
    assert selection.matches_question(_q("x1", ["a", "c"]))
    assert not selection.matches_question(_q("x12", ["a"]))  # glob: one character
    assert not selection.matches_question(_q("Q-1", ["a"]))  # case-sensitive
    assert not selection.matches_question(_q("q-1", ["c"]))
    assert not selection.matches_question(_q("q-1", ["a"], "holdout"))
    assert QuestionSelection().empty and QuestionSelection().describe() == "all questions"
    assert selection.describe() == "tag a or b and split dev and id q-* or x?"


def test_evaluate_selected_restricts_aggregates_to_the_stage() -> None:
    selection = QuestionSelection(stages=("incomplete_answer",), splits=("dev",))
    [run] = evaluate_selected(stage_dataset(), selection, metrics=["evidence_recall"]).runs
    assert [q.question_id for q in run.questions] == ["q-miss"]
    agg = run.summary["evidence_recall"]
    assert (agg.value, agg.numerator, agg.denominator) == (0.0, 0, 1)
    assert list(run.slices) == ["split:dev", "tag:exact"]
