"""Validation: semantic checks across snapshot, evaluation set, runs and labels."""

from ._k import parse_k
from ._rules import check_dataset

__all__ = ["check_dataset", "parse_k"]
