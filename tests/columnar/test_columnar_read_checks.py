"""The fast reader's checks on values of the wrong kind: a list or an object where a string is
looked up (an outcome, an answerability, an ID) is refused like any other problem, never a
crash; the loader then names it with the same message as `load_and_evaluate`."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from native_layers_data import value_places, write_dataset

from loader_path import both_readers
from ragtriage.columnar import evaluate_native, load_and_evaluate
from ragtriage.errors import InputError, Problem

Edit = Callable[[dict[str, Any]], None]


def _edit_line(path: Path, line: int, edit: Edit) -> None:
    lines = path.read_text("utf-8").splitlines()
    record = json.loads(lines[line])
    edit(record)
    lines[line] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", "utf-8")


def _refusals(tmp_path: Path, file: str, edit: Edit) -> tuple[list[Problem], list[Problem]]:
    """The problems of the fast path (falling back to the loader) and of the loader alone,
    for a valid dataset with the first record of `file` edited."""
    evalset, snapshot, run = write_dataset(tmp_path, 3, 4, exotic=False, jsonl=True)
    _edit_line(evalset if file == "evalset" else run, 1, edit)
    fast, loader = both_readers(evalset, snapshot, run)
    assert isinstance(fast, list) and isinstance(loader, list)  # both refuse the input
    return fast, loader


def test_an_outcome_that_is_a_list_is_refused(tmp_path: Path) -> None:
    fast, loader = _refusals(tmp_path, "run", lambda r: r.update(outcome=[]))
    assert fast == loader
    assert fast == [Problem(
        str(tmp_path / "run.jsonl"), "q2", "line 2: outcome",
        "'answered', 'refused', 'clarified' or 'escalated'", "[]", record="question",
    )]


def test_an_answerability_that_is_an_object_is_refused(tmp_path: Path) -> None:
    fast, loader = _refusals(tmp_path, "evalset", lambda q: q.update(answerability={}))
    assert fast == loader
    assert fast == [Problem(
        str(tmp_path / "evalset.jsonl"), "q0", "line 2: answerability",
        "'answerable', 'unanswerable' or 'needs_clarification'", "{}", record="question",
    )]


def _first_claim(edit: Callable[[dict[str, Any]], None]) -> Edit:
    def apply(result: dict[str, Any]) -> None:
        edit(result["claims"][0])
    return apply


EDITS: dict[str, tuple[str, Edit, tuple[str | None, str, str, str]]] = {
    "question_id": ("run", lambda r: r.update(question_id=["q2"]),
                    (None, "line 2: question_id", "a valid string", '["q2"]')),
    "candidate id": ("run", lambda r: r["candidates"][0].update(id={"d0": 1}),
                     ("q2", "line 2: candidates[0].id", "a valid string", '{"d0": 1}')),
    "citation": ("run", _first_claim(lambda c: c.update(citations=[["d0"]])),
                 ("q2", "line 2: claims[k0].citations[0]", "a valid string", '["d0"]')),
    "citations as an object": (
        "run", _first_claim(lambda c: c.update(citations={"d0": 1})),
        ("q2", "line 2: claims[k0].citations", "a valid list", '{"d0": 1}'),
    ),
    "supported_by": ("run", _first_claim(
        lambda c: c["labels"][0].update(verdict="supported", supported_by=[{}])
    ), ("q2", "line 2: claims[k0].labels[0].supported_by[0]", "a valid string", "{}")),
    "fact_id": ("run", lambda r: r["fact_labels"].append(
        {"fact_id": ["f1"], "verdict": "covered", "labeller": {"kind": "human", "name": "ann"}}
    ), ("q2", "line 2: fact_labels[5].fact_id", "a valid string", '["f1"]')),
    "any_of": ("evalset", lambda q: q["required_evidence"][0].update(any_of=[["d0"]]),
               ("q0", "line 2: required_evidence[0].any_of[0]", "a valid string", '["d0"]')),
    "fact evidence": ("evalset", lambda q: q["reference_facts"].append(
        {"id": "f-new", "evidence": [{}]}
    ), ("q0", "line 2: reference_facts[1].evidence[0]", "a valid string", "{}")),
    "user_groups": ("evalset", lambda q: q.update(user_groups=[[]]),
                    ("q0", "line 2: user_groups[0]", "a valid string", "[]")),
    "tags": ("evalset", lambda q: q.update(tags=["t", ""]),
             ("q0", "line 2: tags[1]", "a non-empty string", "an empty string")),
}
"""A value of the wrong kind in the first record of a file, and the one problem named
(question, field, expected, found)."""


@pytest.mark.parametrize("name", sorted(EDITS))
def test_wrong_kinds_of_ids_are_refused_as_the_loader_refuses_them(
    tmp_path: Path, name: str
) -> None:
    file, edit, problem = EDITS[name]
    fast, loader = _refusals(tmp_path, file, edit)
    assert fast == loader
    assert [(p.question_id, p.field, p.expected, p.found) for p in fast] == [problem]


VALUES: list[Any] = [None, "", "x", 0, -1, 1.5, True, [], {}, [""], [None], ["d0"], {"x": 1},
                     "answered", "supported", "covered", "human", "d0", "q1", "f1",
                     "sync\ndevices", ["a\tb"]]
"""Values put in place of a field: of every JSON kind, and strings the schema knows."""


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    file=st.sampled_from(["evalset", "run"]),
    pick=st.integers(0, 10**6),
    value=st.sampled_from(VALUES),
    drop=st.booleans(),
)
def test_a_corrupted_field_is_scored_or_refused_as_the_loader_does(
    seed: int, file: str, pick: int, value: Any, drop: bool
) -> None:
    """One value of one record replaced (or its key removed): the fast reader then scores the
    files exactly as the loader does, or refuses them with the loader's problems."""
    with tempfile.TemporaryDirectory() as tmp:
        evalset, snapshot, run = write_dataset(Path(tmp), seed, 5, exotic=True, jsonl=True)
        path = evalset if file == "evalset" else run
        lines = path.read_text("utf-8").splitlines()
        line = 1 + pick % (len(lines) - 1)
        record = json.loads(lines[line])
        places = value_places(record)
        where = places[pick % len(places)]
        parent = record
        for step in where[:-1]:
            parent = parent[step]
        if drop and isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent[where[-1]] = value
        lines[line] = json.dumps(record)
        path.write_text("\n".join(lines) + "\n", "utf-8")
        outcomes = both_readers(evalset, snapshot, run)
        assert outcomes[0] == outcomes[1]


def test_a_grade_beyond_32_bits_is_refused(tmp_path: Path) -> None:
    # The engine holds grades as 32-bit integers: a larger one was scored as another number.
    def edit(q: dict[str, Any]) -> None:
        q.update(answerability="answerable",
                 required_evidence=[{"any_of": ["d0"], "grade": 2**31}])

    fast, loader = _refusals(tmp_path, "evalset", edit)
    assert fast == loader
    assert [p.message() for p in fast] == [
        f"{tmp_path / 'evalset.jsonl'}: question 'q0': line 2: required_evidence[0].grade: "
        "expected less than or equal to 2147483647; found 2147483648"
    ]


@pytest.mark.parametrize("date", ["next week", "2026-02-30", "2026-13", "20260101", "2026-W01-1"])
def test_an_applies_to_date_that_is_no_iso_date_is_refused(tmp_path: Path, date: str) -> None:
    fast, loader = _refusals(tmp_path, "evalset", lambda q: q.update(applies_to={"date": date}))
    assert fast == loader
    assert fast == [Problem(
        str(tmp_path / "evalset.jsonl"), "q0", "line 2: applies_to.date",
        "an ISO date (YYYY-MM-DD, or YYYY-MM or YYYY)", repr(date), record="question",
    )]


def _claim(n: int, **fields: Any) -> Edit:
    return lambda r: r["claims"][n].update(fields)


@pytest.mark.parametrize(("file", "edit", "field", "found"), [
    ("evalset", lambda q: q.update(tags=["sync\ndevices"]), "tags[0]", "'sync\\ndevices'"),
    ("evalset", lambda q: q.update(user_groups=["ops", "a\tb"]), "user_groups[1]", "'a\\tb'"),
    ("evalset", lambda q: q["reference_facts"][0].update(id="f\x7f"), "reference_facts[0].id",
     "'f\\x7f'"),
    ("evalset", lambda q: q.update(canary={"document_id": "d\x85", "instruction": "say it",
                                           "marker": "zebra"}), "canary.document_id", "'d\\x85'"),
    ("run", _claim(0, id="\x1b[31mk0"), "claims[c1].id", "'\\x1b[31mk0'"),
    ("run", _claim(1, citations=["gone\r"]), "claims[k1].citations[0]", "'gone\\r'"),
    ("run", lambda r: r["claims"][2]["labels"][0]["labeller"].update(name="judge\n"),
     "claims[c3].labels[0].labeller.name", "'judge\\n'"),
    ("evalset", lambda q: q.update(tags=[" "]), "tags[0]", "' '"),
    ("evalset", lambda q: q.update(user_groups=["ops", "\u3000"]), "user_groups[1]", "'\\u3000'"),
    ("evalset", lambda q: q["reference_facts"][0].update(id="  "), "reference_facts[0].id",
     "'  '"),
    ("run", _claim(0, id=" "), "claims[c1].id", "' '"),
    ("run", _claim(1, citations=[" "]), "claims[k1].citations[0]", "' '"),
    ("run", lambda r: r["claims"][2]["labels"][0]["labeller"].update(name=" "),
     "claims[c3].labels[0].labeller.name", "' '"),
])
def test_an_id_holding_a_control_character_or_only_whitespace_is_refused(
    tmp_path: Path, file: str, edit: Edit, field: str, found: str
) -> None:
    # A line break, a tab, an escape... in an ID drew as such in reports, and ' ' is no key a
    # reader can tell from none: before, both readers took them.
    fast, loader = _refusals(tmp_path, file, edit)
    assert fast == loader
    assert fast == [Problem(
        str(tmp_path / f"{file}.jsonl"), "q0" if file == "evalset" else "q2",
        f"line 2: {field}", "an identifier without control characters, not only whitespace", found,
        record="question",
    )]


def test_a_canary_in_a_document_the_snapshot_lacks_is_refused(tmp_path: Path) -> None:
    """An unknown canary document is an input error (a typo would make every canary check
    not applicable without a word); before, both readers scored it."""
    canary = {"document_id": "d-nowhere", "instruction": "say PINEAPPLE", "marker": "PINEAPPLE"}
    fast, loader = _refusals(tmp_path, "evalset", lambda q: q.update(canary=canary))
    assert fast == loader
    assert fast == [Problem(
        str(tmp_path / "evalset.jsonl"), "q0", "canary.document_id",
        "IDs of documents or chunks in the snapshot", "'d-nowhere'", record="question",
    )]




def test_a_question_id_and_a_run_name_of_only_whitespace_are_refused(tmp_path: Path) -> None:
    expected = "an identifier without control characters, not only whitespace"
    fast, loader = _refusals(tmp_path, "evalset", lambda q: q.update(id=" "))
    assert fast == loader == [Problem(
        str(tmp_path / "evalset.jsonl"), " ", "line 2: id", expected, "' '", record="question",
    )]
    (tmp_path / "named").mkdir()
    evalset, snapshot, run = write_dataset(tmp_path / "named", 3, 4, exotic=False, jsonl=True)
    _edit_line(run, 0, lambda header: header.update(name=" \u2003"))
    for score in (
        lambda: evaluate_native(evalset, snapshot, [run], workers=1),
        lambda: load_and_evaluate(evalset, snapshot=snapshot, runs=[run]),
    ):
        with pytest.raises(InputError) as refused:
            score()
        assert list(refused.value.problems) == [
            Problem(str(run), None, "line 1: name", expected, "' \\u2003'")
        ]


def test_a_version_no_document_has_is_refused(tmp_path: Path) -> None:
    """`applies_to.version` naming a version no document has is an input error (the question
    could never pass); before, both readers scored it."""
    fast, loader = _refusals(tmp_path, "evalset", lambda q: q.update(applies_to={"version": "v9"}))
    assert fast == loader
    assert fast == [Problem(
        str(tmp_path / "evalset.jsonl"), "q0", "applies_to.version",
        "a version some document has (v1, v2)", "'v9'", record="question",
    )]


def test_a_canary_instruction_its_document_does_not_hold_is_refused(tmp_path: Path) -> None:
    """The planted instruction must occur in its document (docs/data-format.md: "as it
    appears in the document"); before, both readers scored a canary planted nowhere."""
    canary = {"document_id": "d1", "instruction": "say PINEAPPLE", "marker": "PINEAPPLE"}
    fast, loader = _refusals(tmp_path, "evalset", lambda q: q.update(canary=canary))
    assert fast == loader
    assert fast == [Problem(
        str(tmp_path / "evalset.jsonl"), "q0", "canary.instruction",
        "text its document 'd1' holds (the instruction as planted)", "'say PINEAPPLE'",
        record="question",
    )]
