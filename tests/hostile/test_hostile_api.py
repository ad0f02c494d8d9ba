"""A demanding Python caller: arguments of the wrong type, results kept while their files
change. Each is refused with the command line's words (a `RagtriageError` naming the keyword,
the file, what was expected and what was found), never a `TypeError` from inside, never a
value taken for another."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import ragtriage
from ragtriage.api import report_page

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"


def _example(tmp_path: Path) -> tuple[Path, Path, Path]:
    shutil.copytree(EXAMPLE, tmp_path, dirs_exist_ok=True)
    return tmp_path / "evalset.json", tmp_path / "snapshot.json", tmp_path / "runs/baseline.json"


def _as_jsonl(path: Path, list_key: str) -> Path:
    document = json.loads(path.read_text(encoding="utf-8"))
    items = document.pop(list_key)
    lines = [json.dumps(document), *(json.dumps(item) for item in items)]
    out = path.with_suffix(".jsonl")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_result_whose_run_file_changed_since_is_refused_not_read_from_the_new_file(
    tmp_path: Path, suffix: str
) -> None:
    # Before: the views were read again from the changed file by position, an
    # AttributeError ('object' object has no attribute 'get') or another run's answers.
    evalset, snapshot, run = _example(tmp_path)
    if suffix == ".jsonl":
        run = _as_jsonl(run, "results")
    evaluation = ragtriage.evaluate_files(evalset, snapshot=snapshot, runs=[run])
    text = run.read_text(encoding="utf-8")
    run.write_text(text.replace('"answer": "', '"answer": "CHANGED '), encoding="utf-8")
    with pytest.raises(ragtriage.InputError) as caught:
        report_page(evaluation)
    assert str(caught.value) == (
        "1 problem found in the input:\n"
        f"- {run}: (file): expected the file as it was when it was scored; found a file "
        "changed or removed since (score it again)"
    )


def test_a_result_whose_evaluation_set_was_removed_says_so(tmp_path: Path) -> None:
    # Before: ragtriage.columnar._trec._Fallback: file, a private exception.
    evalset, snapshot, run = _example(tmp_path)
    evalset = _as_jsonl(evalset, "questions")
    evaluation = ragtriage.evaluate_files(evalset, snapshot=snapshot, runs=[run])
    evalset.unlink()
    with pytest.raises(ragtriage.InputError) as caught:
        list(evaluation.questions)
    assert caught.value.problems[0].message() == (
        f"{evalset}: (file): expected the file as it was when it was scored; found a file "
        "changed or removed since (score it again)"
    )


def test_a_result_whose_files_are_unchanged_is_read_again_as_often_as_asked(
    tmp_path: Path,
) -> None:
    evalset, snapshot, run = _example(tmp_path)
    run = _as_jsonl(run, "results")
    evaluation = ragtriage.evaluate_files(evalset, snapshot=snapshot, runs=[run])
    assert report_page(evaluation) == report_page(evaluation)


FLAGS = [
    (ragtriage.evaluate_files, "example", "--example"),
    (ragtriage.evaluate_files, "allow_unreviewed", "--allow-unreviewed"),
    (ragtriage.evaluate_files, "allow_missing", "--allow-missing"),
    (ragtriage.evaluate_files, "accept_self_labelling", "--accept-self-labelling"),
    (ragtriage.diagnose_files, "include_holdout", "--include-holdout"),
    (ragtriage.compare_files, "allow_different_snapshot", "--allow-different-snapshot"),
    (ragtriage.compare_files, "no_grouping", "--no-grouping"),
]


@pytest.mark.parametrize(("call", "keyword", "option"), FLAGS, ids=[f[1] for f in FLAGS])
@pytest.mark.parametrize("value", ["false", 0, None])
def test_a_flag_that_is_no_bool_is_refused_not_taken_by_its_truth(
    tmp_path: Path, call: Any, keyword: str, option: str, value: object
) -> None:
    # Before: include_holdout="false" scored the holdout and recorded the look,
    # allow_missing="no" accepted runs with missing results, no_grouping=0 grouped.
    evalset, snapshot, run = _example(tmp_path)
    ledger = tmp_path / "ledger.jsonl"
    with pytest.raises(ragtriage.InputError) as caught:
        call(evalset, snapshot=snapshot, runs=[run, tmp_path / "runs/improved.json"],
             ledger=ledger, **{keyword: value})
    assert str(caught.value) == (
        "1 problem found in the input:\n"
        f"- <command line>: {option}: expected one of True, False; found {value!r}"
    )
    assert not ledger.exists()


def test_a_who_that_is_no_str_is_refused_not_recorded(tmp_path: Path) -> None:
    evalset, snapshot, run = _example(tmp_path)
    ledger = tmp_path / "ledger.jsonl"
    with pytest.raises(ragtriage.InputError) as caught:
        ragtriage.evaluate_files(
            evalset, snapshot=snapshot, runs=[run], include_holdout=True, who=5, ledger=ledger
        )
    assert str(caught.value) == (
        "1 problem found in the input:\n"
        "- <command line>: --who: expected a name for the holdout ledger; found 5"
    )
    assert not ledger.exists()


def test_one_candidate_as_a_str_is_one_run_not_its_characters(tmp_path: Path) -> None:
    # Before: 8 problems, one per character ("--candidate: ... found 'i'", ...).
    evalset, snapshot, run = _example(tmp_path)
    given = {"snapshot": snapshot, "runs": [run, tmp_path / "runs/improved.json"]}
    one = ragtriage.compare_files(evalset, candidates="improved", **given)
    assert one == ragtriage.compare_files(evalset, candidates=["improved"], **given)
    assert [p.candidate.label for p in one.pairs] == ["improved"]


@pytest.mark.parametrize(
    ("keyword", "value", "message"),
    [
        ("seed", -1, "seed: expected an integer from 0 to 4294967295; found -1"),
        ("seed", 1.5, "seed: expected an integer from 0 to 4294967295; found 1.5"),
        ("resamples", 0, "resamples: expected an integer from 100 to 100000; found 0"),
    ],
)
def test_gate_without_a_baseline_refuses_what_its_command_refuses(
    tmp_path: Path, keyword: str, value: object, message: str
) -> None:
    # Before: accepted (unused without a baseline); `gate --seed -1` is a usage error.
    evalset, snapshot, run = _example(tmp_path)
    with pytest.raises(ragtriage.RequestError) as caught:
        ragtriage.gate_files(
            evalset, snapshot=snapshot, runs=[run], policy=tmp_path / "policy.toml",
            **{keyword: value},
        )
    assert str(caught.value) == message


@pytest.mark.parametrize("call", [ragtriage.gate_files, ragtriage.compare_files])
def test_gate_and_compare_refuse_their_numbers_before_reading_any_file(
    tmp_path: Path, call: Any
) -> None:
    # Before: the evaluation set was read (here: missing) and scored first; `--seed -1` is a
    # usage error before any work.
    with pytest.raises(ragtriage.RequestError) as caught:
        call(tmp_path / "missing.json", seed=-1, resamples=5)
    assert str(caught.value) == (
        "seed: expected an integer from 0 to 4294967295; found -1; "
        "resamples: expected an integer from 100 to 100000; found 5"
    )


def test_a_title_that_is_no_str_is_refused_in_the_title_options_words(tmp_path: Path) -> None:
    # Before: accepted, the page titled '5' (or 'None').
    message = (
        "1 problem found in the input:\n"
        "- <command line>: --title: expected a page title (a str); found "
    )
    with pytest.raises(ragtriage.InputError) as caught:
        ragtriage.report_html(tmp_path / "missing.json", title=5)  # before any file is read
    assert str(caught.value) == message + "5"
    evaluation = ragtriage.evaluate_files(example=True)
    with pytest.raises(ragtriage.InputError) as caught:
        report_page(evaluation, title=None)
    assert str(caught.value) == message + "None"


def test_a_result_of_a_dataset_in_memory_keeps_its_records_when_the_lists_change(
    tmp_path: Path,
) -> None:
    # Before: report_page raised IndexError (list index out of range) once the run's
    # results were cleared, and showed other results where the list was reordered.
    evalset, snapshot, run = _example(tmp_path)
    dataset = ragtriage.load_dataset(evalset, snapshot=snapshot, runs=[run])
    evaluation = ragtriage.evaluate(dataset)
    page = report_page(evaluation)
    dataset.runs[0].results.reverse()
    dataset.evalset.questions.clear()
    assert report_page(evaluation) == page
