"""Honest labels: the context hash, stale labels left out, self-labelling refused or flagged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from boundaries_builders import HUMAN, claim, doc, make_dataset, result

from ragtriage.api import report_page
from ragtriage.columnar import _native_eval, evaluate
from ragtriage.detectors import context_hash_of, label_context_hash
from ragtriage.errors import InputError
from ragtriage.loading import SnapshotIndex, load_dataset
from ragtriage.metrics import measures
from ragtriage.render import evaluation_json, render_markdown
from ragtriage.schemas import QuestionResult, json_schema

TEXTS = {"a": "Webhooks retry 3 times.", "b": "Ports: 5671 and 443."}


def _hash(items: list[tuple[str, str]], k: int | None) -> str:
    return context_hash_of(items, k)


def test_context_hash_definition() -> None:
    payload = '{"context":[{"id":"a","text":"Webhooks retry 3 times."}],"k":3}'
    expected = "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()
    assert _hash([("a", TEXTS["a"])], 3) == expected
    assert expected == "sha256:" + hashlib.sha256(
        json.dumps(
            {"context": [{"id": "a", "text": TEXTS["a"]}], "k": 3},
            sort_keys=True, ensure_ascii=False, separators=(",", ":"),
        ).encode()
    ).hexdigest()


def test_context_hash_changes_with_text_order_membership_and_k() -> None:
    base = _hash([("a", TEXTS["a"]), ("b", TEXTS["b"])], 2)
    variants = {
        _hash([("a", TEXTS["a"] + " "), ("b", TEXTS["b"])], 2),
        _hash([("b", TEXTS["b"]), ("a", TEXTS["a"])], 2),
        _hash([("a", TEXTS["a"])], 2),
        _hash([("a", TEXTS["a"]), ("b", TEXTS["b"])], 3),
        _hash([("a", TEXTS["a"]), ("b", TEXTS["b"])], None),
    }
    assert base not in variants and len(variants) == 5


def _labelled(hash_value: str | None, labeller: dict[str, Any] = HUMAN) -> dict[str, Any]:
    label: dict[str, Any] = {"verdict": "supported", "supported_by": ["a"], "labeller": labeller}
    if hash_value is not None:
        label["context_hash"] = hash_value
    return label


def _dataset(labels: list[dict[str, Any]], generator: str = "model-x") -> Any:
    return make_dataset(
        [doc("a", TEXTS["a"]), doc("b", TEXTS["b"])],
        [{"id": "q", "text": "How often?", "answerability": "answerable",
          "required_evidence": [{"any_of": ["a"]}]}],
        {"r": [result("q", ["a", "b"], claims=[claim(["a"], labels=labels)], texts=TEXTS)]},
        provenance={"k": 2, "generator": {"name": generator}},
    )


def test_a_label_made_against_the_current_context_is_used() -> None:
    current = _hash([("a", TEXTS["a"]), ("b", TEXTS["b"])], 2)
    run = evaluate(_dataset([_labelled(current)]), metrics=["claim_support"]).runs[0]
    assert run.views[0].context_hash == current
    assert run.views[0].stale_labels == ()
    assert run.summary["claim_support"].value == 1.0


def test_a_stale_label_is_not_used_and_is_reported() -> None:
    old = _hash([("a", "Webhooks retry 5 times."), ("b", TEXTS["b"])], 2)
    evaluation = evaluate(_dataset([_labelled(old)]), metrics=["claim_support"])
    run = evaluation.runs[0]
    assert run.views[0].stale_labels == ("c1",)
    assert run.views[0].claims is not None and run.views[0].claims[0].state == "unlabelled"
    agg = run.summary["claim_support"]
    assert (agg.value, agg.numerator, agg.denominator, agg.not_applicable) == (None, 0, 0, 1)
    report = evaluation_json(evaluation)["runs"][0]
    assert report["questions"][0]["details"]["stale_labels"] == ["c1"]
    assert report["boundaries"]["stale_labels"] == {"q": ["c1"]}
    assert report["boundaries"]["stale_label_count"] == 1
    assert "  - claims and facts whose stale labels were not used: 1 (q (c1))" in (
        render_markdown(evaluation).splitlines()
    )


def test_the_stale_count_says_it_counts_claims_and_facts_not_labels() -> None:
    # Two reviewers' stale labels on one claim: one claim left without a fresh label. The
    # count is of claims and facts (as `calibrate`'s "N stale labels" counts labels), and says so.
    old = _hash([("a", "Webhooks retry 5 times."), ("b", TEXTS["b"])], 2)
    second = {**_labelled(old), "labeller": {"kind": "human", "name": "other"}}
    evaluation = evaluate(_dataset([_labelled(old), second]), metrics=["claim_support"])
    report = evaluation_json(evaluation)["runs"][0]
    assert report["boundaries"]["stale_label_count"] == 1
    assert "  - claims and facts whose stale labels were not used: 1 (q (c1))" in (
        render_markdown(evaluation).splitlines()
    )


def test_a_different_k_makes_a_label_stale() -> None:
    other_k = _hash([("a", TEXTS["a"]), ("b", TEXTS["b"])], 5)
    run = evaluate(_dataset([_labelled(other_k)]), metrics=["claim_support"]).runs[0]
    assert run.views[0].stale_labels == ("c1",)


@pytest.mark.parametrize("answer", ["Webhooks retry 3 times.", "Another answer entirely."])
def test_a_fact_label_is_stamped_with_the_context_alone(answer: str) -> None:
    """A fact label's hash is a claim label's (docs/boundaries.md): another answer to the same
    context leaves it fresh; the field's description says so, not 'the answer and context'."""
    current = _hash([("a", TEXTS["a"]), ("b", TEXTS["b"])], 2)
    res = result("q", ["a", "b"], claims=[claim(["a"])], texts=TEXTS, answer=answer)
    res["fact_labels"] = [{"fact_id": "f1", "verdict": "covered", "labeller": HUMAN,
                           "context_hash": current}]
    data = make_dataset(
        [doc("a", TEXTS["a"]), doc("b", TEXTS["b"])],
        [{"id": "q", "text": "How often?", "answerability": "answerable",
          "required_evidence": [{"any_of": ["a"]}], "reference_facts": [{"id": "f1"}]}],
        {"r": [res]}, provenance={"k": 2},
    )
    run = evaluate(data, metrics=["fact_coverage"]).runs[0]
    assert (run.views[0].stale_labels, run.summary["fact_coverage"].value) == ((), 1.0)
    described = json_schema("labels")["$defs"]["FactLabel"]["properties"]["context_hash"]
    assert described["description"] == (
        "Hash of the context text the label was made against (not of the answer), when recorded."
    )


FINAL_CONTEXTS: list[tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]] = [
    ({"candidates": ["a", "b", "c"]}, ("a", "b"), ("a", "b", "c")),
    ({"candidates": ["a", "b", "c"], "reranked": ["c", "a", "b"]}, ("c", "a"), ("c", "a", "b")),
    ({"candidates": ["a", "b"], "reranked": []}, (), ()),
    ({"candidates": ["a", "b", "c"], "context": ["c"]}, ("c",), ("c",)),
    ({"candidates": ["a", "b", "c"], "context": []}, (), ()),
    ({"candidates": ["a", "b", "c"], "reranked": ["b"], "context": ["c", "a"]}, ("c", "a"),
     ("c", "a")),
]
"""(stages of a result, its final context at k=2, at no cut-off): the recorded context when
there is one, else the top k of the reranked list when reranking ran, else of the candidates."""


def _final_context_run(stamp: Any) -> list[dict[str, Any]]:
    """One answered result per case of `FINAL_CONTEXTS` (question `qN`), its claim's label
    stamped with `stamp(result model)`."""
    out = []
    for n, (stages, _, _) in enumerate(FINAL_CONTEXTS, start=1):
        res: dict[str, Any] = {"question_id": f"q{n}", "answer": "an answer",
                               "outcome": "answered"}
        for stage, ids in stages.items():
            res[stage] = [{"id": i} for i in ids]
        label = {"verdict": "unsupported", "labeller": HUMAN}
        res["claims"] = [{"text": "a claim", "labels": [label]}]
        label["context_hash"] = stamp(QuestionResult.model_validate(res))
        out.append(res)
    return out


def test_the_final_context_is_one_rule_for_the_model_the_loader_and_the_file_reader(
    tmp_path: Path,
) -> None:
    """`QuestionResult.final_context` is the rule; the engine, on the loaded models and on the
    records the file reader parses, reads the same context and checks labels against the
    hash of it (`label_context_hash`): none is stale, and one stamped at another k is."""
    questions = [{"id": f"q{n}", "text": "How often?", "answerability": "answerable",
                  "required_evidence": [{"any_of": ["a"]}]}
                 for n in range(1, len(FINAL_CONTEXTS) + 1)]
    docs = [doc("a", TEXTS["a"]), doc("b", TEXTS["b"]), doc("c")]
    index = SnapshotIndex.build(make_dataset(docs, questions, {}).snapshot)
    for (stages, at_two, uncut), res in zip(
        FINAL_CONTEXTS, _final_context_run(lambda m: ""), strict=True
    ):
        model = QuestionResult.model_validate(res)
        assert (model.final_context(2), model.final_context(None)) == (at_two, uncut), stages
    results = _final_context_run(lambda m: label_context_hash(m, index, 2))
    other_k = _final_context_run(lambda m: label_context_hash(m, index, 3))
    results[0]["claims"].append(other_k[0]["claims"][0])
    data = make_dataset(docs, questions, {"r": results}, provenance={"k": 2})
    paths = []
    for name, model in (("evalset", data.evalset), ("snapshot", data.snapshot),
                        ("run", data.runs[0])):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(model.model_dump_json(exclude_none=True), "utf-8")
    evalset, snapshot, run = paths
    by_loader = evaluate(load_dataset(evalset, snapshot=snapshot, runs=[run])).runs[0]
    # The file reader itself (no fallback to the loader: an input it does not take raises).
    by_reader = _native_eval._on_files(
        evalset, snapshot, [run], measures(None), workers=1
    ).runs[0]
    for got in (by_loader, by_reader):
        assert [v.context for v in got.views] == [c[1] for c in FINAL_CONTEXTS]
        assert [v.stale_labels for v in got.views] == [("c2",)] + [()] * 5


JUDGE = {"kind": "judge", "name": "model-x", "prompt_version": "p1"}


def test_self_labelling_is_refused_by_default() -> None:
    with pytest.raises(InputError) as caught:
        evaluate(_dataset([_labelled(None, JUDGE)]))
    assert [p.message() for p in caught.value.problems] == [
        "r.json: question 'q': claims.labels.labeller.name: expected a judge other than the "
        "run's generator 'model-x' (or --accept-self-labelling); found 'model-x'"
    ]


def _self_labelled_files(path: Path) -> tuple[Path, Path, Path, Path]:
    """Evaluation set, snapshot, run (generator model-x, labelled by a person) and a label
    file whose claim label for q2 was made by model-x, under `path`."""
    snapshot = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                "documents": [doc("a", TEXTS["a"])]}
    questions = [{"id": q, "text": "How often?", "answerability": "answerable",
                  "required_evidence": [{"any_of": ["a"]}]} for q in ("q1", "q2")]
    evalset = {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "questions": questions}
    run = {"schema_version": 1, "kind": "run", "name": "r",
           "provenance": {"k": 1, "generator": {"name": "model-x"}},
           "results": [result(q, ["a"], claims=[claim(["a"], ["a"])]) for q in ("q1", "q2")]}
    labels = {"schema_version": 1, "kind": "labels", "run": "r", "labeller": JUDGE,
              "claim_labels": [{"question_id": "q2", "claim_id": "c1",
                                "label": {"verdict": "supported", "supported_by": ["a"]}}]}
    files = []
    for name, content in (("evalset", evalset), ("snapshot", snapshot), ("run", run),
                          ("judge.labels", labels)):
        files.append(path / f"{name}.json")
        files[-1].write_text(json.dumps(content), encoding="utf-8")
    return files[0], files[1], files[2], files[3]


def test_a_self_made_label_of_a_label_file_is_refused_naming_that_file(tmp_path: Path) -> None:
    """The run file holds no label of its generator: the problem names the label file, for
    `evaluate` and for `calibrate` alike."""
    from ragtriage.api import calibrate_labels, evaluate_files

    evalset, snapshot, run, labels = _self_labelled_files(tmp_path)
    expected = [
        f"{labels}: question 'q2': claims.labels.labeller.name: expected a judge other than "
        "the run's generator 'model-x' (or --accept-self-labelling); found 'model-x'"
    ]
    with pytest.raises(InputError) as caught:
        evaluate_files(evalset, snapshot=snapshot, runs=[run], labels=[labels])
    assert [p.message() for p in caught.value.problems] == expected
    with pytest.raises(InputError) as caught:
        calibrate_labels(evalset, snapshot=snapshot, runs=[run], judge_labels=[labels])
    assert [p.message() for p in caught.value.problems] == expected


def test_accepted_self_labelling_marks_every_affected_metric() -> None:
    evaluation = evaluate(
        _dataset([_labelled(None, JUDGE)]),
        metrics=["claim_support", "citation_validity"],
        accept_self_labelling=True,
    )
    run = evaluation.runs[0]
    assert run.self_labelled == ("claim_support",)
    report = evaluation_json(evaluation)
    assert report["options"]["accept_self_labelling"] is True
    summary = report["runs"][0]["summary"]
    assert summary["claim_support"]["self_labelled"] is True
    assert "self_labelled" not in summary["citation_validity"]
    assert report["runs"][0]["boundaries"]["self_labelled_metrics"] == ["claim_support"]
    markdown = render_markdown(evaluation)
    assert "| claim_support | micro, higher is better | 1.00 (1/1) · SELF-LABELLED" in markdown
    assert "| citation_validity | micro, higher is better | 1.00 (1/1) |" in markdown
    assert "1.00 · SELF-LABELLED" in report_page(evaluation)


def test_a_judge_with_another_name_is_not_self_labelling() -> None:
    run = evaluate(_dataset([_labelled(None, JUDGE)], generator="other-model")).runs[0]
    assert run.self_labelled == ()


def test_a_malformed_context_hash_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        evaluate(_dataset([_labelled("md5:abc")]))
    assert [p.message() for p in caught.value.problems] == [
        "r.json: question 'q': claims[c1].labels.context_hash: expected sha256: followed by "
        "64 lowercase hex digits; found 'md5:abc'"
    ]
