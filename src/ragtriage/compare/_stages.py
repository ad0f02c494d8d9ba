"""The diagnosis stage of each question, as the evaluated run carries it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ..diagnosis import QuestionDiagnosis
from ..evaluation import RunEvaluation


def run_stages(run: RunEvaluation) -> dict[str, QuestionDiagnosis]:
    """Per-question diagnosis of a run, by question ID (the diagnosis the run carries)."""
    return {q.question_id: q for q in run.diagnosis.questions}


def modal_stage(stages: Sequence[str | None], order: Sequence[str]) -> str | None:
    """The most frequent stage among repeats; a tie goes to the stage earliest in the pipeline."""
    present = [s for s in stages if s is not None]
    if len(present) < 2:  # a single run, or one repeat with a stage: no vote to count
        return present[0] if present else None
    counts = Counter(present)
    top = max(counts.values())
    tied = [s for s in counts if counts[s] == top]
    rank: Mapping[str, int] = {s: i for i, s in enumerate(order)}
    return min(tied, key=lambda s: (rank.get(s, len(rank)), s))
