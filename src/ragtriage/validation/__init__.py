"""Validation: semantic checks across snapshot, evaluation set, runs and labels."""

from ._k import CUTOFF_EXPECTED, MAX_CUTOFF, parse_cutoff, parse_k
from ._rules import check_dataset

__all__ = ["CUTOFF_EXPECTED", "MAX_CUTOFF", "check_dataset", "parse_cutoff", "parse_k"]
