"""ragtriage: where a RAG system fails, question by question, with numbers CI can trust."""

from ._version import __version__
from .errors import InputError, Problem, RagtriageError
from .evaluation import Evaluation, QuestionRecord, RunEvaluation, evaluate, evaluate_files
from .loading import Dataset, load_dataset

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
