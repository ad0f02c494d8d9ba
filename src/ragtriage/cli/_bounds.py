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

from ..endpoint import MAX_REPLY_BYTES_RANGE
from ..validation import (
    LEVEL_RANGE,
    MAX_CUTOFF,
    PERMUTATIONS_RANGE,
    RESAMPLES_RANGE,
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


SEED = click.IntRange(*SEED_RANGE)
"""Random seeds (numpy takes 0..2**32-1 everywhere)."""
RESAMPLES = click.IntRange(*RESAMPLES_RANGE)
"""Bootstrap resamples: below 100 an interval is noise, above 100,000 it costs minutes."""
PERMUTATIONS = click.IntRange(*PERMUTATIONS_RANGE)
"""Permutation-test rounds (cheaper per round than a bootstrap resample)."""
HOLDOUT_WARN_AFTER = click.IntRange(0, 1_000_000)
"""Holdout looks before the warning."""
MAX_TOKENS = click.IntRange(1, 1_000_000)
"""Output tokens per call."""
CONCURRENCY = click.IntRange(1, 256)
"""Requests in flight."""
TIMEOUT = FiniteFloatRange(0, 3600, min_open=True)
"""Seconds per request, in total."""
MAX_RETRIES = click.IntRange(0, 20)
"""Retries after the first attempt."""
RETRY_DELAY = FiniteFloatRange(0, 600)
"""First retry delay in seconds."""
PRICE_PER_1K = FiniteFloatRange(0, 1_000_000)
"""US dollars per 1,000 tokens."""
MAX_REPLY_BYTES = click.IntRange(*MAX_REPLY_BYTES_RANGE)
"""Largest reply body read."""
CONFIDENCE = FiniteFloatRange(*LEVEL_RANGE)
"""Confidence level of an interval."""
CUTOFF = click.IntRange(1, MAX_CUTOFF)
"""A ranking depth (candidates kept, rerank depth): the same range as every cut-off k."""
CONTEXT_CHARS = click.IntRange(1, 10_000_000)
"""Characters of context sent to the model."""
CHUNK_CHARS = click.IntRange(1, 1_000_000)
"""Characters per chunk."""
CHUNK_SENTENCES = click.IntRange(1, 10_000)
"""Sentences per chunk."""
RRF_C = click.IntRange(0, 100_000)
"""Reciprocal-rank fusion constant."""
