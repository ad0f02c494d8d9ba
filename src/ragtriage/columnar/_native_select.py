"""The questions a stage filter keeps (`--stage`), found in the engine's one pass.

A question is kept when its diagnosis has one of the stages, primary or secondary, in at
least one run that answered it. Its diagnosis is the one the run's explanations give it:
the stages the arrays found failing (`diagnosis.detected_stages`, decided once, over the
arrays) and the registered stages whose check, on its view, finds a failure. So the arrays
decide each question before any explanation is built; a view is built only where a
registered stage's check can still decide it (a wanted registered stage, or `ok` wanted and
no detected stage failing), a chunk at a time.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from ..diagnosis import OK, diagnose_view
from ..loading import SnapshotIndex
from ..metrics import PerQuestion
from ._native_explain import CHUNK, RunViews, stages_to_check
from ._native_found import Explained
from ._native_labels import Added
from ._native_questions import QuestionModels
from ._native_records import Records
from ._native_run import RunColumns

ReadRun = tuple[
    Records, RunColumns, tuple[dict[str, PerQuestion], dict[str, np.ndarray], Explained], set[int]
]
"""One run as the engine read it: its records, columns, arrays (scores, stage findings,
what the explanations are given) and the rows it has no result for."""


def rows_with_stages(
    rows: Sequence[int],
    runs: Sequence[ReadRun],
    stages: Collection[str],
    questions: QuestionModels,
    index: SnapshotIndex,
    labels: Mapping[str, Added],
) -> list[int]:
    """The rows of `rows` (in order) diagnosed with any of `stages` in at least one run (see
    the module). `labels`: the labels of label files, by run name (a view holds them)."""
    wanted = frozenset(stages)
    ok_wanted = OK in wanted
    kept = np.zeros(len(questions.ids), dtype=bool)
    for source, run, (_, findings, explained), missing in runs:
        answered = [row for row in rows if row not in missing and not kept[row]]
        every, fired = stages_to_check(findings, answered)
        viewed: list[tuple[int, Collection[str]]] = []
        for n, row in enumerate(answered):
            failed = set(fired.get(n, ())) - every  # found failing by the arrays
            if not wanted.isdisjoint(failed):
                kept[row] = True
            elif every and (not wanted.isdisjoint(every) or (ok_wanted and not failed)):
                viewed.append((row, every | failed))  # a registered stage's check decides
            else:
                kept[row] = ok_wanted and not failed
        if not viewed:
            continue
        build = RunViews(source, run, questions, index, explained, labels.get(run.header.name, {}))
        for start in range(0, len(viewed), CHUNK):
            part = viewed[start : start + CHUNK]
            views = build([row for row, _ in part])
            for (row, checks), view in zip(part, views, strict=True):
                kept[row] = not wanted.isdisjoint(diagnose_view(view, checks).stages)
    return [row for row in rows if kept[row]]
