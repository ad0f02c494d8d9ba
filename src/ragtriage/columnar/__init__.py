"""The engine: every question of every run scored as arrays, every measure vectorised.

`evaluate` scores a `Dataset` in memory, `evaluate_native` native files (read straight into
arrays), `load_and_evaluate` any files through the loader; `evaluate_trec` scores TREC files.
The plain per-question computation of each measure lives in `tests/oracle`, the oracle the
engine is checked against.
"""

from ._arrays import RankArrays, arrays_from_dicts, build_rank_arrays
from ._averaging import AVERAGING_RULES, AveragingRule
from ._keys import IdKeys, id_keys
from ._native_eval import evaluate, evaluate_native, input_problems, load_and_evaluate
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
    "evaluate",
    "evaluate_native",
    "evaluate_trec",
    "id_keys",
    "input_problems",
    "load_and_evaluate",
    "load_trec",
    "parse_rank_measures",
    "score_arrays",
]
