"""The article fixture: the designed failures, with and without a versions side file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.columnar import evaluate
from ragtriage.diagnosis import RunDiagnosis, diagnose
from ragtriage.errors import InputError
from ragtriage.loading import load_dataset
from ragtriage.versions import load_versions

VERSIONS = {
    "retention-v1": {"version": "v1"},
    "retention-v2": {"version": "v2", "supersedes": ["retention-v1"]},
}
VERSIONS_TOML = """\
[retention-v1]
version = "v1"

[retention-v2]
version = "v2"
supersedes = ["retention-v1"]
"""


def _findings(run: RunDiagnosis) -> dict[str, list[tuple[str, tuple[str, ...], str]]]:
    return {q.question_id: [(f.stage, f.ids, f.why) for f in q.findings] for q in run.questions}


def _diagnose(fixture: Path, versions: Path | None) -> tuple[RunDiagnosis, ...]:
    dataset = load_dataset(fixture)
    if versions is not None:
        dataset = load_versions(dataset, versions)
    return diagnose(evaluate(dataset, metrics=[]))


BASELINE_WITH_VERSIONS = {
    "exact-code": [],
    "two-facts": [
        ("retrieval_miss", ("export-v2",), "export-v2 is not among the 2 candidates"),
        ("incomplete_answer", ("export-json",), "1 of 2 reference facts not covered: export-json"),
    ],
    "stale-version": [
        ("retrieval_miss", ("retention-v2",), "retention-v2 is not among the 2 candidates"),
        (
            "stale_evidence",
            ("retention-v1",),
            "retention-v1 (superseded by retention-v2) supports a claim and is cited",
        ),
        (
            "incomplete_answer",
            ("retention-7-days",),
            "1 of 1 reference facts not covered: retention-7-days",
        ),
    ],
    "missing-answer": [
        (
            "missed_refusal",
            ("c1",),
            "the material does not answer it, yet the outcome is answered with 1 claim",
        ),
    ],
}


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_baseline_with_versions(article_fixture: Path, tmp_path: Path, suffix: str) -> None:
    side = tmp_path / f"versions{suffix}"
    side.write_text(json.dumps(VERSIONS) if suffix == ".json" else VERSIONS_TOML, encoding="utf-8")
    baseline, corrected = _diagnose(article_fixture, side)
    assert _findings(baseline) == BASELINE_WITH_VERSIONS
    assert {q.question_id: (q.primary, q.secondary) for q in baseline.questions} == {
        "exact-code": ("ok", ()),
        "two-facts": ("retrieval_miss", ("incomplete_answer",)),
        "stale-version": ("retrieval_miss", ("stale_evidence", "incomplete_answer")),
        "missing-answer": ("missed_refusal", ()),
    }
    # The corrected run keeps retention-v1 in its context but cites only the current version.
    assert {q.question_id: q.primary for q in corrected.questions} == dict.fromkeys(
        ("exact-code", "two-facts", "stale-version", "missing-answer"), "ok"
    )


def test_without_versions_nothing_is_stale(article_fixture: Path) -> None:
    baseline, _ = _diagnose(article_fixture, None)
    stale = baseline.question("stale-version")
    assert (stale.primary, stale.secondary) == ("retrieval_miss", ("incomplete_answer",))


def test_versions_file_problems_are_all_reported(article_fixture: Path, tmp_path: Path) -> None:
    side = tmp_path / "versions.json"
    side.write_text(
        json.dumps(
            {
                "retention-v3": {"version": "v3"},
                "retention-v2": {"supersedes": ["retention-v2", "nowhere"], "status": "old"},
                "export-v2": {"version": 2},
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_versions(load_dataset(article_fixture), side)
    # retention-v3's entry passed and names no document; retention-v2's supersedes come once
    # its entry is mended.
    assert str(caught.value) == (
        "3 problems found in the input:\n"
        f"- {side}: retention-v2.status: expected 'current', 'superseded' or 'withdrawn'; "
        "found 'old'\n"
        f"- {side}: export-v2.version: expected a valid string; found 2\n"
        f"- {side}: retention-v3: expected a document ID of the snapshot; found 'retention-v3'"
    )
    side.write_text(json.dumps({"retention-v3": {}, "retention-v2": {"supersedes": ["x"]}}))
    with pytest.raises(InputError) as caught:
        load_versions(load_dataset(article_fixture), side)
    assert str(caught.value) == (
        "2 problems found in the input:\n"
        f"- {side}: retention-v3: expected a document ID of the snapshot; found 'retention-v3'\n"
        f"- {side}: retention-v2.supersedes: expected IDs of other documents of the snapshot; "
        "found 'x'"
    )


def test_a_loop_of_supersession_in_a_versions_file_is_refused(
    article_fixture: Path, tmp_path: Path
) -> None:
    side = tmp_path / "versions.toml"
    side.write_text(
        '[retention-v1]\nsupersedes = ["export-v2"]\n'
        '[export-v2]\nsupersedes = ["retention-v2"]\n'
        '[retention-v2]\nsupersedes = ["retention-v1"]\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_versions(load_dataset(article_fixture), side)
    assert str(caught.value) == (
        "1 problem found in the input:\n"
        f"- {side}: export-v2.supersedes: expected no loop of supersession (a document cannot "
        "replace one that replaces it); found export-v2 -> retention-v2 -> retention-v1 -> "
        "export-v2"
    )


def test_a_versions_entry_superseding_one_document_twice_is_refused(
    article_fixture: Path, tmp_path: Path
) -> None:
    side = tmp_path / "versions.json"
    side.write_text(json.dumps({"retention-v2": {"supersedes": ["retention-v1"] * 2}}), "utf-8")
    with pytest.raises(InputError) as caught:
        load_versions(load_dataset(article_fixture), side)
    assert str(caught.value) == (
        "1 problem found in the input:\n"
        f"- {side}: retention-v2.supersedes: expected each ID at most once; found 'retention-v1' "
        "more than once"
    )


def test_a_toml_date_is_an_effective_date(article_fixture: Path, tmp_path: Path) -> None:
    # TOML writes a date unquoted; before, 'expected a valid string; found 2026-06-01'
    side = tmp_path / "versions.toml"
    side.write_text("[retention-v2]\neffective_date = 2026-06-01\n", encoding="utf-8")
    documents = load_versions(load_dataset(article_fixture), side).snapshot.documents
    assert [d.effective_date for d in documents if d.id == "retention-v2"] == ["2026-06-01"]


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("v.json", "{", "line 1 column 2: expected valid JSON; found the end of the file "
         "(the JSON is cut short)"),
        ("v.json", "[]",
         "(top level): expected an object mapping document IDs to versions; found list"),
        ("v.toml", "x = ", "(file): expected valid TOML; found Invalid value (at end of document)"),
        # another ragtriage file given as the versions file: named by its kind, not by one
        # problem per field read as a document ID ('kind: expected an object; found run', ...)
        ("v.json", '{"schema_version": 1, "kind": "run", "name": "x", "results": []}',
         "kind: expected a versions file (document IDs mapped to versions); found a file of kind "
         "'run'"),
        ("v.json", '{"schemaVersion": 1, "corpus": [], "cases": []}',
         "kind: expected a versions file (document IDs mapped to versions); found a file of kind "
         "'article'"),
    ],
)
def test_versions_file_syntax(
    article_fixture: Path, tmp_path: Path, name: str, text: str, problem: str
) -> None:
    side = tmp_path / name
    side.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_versions(load_dataset(article_fixture), side)
    assert str(caught.value) == f"1 problem found in the input:\n- {side}: {problem}"


def test_missing_versions_file(article_fixture: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_versions(load_dataset(article_fixture), tmp_path / "none.json")
    assert str(caught.value) == (
        f"1 problem found in the input:\n- {tmp_path / 'none.json'}: (file): expected an existing "
        "file; found no such file"
    )
