"""Recording: a run written while a RAG system answers, and traces turned into results.

- `Recorder`: a typed recorder a service calls at each step (or wraps its functions with);
  writes a native JSONL run that streams, survives a killed process and resumes.
- `write_snapshot`: a user's documents as a snapshot file.
- `capture_environment` / `git_commit`: what the recorder captures by itself.
- `TraceRecord`, `result_from_trace`, `QuestionMatcher`, `refusal_regex`: the rules shared by the
  OpenInference importer and the LangChain handler (`ragtriage.recording.langchain`).
"""

from ..schemas import Component
from ._environment import GIT_TIMEOUT_S, capture_environment, git_commit
from ._question import ContextInput, QuestionRecording, RankedInput, RecordingError
from ._recorder import Durability, Recorder
from ._snapshot_writer import write_snapshot
from ._traces import (
    Match,
    QuestionMatcher,
    TraceDocument,
    TraceRecord,
    question_key,
    refusal_regex,
    result_from_trace,
)

__all__ = [
    "GIT_TIMEOUT_S",
    "Component",
    "ContextInput",
    "Durability",
    "Match",
    "QuestionMatcher",
    "QuestionRecording",
    "RankedInput",
    "Recorder",
    "RecordingError",
    "TraceDocument",
    "TraceRecord",
    "capture_environment",
    "git_commit",
    "question_key",
    "refusal_regex",
    "result_from_trace",
    "write_snapshot",
]
