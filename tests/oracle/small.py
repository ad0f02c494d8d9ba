"""One small valid dataset written by hand, for pinned messages and pinned disagreements."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loader_path import evaluate_by_loader
from ragtriage import evaluate_files
from ragtriage.errors import InputError, Problem
from ragtriage.request import Request

from .strategies import write

HUMAN: dict[str, Any] = {"kind": "human", "name": "ann"}
SNAPSHOT: dict[str, Any] = {
    "schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
    "documents": [{"id": "d1", "text": "one"}, {"id": "d2", "text": "two"}],
}
EVALSET: dict[str, Any] = {
    "schema_version": 1, "kind": "evalset", "evalset_id": "e",
    "questions": [
        {"id": "q1", "text": "a?", "answerability": "answerable",
         "required_evidence": [{"any_of": ["d1"]}]},
        {"id": "q2", "text": "b?", "answerability": "unanswerable"},
    ],
}
RUN: dict[str, Any] = {
    "schema_version": 1, "kind": "run", "name": "r", "provenance": {"k": 1},
    "results": [
        {"question_id": "q1", "candidates": [{"id": "d1"}], "outcome": "answered",
         "answer": "yes",
         "claims": [{"text": "x", "citations": ["d1"],
                     "labels": [{"verdict": "supported", "supported_by": ["d1"],
                                 "labeller": HUMAN}]}]},
        {"question_id": "q2", "candidates": [{"id": "d2"}], "outcome": "refused",
         "answer": "no", "claims": []},
    ],
}


@dataclass
class Small:
    """A copy of the small dataset to change, and where it is written."""

    snapshot: dict[str, Any]
    evalset: dict[str, Any]
    run: dict[str, Any]

    @classmethod
    def copy(cls) -> Small:
        return cls(copy.deepcopy(SNAPSHOT), copy.deepcopy(EVALSET), copy.deepcopy(RUN))

    def paths(self, directory: Path, suffix: str) -> tuple[Path, Path, Path]:
        """(evaluation set, snapshot, run) written with `suffix` (`.json` or `.jsonl`)."""
        return (write(self.evalset, directory / f"e{suffix}"),
                write(self.snapshot, directory / f"s{suffix}"),
                write(self.run, directory / f"r{suffix}"))


Outcome = list[Problem] | None
"""The problems reported on the files read one way, None when they were scored."""


def quiet(notice: object) -> None:
    """Notes (holdout left out, k not used) are not checked here."""


def both(paths: tuple[Path, Path, Path], **options: Any) -> tuple[Outcome, Outcome]:
    """(loaded, read): the problems of `ragtriage evaluate` on the files read by the loader
    and by the file reader, or None when it scored the input."""
    evalset, snapshot, run = paths
    out: list[Outcome] = []
    calls: list[Callable[[], object]] = [
        lambda: evaluate_by_loader(
            Request.build(evalset, snapshot=snapshot, runs=[run], **options), "evaluate"
        ),
        lambda: evaluate_files(evalset, snapshot=snapshot, runs=[run], notify=quiet, **options),
    ]
    for call in calls:
        try:
            call()
        except InputError as refused:
            out.append(list(refused.problems))
        else:
            out.append(None)
    return out[0], out[1]


def messages(problems: Outcome, directory: Path) -> list[str] | None:
    """Problem messages with the directory left out."""
    if problems is None:
        return None
    return [p.message().replace(f"{directory}/", "") for p in problems]
