"""The offline lexical BASELINE judge: word overlap (English) and character bigrams (Chinese).

It needs no model and no network and always gives the same answer. It is a baseline, not a
judge to trust: it cannot see paraphrase, negation or numbers that differ by one digit. Its
labels say so (`endpoint_kind="lexical"`, name `lexical-baseline`); calibrate it like any judge.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ._spec import (
    CallStats,
    ClaimsFound,
    CoverageVerdict,
    ExtractedClaim,
    JudgeSpec,
    OutcomeFound,
    Passage,
    SupportVerdict,
)

LEXICAL_SPEC = JudgeSpec(
    model="lexical-baseline",
    endpoint_kind="lexical",
    prompt_version="lexical-v2",
    temperature=None,
    seed=None,
    max_tokens=0,
    response_format="none",
)
"""The baseline's identity as stored with its labels."""

SUPPORTED_AT = 0.7
"""Overlap at or above which a claim is supported by a passage (or a fact is covered)."""
UNSUPPORTED_BELOW = 0.3
"""Overlap below which a claim is unsupported (or a fact not covered); between: cannot judge."""

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CITATION = re.compile(r"[\[【]([^\[\]【】\s]+)[\]】]")
_LEADING_CITATIONS = re.compile(r"^\s*(?:[\[【][^\[\]【】\s]+[\]】]\s*)+")
_SENTENCE = re.compile(r"(?<=[。！？；!?;])|(?<=\.)(?=\s)|\n+")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "which",
        "who",
        "what",
        "when",
        "where",
        "how",
    }
)
_REFUSAL = re.compile(
    r"(i (do not|don't) know|cannot answer|can't answer|unable to (answer|find)|not able to answer|"
    r"no (relevant )?information|insufficient (information|evidence)|"
    r"does not (say|mention|contain)|"
    r"无法回答|无法确定|不知道|没有找到|未找到|资料中没有|没有相关|未提及|无法提供|不能回答)",
    re.IGNORECASE,
)
_CLARIFY = re.compile(
    r"(could you (please )?(clarify|specify)|do you mean|which (one|of)|can you tell me which|"
    r"please (clarify|specify)|请问您|您是指|您指的是|哪一个|哪个|请说明|请提供更多)",
    re.IGNORECASE,
)


def tokens(text: str) -> frozenset[str]:
    """Overlap units: lower-cased words (minus a few stop words) and Chinese character bigrams,
    of the text in NFKC form (a full-width `１２` is the word `12`)."""
    text = unicodedata.normalize("NFKC", text)
    units: set[str] = set()
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            units.add(run)
        units.update(run[i : i + 2] for i in range(len(run) - 1))
    rest = _CJK_RUN.sub(" ", text).lower()
    units.update(w for w in _WORD.findall(rest) if w not in _STOP)
    return frozenset(units)


def overlap(part: str, whole: str) -> float | None:
    """Share of `part`'s units found in `whole`; None when `part` has no units."""
    mine = tokens(part)
    if not mine:
        return None
    # A one-character Chinese word (a run of length 1) is found anywhere in the other text.
    theirs = tokens(whole) | set("".join(_CJK_RUN.findall(unicodedata.normalize("NFKC", whole))))
    return len(mine & theirs) / len(mine)


def split_claims(answer: str) -> tuple[ExtractedClaim, ...]:
    """Sentences of the answer as claims; `[ID]`/`【ID】` markers become citations (a marker
    right after a sentence's end belongs to that sentence)."""
    texts: list[str] = []
    cites: list[list[str]] = []
    for piece in _SENTENCE.split(answer):
        lead = _LEADING_CITATIONS.match(piece)
        if lead and cites:
            cites[-1].extend(_CITATION.findall(lead.group(0)))
            piece = piece[lead.end() :]
        text = " ".join(_CITATION.sub(" ", piece).split()).strip()
        if tokens(text):
            texts.append(text)
            cites.append(_CITATION.findall(piece))
    return tuple(
        ExtractedClaim(text, tuple(dict.fromkeys(ids)))
        for text, ids in zip(texts, cites, strict=True)
    )


def _by_overlap(score: float) -> tuple[bool | None, str]:
    """Whether an overlap is at or over `SUPPORTED_AT` (True), under `UNSUPPORTED_BELOW`
    (False) or between (None: cannot judge), with the reason."""
    if score >= SUPPORTED_AT:
        return True, f"lexical overlap {score:.2f} >= {SUPPORTED_AT}"
    if score < UNSUPPORTED_BELOW:
        return False, f"lexical overlap {score:.2f} < {UNSUPPORTED_BELOW}"
    return None, f"lexical overlap {score:.2f} between {UNSUPPORTED_BELOW} and {SUPPORTED_AT}"

class LexicalJudge:
    """The deterministic baseline judge (see the module docstring for what it cannot do)."""

    def __init__(self) -> None:
        self.spec = LEXICAL_SPEC
        self._by_task: dict[str, int] = {}

    def _tick(self, task: str) -> None:
        self._by_task[task] = self._by_task.get(task, 0) + 1

    async def detect_outcome(self, question: str, answer: str) -> OutcomeFound:
        """Refusal and clarification phrases (English and Chinese); otherwise answered."""
        self._tick("outcome")
        if _REFUSAL.search(answer):
            return OutcomeFound("refused", "refusal phrase found")
        if _CLARIFY.search(answer) and answer.rstrip().endswith(("?", "？")):
            return OutcomeFound("clarified", "clarifying question found")
        return OutcomeFound("answered", "no refusal or clarification phrase")

    async def extract_claims(self, question: str, answer: str) -> ClaimsFound:
        """One claim per sentence."""
        self._tick("claims")
        return ClaimsFound(split_claims(answer))

    async def judge_support(self, claim: str, passages: Sequence[Passage]) -> SupportVerdict:
        """Supported by each passage with >= 70% of the claim's units; unsupported below 30%."""
        self._tick("support")
        scores = [(p.id, overlap(claim, p.text)) for p in passages]
        if not passages:
            return SupportVerdict("unsupported", (), "no context passages")
        if scores[0][1] is None:
            return SupportVerdict("cannot_judge", (), "the claim has no words to compare")
        best = max(s or 0.0 for _, s in scores)
        support = tuple(pid for pid, s in scores if s is not None and s >= SUPPORTED_AT)
        above, reason = _by_overlap(best)
        if above is None:
            return SupportVerdict("cannot_judge", (), reason)
        return SupportVerdict("supported" if above else "unsupported", support, reason)

    async def judge_coverage(self, question: str, fact: str | None, answer: str) -> CoverageVerdict:
        """Covered when >= 70% of the fact's units are in the answer; not covered below 30%."""
        self._tick("coverage")
        if fact is None:
            return CoverageVerdict("cannot_judge", "the reference fact has no text to compare with")
        score = overlap(fact, answer)
        if score is None:
            return CoverageVerdict("cannot_judge", "the reference fact has no words to compare")
        above, reason = _by_overlap(score)
        if above is None:
            return CoverageVerdict("cannot_judge", reason)
        return CoverageVerdict("covered" if above else "not_covered", reason)

    def stats(self) -> CallStats:
        """Counts so far (no requests, no tokens)."""
        calls = sum(self._by_task.values())
        return CallStats(calls=calls, by_task=dict(sorted(self._by_task.items())))
