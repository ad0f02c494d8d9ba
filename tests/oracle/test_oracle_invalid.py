"""Both algorithms refuse a dataset with one corrupted field, naming the same problems."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.errors import InputError, Problem

from .engines import Files, run_columnar, run_reference, write_files
from .mutations import MUTATIONS, Mutation
from .strategies import Generated, datasets

OPTIONS: dict[str, Any] = {"k": None, "label_policy": "human-first", "allow_unreviewed": False,
                           "evidence_level": "auto"}


def without_holdout(g: Generated) -> Generated:
    """Holdout questions moved to `regression`: the reference algorithm does not check
    holdout results at all (test_holdout_results_are_validated_alike)."""
    for q in g.evalset["questions"]:
        if q.get("split") == "holdout":
            q["split"] = "regression"
    return g


def refusals(files: Files) -> tuple[list[Problem] | None, list[Problem] | None]:
    """The problems each algorithm reports (None: it scored the input)."""
    out: list[list[Problem] | None] = []
    for run in (lambda: run_reference(files, [], OPTIONS),
                lambda: run_columnar(files, [], OPTIONS)):
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
def test_both_algorithms_refuse_alike(
    mutation: Mutation, g: Generated, data: st.DataObject, jsonl: bool
) -> None:
    mutation(without_holdout(g), cast(st.DrawFn, data.draw))
    with tempfile.TemporaryDirectory() as tmp:
        reference, columnar = refusals(write_files(Path(tmp), g, jsonl))
    assert reference is not None, "the reference algorithm scored a corrupted dataset"
    assert columnar is not None, "the columnar algorithm scored a corrupted dataset"
    assert set(columnar) == set(reference)
