"""Reference facts in the detail view show what `fact_coverage` counted.

A non-answer covers none of its facts whatever their labels, so a refused answer's facts read
"not covered (answer refused)", never "unlabelled".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_html_report_browser import Opened, _write

from ragtriage.evaluation import Evaluation
from ragtriage.render.html import report_data


def _result(evaluation: Evaluation, run: int, question_id: str) -> dict[str, object]:
    data = report_data(evaluation)
    ids = [q["id"] for q in data["questions"]]
    entry: dict[str, object] = data["results"][run][ids.index(question_id)]
    return entry


def test_payload_says_why_every_fact_counts_as_not_covered(
    example_evaluation: Evaluation,
) -> None:
    refused = _result(example_evaluation, 0, "dead-letter")
    assert (refused["o"], refused["fs"], refused["fn"]) == (
        "refused", ["not_covered", "not_covered"], "answer refused"
    )
    clarified = _result(example_evaluation, 0, "amqp-port")
    assert (clarified["fs"], clarified["fn"]) == (
        ["not_covered"], "asked for clarification instead"
    )
    answered = _result(example_evaluation, 0, "two-facts")
    assert answered["fs"] == ["covered", "not_covered"]
    assert "fn" not in answered


@pytest.fixture(scope="module")
def facts_page(
    browser: object, example_evaluation: Evaluation, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Opened]:
    path = _write(example_evaluation, tmp_path_factory.mktemp("html") / "facts.html")
    opened = Opened(browser, path)
    yield opened
    opened.page.close()


@pytest.mark.slow
def test_refused_answer_facts_read_not_covered(facts_page: Opened) -> None:
    view = facts_page.page
    view.click("#q-body tr[data-qid='dead-letter'] a")
    view.wait_for_selector("#detail:not([hidden])")
    facts = view.eval_on_selector_all(
        "#d-body tr.fact",
        "rows => rows.map(r => [r.getAttribute('data-state'), r.children[2].textContent])",
    )
    assert facts == [["not_covered", "not covered (answer refused)"]] * 2
    assert facts_page.console == []
