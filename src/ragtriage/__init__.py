"""ragtriage: where a RAG system fails, question by question, with numbers CI can trust.

Each command has one call here with the same words (`ragtriage evaluate` ->
`evaluate_files`, `ragtriage compare` -> `compare_files`, ...); see `ragtriage.api`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names
from ._version import __version__
from .errors import InputError, Problem, RagtriageError, RequestError

if TYPE_CHECKING:
    from .api import (
        calibrate_labels,
        compare_files,
        diagnose_files,
        evaluate_files,
        gate_files,
        judge_files,
        report_html,
        run_files,
        trec_eval_files,
    )
    from .columnar import evaluate
    from .evaluation import Evaluation, QuestionRecord, RunEvaluation
    from .loading import Dataset, load_dataset
    from .request import Request

# The evaluation stack is imported on first use, so that light entry points (the columnar
# TREC scorer, `--version`) do not pay for it.
_LAZY = {
    "Evaluation": ".evaluation",
    "QuestionRecord": ".evaluation",
    "RunEvaluation": ".evaluation",
    "evaluate": ".columnar",
    "Dataset": ".loading",
    "load_dataset": ".loading",
    "Request": ".request",
    "evaluate_files": ".api",
    "diagnose_files": ".api",
    "compare_files": ".api",
    "gate_files": ".api",
    "report_html": ".api",
    "trec_eval_files": ".api",
    "judge_files": ".api",
    "calibrate_labels": ".api",
    "run_files": ".api",
}

__all__ = [
    "Dataset",
    "Evaluation",
    "InputError",
    "Problem",
    "QuestionRecord",
    "RagtriageError",
    "Request",
    "RequestError",
    "RunEvaluation",
    "__version__",
    "calibrate_labels",
    "compare_files",
    "diagnose_files",
    "evaluate",
    "evaluate_files",
    "gate_files",
    "judge_files",
    "load_dataset",
    "report_html",
    "run_files",
    "trec_eval_files",
]


__getattr__ = lazy_names(__name__, _LAZY, globals())
