"""CLI tests for `evaluate`, `demo` and `schema` (click's CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage._version import __version__
from ragtriage.cli.main import cli


def _evaluate(article: Path, *extra: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(cli, ["evaluate", str(article), *extra])
    return out.exit_code, out.stdout, out.stderr


def test_version() -> None:
    out = CliRunner().invoke(cli, ["--version"])
    assert (out.exit_code, out.stdout) == (0, f"ragtriage, version {__version__}\n")


def test_json_contract(article_fixture: Path) -> None:
    code, stdout, stderr = _evaluate(article_fixture, "-k", "2", "--format", "json")
    assert (code, stderr) == (0, "")
    data = json.loads(stdout)
    run = data["runs"][0]
    assert {"name", "summary", "questions"} <= run.keys()
    assert set(run["summary"]["evidence_recall"]) == {"value", "numerator", "denominator", "averaging", "not_applicable"}
    row = run["questions"][0]
    assert row["id"] == "exact-code"
    for metric in ("evidence_recall", "fact_coverage", "claim_support", "citation_validity", "correct_refusal", "false_refusal"):
        assert metric in row and metric in run["summary"]
    assert row["false_refusal"] is False and row["correct_refusal"] is None
    assert data["tool"] == {"name": "ragtriage", "version": __version__}
    assert [i["kind"] for i in data["inputs"]] == ["article"]


def test_reports_are_byte_identical(article_fixture: Path) -> None:
    for fmt in ("json", "markdown", "table"):
        first = _evaluate(article_fixture, "--format", fmt)
        assert first == _evaluate(article_fixture, "--format", fmt), fmt


def test_table_shows_denominators(article_fixture: Path) -> None:
    code, stdout, _ = _evaluate(article_fixture, "-k", "2")
    assert code == 0
    assert "0.75 (3/4)" in stdout and "0.50 (1.5/3)" in stdout and "1 n/a" in stdout


def test_markdown(article_fixture: Path) -> None:
    code, stdout, _ = _evaluate(article_fixture, "--format", "markdown")
    assert code == 0
    assert stdout.startswith("## ragtriage evaluation")
    assert "| claim_support | micro" in stdout


def test_output_file(article_fixture: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    code, stdout, _ = _evaluate(article_fixture, "--format", "json", "--output", str(target))
    assert (code, stdout) == (0, "")
    assert json.loads(target.read_text(encoding="utf-8"))["runs"][1]["name"] == "synthetic-corrected"


def test_metric_selection(article_fixture: Path) -> None:
    code, stdout, _ = _evaluate(article_fixture, "--format", "json", "--metric", "claim_support", "--metric", "ndcg@2")
    assert code == 0
    assert sorted(json.loads(stdout)["runs"][0]["summary"]) == ["claim_support", "ndcg@2"]


def test_unknown_metric_is_an_input_error(article_fixture: Path) -> None:
    code, stdout, stderr = _evaluate(article_fixture, "--metric", "accuracy")
    assert (code, stdout) == (2, "")
    assert stderr.startswith("Error: 1 problem found in the input:\n- <command line>: metric: expected one of ")
    assert stderr.endswith("; found 'accuracy'\n")


def test_metric_parameter_is_checked(article_fixture: Path) -> None:
    code, _, stderr = _evaluate(article_fixture, "--metric", "ndcg@0")
    assert code == 2
    assert stderr == (
        "Error: 1 problem found in the input:\n"
        "- <command line>: metric ndcg parameter k: expected an integer from 1 to 10000; found '0'\n"
    )
    code, _, stderr = _evaluate(article_fixture, "--metric", "ndcg")
    assert stderr == "Error: 1 problem found in the input:\n- <command line>: metric: expected the form ndcg@k; found 'ndcg'\n"


def test_every_bad_metric_is_named_at_once(article_fixture: Path) -> None:
    # From the command line and from Python: each bad one, in the order given.
    from ragtriage import evaluate_files
    from ragtriage.errors import InputError

    bad = ["ndcg@0", "claim_support", "mrr@x", "acuracy"]
    code, _, stderr = _evaluate(article_fixture, *(f"--metric={m}" for m in bad))
    expected = [
        "- <command line>: metric ndcg parameter k: expected an integer from 1 to 10000; found '0'",
        "- <command line>: metric mrr parameter k: expected an integer from 1 to 10000; found 'x'",
    ]
    lines = stderr.splitlines()
    assert (code, lines[:3]) == (2, ["Error: 3 problems found in the input:", *expected])
    assert lines[3].startswith("- <command line>: metric: expected one of canary_obeyed, ")
    with pytest.raises(InputError) as caught:
        evaluate_files(article_fixture, metrics=bad)
    assert [f"- {p.message()}" for p in caught.value.problems] == lines[1:]


def test_no_dataset_is_a_usage_error() -> None:
    out = CliRunner().invoke(cli, ["evaluate"])
    assert out.exit_code == 2
    assert out.stderr.splitlines()[-1] == "Error: give DATASET or --example"


def test_library_api_matches_cli(article_fixture: Path) -> None:
    from ragtriage import evaluate_files

    result = evaluate_files(article_fixture, k=2)
    agg = result.runs[0].summary["claim_support"]
    assert (agg.value, agg.numerator, agg.denominator, agg.averaging) == (0.75, 3, 4, "micro")


@pytest.mark.parametrize("command", ["evaluate", "diagnose", "compare", "gate"])
def test_an_option_value_with_an_undecodable_byte_is_refused_before_the_work(
    command: str,
) -> None:
    # `--tag $'\xff'` reaches Python as a lone surrogate, which no report can write: refused
    # up front (exit 2, also for gate, whose 1 means a failed gate), every such option at once.
    args = [command, "--example", "--tag", "\udcff", "--id", "q\udcfe*", "--format", "json"]
    out = CliRunner().invoke(cli, args)
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == (
        "Error: 2 problems found in the input:\n"
        "- <command line>: --tag: expected text UTF-8 can encode; "
        "found an undecodable byte in '\\udcff'\n"
        "- <command line>: --id: expected text UTF-8 can encode; "
        "found an undecodable byte in 'q\\udcfe*'\n"
    )


def test_a_sum_is_written_alike_in_every_report_and_never_with_an_exponent(
    tmp_path: Path,
) -> None:
    # 1,001 questions, each needing d0, d1 and d2; q0's ranking finds d0 alone (1/3), every
    # other finds all three: evidence_recall's numerator is 1000.333... The table, Markdown
    # and the HTML page wrote it `1e+03` (three significant digits), the gate `1000.33`;
    # the example's baseline fact_coverage, 6.1666..., was `6.17` in the first three and
    # `6.16667` in the gate.
    questions = [
        {"id": f"q{n}", "text": f"question {n}?", "answerability": "answerable",
         "required_evidence": [{"any_of": [d]} for d in ("d0", "d1", "d2")]}
        for n in range(1001)
    ]
    results = [
        {"question_id": f"q{n}", "candidates": [{"id": d} for d in (["d0"] if n == 0 else
         ["d0", "d1", "d2"])], "outcome": "refused", "answer": "no", "claims": []}
        for n in range(1001)
    ]
    docs = [{"id": d, "text": f"text {d}"} for d in ("d0", "d1", "d2")]
    files = {
        "snapshot.json": {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                          "documents": docs},
        "evalset.json": {"schema_version": 1, "kind": "evalset", "evalset_id": "e",
                         "questions": questions},
        "run.json": {"schema_version": 1, "kind": "run", "name": "r",
                     "provenance": {"k": 3}, "results": results},
    }
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    policy = tmp_path / "policy.toml"
    policy.write_text('[[threshold]]\nmetric = "evidence_recall"\nmin = 0.5\n', encoding="utf-8")
    args = [str(tmp_path / "evalset.json"), "--snapshot", str(tmp_path / "snapshot.json"),
            "--run", str(tmp_path / "run.json"), "--metric", "evidence_recall"]
    table = CliRunner().invoke(cli, ["evaluate", *args])
    markdown = CliRunner().invoke(cli, ["evaluate", *args, "--format", "markdown"])
    page = CliRunner().invoke(cli, ["report", *args, "-o", str(tmp_path / "page.html")])
    gated = CliRunner().invoke(cli, ["gate", *args, "--policy", str(policy), "--format", "json"])
    html = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert [table.exit_code, markdown.exit_code, page.exit_code, gated.exit_code] == [0] * 4
    assert "│ 1.00 (1000.3/1001)" in table.stdout
    assert "| 1.00 (1000.3/1001) |" in markdown.stdout
    assert '<span class="frac">(1000.3/1001)</span>' in html
    assert json.loads(gated.stdout)["rules"][0]["observed_text"] == "0.999 (1000.3/1001, macro)"
    example = CliRunner().invoke(cli, ["evaluate", "--example"])
    example_policy = tmp_path / "fact.toml"
    example_policy.write_text('[[threshold]]\nmetric = "fact_coverage"\nmin = 0.5\n', "utf-8")
    example_gate = CliRunner().invoke(cli, [
        "gate", "--example", "--candidate", "baseline", "--baseline", "improved",
        "--policy", str(example_policy), "--format", "json",
    ])
    assert "0.51 (6.17/12)" in example.stdout
    assert json.loads(example_gate.stdout)["rules"][0]["observed_text"] == (
        "0.514 (6.17/12, macro)"
    )
