"""Validation: semantic checks across snapshot, evaluation set, runs and labels."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._checker import (
        check_known_questions as check_known_questions,
        check_repeats as check_repeats,
        repeats as repeats,
    )
    from ._inputs import (
        SUPERSESSION_LOOP as SUPERSESSION_LOOP,
        snapshot_problems as snapshot_problems,
        supersession_loops as supersession_loops,
    )
    from ._k import (
        CUTOFF_EXPECTED as CUTOFF_EXPECTED,
        CUTOFF_RANGE as CUTOFF_RANGE,
        MAX_CUTOFF as MAX_CUTOFF,
        parse_cutoff as parse_cutoff,
        parse_k as parse_k,
    )
    from ._ranges import (
        CHUNK_CHARS_RANGE as CHUNK_CHARS_RANGE,
        CHUNK_SENTENCES_RANGE as CHUNK_SENTENCES_RANGE,
        CONTEXT_CHARS_RANGE as CONTEXT_CHARS_RANGE,
        GATE_RESAMPLES_DEFAULT as GATE_RESAMPLES_DEFAULT,
        HOLDOUT_WARN_AFTER_RANGE as HOLDOUT_WARN_AFTER_RANGE,
        LEVEL_RANGE as LEVEL_RANGE,
        PERMUTATIONS_DEFAULT as PERMUTATIONS_DEFAULT,
        PERMUTATIONS_RANGE as PERMUTATIONS_RANGE,
        RESAMPLES_DEFAULT as RESAMPLES_DEFAULT,
        RESAMPLES_RANGE as RESAMPLES_RANGE,
        RRF_C_RANGE as RRF_C_RANGE,
        SEED_RANGE as SEED_RANGE,
        WORKERS_RANGE as WORKERS_RANGE,
        AveragingRule as AveragingRule,
        JudgeName as JudgeName,
        LevelChoice as LevelChoice,
        RerankKind as RerankKind,
        RetrieverKind as RetrieverKind,
    )
    from ._rules import (
        check_dataset as check_dataset,
        labeller_problems as labeller_problems,
        load_checked as load_checked,
        non_answer_problems as non_answer_problems,
        ranking_problems as ranking_problems,
        support_problems as support_problems,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "._checker": ("check_known_questions", "check_repeats", "repeats"),
    "._inputs": ("SUPERSESSION_LOOP", "snapshot_problems", "supersession_loops"),
    "._k": ("CUTOFF_EXPECTED", "CUTOFF_RANGE", "MAX_CUTOFF", "parse_cutoff", "parse_k"),
    "._ranges": (
        "CHUNK_CHARS_RANGE", "CHUNK_SENTENCES_RANGE", "CONTEXT_CHARS_RANGE",
        "GATE_RESAMPLES_DEFAULT", "HOLDOUT_WARN_AFTER_RANGE", "LEVEL_RANGE",
        "PERMUTATIONS_DEFAULT", "PERMUTATIONS_RANGE", "RESAMPLES_DEFAULT", "RESAMPLES_RANGE",
        "RRF_C_RANGE", "SEED_RANGE", "WORKERS_RANGE", "AveragingRule", "JudgeName",
        "LevelChoice", "RerankKind", "RetrieverKind",
    ),
    "._rules": (
        "check_dataset", "labeller_problems", "load_checked", "non_answer_problems",
        "ranking_problems", "support_problems",
    ),
}


__getattr__, __all__ = lazy_names(__name__, _LAZY, globals())
