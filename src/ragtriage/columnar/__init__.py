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
        RankArrays,
        arrays_from_dicts,
        build_rank_arrays,
    )
    from ._averaging import (
        AVERAGING_RULES,
        AveragingRule,
    )
    from ._keys import (
        IdKeys,
        id_keys,
    )
    from ._native_eval import (
        evaluate,
        evaluate_native,
        input_problems,
        load_and_evaluate,
    )
    from ._native_layers import NATIVE_MEASURES
    from ._row_columns import row_columns
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
    from ._trec import (
        QuestionPolicy,
        TrecLoad,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "RankArrays": "._arrays",
    "arrays_from_dicts": "._arrays",
    "build_rank_arrays": "._arrays",
    "AVERAGING_RULES": "._averaging",
    "AveragingRule": "._averaging",
    "IdKeys": "._keys",
    "id_keys": "._keys",
    "evaluate": "._native_eval",
    "evaluate_native": "._native_eval",
    "input_problems": "._native_eval",
    "load_and_evaluate": "._native_eval",
    "NATIVE_MEASURES": "._native_layers",
    "row_columns": "._row_columns",
    "DEFAULT_TREC_MEASURES": "._score",
    "RankMeasure": "._score",
    "RankScores": "._score",
    "TrecEvaluation": "._score",
    "evaluate_trec": "._score",
    "parse_rank_measures": "._score",
    "score_arrays": "._score",
    "load_trec": "._stream",
    "QuestionPolicy": "._trec",
    "TrecLoad": "._trec",
}

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
    "row_columns",
    "score_arrays",
]


__getattr__ = lazy_names(__name__, _LAZY, globals())
