"""The LLM judge against a fault-injecting local server: nothing dropped, nothing made up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from judgekit import FakeServer, claim, serve, write_dataset

from ragtriage.columnar import evaluate
from ragtriage.judges import ClientOptions, JudgeSpec, run_llm_judge, write_outputs
from ragtriage.loading import load_dataset

SPEC = JudgeSpec(model="fake-judge", endpoint_kind="openai-compatible", prompt_version="v1")

FAULTS = [
    "none",
    "429-once",
    "500-once",
    "timeout-once",
    "cut-once",
    "500-always",
    "body-always",
    "prose",
    "truncated",
]


# Generous times: a loaded 2-CPU CI machine must still answer every other request within
# the deadline, and only the deliberate sleep may pass it.
def _options(url: str) -> ClientOptions:
    return ClientOptions(base_url=url, concurrency=4, max_retries=2, timeout=2.0, backoff=0.01)


def _faulty_dataset(folder: Path, faults: list[str]) -> Path:
    claims = [
        claim(f"Refunds are paid within 5 working days (fault={f}).", f"c{i}")
        for i, f in enumerate(faults, start=1)
    ]
    write_dataset(folder, claims, [claim("每日转账限额为五万元", "z1")])
    return folder


def _judge(folder: Path, url: str, cache: Path | None):
    dataset = load_dataset(
        folder / "evalset.json", snapshot=folder / "snapshot.json", runs=[folder / "run.json"]
    )
    return asyncio.run(run_llm_judge(dataset, SPEC, _options(url), cache_path=cache))


def test_every_item_ends_as_a_label_or_cannot_judge_with_reason(tmp_path: Path) -> None:
    _faulty_dataset(tmp_path, FAULTS)
    with serve(FakeServer(sleep_timeout=2.5)) as server:
        result = _judge(tmp_path, server.url, tmp_path / "cache.sqlite")
    labels = result.runs[0].labels
    got = {
        (e.question_id, e.claim_id): (e.label.verdict, e.label.reason) for e in labels.claim_labels
    }
    assert len(labels.claim_labels) == len(FAULTS) + 1
    for number in range(1, 6):  # none and the transient faults end as real verdicts
        assert got[("q1", f"c{number}")] == ("supported", "stated")
    assert got[("q1", "c6")] == ("cannot_judge", "HTTP 500 (after 3 attempts)")
    verdict, reason = got[("q1", "c7")]
    assert verdict == "cannot_judge"
    assert reason is not None and reason.startswith("malformed response body (JSONDecodeError")
    assert reason.endswith("(after 3 attempts)")
    verdict, reason = got[("q1", "c8")]
    assert verdict == "cannot_judge"
    assert reason is not None and reason.startswith(
        "unparseable judge answer: not a JSON object (Expecting value at char 0): 'The claim is"
    )
    verdict, reason = got[("q1", "c9")]
    assert verdict == "cannot_judge"
    assert reason is not None and reason.startswith(
        "output truncated at the token limit; unparseable judge answer: not a JSON object"
    )
    assert got[("q2", "z1")] == ("supported", "stated")
    facts = [(e.question_id, e.label.fact_id, e.label.verdict) for e in labels.fact_labels]
    assert facts == [("q1", "f1", "covered"), ("q1", "f2", "covered"), ("q2", "f1", "covered")]
    for entry in labels.claim_labels:
        lab = entry.label.labeller
        assert (
            lab.kind,
            lab.name,
            lab.prompt_version,
            lab.endpoint_kind,
            lab.temperature,
            lab.seed,
        ) == ("judge", "fake-judge", "v1", "openai-compatible", 0.0, 0)
    stats = result.stats
    assert (stats.calls, stats.cache_hits, stats.failures) == (13, 0, 4)
    # 13 calls; retries: 429, 500, timeout, cut once each, 500-always and body-always twice each
    assert (stats.requests, stats.retries) == (21, 8)


def test_second_run_is_answered_from_the_cache_with_zero_requests(tmp_path: Path) -> None:
    transient = ["none", "429-once", "500-once", "timeout-once", "cut-once", "prose", "truncated"]
    _faulty_dataset(tmp_path, transient)
    cache = tmp_path / "cache.sqlite"
    with serve(FakeServer(sleep_timeout=2.5)) as server:
        first = _judge(tmp_path, server.url, cache)
        before = server.requests
        second = _judge(tmp_path, server.url, cache)
        assert server.requests == before  # counted on the server side
    assert before == 15  # 11 calls + 4 retries of the transient faults
    assert second.stats.requests == 0 and second.stats.cache_hits == second.stats.calls == 11
    assert (second.stats.prompt_tokens, second.stats.completion_tokens) == (0, 0)
    assert second.runs[0].labels == first.runs[0].labels


def test_failed_transport_is_not_cached_and_is_retried_next_time(tmp_path: Path) -> None:
    _faulty_dataset(tmp_path, ["none", "500-always"])
    cache = tmp_path / "cache.sqlite"
    with serve(FakeServer()) as server:
        _judge(tmp_path, server.url, cache)
        before = server.requests
        second = _judge(tmp_path, server.url, cache)
        assert server.requests - before == 3  # only the failed claim, three attempts again
    assert second.stats.cache_hits == 5


def test_a_rejected_key_stops_the_session_and_keeps_what_was_judged(tmp_path: Path) -> None:
    # 22 claims and 3 facts: 25 calls. The rejected one is dispatched first; whatever was in
    # flight or finished before its reply may still count, but the session stops early.
    claims = [claim("Refunds are paid within 5 working days (fault=status-401).", "c1")]
    claims += [claim(f"Refunds are paid within {n} working days.", f"c{n}") for n in range(2, 22)]
    write_dataset(tmp_path, claims, [claim("每日转账限额为五万元", "z1")])
    with serve(FakeServer()) as server:
        result = _judge(tmp_path, server.url, None)
        sent = server.requests
    assert sent < 25
    stopped = result.stats.stopped
    assert stopped == (
        f"{server.url}/chat/completions answered HTTP 401: '{{\"error\": \"bad key\"}}' "
        "(check --base-url, --model and --api-key-env)"
    )
    run_labels = result.runs[0].labels
    labels = {(e.question_id, e.claim_id): e.label for e in run_labels.claim_labels}
    assert labels[("q1", "c1")].verdict == "cannot_judge"
    assert labels[("q1", "c1")].reason == f"not judged: the session stopped: {stopped}"
    assert len(labels) == 22 and len(run_labels.fact_labels) == 3
    every = [*labels.values(), *(e.label for e in run_labels.fact_labels)]
    reason = f"not judged: the session stopped: {stopped}"
    not_judged = [lab for lab in every if lab.reason == reason]
    assert len(not_judged) >= 25 - sent + 1  # every call never sent, and the rejected one


def test_extracted_claims_go_into_a_new_run_that_evaluates(tmp_path: Path) -> None:
    write_dataset(tmp_path, None, [claim("每日转账限额为五万元", "z1")], outcome_q3=None)
    with serve(FakeServer()) as server:
        result = _judge(tmp_path, server.url, None)
        sent = [b["messages"][1]["content"] for b in server.bodies]
    judged = result.runs[0]
    assert judged.run is not None and judged.notes == ()
    q1, _, q3 = judged.run.results
    assert [(c.id, c.text, c.citations) for c in q1.claims or []] == [
        ("c1", "Refunds are paid within 5 working days.", ["refund-v2"]),
        ("c2", "Approval comes first.", []),
    ]
    assert q3.outcome == "answered" and q3.claims is not None
    assert judged.run.provenance.notes == "claims/outcomes by judge fake-judge (prompt v1)"
    assert sum("Reply:\nI don't know" in text for text in sent) == 1
    written = write_outputs(result, tmp_path / "out")
    assert written[0].run_file == tmp_path / "out" / "base.run.json"
    dataset = load_dataset(
        tmp_path / "evalset.json",
        snapshot=tmp_path / "snapshot.json",
        runs=[tmp_path / "out" / "base.run.json"],
        labels=[tmp_path / "out" / "base.labels.json"],
    )
    run = evaluate(dataset, label_policy="judge").runs[0]
    support = run.summary["claim_support"]
    assert (support.numerator, support.denominator) == (5, 5)


def test_request_carries_temperature_zero_seed_and_json_format(tmp_path: Path) -> None:
    _faulty_dataset(tmp_path, ["none"])
    with serve(FakeServer()) as server:
        _judge(tmp_path, server.url, None)
        body = server.bodies[0]
    assert {
        k: body[k] for k in ("model", "temperature", "seed", "max_tokens", "response_format")
    } == {
        "model": "fake-judge",
        "temperature": 0.0,
        "seed": 0,
        "max_tokens": 512,
        "response_format": {"type": "json_object"},
    }


def test_identical_requests_in_flight_are_sent_once(tmp_path: Path) -> None:
    _faulty_dataset(tmp_path, ["none", "500-always"])
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    (tmp_path / "copy.json").write_text(json.dumps({**run, "name": "copy"}), encoding="utf-8")
    dataset = load_dataset(
        tmp_path / "evalset.json",
        snapshot=tmp_path / "snapshot.json",
        runs=[tmp_path / "run.json", tmp_path / "copy.json"],
    )
    with serve(FakeServer()) as server:
        result = asyncio.run(run_llm_judge(dataset, SPEC, _options(server.url)))
        sent = server.requests
    assert sent == 6 + 2  # 6 distinct calls once each, the failing one retried twice
    stats = result.stats
    assert (stats.calls, stats.cache_hits, stats.failures) == (12, 6, 2)
    first, second = result.runs
    assert first.labels.claim_labels == second.labels.claim_labels
