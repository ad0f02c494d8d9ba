"""The test oracle: ragtriage's measures and diagnosis in small, plain Python.

A reader can check every number here by hand. It reads the native files (snapshot,
evaluation set, runs, labels) as parsed JSON, resolves each question once (`views`), computes
each measure with one short function (`measures`), aggregates (`aggregate`) and diagnoses
(`diagnosis`). It imports nothing from ragtriage and never validates: the datasets it is
given are valid (the tests check the engine refuses the invalid ones).

Instruction-like and sensitive text are not re-implemented: the engine's detectors are rule
files. The oracle is told which texts were planted (`Detectors`) and counts a text as
instruction-like or sensitive when it holds one of them.
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
