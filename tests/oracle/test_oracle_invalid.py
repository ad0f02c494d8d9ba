"""A dataset with one corrupted field is refused alike, its files read by the loader or by
the file reader: the same problems named."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from loader_path import READERS, invoke
from ragtriage.errors import InputError, Problem

from .engines import Files, run_by_file_reader, run_by_loader, write_files
from .more_mutations import MORE_MUTATIONS, two_problems
from .mutations import MUTATIONS, Mutation
from .strategies import Generated, datasets

OPTIONS: dict[str, Any] = {"k": None, "label_policy": "human-first", "allow_unreviewed": False,
                           "evidence_level": "auto"}


def refusals(files: Files) -> tuple[list[Problem] | None, list[Problem] | None]:
    """(loaded, read): the problems reported on the files read by the loader and by the file
    reader (None: scored)."""
    out: list[list[Problem] | None] = []
    for run in (lambda: run_by_loader(files, [], OPTIONS),
                lambda: run_by_file_reader(files, [], OPTIONS)):
        try:
            run()
        except InputError as refused:
            out.append(list(refused.problems))
        else:
            out.append(None)
    return out[0], out[1]


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.__name__)
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(g=datasets(), data=st.data(), jsonl=st.booleans())
def test_both_readers_refuse_alike(
    mutation: Mutation, g: Generated, data: st.DataObject, jsonl: bool
) -> None:
    mutation(g, cast(st.DrawFn, data.draw))
    with tempfile.TemporaryDirectory() as tmp:
        loaded, read = refusals(write_files(Path(tmp), g, jsonl))
    assert loaded is not None, "a corrupted dataset read by the loader was scored"
    assert read is not None, "a corrupted dataset read by the file reader was scored"
    assert set(read) == set(loaded)


def _refused_alike_on_the_command_line(files: Files) -> str:
    """`ragtriage evaluate` on the files by each reader: exit 2, no traceback, the same
    message; the message."""
    args = ["evaluate", str(files.evalset), "--snapshot", str(files.snapshot),
            *(a for run in files.runs for a in ("--run", str(run))), "--format", "json"]
    outputs = []
    for reader in READERS:
        result = invoke(reader, args)
        assert isinstance(result.exception, SystemExit), result.exception
        assert (result.exit_code, result.stdout) == (2, "")
        outputs.append(result.stderr)
    assert outputs[0] == outputs[1]
    return outputs[0]


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(g=datasets(), data=st.data(), jsonl=st.booleans(),
       mutation=st.sampled_from(MUTATIONS + MORE_MUTATIONS))
def test_every_mutation_is_refused_alike_on_the_command_line(
    g: Generated, data: st.DataObject, jsonl: bool, mutation: Mutation
) -> None:
    mutation(g, cast(st.DrawFn, data.draw))
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), g, jsonl)
        loaded, read = refusals(files)
        assert loaded is not None and read is not None
        assert set(read) == set(loaded)
        message = _refused_alike_on_the_command_line(files)
    if mutation is two_problems:  # all the problems, not the first
        assert len(loaded) >= 2
        assert "text: expected" in message and "latency_ms: expected" in message


@pytest.mark.slow
@pytest.mark.parametrize("mutation", MORE_MUTATIONS, ids=lambda m: m.__name__)
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(g=datasets(), data=st.data(), jsonl=st.booleans())
def test_more_mutations_are_refused_alike(
    mutation: Mutation, g: Generated, data: st.DataObject, jsonl: bool
) -> None:
    test_both_readers_refuse_alike.hypothesis.inner_test(mutation, g, data, jsonl)  # type: ignore[attr-defined]
