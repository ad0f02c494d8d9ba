"""The columnar core: many questions as arrays, every measure vectorised.

The per-question path (`metrics` over `QuestionView`) stays the reference; this package
gives the same numbers for large inputs, and its tests check that it does.
"""

from ._arrays import RankArrays, arrays_from_dicts, build_rank_arrays
from ._averaging import AVERAGING_RULES, AveragingRule
from ._keys import IdKeys, id_keys
from ._native_eval import evaluate_native
from ._native_layers import NATIVE_MEASURES
from ._score import (
    DEFAULT_TREC_MEASURES,
    RankMeasure,
    RankScores,
    TrecEvaluation,
    evaluate_trec,
    parse_rank_measures,
    score_arrays,
)
from ._stream import load_trec
from ._trec import QuestionPolicy, TrecLoad

__all__ = [
    "AVERAGING_RULES",
    "DEFAULT_TREC_MEASURES",
    "NATIVE_MEASURES",
    "AveragingRule",
    "IdKeys",
    "QuestionPolicy",
    "RankArrays",
    "RankMeasure",
    "RankScores",
    "TrecEvaluation",
    "TrecLoad",
    "arrays_from_dicts",
    "build_rank_arrays",
    "evaluate_native",
    "evaluate_trec",
    "id_keys",
    "load_trec",
    "parse_rank_measures",
    "score_arrays",
]
