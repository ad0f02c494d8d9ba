"""ragtriage: where a RAG system fails, question by question, with numbers CI can trust.

Each command has one call here with the same words (`ragtriage evaluate` ->
`evaluate_files`, `ragtriage compare` -> `compare_files`, ...); see `ragtriage.api`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names
from ._version import __version__ as __version__
from .errors import (
    InputError as InputError,
    Problem as Problem,
    RagtriageError as RagtriageError,
    RequestError as RequestError,
)

if TYPE_CHECKING:
    from .api import (
        calibrate_labels as calibrate_labels,
        compare_files as compare_files,
        diagnose_files as diagnose_files,
        evaluate_files as evaluate_files,
        gate_files as gate_files,
        judge_files as judge_files,
        report_html as report_html,
        run_files as run_files,
        trec_eval_files as trec_eval_files,
    )
    from .columnar import evaluate as evaluate
    from .evaluation import (
        Evaluation as Evaluation,
        QuestionRecord as QuestionRecord,
        RunEvaluation as RunEvaluation,
    )
    from .loading import Dataset as Dataset, load_dataset as load_dataset
    from .request import Request as Request

# The evaluation stack is imported on first use, so that light entry points (the columnar
# TREC scorer, `--version`) do not pay for it.
_LAZY = {
    ".api": (
        "calibrate_labels", "compare_files", "diagnose_files", "evaluate_files", "gate_files",
        "judge_files", "report_html", "run_files", "trec_eval_files",
    ),
    ".columnar": ("evaluate",),
    ".evaluation": ("Evaluation", "QuestionRecord", "RunEvaluation"),
    ".loading": ("Dataset", "load_dataset"),
    ".request": ("Request",),
}


__getattr__, _LAZY_NAMES = lazy_names(__name__, _LAZY, globals())

__all__ = [
    "InputError",
    "Problem",
    "RagtriageError",
    "RequestError",
    "__version__",
    *_LAZY_NAMES,
]
