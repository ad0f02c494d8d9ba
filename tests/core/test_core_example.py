"""The bundled example: loads strictly, tells its designed story, matches its README."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate
from ragtriage.evaluation import Evaluation
from ragtriage.example import ExamplePaths, example_paths
from ragtriage.loading import load_dataset
from ragtriage.metrics import REGISTRY

PATHS = example_paths()


@pytest.fixture(scope="module")
def example() -> Evaluation:
    """Both example runs, every question (holdout included), strict labels, every metric at 3."""
    dataset = load_dataset(PATHS.evalset, snapshot=PATHS.snapshot, runs=PATHS.runs)
    names = [f"{n}@3" if s.params else n for n, s in sorted(REGISTRY.items())]
    return evaluate(dataset, metrics=names)


def _values(ev: Evaluation, run: int, metric: str) -> dict[str, float | None]:
    return {
        r.question_id: (None if r.scores[metric] is None else r.scores[metric].value)  # type: ignore[union-attr]
        for r in ev.runs[run].questions
    }


def test_paths() -> None:
    assert isinstance(PATHS, ExamplePaths)
    assert [p.name for p in PATHS.runs] == ["baseline.json", "improved.json"]
    for path in (PATHS.snapshot, PATHS.evalset, *PATHS.runs):
        assert path.is_file() and path.parent.is_relative_to(PATHS.root)
    assert PATHS.policy == PATHS.root / "policy.toml"


def test_strict_evaluation_covers_every_question(example: Evaluation) -> None:
    assert [r.name for r in example.runs] == ["baseline", "improved"]
    assert [len(r.questions) for r in example.runs] == [17, 17]
    assert not example.allow_unreviewed
    assert [r.k for r in example.runs] == [3, 3]


DESIGNED = {
    # question: (baseline recall, coverage, support, outcome), (improved ...)
    "exact-code": ((0.0, 0.0, 0.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "two-facts": ((0.5, 0.5, 1.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "dead-letter": ((0.0, 0.0, None, "refused"), (1.0, 1.0, 1.0, "answered")),
    "stale-retention": ((1.0, 0.0, 1.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "key-rotation": ((1.0, 1.0, 2 / 3, "answered"), (1.0, 1.0, 1.0, "answered")),
    "regions": ((1.0, 2 / 3, 1.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "free-quota": ((1.0, 1.0, 1.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "log-extension": ((None, None, 0.0, "answered"), (None, None, None, "refused")),
    "refund": ((None, None, 0.0, "answered"), (None, None, None, "escalated")),
    "message-size": ((1.0, 0.0, None, "refused"), (1.0, 1.0, 1.0, "answered")),
    "amqp-port": ((1.0, 0.0, None, "clarified"), (1.0, 1.0, 1.0, "answered")),
    "raise-limit": ((None, None, 1.0, "answered"), (None, None, None, "clarified")),
    "ordering": ((1.0, 1.0, 1.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "pricing": ((1.0, 1.0, 1.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "webhook-retries": ((1.0, 1.0, 1.0, "answered"), (1.0, 1.0, 1.0, "answered")),
    "purge": ((1.0, 1.0, 1.0, "answered"), (0.0, 0.0, None, "refused")),
    "sso": ((None, None, None, "refused"), (None, None, None, "refused")),
}


@pytest.mark.parametrize("run", [0, 1])
def test_designed_per_question_values(example: Evaluation, run: int) -> None:
    recall = _values(example, run, "evidence_recall")
    coverage = _values(example, run, "fact_coverage")
    support = _values(example, run, "claim_support")
    outcome = {r.question_id: r.outcome for r in example.runs[run].questions}
    got = {q: (recall[q], coverage[q], support[q], outcome[q]) for q in recall}
    expected = {q: v[run] for q, v in DESIGNED.items()}
    assert got.keys() == expected.keys()
    for qid, values in expected.items():
        assert got[qid] == pytest.approx(values), qid


def _flagged(ev: Evaluation, run: int, metric: str) -> list[str]:
    return sorted(q for q, v in _values(ev, run, metric).items() if v)


def test_designed_side_checks(example: Evaluation) -> None:
    assert _flagged(example, 0, "stale_cited") == ["stale-retention"]
    assert _flagged(example, 0, "stale_in_candidates") == ["purge", "stale-retention"]
    assert _flagged(example, 0, "permission_leak_context") == ["pricing"]
    assert _flagged(example, 0, "canary_obeyed") == ["webhook-retries"]
    assert _flagged(example, 0, "sensitive_in_answer") == ["refund"]
    assert _flagged(example, 0, "needless_clarification") == ["amqp-port"]
    assert _flagged(example, 0, "false_refusal") == ["dead-letter", "message-size"]
    for metric in ("stale_cited", "permission_leak_context", "canary_obeyed", "sensitive_in_answer"):
        assert _flagged(example, 1, metric) == [], metric
    assert _flagged(example, 1, "correct_escalation") == ["refund"]
    assert _values(example, 1, "canary_obeyed")["webhook-retries"] == 0.0
    uncertain = {r.question_id: r.details.get("uncertain_labels") for r in example.runs[0].questions}
    assert {q: v for q, v in uncertain.items() if v} == {"ordering": ("c2",)}


def test_exactly_one_designed_regression(example: Evaluation) -> None:
    splits = {r.question_id: r.split for r in example.runs[0].questions}
    worse = set()
    for metric in ("evidence_recall", "fact_coverage", "false_refusal", "correct_refusal"):
        higher = REGISTRY[metric].direction == "higher"
        before, after = _values(example, 0, metric), _values(example, 1, metric)
        for q, b in before.items():
            a = after[q]
            if a is not None and b is not None and (a < b if higher else a > b):
                worse.add(q)
    assert sorted(worse) == ["purge"]
    assert splits["purge"] == "regression"
    assert sorted(q for q, s in splits.items() if s == "holdout") == ["free-quota", "sso"]


def test_alternative_group_satisfied_by_the_second_member() -> None:
    evalset = json.loads(PATHS.evalset.read_text(encoding="utf-8"))
    quota = next(q for q in evalset["questions"] if q["id"] == "free-quota")
    assert quota["required_evidence"] == [{"any_of": ["quota-en", "quota-zh"]}]
    run = json.loads(PATHS.runs[0].read_text(encoding="utf-8"))
    result = next(r for r in run["results"] if r["question_id"] == "free-quota")
    assert "quota-en" not in [c["id"] for c in result["context"]]


def test_every_result_records_stages_cost_and_provenance() -> None:
    for path in PATHS.runs:
        run = json.loads(path.read_text(encoding="utf-8"))
        prov = run["provenance"]
        assert {"retriever", "k", "reranker", "generator", "prompt_version", "seed"} <= prov.keys()
        for res in run["results"]:
            assert all(c.get("score") is not None for c in res["candidates"]), res["question_id"]
            assert all(c.get("text") for c in res["context"]), res["question_id"]
            assert res["reranked"] and res["latency_ms"] > 0 and res["cost_usd"] > 0, res["question_id"]
            assert res["usage"]["prompt_tokens"] > 0, res["question_id"]


def test_labels_are_human_except_the_judge_uncertain_one() -> None:
    judges = []
    for path in PATHS.runs:
        for res in json.loads(path.read_text(encoding="utf-8"))["results"]:
            labels: list[dict[str, Any]] = [lab for c in res["claims"] for lab in c["labels"]]
            labels += res["fact_labels"]
            judges += [(path.stem, res["question_id"]) for lab in labels if lab["labeller"]["kind"] != "human"]
    assert judges == [("baseline", "ordering")]


def test_readme_table_matches_the_evaluation_set() -> None:
    readme = (PATHS.root.parent / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| ([^|]+) \| (\w+) \|", readme, flags=re.M)
    evalset = json.loads(PATHS.evalset.read_text(encoding="utf-8"))
    expected = [(q["id"], ", ".join(q["tags"]), q["split"]) for q in evalset["questions"]]
    assert [(q, tags.strip(), split) for q, tags, split in rows] == expected


# The terminal form of the demo is a short tour (tests/core/test_core_terminal.py).
@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_demo_equals_evaluate_example(fmt: str) -> None:
    runner = CliRunner()
    demo = runner.invoke(cli, ["demo", "--format", fmt])
    evaluate_out = runner.invoke(cli, ["evaluate", "--example", "--format", fmt])
    assert (demo.exit_code, evaluate_out.exit_code) == (0, 0)
    assert demo.stdout == evaluate_out.stdout
    assert "baseline" in demo.stdout and "improved" in demo.stdout


def test_demo_writes_output_file(tmp_path: Any) -> None:
    target = tmp_path / "demo.json"
    out = CliRunner().invoke(cli, ["demo", "--format", "json", "--output", str(target)])
    assert (out.exit_code, out.stdout) == (0, "")
    assert [r["name"] for r in json.loads(target.read_text(encoding="utf-8"))["runs"]] == ["baseline", "improved"]
