"""A dataset with one corrupted field is refused alike, its files read by the loader or by
the file reader: the same problems named."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ragtriage.errors import InputError, Problem

from .engines import Files, run_by_file_reader, run_by_loader, write_files
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
