"""Parser, prompts, cache and the lexical baseline, one piece at a time."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from ragtriage.errors import InputError
from ragtriage.judges import (
    LEXICAL_SPEC,
    CachedReply,
    ExtractedClaim,
    JudgeSpec,
    LexicalJudge,
    Passage,
    ReplyCache,
    available_versions,
    cache_key,
    estimate_tokens,
    load_prompts,
    parse_claims,
    parse_coverage,
    parse_outcome,
    parse_support,
    split_claims,
)

IDS = ["refund-v2", "cards-v1"]


def test_support_parser_accepts_the_exact_shape_only() -> None:
    ok = parse_support(
        '{"verdict": "supported", "supported_by": ["refund-v2"], "reason": "r"}', IDS
    )
    assert (ok.verdict, ok.supported_by, ok.reason) == ("supported", ("refund-v2",), "r")
    fenced = parse_support(
        '```json\n{"verdict": "unsupported", "supported_by": [], "reason": "no"}\n```', IDS
    )
    assert (fenced.verdict, fenced.reason) == ("unsupported", "no")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            '{"verdict": "yes", "supported_by": [], "reason": "r"}',
            "unparseable judge answer: wrong shape at verdict: Input should be 'supported', "
            "'unsupported' or 'cannot_judge' (1 error): "
            '\'{"verdict": "yes", "supported_by": [], "reason": "r"}\'',
        ),
        (
            '{"verdict": "supported", "supported_by": ["x"], "reason": "r"}',
            "judge answer rejected: supported_by names 'x', "
            "not a passage ID (refund-v2, cards-v1); judge said supported",
        ),
        (
            '{"verdict": "supported", "supported_by": [], "reason": "r"}',
            "judge answer rejected: supported without a supporting passage ID",
        ),
        (
            '{"verdict": "unsupported", "supported_by": ["cards-v1"], "reason": "r"}',
            "judge answer rejected: unsupported with supporting IDs cards-v1",
        ),
        (
            '{"verdict": "cannot_judge", "supported_by": [], "reason": ""}',
            "the judge answered cannot_judge without a reason",
        ),
        (
            '{"verdict": "supported", "supported_by": ["cards-v1"], "reason": "r", "score": 1}',
            "unparseable judge answer: wrong shape at score: Extra inputs are not permitted "
            '(1 error): \'{"verdict": "supported", "supported_by": ["cards-v1"], '
            '"reason": "r", "score": 1}\'',
        ),
        ("[1, 2]", "unparseable judge answer: expected a JSON object, found list: '[1, 2]'"),
    ],
)
def test_support_parser_never_invents_a_verdict(text: str, reason: str) -> None:
    verdict = parse_support(text, IDS)
    assert (verdict.verdict, verdict.supported_by, verdict.reason) == ("cannot_judge", (), reason)


def test_transport_failure_and_truncation_are_cannot_judge() -> None:
    assert (
        parse_support(None, IDS, "HTTP 500 (after 4 attempts)").reason
        == "HTTP 500 (after 4 attempts)"
    )
    cut = parse_coverage('{"verdict": "cov', None, "length")
    assert cut.verdict == "cannot_judge"
    assert cut.reason == (
        "output truncated at the token limit; unparseable judge answer: not a JSON object "
        '(Unterminated string starting at at char 12): \'{"verdict": "cov\''
    )


def test_claims_and_outcome_parsers() -> None:
    found = parse_claims('{"claims": [{"text": " A  b ", "citations": ["d", "d"]}, {"text": "C"}]}')
    assert found.claims == (ExtractedClaim("A b", ("d",)), ExtractedClaim("C", ()))
    assert parse_claims('{"claims": "A"}').claims is None
    assert parse_outcome('{"outcome": "refused", "reason": "declines"}').outcome == "refused"
    failed = parse_outcome('{"outcome": "escalated", "reason": "x"}')
    assert failed.outcome is None and failed.reason is not None
    assert failed.reason.startswith("unparseable judge answer: wrong shape at outcome")


def test_prompts_are_versioned_package_data() -> None:
    assert available_versions() == ("v1",)
    prompts = load_prompts("v1")
    messages = prompts.messages("support", passages="[d1] text", claim="A $5 fee {x}")
    assert (
        messages[1]["content"]
        == "Passages:\n[d1] text\n\nClaim:\nA $5 fee {x}\n\nReturn the JSON object."
    )
    with pytest.raises(InputError) as info:
        load_prompts("v9")
    assert info.value.problems[0].message() == (
        "<command line>: --prompt-version: expected one of v1; found 'v9'"
    )


def test_token_estimate_counts_chinese_characters_one_each() -> None:
    assert estimate_tokens("每日转账") == 4
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("限额 limit") == 2 + 2


def test_cache_key_depends_on_spec_prompt_and_inputs(tmp_path: Path) -> None:
    spec = JudgeSpec(model="m", endpoint_kind="openai-compatible", prompt_version="v1")
    messages = [{"role": "user", "content": "x"}]
    key = cache_key(spec, "support", messages)
    assert key == cache_key(spec, "support", [{"role": "user", "content": "x"}])
    assert key != cache_key(
        JudgeSpec(model="m", endpoint_kind="openai-compatible", prompt_version="v2"),
        "support",
        messages,
    )
    assert key != cache_key(
        JudgeSpec(model="m", endpoint_kind="openai-compatible", prompt_version="v1", seed=1),
        "support",
        messages,
    )
    assert key != cache_key(spec, "coverage", messages)
    cache = ReplyCache(tmp_path / "c.sqlite")
    cache.put(key, "support", CachedReply("{}", "stop", 3, 4))
    cache.put(key, "support", CachedReply("other", "stop", 1, 1))
    assert cache.get(key) == CachedReply("{}", "stop", 3, 4)
    assert len(cache) == 1
    cache.close()
    reopened = ReplyCache(tmp_path / "c.sqlite")
    assert reopened.get(key) == CachedReply("{}", "stop", 3, 4)
    reopened.close()


def test_a_cache_another_judge_is_writing_is_opened_once_its_write_ends(
    tmp_path: Path,
) -> None:
    # Parallel judges on one --cache: switching a busy database to WAL fails at once (SQLite
    # calls no busy handler for it), which refused the cache as unusable.
    path = tmp_path / "c.sqlite"
    ReplyCache(path).close()
    other = sqlite3.connect(path, check_same_thread=False)
    other.execute("PRAGMA journal_mode=DELETE")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO replies VALUES ('k', 'support', '{}', 'stop', 3, 4)")
    releasing = threading.Timer(0.3, other.commit)
    releasing.start()
    try:
        cache = ReplyCache(path)
    finally:
        releasing.join()
        other.close()
    assert cache.get("k") == CachedReply("{}", "stop", 3, 4)
    cache.close()


def test_sentence_split_keeps_citations_with_their_sentence() -> None:
    assert split_claims("Refunds take 5 days. [refund-v2] Approval comes first.") == (
        ExtractedClaim("Refunds take 5 days.", ("refund-v2",)),
        ExtractedClaim("Approval comes first.", ()),
    )
    assert split_claims("每日转账限额为五万元。【limit-zh】超过限额需要到柜台办理！") == (
        ExtractedClaim("每日转账限额为五万元。", ("limit-zh",)),
        ExtractedClaim("超过限额需要到柜台办理！", ()),
    )


def _run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_lexical_baseline_support_in_english_and_chinese() -> None:
    judge = LexicalJudge()
    passages = [
        Passage("refund-v2", "Refunds are paid within 5 working days after approval."),
        Passage("cards-v1", "A lost card can be blocked in the app at any time."),
    ]
    got = _run(judge.judge_support("Refunds are paid within 5 working days.", passages))
    assert (got.verdict, got.supported_by, got.reason) == (
        "supported",
        ("refund-v2",),
        "lexical overlap 1.00 >= 0.7",
    )
    got = _run(judge.judge_support("Refunds are paid by cheque within a month.", passages))
    assert (got.verdict, got.reason) == ("cannot_judge", "lexical overlap 0.60 between 0.3 and 0.7")
    got = _run(judge.judge_support("The CEO likes golf.", passages))
    assert (got.verdict, got.reason) == ("unsupported", "lexical overlap 0.00 < 0.3")
    zh = [Passage("limit-zh", "每日转账限额为五万元，超过限额需要到柜台办理。")]
    assert _run(judge.judge_support("限额为五万元", zh)).verdict == "supported"
    assert _run(judge.judge_support("利率为百分之三", zh)).verdict == "unsupported"
    assert _run(judge.judge_support("Anything", [])).reason == "no context passages"


def test_lexical_baseline_outcome_and_coverage() -> None:
    judge = LexicalJudge()
    assert _run(judge.detect_outcome("q", "抱歉，资料中没有相关信息。")).outcome == "refused"
    assert _run(judge.detect_outcome("q", "I don't know.")).outcome == "refused"
    assert (
        _run(judge.detect_outcome("q", "Do you mean the debit card or the credit card?")).outcome
        == "clarified"
    )
    assert _run(judge.detect_outcome("q", "您是指哪一张卡？")).outcome == "clarified"
    assert _run(judge.detect_outcome("q", "Refunds take 5 days.")).outcome == "answered"
    covered = _run(
        judge.judge_coverage(
            "q", "Refunds need approval first.", "Approval comes first. Refunds take days."
        )
    )
    assert (covered.verdict, covered.reason) == ("covered", "lexical overlap 0.75 >= 0.7")
    no_text = _run(judge.judge_coverage("q", None, "x"))
    assert (no_text.verdict, no_text.reason) == (
        "cannot_judge",
        "the reference fact has no text to compare with",
    )
    assert judge.stats().by_task == {"coverage": 2, "outcome": 5}


def test_lexical_baseline_reads_full_width_letters_and_digits_as_ascii() -> None:
    # Before: the answer "ＶＰＮ密码１２位" covered the fact "VPN 密码 12 位" at 0.50 (cannot
    # judge): "ｖｐｎ" and "１２" were other words than "vpn" and "12"
    judge = LexicalJudge()
    got = _run(judge.judge_coverage("q", "VPN 密码 12 位", "ＶＰＮ密码１２位。"))
    assert (got.verdict, got.reason) == ("covered", "lexical overlap 1.00 >= 0.7")
    zh = [Passage("vpn", "VPN密码需要12位。")]
    got = _run(judge.judge_support("ＶＰＮ密码１２位", zh))
    assert (got.verdict, got.supported_by, got.reason) == (
        "supported",
        ("vpn",),
        "lexical overlap 1.00 >= 0.7",
    )


def test_lexical_labels_say_baseline() -> None:
    lab = LEXICAL_SPEC.labeller()
    assert (lab.kind, lab.name, lab.endpoint_kind, lab.prompt_version) == (
        "judge",
        "lexical-baseline",
        "lexical",
        "lexical-v2",
    )
