"""The range of every numeric option, in one place: a value outside it is a usage error (exit 2)
before any work starts.

Unbounded numbers are how a typo becomes a hang or a crash: `--resamples 999999999999`
allocates for hours, `--seed -1` fails deep inside numpy, `--timeout 1e300` never times out.
A test walks every command and fails for an int or float option without a range here.
"""

from __future__ import annotations

import math
from typing import Any

import click

from ..endpoint import (
    CONCURRENCY_RANGE,
    MAX_REPLY_BYTES_RANGE,
    MAX_RETRIES_RANGE,
    MAX_TOKENS_RANGE,
    PRICE_PER_1K_RANGE,
    RETRY_DELAY_RANGE,
    TIMEOUT_RANGE,
)
from ..errors import NumberRange
from ..validation import (
    CHUNK_CHARS_RANGE,
    CHUNK_SENTENCES_RANGE,
    CONTEXT_CHARS_RANGE,
    CUTOFF_RANGE,
    HOLDOUT_WARN_AFTER_RANGE,
    LEVEL_RANGE,
    PERMUTATIONS_RANGE,
    RESAMPLES_RANGE,
    RRF_C_RANGE,
    SEED_RANGE,
)


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses NaN (every comparison with NaN is false, so click's
    range check lets it through) and infinities."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def _option_type(bound: NumberRange) -> click.IntRange | FiniteFloatRange:
    """The click type of a range the library checks too (the same bound, one definition)."""
    if bound.integer:
        return click.IntRange(int(bound.low), int(bound.high))
    return FiniteFloatRange(bound.low, bound.high, min_open=bound.low_open)


SEED = _option_type(SEED_RANGE)
"""Random seeds (numpy takes 0..2**32-1 everywhere)."""
RESAMPLES = _option_type(RESAMPLES_RANGE)
"""Bootstrap resamples: below 100 an interval is noise, above 100,000 it costs minutes."""
PERMUTATIONS = _option_type(PERMUTATIONS_RANGE)
"""Permutation-test rounds (cheaper per round than a bootstrap resample)."""
HOLDOUT_WARN_AFTER = _option_type(HOLDOUT_WARN_AFTER_RANGE)
"""Holdout looks before the warning."""
MAX_TOKENS = _option_type(MAX_TOKENS_RANGE)
"""Output tokens per call."""
CONCURRENCY = _option_type(CONCURRENCY_RANGE)
"""Requests in flight."""
TIMEOUT = _option_type(TIMEOUT_RANGE)
"""Seconds per request, in total."""
MAX_RETRIES = _option_type(MAX_RETRIES_RANGE)
"""Retries after the first attempt."""
RETRY_DELAY = _option_type(RETRY_DELAY_RANGE)
"""First retry delay in seconds."""
PRICE_PER_1K = _option_type(PRICE_PER_1K_RANGE)
"""US dollars per 1,000 tokens."""
MAX_REPLY_BYTES = _option_type(MAX_REPLY_BYTES_RANGE)
"""Largest reply body read."""
CONFIDENCE = _option_type(LEVEL_RANGE)
"""Confidence level of an interval."""
CUTOFF = _option_type(CUTOFF_RANGE)
"""A ranking depth (candidates kept, rerank depth): the same range as every cut-off k."""
CONTEXT_CHARS = _option_type(CONTEXT_CHARS_RANGE)
"""Characters of context sent to the model."""
CHUNK_CHARS = _option_type(CHUNK_CHARS_RANGE)
"""Characters per chunk."""
CHUNK_SENTENCES = _option_type(CHUNK_SENTENCES_RANGE)
"""Sentences per chunk."""
RRF_C = _option_type(RRF_C_RANGE)
"""Reciprocal-rank fusion constant."""
