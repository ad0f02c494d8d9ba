"""ragtriage: where a RAG system fails, question by question, with numbers CI can trust."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import InputError, Problem, RagtriageError

if TYPE_CHECKING:
    from .evaluation import Evaluation, QuestionRecord, RunEvaluation, evaluate, evaluate_files
    from .loading import Dataset, load_dataset

# The evaluation stack is imported on first use, so that light entry points (the columnar
# TREC scorer, `--version`) do not pay for it.
_LAZY = {
    "Evaluation": "evaluation",
    "QuestionRecord": "evaluation",
    "RunEvaluation": "evaluation",
    "evaluate": "evaluation",
    "evaluate_files": "evaluation",
    "Dataset": "loading",
    "load_dataset": "loading",
}

__all__ = [
    "Dataset",
    "Evaluation",
    "InputError",
    "Problem",
    "QuestionRecord",
    "RagtriageError",
    "RunEvaluation",
    "__version__",
    "evaluate",
    "evaluate_files",
    "load_dataset",
]


def __getattr__(name: str) -> Any:
    """Resolve the lazily imported public names."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ragtriage' has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
