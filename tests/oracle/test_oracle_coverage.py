"""The oracle knows every registered measure and every diagnosis stage, and reuses the
columnar tests' generated datasets as a second source of inputs."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from types import ModuleType

from hypothesis import given, settings, strategies as st

from ragtriage.diagnosis import stage_order
from ragtriage.metrics import REGISTRY, default_measures

from . import evaluate_files
from .diagnosis import STAGES
from .engines import (
    Files,
    compare_readers,
    compare_with_oracle,
    run_by_file_reader,
    run_by_loader,
)
from .measures import MEASURES, measure_names
from .views import Detectors


def test_every_registered_measure_is_in_the_oracle() -> None:
    assert sorted(m.name for m in MEASURES) == sorted(REGISTRY)
    assert {m.name for m in MEASURES if m.ranked} == {
        name for name, spec in REGISTRY.items() if spec.params == ("k",)
    }
    assert {m.name: m.averaging for m in MEASURES} == {
        name: spec.averaging for name, spec in REGISTRY.items()
    }
    assert {m.name for m in MEASURES if m.cannot_judge} == {
        name for name, spec in REGISTRY.items() if spec.counts_cannot_judge
    }


def test_every_stage_is_in_the_oracle_in_pipeline_order() -> None:
    assert (*(name for name, _ in STAGES), "ok") == stage_order()


def _native_layers_data() -> ModuleType:
    path = Path(__file__).parents[1] / "columnar" / "native_layers_data.py"
    spec = importlib.util.spec_from_file_location("native_layers_data", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DATA = _native_layers_data()
OPTIONS = {"k": None, "label_policy": "human-first", "allow_unreviewed": False,
           "evidence_level": "auto"}
RANK_KS = (1, 2, 4)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), questions=st.integers(1, 10), exotic=st.booleans(),
       jsonl=st.booleans())
def test_oracle_on_the_columnar_tests_datasets(
    seed: int, questions: int, exotic: bool, jsonl: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        evalset, snapshot, run = DATA.write_dataset(Path(tmp), seed, questions, exotic=exotic,
                                                    jsonl=jsonl)
        files = Files(evalset, snapshot, [run], [])
        names = measure_names(RANK_KS)
        loaded = run_by_loader(files, names, OPTIONS)
        # Those datasets plant these instructions (some in disguise) and sensitive values.
        detectors = Detectors(
            instructions=tuple(DATA.INJECTIONS), sensitive=tuple(DATA.SENSITIVE_VALUES)
        )
        oracle = evaluate_files(evalset, snapshot, [run], rank_ks=RANK_KS, detectors=detectors)
        assert compare_with_oracle(oracle, loaded) == []
        assert compare_readers(run_by_file_reader(files, names, OPTIONS), loaded) == []
        default = run_by_file_reader(files, [], OPTIONS)  # the default set
        assert [m.name for m in default.measures] == [m.name for m in default_measures()]
