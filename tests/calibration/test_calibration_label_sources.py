"""Calibration records fed back into `evaluate`: label sources, marks and notes, pinned exactly."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.api import report_page
from ragtriage.calibration import (
    CalibrationRecord,
    calibrate_files,
    calibration_record,
    read_calibrations,
)
from ragtriage.cli.calibrate import calibrate_command
from ragtriage.columnar import evaluate, load_and_evaluate
from ragtriage.errors import InputError
from ragtriage.evaluation import Evaluation
from ragtriage.example import example_paths
from ragtriage.judges import LexicalJudge, judge_dataset, write_model
from ragtriage.loading import load_dataset
from ragtriage.render import evaluation_json, render_markdown, render_table
from ragtriage.render.html._summary import layers

LEXICAL = {
    "kind": "judge",
    "name": "lexical-baseline",
    "prompt_version": "lexical-v2",
    "endpoint_kind": "lexical",
}
HUMAN_ONLY = {
    "human": 4,
    "judge": 0,
    "judges": [],
    "calibrated": False,
    "mark": None,
    "calibration": None,
}
UNCALIBRATED_ROW = (
    "| claim_support | micro, higher is better | 0.75 (3/4) · judge-labelled, uncalibrated "
    "| 1.00 (4/4) · 1 n/a · judge-labelled, uncalibrated |"
)
CALIBRATED_ROW = (
    "| claim_support | micro, higher is better "
    "| 0.75 (3/4) · judge-labelled, calibrated (kappa 1.00 on 8 items) "
    "| 1.00 (4/4) · 1 n/a · judge-labelled, calibrated (kappa 1.00 on 8 items) |"
)
NOT_USED = (
    "calibration record for judge lexical-baseline (prompt lexical-v1) was not used: "
    "no counted label is by that judge (judges whose labels count: lexical-baseline "
    "(prompt lexical-v2))"
)


def _judge_files(article_fixture: Path, folder: Path) -> list[Path]:
    judged = judge_dataset(load_dataset(article_fixture), LexicalJudge())
    return [write_model(r.labels, folder / f"judge-{r.name}.json") for r in judged.runs]


def _record(article_fixture: Path, judge_files: list[Path]) -> CalibrationRecord:
    """The lexical baseline calibrated against the fixture's embedded human reviews."""
    dataset = load_dataset(article_fixture, labels=judge_files)
    cal = calibrate_files(judge_files, [], dataset=dataset)
    return calibration_record(cal)


def _judged(
    article_fixture: Path, judge_files: list[Path], records: list[CalibrationRecord]
) -> Evaluation:
    dataset = load_dataset(article_fixture, labels=judge_files)
    return evaluate(dataset, label_policy="judge", allow_unreviewed=True, calibrations=records)


def _row(markdown: str, metric: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith(f"| {metric} |"))


def _sources(evaluation: Evaluation) -> dict[str, object]:
    return dict(evaluation_json(evaluation)["runs"][0]["label_sources"])


def test_human_labels_only_carry_no_mark(article_fixture: Path) -> None:
    evaluation = evaluate(load_dataset(article_fixture))
    assert _sources(evaluation) == {"claim_support": HUMAN_ONLY, "fact_coverage": HUMAN_ONLY}
    markdown = render_markdown(evaluation)
    assert _row(markdown, "claim_support") == (
        "| claim_support | micro, higher is better | 0.75 (3/4) | 1.00 (4/4) · 1 n/a |"
    )
    assert "judge-labelled" not in markdown + render_table(evaluation)
    assert evaluation.calibration_notes == ()
    assert evaluation_json(evaluation)["calibration_notes"] == []


def test_judge_labels_without_a_record_are_uncalibrated(
    article_fixture: Path, tmp_path: Path
) -> None:
    evaluation = _judged(article_fixture, _judge_files(article_fixture, tmp_path), [])
    assert _sources(evaluation)["claim_support"] == {
        "human": 0,
        "judge": 4,
        "judges": [LEXICAL],
        "calibrated": False,
        "mark": "judge-labelled, uncalibrated",
        "calibration": None,
    }
    # The lexical baseline cannot judge the fixture's facts: fact_coverage is n/a, unmarked.
    assert _sources(evaluation)["fact_coverage"] == {**HUMAN_ONLY, "human": 0}
    assert _row(render_markdown(evaluation), "claim_support") == UNCALIBRATED_ROW
    table_row = next(
        line for line in render_table(evaluation, width=300).splitlines() if "claim_support" in line
    )
    assert "0.75 (3/4) · judge-labelled, uncalibrated" in table_row
    html_row = next(
        row for layer in layers(evaluation) for row in layer.rows if row.metric == "claim_support"
    )
    assert [c.value for c in html_row.cells] == [
        "0.75 · judge-labelled, uncalibrated",
        "1.00 · judge-labelled, uncalibrated",
    ]


def test_a_matching_record_calibrates(article_fixture: Path, tmp_path: Path) -> None:
    files = _judge_files(article_fixture, tmp_path)
    record = _record(article_fixture, files)
    evaluation = _judged(article_fixture, files, [record])
    assert _sources(evaluation)["claim_support"] == {
        "human": 0,
        "judge": 4,
        "judges": [LEXICAL],
        "calibrated": True,
        "mark": "judge-labelled, calibrated (kappa 1.00 on 8 items)",
        "calibration": {
            "judges": [
                {
                    "judge": LEXICAL,
                    "item_kind": "claim",
                    "items": 8,
                    "cohen_kappa": 1.0,
                    "agreement": 1.0,
                    "record": record.digest(),
                }
            ]
        },
    }
    markdown = render_markdown(evaluation)
    assert _row(markdown, "claim_support") == CALIBRATED_ROW
    assert "Note:" not in markdown
    assert evaluation.calibration_notes == ()


def test_a_record_for_another_judge_is_a_note(article_fixture: Path, tmp_path: Path) -> None:
    files = _judge_files(article_fixture, tmp_path)
    record = _record(article_fixture, files)
    other = record.model_copy(
        update={"judge": record.judge.model_copy(update={"prompt_version": "lexical-v1"})}
    )
    alone = _judged(article_fixture, files, [other])
    assert alone.calibration_notes == (NOT_USED,)
    assert _sources(alone)["claim_support"]["calibrated"] is False  # type: ignore[index]
    markdown = render_markdown(alone)
    assert _row(markdown, "claim_support") == UNCALIBRATED_ROW
    assert f"Note: {NOT_USED}" in markdown.splitlines()
    assert f"note: {NOT_USED}" in render_table(alone, width=400).splitlines()
    page = report_page(alone)
    assert f'<p class="muted">Note: {escape(NOT_USED)}</p>' in page
    assert "Note: calibration" not in report_page(_judged(article_fixture, files, [record]))
    # Next to the matching record it still says it was not used; the match still applies.
    both = _judged(article_fixture, files, [other, record])
    assert both.calibration_notes == (NOT_USED,)
    assert _row(render_markdown(both), "claim_support") == CALIBRATED_ROW
    # Human labels counting (human-first): the judge's record matches no counted label.
    humans = evaluate(load_dataset(article_fixture, labels=files), calibrations=[record])
    assert humans.calibration_notes == (
        "calibration record for judge lexical-baseline (prompt lexical-v2) was not used: "
        "no counted label is by that judge (judges whose labels count: none)",
    )


def test_calibrate_output_writes_the_record_evaluate_reads(
    article_fixture: Path, tmp_path: Path
) -> None:
    files = _judge_files(article_fixture, tmp_path)
    out = tmp_path / "calibration.json"
    args = [a for f in files for a in ("--judge-labels", str(f))]
    args += [str(article_fixture), "--record", str(out)]
    result = CliRunner().invoke(calibrate_command, args)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("judge lexical-baseline (prompt lexical-v2, lexical,")
    (record,) = read_calibrations([out])
    assert record == _record(article_fixture, files).model_copy(
        update={"inputs": record.inputs}
    )
    assert [(i.role, i.path, i.kind) for i in record.inputs] == [
        ("judge", str(files[0]), "labels"),
        ("judge", str(files[1]), "labels"),
        ("human", str(article_fixture), "article"),
    ]
    assert all(len(i.sha256) == 64 for i in record.inputs)
    again = tmp_path / "again.json"
    CliRunner().invoke(calibrate_command, [*args[:-1], str(again)])
    assert again.read_bytes() == out.read_bytes()


def test_a_broken_record_names_file_field_expected_found(
    tmp_path: Path, article_fixture: Path
) -> None:
    # A file of another kind is named by its kind alone (as every loader names it); before,
    # each calibration field it lacks was listed after it (and an article-format file, which
    # has no kind, was told of 11 missing fields and 5 unknown ones).
    bad, other = tmp_path / "bad.json", tmp_path / "labels.json"
    bad.write_text(json.dumps({"schema_version": 1, "kind": "calibration"}), encoding="utf-8")
    other.write_text(json.dumps({"schema_version": 1, "kind": "labels"}), encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_calibrations([bad, other, article_fixture, tmp_path / "missing.json"])
    missing = [
        "judge",
        "reviewers",
        "claims",
        "facts",
        "judge_only_items",
        "human_only_items",
        "confidence",
        "claim_support",
        "inputs",
    ]
    assert [p.message() for p in info.value.problems] == [
        *(f"{bad}: {name}: expected a value (required field); found nothing" for name in missing),
        f"{other}: kind: expected 'calibration'; found 'labels'",
        f"{article_fixture}: kind: expected 'calibration'; found 'article'",
        f"{tmp_path / 'missing.json'}: (file): expected an existing file; found no such file",
    ]


def test_a_misspelled_record_field_is_named_with_the_field_meant(
    article_fixture: Path, tmp_path: Path
) -> None:
    # Read by the loader's validate_item, as every file; before, 'found an unknown field' alone.
    data = _record(article_fixture, _judge_files(article_fixture, tmp_path)).model_dump()
    data["confidnce"] = data.pop("confidence")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_calibrations([bad])
    assert [p.message() for p in info.value.problems] == [
        f"{bad}: confidence: expected a value (required field); found nothing",
        f"{bad}: confidnce: expected no such field (it is not part of the format); "
        "found an unknown field (did you mean 'confidence'?)",
    ]


def test_the_engine_counts_each_measures_labels_over_its_arrays() -> None:
    # Counted once per run over the arrays (no view is asked): per measure reading labels,
    # the items of the questions it applies to, by the kind of their counted label, and the
    # judges behind the judge-labelled ones.
    paths = example_paths()
    found = load_and_evaluate(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    run = found.runs[0]
    assert {
        name: (s.human, s.judge, [j.name for j in s.judges], s.mark())
        for name, s in run.label_sources.items()
    } == {
        "fact_coverage": (16, 0, [], None),
        "claim_support": (18, 1, ["example-judge-model"], "judge-labelled, uncalibrated"),
    }


def test_a_record_whose_figures_contradict_its_matrices_is_refused(
    article_fixture: Path, tmp_path: Path
) -> None:
    # Every figure of an item kind follows from its confusion matrix, as `calibrate` wrote it;
    # before, any numbers were read, and `evaluate` marked claim_support "judge-labelled,
    # calibrated (kappa 7.50 on 999 items)" from a record that compared 8 items with kappa 1.
    data = _record(article_fixture, _judge_files(article_fixture, tmp_path)).model_dump()
    data["claims"]["cohen_kappa"] = 7.5
    data["claims"]["items"] = 999
    data["claims"]["recall"]["numerator"] = 6
    data["facts"]["categories"] = ["supported", "unsupported", "cannot_judge"]
    data["confidence"] = 42
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    square = tmp_path / "square.json"
    data = _record(article_fixture, _judge_files(article_fixture, tmp_path)).model_dump()
    data["claims"]["confusion_matrix"]["counts"] = [[7, 0], [0, 1]]
    square.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_calibrations([bad, square])
    assert [p.message() for p in info.value.problems] == [
        f"{bad}: confidence: expected a number from 0.5 to 0.999; found 42.0",
        f"{bad}: claims.items: expected 8 (from claims.confusion_matrix); found 999",
        f"{bad}: claims.cohen_kappa: expected 1.0 (from claims.confusion_matrix); found 7.5",
        f"{bad}: claims.recall: expected 7/7 (from claims.confusion_matrix); found 6/7",
        f"{bad}: facts.categories: expected covered, not_covered, cannot_judge; "
        "found supported, unsupported, cannot_judge",
        f"{square}: claims.confusion_matrix.counts: expected 3 rows of 3 counts (one per "
        "category); found 2 rows of 2, 2",
    ]


@pytest.mark.parametrize(
    ("judge", "problems"),
    [
        ({"kind": "judge", "name": "x"},
         ["judge.prompt_version: expected the judge's prompt version; found nothing"]),
        ({"kind": "human", "name": "x"}, ["judge.kind: expected 'judge'; found 'human'"]),
    ],
)
def test_a_record_names_a_judge_with_its_prompt_version(
    judge: dict[str, str], problems: list[str], article_fixture: Path, tmp_path: Path
) -> None:
    # A record vouches for a judge by name and prompt version; before, one for a person, or for
    # a judge without a prompt version, was read (and could only ever be "not used").
    data = _record(article_fixture, _judge_files(article_fixture, tmp_path)).model_dump()
    data["judge"] = judge
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_calibrations([bad])
    assert [p.message() for p in info.value.problems] == [f"{bad}: {p}" for p in problems]
