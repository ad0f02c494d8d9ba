"""The test oracle: ragtriage's measures and diagnosis in small, plain Python.

A reader can check every number here by hand. It reads the native files (snapshot,
evaluation set, runs, labels) as parsed JSON, resolves each question once (`views`), computes
each measure with one short function (`measures`), aggregates (`aggregate`) and diagnoses
(`diagnosis`). It imports nothing from ragtriage and never validates: the datasets it is
given are valid (the tests check the engine refuses the invalid ones).

Covered: every measure of the registry (`measures.MEASURES`; the tests fail when one is
added without an oracle) per question and aggregated (numerator, denominator, not
applicable, averaging, cannot-judge counts), rank measures at any k, and every diagnosis
stage with its proving IDs (`diagnosis.STAGES`, checked against the engine's order).
Options: k, label policy (human-first, human, judge; stale context hashes left out),
evidence level (auto, document, chunk, span), labels files, the holdout left out.

Question filters and `--allow-missing` are checked against the oracle on an evaluation set
of the questions kept (`test_oracle_wide`). Not covered: the reasons (`why` text) of
findings, slices and the breakdown, calibration, self-labelling, the article format,
`--versions`.
Instruction-like and sensitive text are not re-implemented either: the engine's detectors
are rule files. The oracle is told which texts were planted (`Detectors`) and counts a text
as instruction-like or sensitive when it holds one of them.

Where the code is more precise than the docs, the oracle follows the code:
`fact_coverage` is also not applicable when no fact was judged; a version question's
"answered with only stale documents" needs that the answer used nothing and no required
group was in the context; `context_precision` and `ndcg` are compared to 1e-12 (the engine
adds floats term by term; the oracle sums `context_precision` exactly).
"""

from .evaluate import OracleEvaluation, OracleRun, QuestionOutcome, evaluate_files
from .measures import MEASURES, measure_names

__all__ = [
    "MEASURES",
    "OracleEvaluation",
    "OracleRun",
    "QuestionOutcome",
    "evaluate_files",
    "measure_names",
]
