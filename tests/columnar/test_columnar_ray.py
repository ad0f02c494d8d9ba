"""The Ray executor gives byte-identical reports to the local one."""

from __future__ import annotations

import random
import signal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from native_layers_data import write_dataset

from ragtriage.cli.main import cli
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
        tmp_path / "q.txt", tmp_path / "r.txt", metrics=metrics, executor=LocalExecutor()
    )
    with RayExecutor(num_cpus=2) as engine:
        assert engine.shard_count(400) == 4  # really sharded: 2 CPUs x 2 shards each
        remote = evaluate_trec(
            tmp_path / "q.txt", tmp_path / "r.txt", metrics=metrics, executor=engine
        )
    ours, theirs = trec_json(local, per_question=True), trec_json(remote, per_question=True)
    assert dumps(ours) == dumps(theirs)
    assert ours["summary"]["recall@10"]["denominator"] == 400 - sum(
        1 for judged in qrels.values() if not any(g > 0 for g in judged.values())
    )


@pytest.mark.slow
def test_evaluate_and_diagnose_on_ray_are_byte_identical_to_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, 3, 60)
    files = [str(evalset), "--snapshot", str(snapshot), "--run", str(run)]
    mapped: list[int] = []
    ray_map = RayExecutor.map

    def counted(self: RayExecutor, func: Any, inputs: Any) -> Any:
        mapped.append(len(inputs))
        return ray_map(self, func, inputs)

    monkeypatch.setattr(RayExecutor, "map", counted)
    for command in ("evaluate", "diagnose"):
        for fmt in ("json", "markdown"):
            args = [command, *files, "--format", fmt, "--include-holdout"]
            local = CliRunner().invoke(cli, args)
            assert local.exit_code == 0, local.output
            before = len(mapped)
            remote = CliRunner().invoke(cli, [*args, "--executor", "ray"])
            assert remote.exit_code == 0, remote.output
            assert remote.stdout == local.stdout
            # The evaluation set and the run were each read in parts by Ray's workers.
            assert len(mapped) == before + 2 and min(mapped[before:]) > 1


@pytest.mark.slow
def test_a_private_ray_is_started_whatever_ray_address_the_environment_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without --ray-address ragtriage starts its own Ray (docs/scale.md), also where
    # RAY_ADDRESS is set, as on a cluster's nodes; before, Ray joined the address it names
    # (or raised a traceback on one it cannot use).
    evalset, snapshot, run = write_dataset(tmp_path, 3, 20)
    args = ["evaluate", str(evalset), "--snapshot", str(snapshot), "--run", str(run),
            "--format", "json", "--include-holdout"]
    local = CliRunner().invoke(cli, args)
    assert local.exit_code == 0, local.output
    monkeypatch.setenv("RAY_ADDRESS", "garbage")
    remote = CliRunner().invoke(cli, [*args, "--executor", "ray"])
    assert (remote.exit_code, remote.stdout) == (0, local.stdout)


@pytest.mark.slow
def test_starting_ray_keeps_the_callers_sigterm_handler() -> None:
    # Ray's driver installs its own SIGTERM handler on `ray.init`: a `timeout` or CI cancel
    # then ended the command with status 134 and a stack dump, its Ray session folder left in
    # the temporary directory, instead of "Aborted: terminated (SIGTERM)." and 143.
    def handler(signum: int, frame: object) -> None:
        raise AssertionError("not called")

    before = signal.signal(signal.SIGTERM, handler)
    try:
        with RayExecutor(num_cpus=2) as engine:
            assert engine.shard_count(10) == 4
            assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, before)
