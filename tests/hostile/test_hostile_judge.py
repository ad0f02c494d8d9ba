"""A hostile or absent judge endpoint: a clean exit 2 or `cannot_judge` with a reason, never a
traceback, a hang, a lost label or a labels file that looks finished when nothing was judged.

Every reply is generated at test time by an in-process server (no model is needed).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hostile_endpoint import Send, closed_port, envelope, good, serve, write_dataset

from ragtriage.cli.main import cli
from ragtriage.judges import ChatClient, ClientOptions, JudgeSpec, ReplyCache, cache_key

SPEC = JudgeSpec(model="m", endpoint_kind="openai-compatible", prompt_version="v1")
SECONDS_PER_CASE = 20.0
FIX = "delete or move it, or give another --cache (or --no-cache)"


def _judge(args: list[str], url: str, out: Path, *extra: str) -> tuple[int, str, str]:
    started = time.monotonic()
    result = CliRunner().invoke(
        cli,
        [
            "judge",
            *args,
            "--base-url",
            url,
            "--model",
            "m",
            "-o",
            str(out),
            "--no-progress",
            # the defaults here, unless `extra` gives the option (an option is given once)
            *(["--max-retries", "0"] if "--max-retries" not in extra else []),
            *(["--timeout", "5"] if "--timeout" not in extra else []),
            *extra,
        ],
    )
    assert time.monotonic() - started < SECONDS_PER_CASE
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def _labels(out: Path) -> dict[tuple[str, str], tuple[str, str | None]]:
    data = json.loads((out / "base.labels.json").read_text(encoding="utf-8"))
    found = {
        (e["question_id"], e["claim_id"]): (e["label"]["verdict"], e["label"].get("reason"))
        for e in data["claim_labels"]
    }
    found.update(
        {
            (e["question_id"], e["label"]["fact_id"]): (
                e["label"]["verdict"],
                e["label"].get("reason"),
            )
            for e in data["fact_labels"]
        }
    )
    return found


def _always(content_of: Any) -> Any:
    return lambda task, user, number: Send(envelope(content_of(task, user)))


# --- no usable endpoint --------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://127.0.0.1/v1", "127.0.0.1:8080/v1", "http://", "http://[::1"],
)
def test_a_base_url_that_is_not_http_is_refused_before_any_call(tmp_path: Path, url: str) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days."])
    code, stdout, stderr = _judge(args, url, tmp_path / "out")
    assert code == 2
    assert stdout == ""
    assert stderr == (
        "Error: 1 problem found in the input:\n- <command line>: --base-url: expected an "
        "http:// or https:// URL with a host, e.g. http://127.0.0.1:8080/v1; "
        f"found {url!r}\n"
    )
    assert not (tmp_path / "out").exists()


def test_no_server_listening_is_exit_2_and_no_labels_file(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days.", "They need approval."])
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code, stdout, stderr = _judge(args, url, tmp_path / "out")
    assert code == 2
    assert stdout == ""
    (line,) = stderr.splitlines()
    assert line.startswith(
        "Error: every judge call failed (6 of 6), no labels written; "
        "first failure: transport error: ConnectError: "
    )
    assert line.endswith(
        f"(after 1 attempt); check that a judge model answers at {url} (--base-url, --model)"
    )
    assert not list((tmp_path / "out").glob("*.json"))


def test_a_server_that_only_answers_prose_is_exit_2(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days."])
    with serve(_always(lambda task, user: "Looks right to me.")) as server:
        code, _, stderr = _judge(args, server.url, tmp_path / "out")
    assert code == 2
    assert stderr == (
        "Error: every judge call failed (5 of 5), no labels written; first failure: "
        "unparseable judge answer: not a JSON object (Expecting value at char 0): "
        f"'Looks right to me.'; check that a judge model answers at {server.url} "
        "(--base-url, --model)\n"
    )
    assert not list((tmp_path / "out").glob("*.json"))


def test_a_server_whose_every_label_call_fails_is_exit_2(tmp_path: Path) -> None:
    # Outcome and claims calls are answered, every support and coverage call is prose: the
    # session cannot label anything, though not every call failed.
    args = write_dataset(tmp_path, None, outcome=None)

    def script(task: str, user: str, number: int) -> Send:
        if task in ("support", "coverage"):
            return Send(envelope("Looks right to me."))
        return Send(envelope(good(task)))

    with serve(script) as server:
        code, stdout, stderr = _judge(args, server.url, tmp_path / "out")
    assert (code, stdout) == (2, "")
    assert stderr == (
        "Error: no label but cannot_judge (5 of 5 labels; 5 of 7 judge calls failed), no labels "
        "written; first failure: unparseable judge answer: not a JSON object (Expecting value "
        f"at char 0): 'Looks right to me.'; check that a judge model answers at {server.url} "
        "(--base-url, --model)\n"
    )
    assert not list((tmp_path / "out").glob("*.json"))


# --- time and size ---------------------------------------------------------------------------


def _call(url: str, options: dict[str, Any], cache: ReplyCache | None = None) -> Any:
    async def go() -> Any:
        async with ChatClient(SPEC, ClientOptions(base_url=url, **options), cache) as client:
            reply = await client.complete("support", [{"role": "user", "content": "x"}])
            return reply, client.counters.requests

    return asyncio.run(go())


def test_a_trickling_server_hits_the_total_deadline(tmp_path: Path) -> None:
    # One byte every 0.4 s never trips a per-read timeout of 1 s; the total deadline does.
    script = lambda task, user, number: Send(envelope(good("support")), trickle=0.4)  # noqa: E731
    with serve(script) as server:
        started = time.monotonic()
        reply, requests = _call(server.url, {"timeout": 1.0, "max_retries": 0})
        elapsed = time.monotonic() - started
    assert reply.content is None
    assert reply.error == "timed out after 1 s (after 1 attempt)"
    assert requests == 1
    assert elapsed < 3.0


@pytest.mark.parametrize("length", [True, False], ids=["announced", "streamed"])
def test_an_oversize_reply_is_not_read_retried_or_cached(tmp_path: Path, length: bool) -> None:
    body = envelope("x" * 5000)
    cache = ReplyCache(tmp_path / "cache.sqlite")
    with serve(lambda task, user, number: Send(body, length=length)) as server:
        reply, requests = _call(
            server.url, {"max_reply_bytes": 1024, "max_retries": 2, "backoff": 0.01}, cache
        )
    assert reply.content is None
    assert reply.error == (
        "reply larger than 1024 bytes (--max-reply-bytes); not read, not cached"
    )
    assert requests == 1
    assert len(cache) == 0
    cache.close()


def test_a_gzip_bomb_is_capped_after_decoding(tmp_path: Path) -> None:
    # 2 MiB of zeros compress to ~2 KiB; the cap counts decoded bytes.
    bomb = gzip.compress(b"0" * (2 << 20))
    send = Send(bomb, headers=(("Content-Encoding", "gzip"),))
    with serve(lambda task, user, number: send) as server:
        reply, requests = _call(server.url, {"max_reply_bytes": 4096, "max_retries": 0})
    assert len(bomb) < 4096
    assert reply.error == "reply larger than 4096 bytes (--max-reply-bytes); not read, not cached"
    assert requests == 1


def test_a_broken_content_encoding_is_a_failed_call(tmp_path: Path) -> None:
    send = Send(b"not gzip at all", headers=(("Content-Encoding", "gzip"),))
    with serve(lambda task, user, number: send) as server:
        reply, _ = _call(server.url, {"max_retries": 0})
    assert reply.error is not None
    assert reply.error.startswith("transport error: DecodingError: ")
    assert reply.error.endswith("(after 1 attempt)")


def test_oversize_reply_through_the_command_is_cannot_judge(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days (big)."])

    def script(task: str, user: str, number: int) -> Send:
        if "(big)" in user and task == "support":
            return Send(envelope("y" * 4000))
        return Send(envelope(good(task)))

    out = tmp_path / "out"
    with serve(script) as server:
        code, _, stderr = _judge(args, server.url, out, "--max-reply-bytes", "1024")
    assert (code, stderr) == (0, "")
    assert _labels(out)[("q1", "c1")] == (
        "cannot_judge",
        "reply larger than 1024 bytes (--max-reply-bytes); not read, not cached",
    )
    with sqlite3.connect(out / "judge-cache.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM replies").fetchone()[0] == 4


# --- strict parsing of what comes back -------------------------------------------------------

TOO_DEEP = "expected at most 32 levels of nested arrays and objects; found deeper nesting"
TOO_LONG = "expected integers of at most 20 digits; found an integer of more than 20 digits"
OVERFLOW = "expected a finite number; found 1e400 (beyond the largest number, about 1.8e308)"
SUPPORTED = '{"verdict": "supported", "supported_by": ["refund"], "reason": "x"'
CONTENTS = {
    "bigint": (SUPPORTED + ', "n": ' + "7" * 5000 + "}", TOO_LONG),
    "deep": ("[" * 2000 + "]" * 2000, TOO_DEEP),
    "dupkey": (
        '{"verdict": "supported", "verdict": "unsupported", "supported_by": [], "reason": "x"}',
        "expected each key at most once in an object; found the key 'verdict' twice",
    ),
    "nan": (SUPPORTED + ', "p": NaN}', "expected a finite number; found NaN"),
    "overflow": (SUPPORTED + ', "p": 1e400}', OVERFLOW),
}
ENVELOPES = {
    "usage-list": (
        envelope(good("support"), usage=[1, 2]),
        "TypeError: body.usage is list, not an object",
    ),
    "tokens-1e400": (
        b'{"choices": [{"message": {"content": "{}"}}], "usage": {"prompt_tokens": 1e400}}',
        "StrictJSONError: " + OVERFLOW,
    ),
    "tokens-text": (
        envelope(good("support"), usage={"prompt_tokens": "12"}),
        "TypeError: usage.prompt_tokens is str, not an integer",
    ),
    "tokens-negative": (
        envelope(good("support"), usage={"prompt_tokens": -5}),
        "ValueError: usage.prompt_tokens is -5, outside 0..1000000000000",
    ),
    "body-deep": (b"[" * 100_000, "StrictJSONError: " + TOO_DEEP),
    "body-bigint": (
        b'{"choices": [], "id": ' + b"9" * 5000 + b"}",
        "StrictJSONError: " + TOO_LONG,
    ),
    "no-choices": (b'{"choices": []}', "ValueError: body.choices is empty"),
    "dup-choices": (
        b'{"choices": [], "choices": [{"message": {"content": "{}"}}]}',
        "StrictJSONError: expected each key at most once in an object; "
        "found the key 'choices' twice",
    ),
    "not-utf8": (
        b"\xff\xfe{}",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: "
        "invalid start byte",
    ),
}


def _hostile_script(task: str, user: str, number: int) -> Send:
    for name, (content, _) in CONTENTS.items():
        if f"[{name}]" in user and task == "support":
            return Send(envelope(content))
    for name, (body, _) in ENVELOPES.items():
        if f"[{name}]" in user and task == "support":
            return Send(body)
    return Send(envelope(good(task)))


def test_hostile_replies_are_cannot_judge_and_the_rest_is_judged(tmp_path: Path) -> None:
    names = [*CONTENTS, *ENVELOPES]
    claims = [f"Refunds take 5 days [{name}]." for name in names] + ["Refunds take 5 days."]
    args = write_dataset(tmp_path, claims)
    out = tmp_path / "out"
    with serve(_hostile_script) as server:
        code, _, stderr = _judge(args, server.url, out)
        first_requests = server.requests
        assert (code, stderr) == (0, "")
        labels = _labels(out)
        for number, name in enumerate(CONTENTS, start=1):
            verdict, reason = labels[("q1", f"c{number}")]
            assert verdict == "cannot_judge"
            assert reason is not None and reason.startswith(
                f"unparseable judge answer: refused JSON ({CONTENTS[name][1]}): "
            ), name
        for number, name in enumerate(ENVELOPES, start=len(CONTENTS) + 1):
            assert labels[("q1", f"c{number}")] == (
                "cannot_judge",
                f"malformed response body ({ENVELOPES[name][1]}) (after 1 attempt)",
            ), name
        assert labels[("q1", f"c{len(names) + 1}")] == ("supported", "stated")
        assert labels[("q1", "f1")] == labels[("q2", "f1")] == ("covered", "stated")
        # A rerun reads the cached hostile contents again without crashing; only the
        # envelopes (never cached) are asked again.
        code, _, stderr = _judge(args, server.url, out)
        assert (code, stderr) == (0, "")
        assert server.requests - first_requests == len(ENVELOPES)
    assert _labels(out) == labels


# --- the endpoint refuses the key mid-run ----------------------------------------------------


def test_a_401_mid_run_keeps_finished_labels_and_exits_2(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days.", "They need approval."])

    def script(task: str, user: str, number: int) -> Send:
        if number <= 2:
            return Send(envelope(good(task)))
        return Send(b'{"error": "key revoked"}', status=401)

    out = tmp_path / "out"
    with serve(script) as server:
        code, stdout, stderr = _judge(args, server.url, out, "--concurrency", "1")
        assert server.requests == 3
    assert (code, stdout) == (2, "")
    refused = (
        f"{server.url}/chat/completions answered HTTP 401: '{{\"error\": \"key revoked\"}}' "
        "(check --base-url, --model and --api-key-env)"
    )
    assert stderr == (
        f"Error: {refused}; the session stopped after 2 answered calls: the labels finished "
        f"so far are in {out / 'base.labels.json'} (the rest are cannot_judge); fix the option "
        "and rerun, the cache keeps the finished replies\n"
    )
    labels = _labels(out)
    judged = [v for v in labels.values() if v[0] != "cannot_judge"]
    assert len(judged) == 2 and len(labels) == 6
    assert {v for v in labels.values() if v[0] == "cannot_judge"} == {
        ("cannot_judge", f"not judged: the session stopped: {refused}")
    }


# --- outcome detection and claim extraction that fail ----------------------------------------


def _evaluate(tmp_path: Path, out: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli,
        [
            "evaluate",
            str(tmp_path / "evalset.json"),
            "--snapshot",
            str(tmp_path / "snapshot.json"),
            "--run",
            str(out / "base.run.json"),
            "--labels",
            str(out / "base.labels.json"),
            "--format",
            "json",
        ],
    )
    return result.exit_code, result.stderr


def _truncating(broken: str, content: str) -> Any:
    def script(task: str, user: str, number: int) -> Send:
        if task == broken and "How long" in user:
            return Send(envelope(content, finish="length"))
        return Send(envelope(good(task)))

    return script


def test_a_truncated_outcome_reply_still_labels_everything_and_evaluates(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, None, outcome=None)
    out = tmp_path / "out"
    with serve(_truncating("outcome", '{"outcome": "answ')) as server:
        code, stdout, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    assert "  q1: outcome failed: output truncated at the token limit; " in stdout
    labels = _labels(out)
    q1 = {key: value for key, value in labels.items() if key[0] == "q1"}
    assert sorted(q1) == [("q1", "c1"), ("q1", "c2"), ("q1", "f1"), ("q1", "f2")]
    for verdict, reason in q1.values():
        assert verdict == "cannot_judge"
        assert reason is not None
        assert reason.startswith(
            "outcome not detected (output truncated at the token limit; unparseable judge "
            "answer: not a JSON object (Unterminated string"
        )
        assert reason.endswith("); written as answered, not judged")
    run = json.loads((out / "base.run.json").read_text(encoding="utf-8"))
    first = run["results"][0]
    assert first["outcome"] == "answered"
    assert [c["text"] for c in first["claims"]] == ["Refunds take 5 days.", "They need approval."]
    assert _evaluate(tmp_path, out) == (0, "")


def _reads_q1_as(outcome: str) -> Any:
    def script(task: str, user: str, number: int) -> Send:
        if task == "outcome" and "How long" in user:
            reply = {"outcome": outcome, "reason": "it declines"}
            return Send(envelope(json.dumps(reply)))
        return Send(envelope(good(task)))

    return script


@pytest.mark.parametrize(
    ("outcome", "read_as"),
    [("refused", "a refusal"), ("clarified", "a request for clarification")],
)
def test_an_answer_with_claims_read_as_a_non_answer_keeps_its_claims_and_evaluates(
    tmp_path: Path, outcome: str, read_as: str
) -> None:
    # A refusal may not carry claims, and the run's claims are its author's data: the judge
    # keeps the answer as answered, judges its claims and facts, and says so in the summary.
    args = write_dataset(tmp_path, ["Refunds take 5 days.", "They need approval."], outcome=None)
    out = tmp_path / "out"
    with serve(_reads_q1_as(outcome)) as server:
        code, stdout, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    note = (
        f"the judge read this answer as {read_as} (it declines); kept as answered because the "
        "run gives claims"
    )
    assert stdout.splitlines()[1:4] == [
        "run base: claims: 3 supported; reference facts: 3 covered",
        f"  labels: {out / 'base.labels.json'}",
        f"  run with extracted claims/outcomes: {out / 'base.run.json'}",
    ]
    assert stdout.splitlines()[4] == f"  q1: outcome note: {note}"
    assert _labels(out) == {
        ("q1", "c1"): ("supported", "stated"),
        ("q1", "c2"): ("supported", "stated"),
        ("q1", "f1"): ("covered", "stated"),
        ("q1", "f2"): ("covered", "stated"),
        ("q2", "c1"): ("supported", "stated"),
        ("q2", "f1"): ("covered", "stated"),
    }
    first = json.loads((out / "base.run.json").read_text(encoding="utf-8"))["results"][0]
    assert first["outcome"] == "answered"
    assert [(c["id"], c["text"]) for c in first["claims"]] == [
        ("c1", "Refunds take 5 days."),
        ("c2", "They need approval."),
    ]
    assert _evaluate(tmp_path, out) == (0, "")


def test_an_answer_with_covered_facts_read_as_a_refusal_is_kept_answered(tmp_path: Path) -> None:
    # A refusal may not cover reference facts either, and the run's fact labels are its
    # author's data: kept as answered, as for claims, so the run file written evaluates.
    args = write_dataset(tmp_path, None, outcome=None)
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    run["results"][0]["fact_labels"] = [
        {"fact_id": "f1", "verdict": "covered", "labeller": {"kind": "human", "name": "mei"}}
    ]
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    out = tmp_path / "out"
    with serve(_reads_q1_as("refused")) as server:
        code, stdout, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[4] == (
        "  q1: outcome note: the judge read this answer as a refusal (it declines); kept as "
        "answered because the run gives covered reference facts (f1)"
    )
    assert _labels(out)[("q1", "c1")] == ("supported", "stated")
    first = json.loads((out / "base.run.json").read_text(encoding="utf-8"))["results"][0]
    assert first["outcome"] == "answered"
    assert [c["text"] for c in first["claims"]] == ["Refunds take 5 days."]
    assert _evaluate(tmp_path, out) == (0, "")


def test_an_answer_without_claims_read_as_a_refusal_is_written_refused(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, [], outcome=None)
    out = tmp_path / "out"
    with serve(_reads_q1_as("refused")) as server:
        code, stdout, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    assert "note:" not in stdout and "failed:" not in stdout
    assert sorted(_labels(out)) == [("q2", "c1"), ("q2", "f1")]
    first = json.loads((out / "base.run.json").read_text(encoding="utf-8"))["results"][0]
    assert (first["outcome"], first["claims"]) == ("refused", [])
    assert _evaluate(tmp_path, out) == (0, "")


NO_CLAIMS_NOTE = (
    "  q1: claims note: the run gives no claims for an answer written as answered; its claims "
    "are taken from the answer"
)


def test_an_answer_without_claims_read_as_answered_gets_extracted_claims(tmp_path: Path) -> None:
    # `claims: []` with no outcome: once written as answered it needs claims to evaluate.
    args = write_dataset(tmp_path, [], outcome=None)
    out = tmp_path / "out"
    with serve(_reads_q1_as("answered")) as server:
        code, stdout, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[4] == NO_CLAIMS_NOTE
    assert _labels(out)[("q1", "c1")] == ("supported", "stated")
    first = json.loads((out / "base.run.json").read_text(encoding="utf-8"))["results"][0]
    assert first["outcome"] == "answered"
    assert [c["text"] for c in first["claims"]] == ["Refunds take 5 days."]
    assert _evaluate(tmp_path, out) == (0, "")


def test_an_answer_recorded_as_answered_with_no_claims_gets_extracted_claims(
    tmp_path: Path,
) -> None:
    # `outcome: answered` with `claims: []` does not evaluate either: the judge takes its
    # claims from the answer, so the run file it writes evaluates.
    args = write_dataset(tmp_path, [], outcome="answered")
    out = tmp_path / "out"
    with serve(_always(lambda task, user: good(task))) as server:
        code, stdout, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[1:5] == [
        "run base: claims: 2 supported; reference facts: 3 covered",
        f"  labels: {out / 'base.labels.json'}",
        f"  run with extracted claims/outcomes: {out / 'base.run.json'}",
        NO_CLAIMS_NOTE,
    ]
    assert stdout.splitlines()[5] == (
        "calls: 6 (claims 1, coverage 3, support 2); HTTP requests: 6 (0 retries); "
        "cache hits: 0; failed calls: 0"
    )
    assert _labels(out)[("q1", "c1")] == ("supported", "stated")
    first = json.loads((out / "base.run.json").read_text(encoding="utf-8"))["results"][0]
    assert (first["outcome"], [c["text"] for c in first["claims"]]) == (
        "answered",
        ["Refunds take 5 days."],
    )
    assert _evaluate(tmp_path, out) == (0, "")


def test_an_answer_without_claims_whose_outcome_is_not_detected_evaluates(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, [], outcome=None)
    out = tmp_path / "out"
    with serve(_truncating("outcome", '{"outcome": "answ')) as server:
        code, stdout, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    assert NO_CLAIMS_NOTE in stdout.splitlines()
    q1 = {key: value[0] for key, value in _labels(out).items() if key[0] == "q1"}
    assert q1 == {
        key: "cannot_judge" for key in [("q1", "c1"), ("q1", "c2"), ("q1", "f1"), ("q1", "f2")]
    }
    first = json.loads((out / "base.run.json").read_text(encoding="utf-8"))["results"][0]
    assert [c["text"] for c in first["claims"]] == ["Refunds take 5 days.", "They need approval."]
    assert _evaluate(tmp_path, out) == (0, "")


@pytest.mark.parametrize(
    ("content", "finish_reason", "reason"),
    [
        (
            '{"claims": [{"text": "Refu',
            "length",
            "claim extraction failed (output truncated at the token limit; unparseable judge "
            "answer: not a JSON object (Unterminated string starting at at char 21): "
            "'{\"claims\": [{\"text\": \"Refu'); sentence of the answer, not judged",
        ),
        (
            '{"claims": [{"text": "Refunds take 5 days.", "citations": [""]}]}',
            "stop",
            "claim extraction failed (unparseable judge answer: wrong shape at "
            "claims.0.citations.0: String should have at least 1 character (1 error): "
            "'{\"claims\": [{\"text\": \"Refunds take 5 days.\", \"citations\": [\"\"]}]}'); "
            "sentence of the answer, not judged",
        ),
        (
            '{"claims": []}',
            "stop",
            "the judge extracted no claims; sentence of the answer, not judged",
        ),
    ],
    ids=["truncated", "empty-citation", "no-claims"],
)
def test_failed_claim_extraction_labels_sentences_and_evaluates(
    tmp_path: Path, content: str, finish_reason: str, reason: str
) -> None:
    args = write_dataset(tmp_path, None)
    out = tmp_path / "out"

    def script(task: str, user: str, number: int) -> Send:
        if task == "claims":
            return Send(envelope(content, finish=finish_reason))
        return Send(envelope(good(task)))

    with serve(script) as server:
        code, _, stderr = _judge(args, server.url, out)
    assert (code, stderr) == (0, "")
    labels = _labels(out)
    assert labels[("q1", "c1")] == labels[("q1", "c2")] == ("cannot_judge", reason)
    assert labels[("q1", "f1")] == ("covered", "stated")
    assert _evaluate(tmp_path, out) == (0, "")


# --- the cache ------------------------------------------------------------------------------


def _bad_caches(tmp_path: Path) -> list[tuple[Path, str]]:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    folder = tmp_path / "folder.sqlite"
    folder.mkdir()
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE replies (id INTEGER)")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file", encoding="utf-8")
    return [
        (garbage, "not a usable judge cache (file is not a database)"),
        (folder, "a directory"),
        (other, "not a usable judge cache (no such column: key)"),
        (blocker / "cache.sqlite", "a folder that cannot be created (File exists)"),
    ]


def test_an_unusable_cache_is_exit_2_naming_it(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days."])
    url = f"http://127.0.0.1:{closed_port()}/v1"
    for path, found in _bad_caches(tmp_path):
        code, stdout, stderr = _judge(args, url, tmp_path / "out", "--cache", str(path))
        assert (code, stdout) == (2, ""), path
        assert stderr == (
            "Error: 1 problem found in the input:\n"
            f"- {path}: (judge cache): expected a judge cache (SQLite); {FIX}; found {found}\n"
        )


def test_another_programs_database_as_cache_is_exit_2_and_left_alone(tmp_path: Path) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days."])
    url = f"http://127.0.0.1:{closed_port()}/v1"
    path = tmp_path / "app.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE foo (a)")
        db.execute("CREATE TABLE bar (b)")
    before = path.read_bytes()
    code, stdout, stderr = _judge(args, url, tmp_path / "out", "--cache", str(path))
    assert (code, stdout) == (2, "")
    assert stderr == (
        "Error: 1 problem found in the input:\n"
        f"- {path}: (judge cache): expected a judge cache (SQLite); {FIX}; found a database "
        "of another shape (tables bar, foo; no replies table)\n"
    )
    assert path.read_bytes() == before
    # An empty database file, or one with no table, is a new cache.
    empty, bare = tmp_path / "empty.sqlite", tmp_path / "bare.sqlite"
    empty.write_bytes(b"")
    sqlite3.connect(bare).close()
    for fresh in (empty, bare):
        ReplyCache(fresh).close()
        with sqlite3.connect(fresh) as db:
            assert db.execute("SELECT COUNT(*) FROM replies").fetchone() == (0,)


def test_a_cache_row_of_the_wrong_shape_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    ReplyCache(path).close()
    messages = [{"role": "user", "content": "x"}]
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO replies VALUES (?, 'support', 'ok', NULL, 'many', 0)",
            (cache_key(SPEC, "support", messages),),
        )
    cache = ReplyCache(path)
    assert cache.get(cache_key(SPEC, "support", messages)) is None
    cache.close()


# --- option bounds of the judge --------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [
        ("--max-reply-bytes", "0", "0 is not in the range 1024<=x<=67108864."),
        (
            "--max-reply-bytes",
            "1000000000000",
            "1000000000000 is not in the range 1024<=x<=67108864.",
        ),
        ("--timeout", "1e300", "1e+300 is not in the range 0<x<=3600."),
        ("--timeout", "nan", "'nan' is not a finite number."),
        ("--concurrency", "100000", "100000 is not in the range 1<=x<=256."),
        ("--max-retries", "1000", "1000 is not in the range 0<=x<=20."),
        ("--seed", "-1", "-1 is not in the range 0<=x<=4294967295."),
    ],
)
def test_judge_options_out_of_range_are_exit_2(
    tmp_path: Path, option: str, value: str, shown: str
) -> None:
    args = write_dataset(tmp_path, ["Refunds take 5 days."])
    code, _, stderr = _judge(args, "http://127.0.0.1:9/v1", tmp_path / "out", option, value)
    assert code == 2
    assert stderr.splitlines()[-1] == f"Error: Invalid value for '{option}': {shown}"


def test_replies_without_token_counts_make_the_cost_not_known(tmp_path: Path) -> None:
    # A reply without `usage` (or without one of its counts) took tokens nobody counted:
    # the totals say so, and the cost is not known rather than the cost of the rest.
    args = write_dataset(tmp_path, ["Refunds take 5 days."])

    def script(task: str, user: str, number: int) -> Send:
        if task == "coverage":
            usage = {} if "Refunds need approval" in user else {"prompt_tokens": 7}
            return Send(envelope(good(task), usage=usage))
        return Send(envelope(good(task)))

    with serve(script) as server:
        code, stdout, stderr = _judge(
            args, server.url, tmp_path / "out", "--price-per-1k-input", "1",
            "--price-per-1k-output", "2",
        )
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[-1] == (
        "tokens: 34 in, 10 out (cache hits not counted; 3 replies without token counts); "
        "cost: not known (3 replies without token counts)"
    )
