"""Items labelled `cannot_judge` are left out of a measure and counted in its aggregate.

Fact coverage is covered / *judged* reference facts, as the code computes and README and
docs/metrics.md say: q1 covers 1 of its 2 judged facts (a third is `cannot_judge`), q2 both
of its 2, so the macro average is (0.5 + 1) / 2 = 0.75 with 1 fact left out, where
covered / reference facts would give (1/3 + 1) / 2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.columnar import evaluate_native, load_and_evaluate

ROOT = Path(__file__).resolve().parents[2]
HUMAN = {"kind": "human", "name": "ann"}


def _fact(fact_id: str, verdict: str) -> dict[str, Any]:
    return {"fact_id": fact_id, "verdict": verdict, "labeller": HUMAN}


def _claim(verdict: str) -> dict[str, Any]:
    label: dict[str, Any] = {"verdict": verdict, "labeller": HUMAN}
    if verdict == "supported":
        label["supported_by"] = ["d1"]
    return {"text": "a claim", "citations": ["d1"], "labels": [label]}


@pytest.fixture()
def files(tmp_path: Path) -> list[str]:
    questions = [
        {"id": "q1", "text": "a?", "answerability": "answerable",
         "required_evidence": [{"any_of": ["d1"]}],
         "reference_facts": [{"id": "f1"}, {"id": "f2"}, {"id": "f3"}]},
        {"id": "q2", "text": "b?", "answerability": "answerable",
         "required_evidence": [{"any_of": ["d1"]}],
         "reference_facts": [{"id": "g1"}, {"id": "g2"}]},
    ]
    results = [
        {"question_id": "q1", "candidates": [{"id": "d1"}], "context": [{"id": "d1"}],
         "outcome": "answered", "answer": "a",
         "claims": [_claim("supported"), _claim("cannot_judge"), _claim("cannot_judge")],
         "fact_labels": [_fact("f1", "covered"), _fact("f2", "not_covered"),
                         _fact("f3", "cannot_judge")]},
        {"question_id": "q2", "candidates": [{"id": "d1"}], "context": [{"id": "d1"}],
         "outcome": "answered", "answer": "b", "claims": [_claim("supported")],
         "fact_labels": [_fact("g1", "covered"), _fact("g2", "covered")]},
    ]
    contents = {
        "evalset.jsonl": [{"schema_version": 1, "kind": "evalset", "evalset_id": "e"},
                          *questions],
        "snapshot.json": {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                          "documents": [{"id": "d1", "text": "one"}]},
        "run.jsonl": [{"schema_version": 1, "kind": "run", "name": "r"}, *results],
    }
    for name, data in contents.items():
        text = (
            "\n".join(json.dumps(x) for x in data) if isinstance(data, list) else json.dumps(data)
        )
        (tmp_path / name).write_text(text, encoding="utf-8")
    return [str(tmp_path / "evalset.jsonl"), "--snapshot", str(tmp_path / "snapshot.json"),
            "--run", str(tmp_path / "run.jsonl")]


def _run(*args: str) -> str:
    outcome = CliRunner().invoke(cli, list(args))
    assert outcome.exit_code == 0, outcome.output
    return outcome.stdout


def test_loader_and_file_reader(files: list[str]) -> None:
    evaluation = load_and_evaluate(files[0], snapshot=files[2], runs=[files[4]])
    summary = evaluation.runs[0].summary
    coverage, support = summary["fact_coverage"], summary["claim_support"]
    assert (coverage.value, coverage.numerator, coverage.denominator) == (0.75, 1.5, 2)
    assert coverage.cannot_judge == 1
    assert (support.value, support.numerator, support.denominator) == (1.0, 2, 2)
    assert support.cannot_judge == 2
    assert summary["citation_validity"].cannot_judge is None  # reads no label
    native = evaluate_native(files[0], files[2], [files[4]], workers=1).runs[0]
    assert native.summary["fact_coverage"] == coverage
    assert native.summary["claim_support"] == support


def test_json(files: list[str]) -> None:
    summary = json.loads(_run("evaluate", *files, "--format", "json"))["runs"][0]["summary"]
    assert summary["fact_coverage"] == {
        "value": 0.75, "numerator": 1.5, "denominator": 2, "averaging": "macro",
        "not_applicable": 0, "cannot_judge": 1,
    }
    assert summary["claim_support"]["cannot_judge"] == 2
    assert "cannot_judge" not in summary["citation_validity"]


def test_table_and_markdown(files: list[str]) -> None:
    table = _run("evaluate", *files)
    assert re.search(r"│ fact_coverage +│ macro, higher is better │ 0\.75 \(1\.5/2\) · 1 cannot "
                     r"judge +│", table)
    assert re.search(r"│ claim_support +│ micro, higher is better │ 1\.00 \(2/2\) · 2 cannot "
                     r"judge +│", table)
    markdown = _run("evaluate", *files, "--format", "markdown")
    assert "| fact_coverage | macro, higher is better | 0.75 (1.5/2) · 1 cannot judge |" in markdown
    assert "| claim_support | micro, higher is better | 1.00 (2/2) · 2 cannot judge |" in markdown


def test_html(files: list[str], tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    _run("report", *files, "-o", str(page))
    text = page.read_text(encoding="utf-8")
    assert (
        '<td class="num"><b>0.75</b> <span class="frac">(1.5/2)</span> '
        '<span class="frac">· 1 cannot judge</span></td>'
    ) in text
    assert '<b>1.00</b> <span class="frac">(2/2)</span> <span class="frac">· 2 cannot judge' in text


def test_readme_and_metrics_doc_say_what_the_code_computes() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (
        "| `fact_coverage` | covered reference facts / judged reference facts (`cannot_judge` "
        "facts are left out and counted; a refusal covers none of its facts) |"
    ) in readme
    metrics = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert (
        "- **Formula:** covered reference facts / judged reference facts (cannot-judge facts "
        "are left out and counted; a non-answer covers none of its facts: each counts as not "
        "covered, a cannot-judge one too, and a covered label on one is refused)"
    ) in metrics
