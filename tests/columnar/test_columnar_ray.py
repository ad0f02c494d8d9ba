"""The Ray engine gives byte-identical reports to the local engine."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ragtriage.columnar import evaluate_trec
from ragtriage.executors import LocalExecutor, RayExecutor
from ragtriage.formats import write_qrels, write_run
from ragtriage.render import dumps, trec_json


@pytest.mark.slow
def test_ray_engine_matches_local_engine(tmp_path: Path) -> None:
    rng = random.Random(11)
    qrels = {
        f"q{q}": {f"d{d}": rng.randint(0, 3) for d in rng.sample(range(300), 6)} for q in range(400)
    }
    run = {
        f"q{q}": [(f"d{d}", rng.random()) for d in rng.sample(range(300), 40)] for q in range(400)
    }
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    metrics = ["recall@10", "precision@5", "hit_rate@3", "mrr@10", "ndcg@10", "ap@40"]
    local = evaluate_trec(
        tmp_path / "q.txt", tmp_path / "r.txt", metrics=metrics, engine=LocalExecutor()
    )
    with RayExecutor(num_cpus=2) as engine:
        assert engine.shard_count(400) == 4  # really sharded: 2 CPUs x 2 shards each
        remote = evaluate_trec(
            tmp_path / "q.txt", tmp_path / "r.txt", metrics=metrics, engine=engine
        )
    ours, theirs = trec_json(local, per_question=True), trec_json(remote, per_question=True)
    assert (ours["options"]["engine"], theirs["options"]["engine"]) == ("local", "ray")
    ours["options"]["engine"] = theirs["options"]["engine"] = "any"
    assert dumps(ours) == dumps(theirs)
    assert ours["summary"]["recall@10"]["denominator"] == 400 - sum(
        1 for judged in qrels.values() if not any(g > 0 for g in judged.values())
    )
