"""The ranges and defaults of the statistics' and the retrievers' numeric arguments, and the
choices of the options that take one of a few words, for the library and the command line
alike (here, below the comparison, the gate, the engine and the retrievers, so that the API's
signatures and the command line name them without importing any of them)."""

from __future__ import annotations

from typing import Literal

from ..errors import NumberRange

LevelChoice = Literal["auto", "document", "chunk", "span"]
"""How retrieved IDs are matched to required evidence (`--evidence-level`)."""
RetrieverKind = Literal["bm25", "dense", "hybrid"]
"""The retrieval pipeline's first stage (`--retriever`)."""
RerankKind = Literal["dense", "bm25"]
"""The retrieval pipeline's reranker (`--rerank`)."""
JudgeName = Literal["llm", "lexical"]
"""The judges of `judge_files` (`--judge`): a model behind an endpoint, or the offline
lexical baseline."""
AveragingRule = Literal["relevant", "trec_eval", "trec_eval-c"]
"""Name of an averaging rule for TREC aggregates (`--averaging`)."""

SEED_RANGE = NumberRange(0, 2**32 - 1)
"""Random seeds (numpy takes 0..2**32-1 everywhere)."""
RESAMPLES_RANGE = NumberRange(100, 100_000)
"""Bootstrap resamples: below 100 an interval is noise, above 100,000 it costs minutes."""
PERMUTATIONS_RANGE = NumberRange(100, 1_000_000)
"""Permutation-test rounds (cheaper per round than a bootstrap resample)."""
LEVEL_RANGE = NumberRange(0.5, 0.999, integer=False)
"""Confidence level of an interval."""

RESAMPLES_DEFAULT = 5000
"""Bootstrap resamples of a comparison's intervals when none are given (`compare`)."""
PERMUTATIONS_DEFAULT = 10000
"""Permutation-test rounds of a comparison when none are given (`compare`, and the gate's
comparison with its baseline)."""
GATE_RESAMPLES_DEFAULT = 2000
"""Bootstrap resamples of the gate's comparison with its baseline when none are given."""

CONTEXT_CHARS_RANGE = NumberRange(1, 10_000_000)
"""Characters of context sent to the model (`--context-chars`)."""
CHUNK_CHARS_RANGE = NumberRange(1, 1_000_000)
"""Characters per chunk (`--chunk-chars`)."""
CHUNK_SENTENCES_RANGE = NumberRange(1, 10_000)
"""Sentences per chunk (`--chunk-sentences`)."""
RRF_C_RANGE = NumberRange(0, 100_000)
"""Reciprocal-rank fusion constant (`--rrf-c`)."""
HOLDOUT_WARN_AFTER_RANGE = NumberRange(0, 1_000_000)
"""Looks at the holdout before the warning (`--holdout-warn-after`)."""
WORKERS_RANGE = NumberRange(1, 1024)
"""Processes sharing the engine's work, this one included (`workers`; None: one per CPU)."""
