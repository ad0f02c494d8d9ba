"""An article-format file is checked as native files are: each case and each run's result
apart, named by its case ID, with the problems the semantic checks find in the other cases
in the same error; a problem in its header (the corpus, a run's name, a case without an ID)
stops at the first step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from core_builders import write_json

from ragtriage.cli.main import cli
from ragtriage.columnar import load_and_evaluate
from ragtriage.errors import InputError


def _case(cid: str, **changes: Any) -> dict[str, Any]:
    return {
        "id": cid, "question": f"{cid}?", "answerable": True, "requiredEvidenceIds": ["a"],
        "referenceFactIds": ["f"], **changes,
    }


def _result(cid: str, **changes: Any) -> dict[str, Any]:
    return {
        "caseId": cid, "retrievedIds": ["a", "b"], "answer": "A.", "abstained": False,
        "claims": [{"text": "A", "citationIds": ["a"], "review": {"supportedByIds": ["a"]}}],
        "review": {"coveredReferenceFactIds": ["f"]}, **changes,
    }


def _article(
    tmp: Path,
    cases: dict[str, dict[str, Any]] | None = None,
    results: dict[str, dict[str, Any]] | None = None,
    **top: Any,
) -> Path:
    """Cases c1, c2, c3 and runs r and s answering each, with `cases` and run r's `results`
    changed by case ID; `top`: fields of the file replaced."""
    ids = ("c1", "c2", "c3")
    data = {
        "schemaVersion": 1,
        "corpus": [{"id": "a", "text": "A."}, {"id": "b", "text": "B."}],
        "cases": [_case(c, **(cases or {}).get(c, {})) for c in ids],
        "runs": [
            {"name": "r", "results": [_result(c, **(results or {}).get(c, {})) for c in ids]},
            {"name": "s", "results": [_result(c) for c in ids]},
        ],
        **top,
    }
    path = tmp / "article.json"
    write_json(path, data)
    return path


def _errors(path: Path) -> list[str]:
    out = CliRunner().invoke(cli, ["evaluate", str(path)])
    assert (out.exit_code, out.stdout) == (2, "")
    assert "Traceback" not in out.stderr
    return out.stderr.replace(str(path.parent) + "/", "").splitlines()


def test_a_case_s_problem_names_it_and_comes_with_the_other_cases_problems(
    tmp_path: Path,
) -> None:
    # Before, `cases[0].answerable: expected a valid boolean`, alone: c3's unknown document
    # came once it was mended.
    path = _article(
        tmp_path,
        cases={"c1": {"answerable": "yes"}},
        results={"c1": {"retrievedIds": ["ghost"]}, "c3": {"retrievedIds": ["a", "ghost"]}},
    )
    expected = [
        "Error: 2 problems found in the input:",
        "- article.json: question 'c1': answerable: expected true or false; found 'yes'",
        "- article.json: question 'c3': runs[r].retrievedIds: expected IDs of documents or "
        "chunks in the snapshot; found 'ghost'",
    ]
    assert _errors(path) == expected
    with pytest.raises(InputError) as caught:
        load_and_evaluate(path)
    assert [p.message() for p in caught.value.problems] == [
        line.replace("- article.json", f"- {path}")[2:] for line in expected[1:]
    ]


def test_a_result_s_problem_names_its_case_and_run(tmp_path: Path) -> None:
    path = _article(
        tmp_path,
        results={"c2": {"answer": None, "claims": [{"text": "", "citationIds": ["a"]}]}},
        cases={"c3": {"requiredEvidenceIds": ["a", "a"]}},
    )
    assert _errors(path) == [
        "Error: 4 problems found in the input:",
        "- article.json: question 'c2': runs[r].answer: expected a valid string; found null",
        "- article.json: question 'c2': runs[r].claims[c1].text: expected a non-empty string; "
        "found an empty string",
        "- article.json: question 'c2': runs[r].claims[c1].review: expected a value (required "
        "field); found nothing",
        "- article.json: question 'c3': requiredEvidenceIds: expected no repeated ID; found "
        "'a' more than once",
    ]


def test_a_refused_case_or_result_still_counts_with_its_id(tmp_path: Path) -> None:
    # c2's case is refused: run r's result for it is no unknown case, and a result for a
    # near ID is told the refused one. c3's result in run r is refused: r still answers c3.
    path = _article(
        tmp_path,
        cases={"c2": {"question": 7}},
        results={"c1": {"caseId": "c22"}, "c3": {"abstained": "no"}},
    )
    assert _errors(path) == [
        "Error: 4 problems found in the input:",
        "- article.json: question 'c2': question: expected a valid string; found 7",
        "- article.json: question 'c3': runs[r].abstained: expected true or false; found 'no'",
        "- article.json: question 'c22': runs[r].results.caseId: expected a question of the "
        "evaluation set; found no such question (did you mean 'c2'?)",
        "- article.json: question 'c1': runs[r].results: expected a result for every question "
        "(run 'r'; or --allow-missing); found no result",
    ]


@pytest.mark.parametrize(("top", "cases", "first"), [
    ({"corpus": [{"id": "a", "text": "A."}, {"id": "b"}]}, {},
     "- article.json: corpus[1].text: expected a value (required field); found nothing"),
    ({"runs": [{"name": "", "results": [_result(c) for c in ("c1", "c2", "c3")]}]}, {},
     "- article.json: runs[0].name: expected a non-empty string; found an empty string"),
    ({}, {"c2": {"id": ""}},
     "- article.json: cases[1].id: expected a non-empty string; found an empty string"),
])
def test_a_problem_outside_the_cases_and_results_stops_at_the_first_step(
    tmp_path: Path, top: dict[str, Any], cases: dict[str, dict[str, Any]], first: str
) -> None:
    # The unknown document of c3 would come with a case's problem; here it waits.
    path = _article(tmp_path, cases, {"c3": {"retrievedIds": ["ghost"]}}, **top)
    assert _errors(path) == ["Error: 1 problem found in the input:", first]


def test_a_native_run_beside_an_article_file_is_named_in_its_own_fields(tmp_path: Path) -> None:
    # Before, `runs[n].retrievedIds` and `runs[n].results.caseId`: the article's names for a
    # file that has neither.
    results = [
        {"question_id": c, "candidates": [{"id": "a"}, {"id": d}], "outcome": "refused",
         "answer": "No."}
        for c, d in (("c1", "b"), ("c2", "ghost"), ("c3", "b"), ("c4", "b"))
    ]
    write_json(tmp_path / "n.json", {"kind": "run", "schema_version": 1, "name": "n",
                                     "provenance": {"k": 2}, "results": results})
    path = _article(tmp_path, results={"c1": {"retrievedIds": ["ghost"]}})
    out = CliRunner().invoke(cli, ["evaluate", str(path), "--run", str(tmp_path / "n.json")])
    assert (out.exit_code, out.stderr.replace(str(tmp_path) + "/", "").splitlines()) == (2, [
        "Error: 4 problems found in the input:",
        "- article.json: question 'c1': runs[r].retrievedIds: expected IDs of documents or "
        "chunks in the snapshot; found 'ghost'",
        "- article.json: question 'c1': runs[r].claims[c1].review.supportedByIds: expected IDs "
        "in the top-2 context (ghost); found 'a'",
        "- n.json: question 'c4': results.question_id: expected a question of the evaluation "
        "set; found no such question",
        "- n.json: question 'c2': candidates: expected IDs of documents or chunks in the "
        "snapshot; found 'ghost'",
    ])


def test_a_result_s_problem_comes_with_the_versions_file_s(tmp_path: Path) -> None:
    # As with a native evaluation set: the versions file's problems (an entry refused, and
    # the other entry's unknown document) come with the result's, not once it is mended.
    path = _article(tmp_path, results={"c1": {"abstained": "maybe"}})
    versions = write_json(tmp_path / "versions.json", {"a": {"version": 1}, "ghost": {}})
    out = CliRunner().invoke(cli, ["evaluate", str(path), "--versions", str(versions)])
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr.replace(str(tmp_path) + "/", "").splitlines() == [
        "Error: 3 problems found in the input:",
        "- article.json: question 'c1': runs[r].abstained: expected true or false; found "
        "'maybe'",
        "- versions.json: a.version: expected a valid string; found 1",
        "- versions.json: ghost: expected a document ID of the snapshot; found 'ghost'",
    ]


def test_a_case_s_problem_comes_with_the_corpus_s_repeated_id(tmp_path: Path) -> None:
    # As with a native snapshot, whose repeated document comes with a question's problem:
    # the corpus is the article's snapshot. Before, it came once c1 was mended.
    corpus = [{"id": "a", "text": "A."}, {"id": "b", "text": "B."}, {"id": "a", "text": "A2."}]
    path = _article(tmp_path, cases={"c1": {"answerable": "yes"}}, corpus=corpus)
    assert _errors(path) == [
        "Error: 2 problems found in the input:",
        "- article.json: question 'c1': answerable: expected true or false; found 'yes'",
        "- article.json: corpus[id=a]: expected unique document IDs; found 'a' more than once",
    ]
