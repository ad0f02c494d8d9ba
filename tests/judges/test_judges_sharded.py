"""Judge calls sharded over an engine give the same labels as one local judging session."""

from __future__ import annotations

import pytest

from ragtriage.example import example_paths
from ragtriage.executors import LocalExecutor, RayExecutor
from ragtriage.judges import JudgeResult, LexicalJudge, judge_dataset, judge_on_executor
from ragtriage.loading import Dataset, load_dataset


class FiveShards(LocalExecutor):
    """Local, but cut into five shards, as a cluster would."""

    def shard_count(self, items: int) -> int:
        return 5


def _dataset() -> Dataset:
    paths = example_paths()
    return load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)


def _dump(result: JudgeResult) -> list[object]:
    return [
        (run.name, run.labels.model_dump(), run.run.model_dump() if run.run else None, run.notes)
        for run in result.runs
    ]


def test_sharded_judging_equals_local_judging() -> None:
    dataset = _dataset()
    local = judge_dataset(dataset, LexicalJudge())
    sharded = judge_on_executor(dataset, LexicalJudge, FiveShards())
    assert _dump(sharded) == _dump(local)
    assert sharded.stats == local.stats
    assert sharded.stats.by_task == {"coverage": 34, "support": 39}


@pytest.mark.slow
def test_judging_on_ray_equals_local_judging() -> None:
    dataset = _dataset()
    local = judge_dataset(dataset, LexicalJudge())
    with RayExecutor(num_cpus=2) as engine:
        remote = judge_on_executor(dataset, LexicalJudge, engine)
    assert _dump(remote) == _dump(local)
    assert remote.stats == local.stats
