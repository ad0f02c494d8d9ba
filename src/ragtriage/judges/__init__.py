"""Automatic judges: claim extraction, support per claim, coverage per fact, outcome detection.

An LLM judge over any OpenAI-compatible chat endpoint (async, concurrency-limited, retried,
cached in SQLite) and an offline lexical baseline. A reply that cannot be parsed, or a call that
fails after its retries, becomes `cannot_judge` with the reason: never a made-up verdict.
"""

from ..detectors import label_context_hash
from ..fileio import content_hash
from ._cache import CachedReply, ReplyCache, cache_key
from ._client import ChatClient, ClientOptions, EndpointError, Reply
from ._formats import (
    AUTO_RESPONSE_FORMAT,
    RESPONSE_FORMATS,
    ResponseFormat,
    default_response_format,
    reply_schema,
    response_format_body,
)
from ._label_files import write_model
from ._lexical_judge import LEXICAL_SPEC, LexicalJudge, split_claims, tokens
from ._llm import Judge, LLMJudge
from ._outputs import (
    WrittenRun,
    check_label_files,
    check_output_names,
    estimate_lines,
    summary_lines,
    write_outputs,
)
from ._parse import ParseFailure, parse_claims, parse_coverage, parse_outcome, parse_support
from ._prompts import (
    PromptSet,
    available_versions,
    estimate_tokens,
    load_prompts,
)
from ._runner import (
    ItemNote,
    JudgedRun,
    JudgeResult,
    Progress,
    check_judgeable,
    judge_dataset,
    judge_dataset_async,
    load_judgeable,
    passages_for,
)
from ._session import (
    Estimate,
    JudgeFailed,
    Prices,
    check_answered,
    estimate,
    run_llm_judge,
)
from ._sharded import JudgeFactory, judge_on_executor
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

__all__ = [
    "AUTO_RESPONSE_FORMAT",
    "LEXICAL_SPEC",
    "RESPONSE_FORMATS",
    "CachedReply",
    "CallStats",
    "ChatClient",
    "ClaimsFound",
    "ClientOptions",
    "CoverageVerdict",
    "EndpointError",
    "Estimate",
    "ExtractedClaim",
    "ItemNote",
    "Judge",
    "JudgeFactory",
    "JudgeFailed",
    "JudgeResult",
    "JudgeSpec",
    "JudgedRun",
    "LLMJudge",
    "LexicalJudge",
    "OutcomeFound",
    "ParseFailure",
    "Passage",
    "Prices",
    "Progress",
    "PromptSet",
    "Reply",
    "ReplyCache",
    "ResponseFormat",
    "SupportVerdict",
    "WrittenRun",
    "available_versions",
    "cache_key",
    "check_answered",
    "check_judgeable",
    "check_label_files",
    "check_output_names",
    "content_hash",
    "default_response_format",
    "estimate",
    "estimate_lines",
    "estimate_tokens",
    "judge_dataset",
    "judge_dataset_async",
    "judge_on_executor",
    "label_context_hash",
    "load_judgeable",
    "load_prompts",
    "parse_claims",
    "parse_coverage",
    "parse_outcome",
    "parse_support",
    "passages_for",
    "reply_schema",
    "response_format_body",
    "run_llm_judge",
    "split_claims",
    "summary_lines",
    "tokens",
    "write_model",
    "write_outputs",
]
