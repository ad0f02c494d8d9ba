"""Validation: semantic checks across snapshot, evaluation set, runs and labels."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._inputs import SUPERSESSION_LOOP, supersession_loops
    from ._k import (
        CUTOFF_EXPECTED,
        MAX_CUTOFF,
        parse_cutoff,
        parse_k,
    )
    from ._ranges import (
        GATE_RESAMPLES_DEFAULT,
        LEVEL_RANGE,
        PERMUTATIONS_DEFAULT,
        PERMUTATIONS_RANGE,
        RESAMPLES_DEFAULT,
        RESAMPLES_RANGE,
        SEED_RANGE,
    )
    from ._rules import check_dataset

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "CUTOFF_EXPECTED": "._k",
    "MAX_CUTOFF": "._k",
    "parse_cutoff": "._k",
    "parse_k": "._k",
    "GATE_RESAMPLES_DEFAULT": "._ranges",
    "LEVEL_RANGE": "._ranges",
    "PERMUTATIONS_DEFAULT": "._ranges",
    "PERMUTATIONS_RANGE": "._ranges",
    "RESAMPLES_DEFAULT": "._ranges",
    "RESAMPLES_RANGE": "._ranges",
    "SEED_RANGE": "._ranges",
    "check_dataset": "._rules",
    "SUPERSESSION_LOOP": "._inputs",
    "supersession_loops": "._inputs",
}

__all__ = [
    "CUTOFF_EXPECTED",
    "GATE_RESAMPLES_DEFAULT",
    "LEVEL_RANGE",
    "MAX_CUTOFF",
    "PERMUTATIONS_DEFAULT",
    "PERMUTATIONS_RANGE",
    "RESAMPLES_DEFAULT",
    "RESAMPLES_RANGE",
    "SEED_RANGE",
    "SUPERSESSION_LOOP",
    "check_dataset",
    "parse_cutoff",
    "parse_k",
    "supersession_loops",
]


__getattr__ = lazy_names(__name__, _LAZY, globals())
