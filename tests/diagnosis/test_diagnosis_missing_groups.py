"""A view's `missing_groups` and `evidence`: where the engine's matcher found each required
group; the retrieval stages and the `missing_evidence` details read them."""

from __future__ import annotations

import pytest

from ragtriage.columnar import load_and_evaluate
from ragtriage.diagnosis import diagnose_view
from ragtriage.evaluation import Evaluation
from ragtriage.example import example_paths
from ragtriage.metrics import EvidenceFound, QuestionView


@pytest.fixture(scope="module")
def example() -> Evaluation:
    paths = example_paths()
    return load_and_evaluate(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)


def _views(example: Evaluation) -> dict[tuple[str, str], QuestionView]:
    return {(run.name, v.question.id): v for run in example.runs for v in run.views}


def test_the_arrays_groups_are_the_views_missing_groups(example: Evaluation) -> None:
    views = _views(example)
    missing = {key: v.missing_groups for key, v in views.items() if v.missing_groups}
    assert missing == {
        ("baseline", "exact-code"): (0,),
        ("baseline", "two-facts"): (1,),
        ("baseline", "dead-letter"): (0,),
        ("improved", "purge"): (0,),
    }
    # Each group's first satisfying item: among the candidates, in the reranked list, in the
    # context (the reranker dropped `log-export`, the second group).
    assert views[("baseline", "two-facts")].evidence == EvidenceFound(
        ((0, 0, 0), (2, None, None)), frozenset({"retention-v2", "log-export"})
    )


def test_the_retrieval_stages_and_details_read_the_views_groups(example: Evaluation) -> None:
    run = next(run for run in example.runs if run.name == "baseline")
    view = _views(example)[("baseline", "two-facts")]
    carried = next(q for q in run.diagnosis.questions if q.question_id == "two-facts")
    assert (carried.primary, carried.secondary) == ("ranking_loss", ("incomplete_answer",))
    # The stages the engine found failing, explained on the view.
    verdict = diagnose_view(view, carried.stages)
    assert verdict == carried
    assert verdict.findings[0].ids == ("log-export",)
    assert verdict.findings[0].why == (
        "log-export at candidate rank 3, dropped by the reranker (not among its 3 items)"
    )
    records = {r.question_id: r for r in run.questions}
    assert records["two-facts"].details["missing_evidence"] == ("log-export",)
    # A question whose every group is in the context has no missing evidence.
    assert "missing_evidence" not in records["purge"].details
