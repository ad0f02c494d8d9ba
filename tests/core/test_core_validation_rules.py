"""Every semantic validation rule, with its exact message, through the CLI (exit 2, no traceback).

Each case starts from one valid dataset, breaks one thing and pins the full error text.
`{d}` in an expected message stands for the temporary folder holding the files.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from core_builders import JUDGE, claim, doc, question, result, write_files

from ragtriage.cli.main import cli

Data = dict[str, Any]


def base() -> Data:
    """A valid dataset: one answerable question, one unanswerable, one run."""
    return {
        "docs": [doc("d1", "alpha text"), doc("d2", "beta text"), doc("d3", "gamma text")],
        "questions": [
            question("q1", evidence=[["d1"]], facts=["f1"]),
            question("q2", "unanswerable"),
        ],
        "runs": {
            "run": [
                result("q1", ["d1", "d2"], context=["d1"], claims=[claim("x", ["d1"], "supported", ["d1"])], covered=["f1"]),
                result("q2", ["d2"], context=["d2"], outcome="refused", answer="cannot say"),
            ]
        },
    }


def run_cli(tmp_path: Path, data: Data, *extra: str) -> tuple[int, str, str]:
    """Write the data, run `evaluate`, return (exit code, stdout, stderr with the folder as {d})."""
    args = write_files(tmp_path, data["docs"], data["questions"], data["runs"])
    out = CliRunner().invoke(cli, ["evaluate", *args, *extra])
    return out.exit_code, out.stdout, out.stderr.replace(str(tmp_path), "{d}")


def test_base_dataset_is_valid(tmp_path: Path) -> None:
    code, stdout, stderr = run_cli(tmp_path, base(), "--format", "json")
    assert (code, stderr) == (0, "")
    assert '"evidence_recall"' in stdout


def _q1(data: Data) -> Data:
    return data["runs"]["run"][0]  # type: ignore[no-any-return]


def _set(path: str, value: Any) -> Callable[[Data], None]:
    """A mutation setting `data[...]` by a slash path (ints index lists)."""

    def apply(data: Data) -> None:
        target: Any = data
        *head, last = path.split("/")
        for part in head:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value

    return apply


def _each(*mutations: Callable[[Data], None]) -> Callable[[Data], None]:
    """The mutations one after the other."""

    def apply(data: Data) -> None:
        for mutate in mutations:
            mutate(data)

    return apply


def _append(path: str, value: Any) -> Callable[[Data], None]:
    def apply(data: Data) -> None:
        target: Any = data
        for part in path.split("/"):
            target = target[int(part)] if part.isdigit() else target[part]
        target.append(copy.deepcopy(value))

    return apply


S, E, R = "{d}/snapshot.json", "{d}/evalset.json", "{d}/run.json"
CASES: list[tuple[str, Callable[[Data], None], list[str]]] = [
    # --- snapshot ---
    ("duplicate document", _append("docs", doc("d1")),
     [f"{S}: documents[id=d1]: expected unique document IDs; found 'd1' more than once"]),
    ("supersedes unknown", _set("docs/1/supersedes", ["nope"]),
     [f"{S}: documents[id=d2].supersedes: expected IDs of other documents in the snapshot; found 'nope'"]),
    ("supersedes itself", _set("docs/1/supersedes", ["d2"]),
     [f"{S}: documents[id=d2].supersedes: expected IDs of other documents in the snapshot; found 'd2'"]),
    ("supersedes one twice", _set("docs/1/supersedes", ["d1", "d1"]),
     [f"{S}: documents[id=d2].supersedes: expected each ID at most once; found 'd1' more than once"]),
    ("supersedes in a loop", _each(_set("docs/0/supersedes", ["d3"]), _set("docs/1/supersedes", ["d1"]), _set("docs/2/supersedes", ["d2"])),
     [f"{S}: documents[id=d3].supersedes: expected no loop of supersession (a document cannot replace one that replaces it); found d3 -> d2 -> d1 -> d3"]),
    # --- evaluation set ---
    ("duplicate question", _append("questions", question("q2", "unanswerable")),
     [f"{E}: question 'q2': id: expected unique question IDs; found 'q2' more than once"]),
    ("duplicate fact", _set("questions/0/reference_facts", [{"id": "f1"}, {"id": "f1"}]),
     [f"{E}: question 'q1': reference_facts.id: expected unique fact IDs within the question; found 'f1' more than once"]),
    ("repeated id in a group", _set("questions/0/required_evidence", [{"any_of": ["d1", "d1"]}]),
     [f"{E}: question 'q1': required_evidence[0].any_of: expected no repeated ID within a group; found 'd1' more than once"]),
    ("unknown evidence id", _set("questions/0/required_evidence", [{"any_of": ["d1"]}, {"any_of": ["zz"]}]),
     [f"{E}: question 'q1': required_evidence[1]: expected IDs of documents or chunks in the snapshot; found 'zz'"]),
    ("unknown fact evidence", _set("questions/0/reference_facts", [{"id": "f1", "evidence": ["zz"]}]),
     [f"{E}: question 'q1': reference_facts[id=f1].evidence: expected IDs of documents or chunks in the snapshot; found 'zz'"]),
    ("unanswerable with evidence", _set("questions/1/required_evidence", [{"any_of": ["d2"]}]),
     [f"{E}: question 'q2': answerability: expected no required evidence and no reference facts for an unanswerable question; found 1 evidence group, 0 reference facts"]),
    ("answerable without evidence", _set("questions/0/required_evidence", []),
     [f"{E}: question 'q1': answerability: expected required evidence for an answerable question; found none"]),
    # --- run: results per question ---
    ("question answered twice", _append("runs/run", result("q2", ["d2"], context=["d2"], outcome="refused", answer="no")),
     [f"{R}: question 'q2': results: expected one result per question; found 2 results"]),
    ("result for no question", _append("runs/run", result("q9", ["d2"], context=["d2"], outcome="refused", answer="no")),
     [f"{R}: question 'q9': results.question_id: expected a question of the evaluation set; found no such question"]),
    ("question with no result", lambda d: d["runs"]["run"].pop(1),
     [f"{R}: question 'q2': results: expected a result for every question (run 'run'; or --allow-missing); found no result"]),
    # --- run: rankings and context ---
    ("unknown candidate", _set("runs/run/0/candidates", [{"id": "d1"}, {"id": "zz"}]),
     [f"{R}: question 'q1': candidates: expected IDs of documents or chunks in the snapshot; found 'zz'"]),
    ("repeated candidate", _set("runs/run/0/candidates", [{"id": "d1"}, {"id": "d1"}]),
     [f"{R}: question 'q1': candidates: expected each ID at most once; found 'd1' more than once"]),
    ("reranked not a candidate", _set("runs/run/0/reranked", [{"id": "d3"}]),
     [f"{R}: question 'q1': reranked: expected IDs that were among the candidates; found 'd3'"]),
    ("unknown context id", _set("runs/run/0/context", [{"id": "d1"}, {"id": "zz"}]),
     [f"{R}: question 'q1': context: expected IDs of documents or chunks in the snapshot; found 'zz'"]),
    ("no cut-off", lambda d: _q1(d).pop("context"),
     [f"{R}: provenance.k: expected a cut-off for the final context (give -k, or record the context or provenance.k); found none"]),
    # --- run: outcome and answer ---
    ("empty answer", _set("runs/run/0/answer", "  "),
     [f"{R}: question 'q1': answer: expected non-empty answer text; found an empty answer"]),
    ("no answer text", _set("runs/run/0/answer", None),
     [f"{R}: question 'q1': answer: expected non-empty answer text; found nothing"]),
    ("answer without outcome", _set("runs/run/0/outcome", None),
     [f"{R}: question 'q1': outcome: expected answered, refused, clarified or escalated for a result with an answer; found nothing"]),
    ("refusal with claims", _set("runs/run/1/claims", [claim("y", ["d2"], "supported", ["d2"])]),
     [f"{R}: question 'q2': claims: expected no claims in a result whose outcome is refused; found 1 claim"]),
    ("claims without an answer", lambda d: (_set("runs/run/1/outcome", None)(d), _set("runs/run/1/answer", None)(d), _set("runs/run/1/claims", [claim("y", ["d2"], "supported", ["d2"])])(d)),
     [f"{R}: question 'q2': claims: expected no claims in a result without an answer (outcome and answer are null); found 1 claim"]),
    ("holdout refusal with claims", lambda d: (_set("questions/1/split", "holdout")(d), _set("runs/run/1/claims", [claim("y", ["d2"], "supported", ["d2"])])(d)),
     [f"{R}: question 'q2': claims: expected no claims in a result whose outcome is refused; found 1 claim"]),
    ("refusal with covered facts", lambda d: (_set("runs/run/0/outcome", "refused")(d), _set("runs/run/0/claims", [])(d)),
     [f"{R}: question 'q1': fact_labels: expected no covered reference facts when the outcome is refused; found f1"]),
    ("answer with no claims", _set("runs/run/0/claims", []),
     [f"{R}: question 'q1': claims: expected at least one reviewed claim for an answered question (or --allow-unreviewed); found no claims"]),
    ("answer with claims not extracted", _set("runs/run/0/claims", None),
     [f"{R}: question 'q1': claims: expected at least one reviewed claim for an answered question (or --allow-unreviewed); found claims not extracted"]),
    ("claim without label", _set("runs/run/0/claims", [claim("x", ["d1"], None)]),
     [f"{R}: question 'q1': claims[c1].labels: expected a review label (human-first) for every claim (or --allow-unreviewed); found no label"]),
    ("duplicate claim ids", _set("runs/run/0/claims", [claim("x", ["d1"], "supported", ["d1"], id="a"), claim("y", ["d1"], "supported", ["d1"], id="a")]),
     [f"{R}: question 'q1': claims.id: expected unique claim IDs within the answer; found 'a' more than once"]),
    ("supported without support", _set("runs/run/0/claims", [claim("x", ["d1"], "supported", [])]),
     [f"{R}: question 'q1': claims[c1].supported_by: expected at least one supporting context ID for a supported claim; found none"]),
    ("unsupported with support", _set("runs/run/0/claims", [claim("x", ["d1"], "unsupported", ["d1"])]),
     [f"{R}: question 'q1': claims[c1].supported_by: expected no supporting IDs for a claim labelled unsupported; found d1"]),
    ("judge without prompt version", _set("runs/run/0/claims", [claim("x", ["d1"], "supported", ["d1"], labeller={"kind": "judge", "name": "m"})]),
     [f"{R}: question 'q1': claims[c1].labels.labeller.prompt_version: expected the judge's prompt version; found nothing"]),
    ("support outside the context", _set("runs/run/0/claims", [claim("x", ["d1"], "supported", ["d2"])]),
     [f"{R}: question 'q1': claims[c1].supported_by: expected IDs in the final context (d1); found 'd2'"]),
    # --- run: fact labels ---
    ("unknown fact label", lambda d: _q1(d)["fact_labels"].append({"fact_id": "f9", "verdict": "not_covered", "labeller": {"kind": "human", "name": "t"}}),
     [f"{R}: question 'q1': fact_labels.fact_id: expected a reference fact of the question (f1); found 'f9'"]),
    ("missing fact label", _set("runs/run/0/fact_labels", []),
     [f"{R}: question 'q1': fact_labels: expected a coverage label for reference fact 'f1' (or --allow-unreviewed); found no label"]),
    ("fact judge without prompt version", _set("runs/run/0/fact_labels", [{"fact_id": "f1", "verdict": "covered", "labeller": {"kind": "judge", "name": "m"}}]),
     [f"{R}: question 'q1': fact_labels.labeller.prompt_version: expected the judge's prompt version; found nothing"]),
]


@pytest.mark.parametrize(("name", "mutate", "expected"), CASES, ids=[c[0] for c in CASES])
def test_rule_message(tmp_path: Path, name: str, mutate: Callable[[Data], None], expected: list[str]) -> None:
    data = base()
    mutate(data)
    code, stdout, stderr = run_cli(tmp_path, data)
    count = len(expected)
    head = f"Error: {count} problem{'s' if count != 1 else ''} found in the input:"
    assert (code, stdout) == (2, "")
    assert stderr.splitlines() == [head, *(f"- {line}" for line in expected)]
    assert "Traceback" not in stderr


def test_all_problems_are_listed_at_once(tmp_path: Path) -> None:
    data = base()
    _append("docs", doc("d1"))(data)
    _set("questions/0/required_evidence", [{"any_of": ["zz"]}])(data)
    _set("runs/run/0/answer", "")(data)
    data["runs"]["run"].pop(1)
    code, _, stderr = run_cli(tmp_path, data)
    assert code == 2
    assert stderr.splitlines() == [
        "Error: 4 problems found in the input:",
        f"- {S}: documents[id=d1]: expected unique document IDs; found 'd1' more than once",
        f"- {E}: question 'q1': required_evidence[0]: expected IDs of documents or chunks in the snapshot; found 'zz'",
        f"- {R}: question 'q2': results: expected a result for every question (run 'run'; or --allow-missing); found no result",
        f"- {R}: question 'q1': answer: expected non-empty answer text; found an empty answer",
    ]


def test_a_duplicate_question_leaves_the_runs_checks_that_do_not_depend_on_it(
    tmp_path: Path,
) -> None:
    # q1 twice, the second with another fact: the result's fact labels (f1) are not checked
    # against either (which q1 they belong to is ambiguous); its empty answer, and a result
    # for no question, are named with the duplicate.
    data = base()
    _append("questions", question("q1", evidence=[["d1"]], facts=["f2"]))(data)
    _set("runs/run/0/answer", "")(data)
    _append("runs/run", result("q9", ["d2"], context=["d2"], outcome="refused", answer="no"))(data)
    code, _, stderr = run_cli(tmp_path, data)
    assert code == 2
    assert stderr.splitlines() == [
        "Error: 3 problems found in the input:",
        f"- {E}: question 'q1': id: expected unique question IDs; found 'q1' more than once",
        f"- {R}: question 'q9': results.question_id: expected a question of the evaluation set; found no such question",
        f"- {R}: question 'q1': answer: expected non-empty answer text; found an empty answer",
    ]


def test_support_outside_top_k_names_the_cut_off(tmp_path: Path) -> None:
    data = base()
    _q1(data).pop("context")
    _set("runs/run/0/claims", [claim("x", ["d1"], "supported", ["d2"])])(data)
    code, _, stderr = run_cli(tmp_path, data, "-k", "1")
    assert code == 2
    assert stderr.splitlines()[1] == (
        f"- {R}: question 'q1': claims[c1].supported_by: expected IDs in the top-1 context (d1); found 'd2'"
    )


def test_unknown_citation_is_not_an_input_error(tmp_path: Path) -> None:
    data = base()
    _set("runs/run/0/claims", [claim("x", ["d1", "no-such-doc"], "supported", ["d1"])])(data)
    code, _, stderr = run_cli(tmp_path, data)
    assert (code, stderr) == (0, "")


def test_allow_unreviewed_accepts_unlabelled_answers(tmp_path: Path) -> None:
    data = base()
    _set("runs/run/0/claims", [claim("x", ["d1"], None)])(data)
    _set("runs/run/0/fact_labels", [])(data)
    code, _, stderr = run_cli(tmp_path, data, "--allow-unreviewed")
    assert (code, stderr) == (0, "")


def test_judge_labels_count_under_judge_policy_only_with_prompt_version(tmp_path: Path) -> None:
    data = base()
    _set("runs/run/0/claims", [claim("x", ["d1"], "supported", ["d1"], labeller=JUDGE)])(data)
    code, _, stderr = run_cli(tmp_path, data, "--label-policy", "human")
    assert code == 2
    assert stderr.splitlines()[1] == (
        f"- {R}: question 'q1': claims[c1].labels: expected a review label (human) for every claim (or --allow-unreviewed); found only judge labels"
    )
    code, _, stderr = run_cli(tmp_path, data, "--label-policy", "judge")
    assert code == 2  # the fact label is human-only: a judge policy finds it missing
    assert stderr.splitlines()[1] == (
        f"- {R}: question 'q1': fact_labels: expected a coverage label for reference fact 'f1' (or --allow-unreviewed); found only human labels"
    )


def test_a_problem_of_a_label_from_a_label_file_names_that_file(tmp_path: Path) -> None:
    # The run's own labels are valid; those attached from the label file are not.
    data = base()
    args = write_files(tmp_path, data["docs"], data["questions"], data["runs"])
    labels = {
        "schema_version": 1, "kind": "labels", "run": "run",
        "claim_labels": [
            {"question_id": "q1", "claim_id": "c1",
             "label": {"verdict": "supported", "supported_by": ["d2"], "labeller": JUDGE}},
            {"question_id": "q1", "claim_id": "c1",
             "label": {"verdict": "unsupported", "labeller": {"kind": "judge", "name": "j"}}},
        ],
        "fact_labels": [
            {"question_id": "q1",
             "label": {"fact_id": "f9", "verdict": "covered", "labeller": JUDGE}},
        ],
    }
    (tmp_path / "labels.json").write_text(json.dumps(labels), encoding="utf-8")
    out = CliRunner().invoke(cli, ["evaluate", *args, "--labels", str(tmp_path / "labels.json")])
    L = "{d}/labels.json"
    assert (out.exit_code, out.stderr.replace(str(tmp_path), "{d}").splitlines()) == (2, [
        "Error: 3 problems found in the input:",
        f"- {L}: question 'q1': claims[c1].supported_by: expected IDs in the final context (d1);"
        " found 'd2'",
        f"- {L}: question 'q1': claims[c1].labels.labeller.prompt_version: expected the judge's"
        " prompt version; found nothing",
        f"- {L}: question 'q1': fact_labels.fact_id: expected a reference fact of the question"
        " (f1); found 'f9'",
    ])


def test_a_covered_fact_of_a_refusal_names_the_file_of_its_label(tmp_path: Path) -> None:
    # q1 is refused: its run's own fact label (covered) and the label file's (covered, of a
    # second reviewer) are each named in their own file.
    data = base()
    _set("runs/run/0/outcome", "refused")(data)
    _set("runs/run/0/claims", [])(data)
    args = write_files(tmp_path, data["docs"], data["questions"], data["runs"])
    labels = {
        "schema_version": 1, "kind": "labels", "run": "run",
        "fact_labels": [{"question_id": "q1", "label": {
            "fact_id": "f1", "verdict": "covered", "labeller": {"kind": "human", "name": "bo"}}}],
    }
    (tmp_path / "labels.json").write_text(json.dumps(labels), encoding="utf-8")
    out = CliRunner().invoke(cli, ["evaluate", *args, "--labels", str(tmp_path / "labels.json")])
    expected = "fact_labels: expected no covered reference facts when the outcome is refused"
    assert (out.exit_code, out.stderr.replace(str(tmp_path), "{d}").splitlines()) == (2, [
        "Error: 2 problems found in the input:",
        f"- {R}: question 'q1': {expected}; found f1",
        f"- {{d}}/labels.json: question 'q1': {expected}; found f1",
    ])


def test_a_claim_is_named_by_its_own_id_else_by_its_position() -> None:
    from ragtriage.schemas import claim_ids

    assert claim_ids(["a", None, "", "c"]) == ["a", "c2", "c3", "c"]
    assert claim_ids([None], start=7) == ["c7"]
    assert claim_ids([]) == []
