"""Honest labels: the context hash, stale labels left out, self-labelling refused or flagged."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from boundaries_builders import HUMAN, claim, doc, make_dataset, result

from ragtriage.api import report_page
from ragtriage.columnar import evaluate
from ragtriage.detectors import context_hash_of
from ragtriage.errors import InputError
from ragtriage.render import evaluation_json, render_markdown
from ragtriage.schemas import json_schema

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
    assert "  - stale labels not used: 1 (q (c1))" in render_markdown(evaluation).splitlines()


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


JUDGE = {"kind": "judge", "name": "model-x", "prompt_version": "p1"}


def test_self_labelling_is_refused_by_default() -> None:
    with pytest.raises(InputError) as caught:
        evaluate(_dataset([_labelled(None, JUDGE)]))
    assert [p.message() for p in caught.value.problems] == [
        "r.json: question 'q': claims.labels.labeller.name: expected a judge other than the "
        "run's generator 'model-x' (or --accept-self-labelling); found 'model-x'"
    ]


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
