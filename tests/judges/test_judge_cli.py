"""`ragtriage judge` on the command line: lexical baseline, dry run, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from judgekit import FakeServer, claim, serve, write_dataset

from ragtriage.cli.judge import judge_command
from ragtriage.cli.main import cli as main_cli
from ragtriage.errors import InputError
from ragtriage.judges import check_judgeable
from ragtriage.loading import load_dataset


def _args(folder: Path) -> list[str]:
    return [
        str(folder / "evalset.json"),
        "--snapshot",
        str(folder / "snapshot.json"),
        "--run",
        str(folder / "run.json"),
    ]


def test_lexical_baseline_writes_labels_and_a_run_with_claims(tmp_path: Path) -> None:
    write_dataset(tmp_path, None, [claim("每日转账限额为五万元", "z1")])
    result = CliRunner().invoke(
        judge_command,
        [*_args(tmp_path), "--judge", "lexical", "--output", str(tmp_path / "o"), "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    out = tmp_path / "o"
    assert result.output.splitlines() == [
        "judge: lexical-baseline (lexical, prompt lexical-v2, temperature None, seed None) - "
        "judge-labelled, uncalibrated until `ragtriage calibrate` has compared it with "
        "human labels",
        "run base: claims: 1 cannot_judge, 2 supported; reference facts: 3 covered",
        f"  labels: {out / 'base.labels.json'}",
        f"  run with extracted claims/outcomes: {out / 'base.run.json'}",
        "calls: 7 (claims 1, coverage 3, support 3); HTTP requests: 0 (0 retries); cache hits: 0; "
        "failed calls: 0",
        "tokens: 0 in, 0 out (cache hits not counted); cost: no price given",
    ]
    run = json.loads((out / "base.run.json").read_text(encoding="utf-8"))
    assert [c["text"] for c in run["results"][0]["claims"]] == [
        "Refunds are paid within 5 working days.",
        "Approval comes first.",
    ]
    labels = json.loads((out / "base.labels.json").read_text(encoding="utf-8"))
    assert labels["kind"] == "labels" and labels["run"] == "base"


def test_a_run_name_with_control_characters_is_shown_as_escapes(tmp_path: Path) -> None:
    # An escape sequence (here setting the window title), a carriage return and a bidi
    # override in a run name would act on the terminal the summary is printed to.
    write_dataset(tmp_path, None, [claim("每日转账限额为五万元", "z1")])
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    run["name"] = "base\u2028title\u202e"  # control characters: refused
    (tmp_path / "run.json").write_text(json.dumps(run), "utf-8")
    args = [*_args(tmp_path), "--judge", "lexical", "-o", str(tmp_path / "o"), "--no-progress"]
    result = CliRunner().invoke(judge_command, args, color=True)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == (
        "run base\\u2028title\\u202e: claims: 1 cannot_judge, 2 supported; "
        "reference facts: 3 covered"
    )


def test_no_progress_bar_writes_to_a_stderr_that_is_not_a_terminal(tmp_path: Path) -> None:
    # Before: the bar, shown by default, left a blank line in a CI log or a file.
    write_dataset(tmp_path, None, [claim("每日转账限额为五万元", "z1")])
    result = CliRunner().invoke(
        judge_command, [*_args(tmp_path), "--judge", "lexical", "-o", str(tmp_path / "o")]
    )
    assert (result.exit_code, result.stderr) == (0, "")


def test_two_runs_whose_names_give_one_label_file_are_refused_before_judging(
    tmp_path: Path,
) -> None:
    # 'a/b' and 'a_b' are both written as a_b.labels.json: the second would replace the first
    write_dataset(tmp_path, None, [claim("每日转账限额为五万元", "z1")])
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    for name in ("a/b", "a_b"):
        run["name"] = name
        (tmp_path / f"{name.replace('/', '-')}.json").write_text(json.dumps(run), "utf-8")
    args = [*_args(tmp_path)[:3], "--run", str(tmp_path / "a-b.json"), "--run",
            str(tmp_path / "a_b.json"), "--judge", "lexical", "-o", str(tmp_path / "o")]
    result = CliRunner().invoke(judge_command, args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --run: expected runs whose names give distinct label files; "
        "found 'a/b' and 'a_b', both a_b.labels.json\n"
    )
    assert not (tmp_path / "o").exists()


def test_dry_run_estimates_calls_tokens_and_cost(tmp_path: Path) -> None:
    write_dataset(tmp_path, None, [claim("每日转账限额为五万元", "z1")], outcome_q3=None)
    result = CliRunner().invoke(
        judge_command,
        [
            *_args(tmp_path),
            "--dry-run",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--max-tokens",
            "100",
            "--price-per-1k-input",
            "0.5",
            "--price-per-1k-output",
            "1.5",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        "dry run: 11 calls (claims 2, coverage 3, outcome 1, support 5); 0 answered by the cache"
    )
    # 2144 * 0.5 / 1000 + 11 calls * 100 tokens * 1.5 / 1000 = 2.722
    assert (
        lines[1] == "tokens (estimated): about 2144 in, at most 1100 out; cost: at most $2.722000"
    )
    assert lines[2] == (
        "support calls include 4 claims guessed by sentence splitting "
        "(answers not yet extracted; extraction decides the real number)"
    )


def test_dry_run_plans_extraction_for_empty_claims_without_an_outcome(tmp_path: Path) -> None:
    # `claims: []` and no outcome: written as answered, the answer's claims are extracted.
    _, _, run = write_dataset(tmp_path, [], [claim("每日转账限额为五万元", "z1")])
    data = json.loads(run.read_text(encoding="utf-8"))
    data["results"][0]["outcome"] = None
    run.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(
        judge_command,
        [*_args(tmp_path), "--dry-run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        "dry run: 8 calls (claims 1, coverage 3, outcome 1, support 3); 0 answered by the cache"
    )
    assert lines[2] == (
        "support calls include 2 claims guessed by sentence splitting "
        "(answers not yet extracted; extraction decides the real number)"
    )


def test_dry_run_counts_what_the_cache_would_answer(tmp_path: Path) -> None:
    write_dataset(tmp_path, [claim("Refunds are paid within 5 working days.", "c1")])
    common = [*_args(tmp_path), "--model", "m", "--output", str(tmp_path / "o"), "--no-progress"]
    with serve(FakeServer()) as server:
        done = CliRunner().invoke(judge_command, [*common, "--base-url", server.url])
        assert done.exit_code == 0, done.output
        dry = CliRunner().invoke(judge_command, [*common, "--base-url", server.url, "--dry-run"])
    assert (
        dry.output.splitlines()[0]
        == "dry run: 5 calls (coverage 3, support 2); 5 answered by the cache"
    )


def test_dry_run_follows_the_cached_outcomes_and_claims_as_the_session_would(
    tmp_path: Path,
) -> None:
    # After a session, a dry run plans what a rerun would do: its outcome and claim replies
    # are in the cache, so the claims are those extracted, not guessed, and nothing is left
    # to pay for (the rerun sends no request).
    write_dataset(tmp_path, None, outcome_q3=None)
    common = [*_args(tmp_path), "--model", "m", "--output", str(tmp_path / "o"), "--no-progress"]
    with serve(FakeServer()) as server:
        done = CliRunner().invoke(judge_command, [*common, "--base-url", server.url])
        assert done.exit_code == 0, done.output
        dry = CliRunner().invoke(judge_command, [*common, "--base-url", server.url, "--dry-run"])
    assert done.output.splitlines()[-2].startswith(
        "calls: 11 (claims 2, coverage 3, outcome 1, support 5); HTTP requests: 11 "
    )
    assert dry.output.splitlines() == [
        "dry run: 11 calls (claims 2, coverage 3, outcome 1, support 5); 11 answered by the cache",
        "tokens (estimated): about 0 in, at most 0 out; cost: no price given",
    ]


def test_llm_judge_needs_url_and_model(tmp_path: Path) -> None:
    write_dataset(tmp_path, [claim("x", "c1")])
    result = CliRunner().invoke(judge_command, [*_args(tmp_path), "--output", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.output == (
        "Error: 1 problem found in the input:\n- <command line>: --base-url and --model: "
        "expected a value for the llm judge (or --judge lexical); found nothing\n"
    )


def test_missing_api_key_variable_is_an_input_error(tmp_path: Path) -> None:
    write_dataset(tmp_path, [claim("x", "c1")])
    result = CliRunner().invoke(
        judge_command,
        [
            *_args(tmp_path),
            "--output",
            str(tmp_path / "o"),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--api-key-env",
            "RAGTRIAGE_TEST_NO_SUCH_KEY",
        ],
    )
    assert result.exit_code == 2
    assert result.output == (
        "Error: 1 problem found in the input:\n- <command line>: --api-key-env: expected an "
        "environment variable RAGTRIAGE_TEST_NO_SUCH_KEY with the key; found unset or empty\n"
    )


def test_api_key_is_sent_as_bearer_token(tmp_path: Path) -> None:
    write_dataset(tmp_path, [claim("Refunds are paid within 5 working days.", "c1")])
    with serve(FakeServer()) as server:
        result = CliRunner(env={"JUDGE_KEY": "sekret"}).invoke(
            judge_command,
            [
                *_args(tmp_path),
                "--output",
                str(tmp_path / "o"),
                "--base-url",
                server.url,
                "--model",
                "m",
                "--api-key-env",
                "JUDGE_KEY",
                "--no-progress",
                "--price-per-1k-input",
                "1",
                "--price-per-1k-output",
                "2",
            ],
        )
        auth = set(server.auth)
    assert result.exit_code == 0, result.output
    assert auth == {"Bearer sekret"}
    assert "tokens: 500 in, 100 out (cache hits not counted); cost: $0.700000" in result.output


def test_claims_need_an_answer_but_not_its_outcome_to_be_judged(tmp_path: Path) -> None:
    # The judge detects a missing outcome, so an answer with claims and no outcome is
    # judgeable; claims with neither an answer nor an outcome are refused as by `evaluate`.
    snapshot, evalset, run = write_dataset(tmp_path, [claim("Approval comes first.", "c1")])
    data = json.loads(run.read_text(encoding="utf-8"))
    data["results"][0]["outcome"] = None
    run.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    check_judgeable(load_dataset(evalset, snapshot=snapshot, runs=[run]), {"base": None})
    data["results"][0]["answer"] = None
    run.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError) as refused:
        check_judgeable(load_dataset(evalset, snapshot=snapshot, runs=[run]), {"base": None})
    assert [p.message() for p in refused.value.problems] == [
        f"{run}: question 'q1': claims: expected no claims in a result without an answer "
        "(outcome and answer are null); found 1 claim"
    ]


@pytest.mark.parametrize("answer", ["", "  \n"])
def test_an_empty_answer_without_an_outcome_is_refused_before_judging(
    tmp_path: Path, answer: str
) -> None:
    # The judge detects a missing outcome, not a missing answer: an answer of no text is
    # refused as `evaluate` refuses it, exit 2, rather than judged into claims of no text.
    write_dataset(tmp_path, None)
    run = tmp_path / "run.json"
    data = json.loads(run.read_text(encoding="utf-8"))
    data["results"][0].update(outcome=None, answer=answer)
    run.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(
        judge_command,
        [*_args(tmp_path), "--judge", "lexical", "--output", str(tmp_path / "o"), "--no-progress"],
    )
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        "Error: 1 problem found in the input:",
        f"- {run}: question 'q1': answer: expected non-empty answer text; found an empty answer",
    ])
    assert not (tmp_path / "o").exists()


def test_the_summary_counts_no_verdict_of_a_holdout_question(tmp_path: Path) -> None:
    # A count of verdicts is a score: the holdout's are written to the labels, not counted.
    from ragtriage.example import example_paths

    paths = example_paths()
    args = [str(paths.evalset), "--snapshot", str(paths.snapshot), "--run", str(paths.runs[0])]
    out = tmp_path / "o"
    result = CliRunner().invoke(
        judge_command, [*args, "--judge", "lexical", "--output", str(out), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == (
        "run baseline: claims: 1 cannot_judge, 12 supported, 5 unsupported; reference facts: "
        "1 cannot_judge, 12 covered, 2 not_covered (1 holdout question not counted)"
    )
    written = json.loads((out / "baseline.labels.json").read_text(encoding="utf-8"))
    held = [e for e in written["claim_labels"] + written["fact_labels"]
            if e["question_id"] == "free-quota"]
    assert [e["label"]["verdict"] for e in held] == ["supported", "covered"]


def test_a_run_without_a_result_for_some_questions_is_judged_where_it_answers(
    tmp_path: Path,
) -> None:
    # The judge has no --allow-missing (nothing to label where there is no result): it labels
    # the results there are, and `evaluate --allow-missing` reads what it wrote.
    _, _, run = write_dataset(tmp_path, None)
    data = json.loads(run.read_text(encoding="utf-8"))
    data["results"] = [r for r in data["results"] if r["question_id"] != "q2"]
    run.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "o"
    result = CliRunner().invoke(
        judge_command,
        [*_args(tmp_path), "--judge", "lexical", "--output", str(out), "--no-progress"],
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[1] == (
        "run base: claims: 1 cannot_judge, 1 supported; reference facts: 2 covered"
    )
    labels = json.loads((out / "base.labels.json").read_text(encoding="utf-8"))
    assert {e["question_id"] for e in labels["claim_labels"] + labels["fact_labels"]} == {"q1"}
    written = json.loads((out / "base.run.json").read_text(encoding="utf-8"))
    assert [r["question_id"] for r in written["results"]] == ["q1", "q3"]
    evaluated = CliRunner().invoke(
        main_cli,
        ["evaluate", *_args(tmp_path)[:3], "--run", str(out / "base.run.json"), "--labels",
         str(out / "base.labels.json"), "--label-policy", "judge", "--allow-missing",
         "--format", "json"],
    )
    assert evaluated.exit_code == 0, evaluated.output
    assert json.loads(evaluated.stdout)["runs"][0]["no_result"] == ["q2"]
    human = {"schema_version": 1, "kind": "labels", "run": "base",
             "labeller": {"kind": "human", "name": "mei"},
             "fact_labels": [{"question_id": "q1", "label": {"fact_id": "f1",
                                                             "verdict": "covered"}}]}
    (tmp_path / "human.labels.json").write_text(json.dumps(human), encoding="utf-8")
    calibrated = CliRunner().invoke(
        main_cli,
        ["calibrate", *_args(tmp_path)[:3], "--run", str(out / "base.run.json"),
         "--judge-labels", str(out / "base.labels.json"), "--human-labels",
         str(tmp_path / "human.labels.json"), "--format", "json"],
    )
    assert calibrated.exit_code == 0, calibrated.output
    assert json.loads(calibrated.stdout)["facts"]["items"] == 1


def test_a_labels_file_with_other_labellers_labels_is_not_overwritten(tmp_path: Path) -> None:
    # `review import -o DIR` adds a reviewer's labels to DIR/<run>.labels.json, next to what
    # is there; a judge writing to the same DIR would replace the file and lose them. Its own
    # earlier labels it replaces (a rerun), anyone else's it refuses to lose, before judging.
    write_dataset(tmp_path, None)
    out = tmp_path / "o"
    args = [*_args(tmp_path), "--judge", "lexical", "--output", str(out), "--no-progress"]
    for _ in range(2):
        assert CliRunner().invoke(judge_command, args).exit_code == 0
    path = out / "base.labels.json"
    labels = json.loads(path.read_text(encoding="utf-8"))
    labels["fact_labels"].append({"question_id": "q1", "label": {
        "fact_id": "f1", "verdict": "covered", "labeller": {"kind": "human", "name": "bo"}}})
    labels["fact_labels"].append({"question_id": "q1", "label": {
        "fact_id": "f2", "verdict": "covered", "labeller": {
            "kind": "judge", "name": "lexical-baseline", "prompt_version": "lexical-v0"}}})
    path.write_text(json.dumps(labels), encoding="utf-8")
    before = path.read_bytes()
    result = CliRunner().invoke(judge_command, args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: 1 problem found in the input:\n"
        f"- {path}: labeller: expected labels by this judge only (lexical-baseline, prompt "
        "lexical-v2), which it replaces, or another --output folder; found labels by human "
        "'bo', judge 'lexical-baseline' (prompt lexical-v0)\n"
    )
    assert path.read_bytes() == before


def test_the_lexical_baseline_costs_nothing_at_the_prices_given(tmp_path: Path) -> None:
    # Prices given: the summary gives the cost (nothing: no call is sent), not "no price given".
    write_dataset(tmp_path, None)
    args = [*_args(tmp_path), "--judge", "lexical", "--output", str(tmp_path / "o"),
            "--no-progress", "--price-per-1k-input", "0.5"]
    result = CliRunner().invoke(judge_command, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "tokens: 0 in, 0 out (cache hits not counted); cost: $0.000000"
    )


def test_a_judge_reply_quoted_in_a_note_or_an_error_is_masked(tmp_path: Path) -> None:
    # A reply that does not parse is quoted; it may echo the answer it was asked about.
    write_dataset(tmp_path, None, outcome_q3=None)
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    run["results"][2]["answer"] = "fault=echo Card 4111 1111 1111 1111, li.lei@example.com"
    (tmp_path / "run.json").write_text(json.dumps(run, ensure_ascii=False), encoding="utf-8")
    common = [*_args(tmp_path), "--model", "m", "--output", str(tmp_path / "o"), "--no-progress"]
    with serve(FakeServer()) as server:
        result = CliRunner().invoke(judge_command, [*common, "--base-url", server.url])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("  q3:")]
    assert notes == [
        "  q3: outcome failed: unparseable judge answer: not a JSON object (Expecting value "
        "at char 0): \"Question: What is the CEO's phone number? Reply: fault=echo Card "
        "[masked:card_number], [masked:email] Return the JSON...\""
    ]
