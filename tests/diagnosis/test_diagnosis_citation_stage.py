"""The `invalid_citation` stage in every output: table, JSON, Markdown and the HTML report.

The data is issue 14's: one answer's claims cite a document that was not in its context and
nothing at all; `citation_validity` sees it, so the diagnosis must too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.diagnosis import stage_order

WHY = (
    "2 of 4 claims without a valid citation: k2 cites d2, not in the context; k3 cites nothing"
)


def _claim(claim_id: str, cites: list[str]) -> dict[str, Any]:
    label = {"verdict": "supported", "supported_by": ["d1"],
             "labeller": {"kind": "human", "name": "ann"}}
    return {"id": claim_id, "text": f"claim {claim_id}", "citations": cites, "labels": [label]}


@pytest.fixture()
def files(tmp_path: Path) -> list[str]:
    questions = [
        {"id": q, "text": f"{q}?", "answerability": "answerable", "tags": ["faq"],
         "required_evidence": [{"any_of": ["d1"]}]}
        for q in ("q1", "q2")
    ]
    results = [
        {"question_id": "q1", "candidates": [{"id": "d1"}, {"id": "d2"}],
         "context": [{"id": "d1"}], "outcome": "answered", "answer": "a",
         "claims": [_claim("k1", ["d1"]), _claim("k2", ["d2"]), _claim("k3", []),
                    _claim("k4", ["d1"])]},
        {"question_id": "q2", "candidates": [{"id": "d1"}], "context": [{"id": "d1"}],
         "outcome": "answered", "answer": "a", "claims": [_claim("k1", ["d1"])]},
    ]
    contents = {
        "evalset.json": {"schema_version": 1, "kind": "evalset", "evalset_id": "e",
                         "questions": questions},
        "snapshot.json": {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                          "documents": [{"id": "d1", "text": "one"}, {"id": "d2", "text": "two"}]},
        "run.json": {"schema_version": 1, "kind": "run", "name": "r", "results": results},
    }
    for name, data in contents.items():
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    return [str(tmp_path / "evalset.json"), "--snapshot", str(tmp_path / "snapshot.json"),
            "--run", str(tmp_path / "run.json")]


def _run(*args: str) -> str:
    outcome = CliRunner().invoke(cli, list(args))
    assert outcome.exit_code == 0, outcome.output
    return outcome.stdout


def test_stage_sits_after_support_before_completeness() -> None:
    order = stage_order()
    assert order.index("unsupported_claim") + 1 == order.index("invalid_citation")
    assert order.index("invalid_citation") + 1 == order.index("incomplete_answer")


def test_json(files: list[str]) -> None:
    run = json.loads(_run("diagnose", *files, "--format", "json"))["runs"][0]
    assert run["questions"][0] == {
        "id": "q1", "primary": "invalid_citation", "secondary": [],
        "findings": [{"stage": "invalid_citation", "ids": ["k2", "d2", "k3"], "why": WHY}],
    }
    assert run["questions"][1]["primary"] == "ok"
    assert run["breakdown"]["all"]["stages"]["invalid_citation"] == {
        "averaging": "macro", "primary": 1, "present": 1, "denominator": 2, "primary_rate": 0.5,
        "present_rate": 0.5,
    }


def test_markdown(files: list[str]) -> None:
    out = _run("diagnose", *files, "--format", "markdown")
    assert "- **r**: 1 of 2 questions fail (50%); primary stages: invalid_citation 1" in out
    assert "| tag:faq | 2 | 1 (50%) | invalid_citation 1 |" in out
    assert "| invalid_citation | 1/2 (50%) | 1/2 (50%) |" in out
    assert f"| q1 | invalid_citation | - | k2, d2, k3 | {WHY} |" in out
    assert (
        "| invalid_citation | require a citation on every claim and allow only the IDs of the "
        "passages sent to the model (reject or repair other IDs before the answer is shown) "
        "| the retrieval results and the final context |"
    ) in out


def test_table(files: list[str]) -> None:
    out = _run("diagnose", *files)
    assert re.search(r"│ all +│ 2 +│ 1 \(50%\) │ invalid_citation 1 │", out)
    assert re.search(r"│ invalid_citation │ 1/2 \(50%\) │ 1/2 \(50%\) +│", out)


def test_html_badge_and_slice_bar(files: list[str], tmp_path: Path) -> None:
    page_path = tmp_path / "page.html"
    _run("report", *files, "-o", str(page_path))
    page = page_path.read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="rt-data">(.*?)</script>', page, re.S)
    assert match is not None
    data = json.loads(match.group(1))
    assert data["stages"] == list(stage_order())
    first = data["results"][0][0]
    assert (first["p"], first["w"]) == ("invalid_citation", [["invalid_citation", WHY,
                                                              ["k2", "d2", "k3"]]])
    bars = re.findall(r'fill="(#[0-9A-Fa-f]{6})" data-run="r" data-slice="all" '
                      r'data-stage="([a-z_]+)"', page)
    assert [stage for _, stage in bars] == ["invalid_citation", "ok"]
    assert bars[0][0] != bars[1][0]
