"""Judge calls on an executor: the questions of a dataset are sharded, each shard is judged by
its own judge (made on the worker by a picklable factory), and the shards' labels are joined
back in question order.

Every label depends only on its own question's answer and context, and each judge is
deterministic for a given spec and cache, so the result equals one local `judge_dataset`
call; call statistics are summed. With a Ray executor, judge calls run on the cluster's
workers — point the factory at an endpoint the workers can reach.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import partial

from ..executors import Executor, shard_bounds
from ..loading import Dataset
from ..schemas import LabelSet, Run
from ._llm import Judge
from ._runner import JudgedRun, JudgeResult, check_judgeable, judge_dataset
from ._spec import CALL_COUNTS, CallStats

JudgeFactory = Callable[[], Judge]
"""Builds a judge where the shard runs (a client cannot travel between processes)."""


def _judge_shard(factory: JudgeFactory, k: int | None, shard: Dataset) -> JudgeResult:
    return judge_dataset(shard, factory(), k=k)


def _shard(dataset: Dataset, question_ids: Sequence[str]) -> Dataset:
    wanted = set(question_ids)
    evalset = dataset.evalset.model_copy(
        update={"questions": [q for q in dataset.evalset.questions if q.id in wanted]}
    )
    runs = tuple(
        run.model_copy(update={"results": [r for r in run.results if r.question_id in wanted]})
        for run in dataset.runs
    )
    return dataclasses.replace(dataset, evalset=evalset, runs=runs)


def _sum_stats(parts: Sequence[CallStats]) -> CallStats:
    by_task: dict[str, int] = {}
    for part in parts:
        for task, count in part.by_task.items():
            by_task[task] = by_task.get(task, 0) + count
    costs = [p.cost_usd for p in parts if p.cost_usd is not None]
    return CallStats(
        **{name: sum(getattr(p, name) for p in parts) for name in CALL_COUNTS},
        cost_usd=sum(costs) if costs else None,
        by_task=dict(sorted(by_task.items())),
    )


def _join_run(dataset_run: Run, parts: Sequence[JudgedRun]) -> JudgedRun:
    labels = LabelSet(
        run=dataset_run.name,
        claim_labels=[e for p in parts for e in p.labels.claim_labels],
        fact_labels=[e for p in parts for e in p.labels.fact_labels],
    )
    changed = [p.run for p in parts if p.run is not None]
    new_run = None
    if changed:
        provenance = changed[0].provenance
        results = [r for p in parts for r in (p.run.results if p.run else ())]
        by_id = {r.question_id: r for r in results}
        new_run = Run(
            name=dataset_run.name,
            provenance=provenance,
            results=[by_id.get(r.question_id, r) for r in dataset_run.results],
        )
    notes = tuple(n for p in parts for n in p.notes)
    return JudgedRun(dataset_run.name, labels, new_run, notes)


def judge_on_executor(
    dataset: Dataset, factory: JudgeFactory, executor: Executor, *, k: int | None = None
) -> JudgeResult:
    """Judge every answered result of every run, sharded by question over `executor`."""
    check_judgeable(dataset, dataset.cutoffs(k))  # every problem, before any call
    ids = [q.id for q in dataset.evalset.questions]
    bounds = shard_bounds(len(ids), executor.shard_count(len(ids)))
    shards = [_shard(dataset, ids[lo:hi]) for lo, hi in bounds]
    parts = executor.map(partial(_judge_shard, factory, k), shards)
    runs = tuple(
        _join_run(run, [part.runs[i] for part in parts]) for i, run in enumerate(dataset.runs)
    )
    return JudgeResult(parts[0].spec, runs, _sum_stats([p.stats for p in parts]))
