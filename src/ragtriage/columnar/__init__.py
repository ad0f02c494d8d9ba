"""The engine: every question of every run scored as arrays, every measure vectorised.

`evaluate` scores a `Dataset` in memory, `evaluate_native` native files (read straight into
arrays), `load_and_evaluate` any files through the loader; `evaluate_trec` scores TREC files.
The plain per-question computation of each measure lives in `tests/oracle`, the oracle the
engine is checked against.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._arrays import (
        RankArrays as RankArrays,
        arrays_from_dicts as arrays_from_dicts,
        build_rank_arrays as build_rank_arrays,
    )
    from ._averaging import AVERAGING_RULES as AVERAGING_RULES, AveragingRule as AveragingRule
    from ._keys import IdKeys as IdKeys, id_keys as id_keys
    from ._native_eval import (
        evaluate as evaluate,
        evaluate_native as evaluate_native,
        input_problems as input_problems,
        load_and_evaluate as load_and_evaluate,
    )
    from ._native_layers import NATIVE_MEASURES as NATIVE_MEASURES
    from ._row_columns import row_columns as row_columns, score_codes as score_codes
    from ._score import (
        DEFAULT_TREC_MEASURES as DEFAULT_TREC_MEASURES,
        RankMeasure as RankMeasure,
        RankScores as RankScores,
        TrecEvaluation as TrecEvaluation,
        evaluate_trec as evaluate_trec,
        parse_rank_measures as parse_rank_measures,
        score_arrays as score_arrays,
    )
    from ._stream import load_trec as load_trec
    from ._trec import QuestionPolicy as QuestionPolicy, TrecLoad as TrecLoad

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "._arrays": ("RankArrays", "arrays_from_dicts", "build_rank_arrays"),
    "._averaging": ("AVERAGING_RULES", "AveragingRule"),
    "._keys": ("IdKeys", "id_keys"),
    "._native_eval": ("evaluate", "evaluate_native", "input_problems", "load_and_evaluate"),
    "._native_layers": ("NATIVE_MEASURES",),
    "._row_columns": ("row_columns", "score_codes"),
    "._score": (
        "DEFAULT_TREC_MEASURES", "RankMeasure", "RankScores", "TrecEvaluation", "evaluate_trec",
        "parse_rank_measures", "score_arrays",
    ),
    "._stream": ("load_trec",),
    "._trec": ("QuestionPolicy", "TrecLoad"),
}


__getattr__, __all__ = lazy_names(__name__, _LAZY, globals())
