"""The ranges of the statistics' numeric arguments, for the library and the command line alike."""

from __future__ import annotations

SEED_RANGE = (0, 2**32 - 1)
"""Random seeds (numpy takes 0..2**32-1 everywhere)."""
RESAMPLES_RANGE = (100, 100_000)
"""Bootstrap resamples: below 100 an interval is noise, above 100,000 it costs minutes."""
PERMUTATIONS_RANGE = (100, 1_000_000)
"""Permutation-test rounds (cheaper per round than a bootstrap resample)."""
LEVEL_RANGE = (0.5, 0.999)
"""Confidence level of an interval."""
