"""The result carries its diagnosis (and, where asked, its comparison); renderers only format.

`diagnose` and `diagnose_run` (a run diagnosed again from its views) send every question
through `diagnose_view`; the engine finds every run's failing stages once over its arrays
(`run_layers`) and explains each question with a failing stage through `diagnose_view`, once
(a question without one is ok with no view). Every comparison goes through `compare`.
Counting these while each command runs shows that a command explains each failing question of
each run exactly once and that no renderer diagnoses, compares or evaluates.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from click.testing import CliRunner

import ragtriage.compare
import ragtriage.compare._compare as compare_module
import ragtriage.diagnosis._diagnose as diagnose_module
import ragtriage.gate._gate as gate_module
from ragtriage import diagnose_files, evaluate_files
from ragtriage.cli.main import cli
from ragtriage.columnar import _engine_pass, _native_explain
from ragtriage.detectors import boundary_questions, run_boundaries
from ragtriage.diagnosis import OK, STAGES, detected_stages, diagnose, diagnose_run

SRC = Path(__file__).resolve().parents[2] / "src" / "ragtriage"

RENDERERS = (
    "ragtriage.render",
    "ragtriage.compare._comparison_json",
    "ragtriage.compare._comparison_render",
    "ragtriage.gate._verdict_render",
    "ragtriage.calibration._report",
)
"""Modules (and packages) that turn a result into text."""

COMPUTING = frozenset(
    {
        "diagnose",
        "diagnose_run",
        "diagnose_view",
        "compare",
        "default_comparison",
        "evaluate",
        "evaluate_selected",
        "evaluate_files",
        "evaluate_request",
        "load_and_evaluate",
        "run_boundaries",
        "boundary_questions",
        "check_permissions",
        "flag_context",
        "scan_view",
    }
)
"""Names a renderer must not import: each computes what the result already carries."""

EXAMPLE_QUESTIONS = 15
EXAMPLE_RUNS = 2
EXAMPLE_FAILING = 16
"""The example's questions, over both runs, with a failing stage (the others are ok)."""
EXAMPLE_ON_VIEWS = 4
"""Those of them with a stage that only a view explains (not in `INPUT_STAGES`): stale
evidence, a permission leak, an injection in the context (twice)."""


def _renderer_files() -> Iterator[Path]:
    for name in RENDERERS:
        parts = name.split(".")[1:]
        package = SRC.joinpath(*parts)
        if package.is_dir():
            yield from sorted(package.rglob("*.py"))
        else:
            yield package.with_suffix(".py")


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            names.update(alias.name for alias in node.names)
    return names


def test_no_renderer_imports_a_computation() -> None:
    files = list(_renderer_files())
    assert len(files) >= 13
    found = {
        str(path.relative_to(SRC)): sorted(_imported_names(path) & COMPUTING) for path in files
    }
    assert {path: names for path, names in found.items() if names} == {}


def test_the_boundary_section_renderers_only_format() -> None:
    # `evaluate` collects the section (`ragtriage.detectors.run_boundaries`); its two
    # renderers read the collected section and call nothing that computes.
    wanted = ("boundaries_json", "boundaries_lines")
    tree = ast.parse((SRC / "render" / "_boundaries.py").read_text(encoding="utf-8"))
    renderers = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted]
    assert [fn.name for fn in renderers] == list(wanted)
    used = {node.id for fn in renderers for node in ast.walk(fn) if isinstance(node, ast.Name)}
    assert "RunBoundaries" in used
    assert used & COMPUTING == set()


@dataclass
class Calls:
    """Diagnoses per question view and comparisons, and those made inside a renderer."""

    diagnosed: Counter[int] = field(default_factory=Counter)
    views: list[Any] = field(default_factory=list)
    on_views: int = 0
    layered: int = 0
    compared: int = 0
    in_renderers: list[str] = field(default_factory=list)


def _inside_renderer(frame: FrameType | None) -> str | None:
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if module.startswith(RENDERERS):
            return module
        frame = frame.f_back
    return None


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """Count `diagnose_view`, `explain_inputs` and `compare` calls for the length of one
    test."""
    counted = Calls()
    view_of = diagnose_module.diagnose_view
    inputs_of = _native_explain.explain_inputs
    layers_of = _engine_pass.run_layers
    compare_of = compare_module.compare

    def diagnose_view(view: Any, *stages: Any) -> Any:
        counted.views.append(view)  # kept alive: no later view can take its id
        counted.diagnosed[id(view)] += 1
        counted.on_views += 1
        where = _inside_renderer(sys._getframe(1))
        if where is not None:
            counted.in_renderers.append(f"diagnose_view in {where}")
        return view_of(view, *stages)

    def explain_inputs(inputs: Any, *args: Any) -> Any:
        counted.views.append(inputs)  # kept alive: no later row can take its id
        counted.diagnosed[id(inputs)] += 1
        where = _inside_renderer(sys._getframe(1))
        if where is not None:
            counted.in_renderers.append(f"explain_inputs in {where}")
        return inputs_of(inputs, *args)

    def run_layers(*args: Any) -> Any:
        counted.layered += 1
        where = _inside_renderer(sys._getframe(1))
        if where is not None:
            counted.in_renderers.append(f"run_layers in {where}")
        return layers_of(*args)

    def compare(*args: Any, **kwargs: Any) -> Any:
        counted.compared += 1
        where = _inside_renderer(sys._getframe(1))
        if where is not None:
            counted.in_renderers.append(f"compare in {where}")
        return compare_of(*args, **kwargs)

    monkeypatch.setattr(diagnose_module, "diagnose_view", diagnose_view)
    monkeypatch.setattr(_native_explain, "diagnose_view", diagnose_view)
    monkeypatch.setattr(_native_explain, "explain_inputs", explain_inputs)
    monkeypatch.setattr(_engine_pass, "run_layers", run_layers)
    monkeypatch.setattr(compare_module, "compare", compare)
    monkeypatch.setattr(ragtriage.compare, "compare", compare)
    monkeypatch.setattr(gate_module, "compare", compare)
    return counted


def _run(*args: str, exit_code: int = 0) -> None:
    outcome = CliRunner().invoke(cli, list(args))
    assert outcome.exit_code == exit_code, outcome.output


GATE = ("gate", "--example", "--candidate", "improved", "--junit", "{tmp}/gate.xml")
"""The example's gate with its JUnit file; against the baseline the improved run fails it."""


@pytest.mark.parametrize(
    ("args", "comparisons", "exit_code"),
    [
        (("evaluate", "--example", "--format", "table"), 0, 0),
        (("evaluate", "--example", "--format", "json"), 0, 0),
        (("evaluate", "--example", "--format", "markdown"), 0, 0),
        (("evaluate", "--example", "--format", "json", "--html", "{tmp}/page.html"), 1, 0),
        (("diagnose", "--example", "--format", "table"), 0, 0),
        (("diagnose", "--example", "--format", "json"), 0, 0),
        (("diagnose", "--example", "--format", "markdown"), 0, 0),
        (("report", "--example", "-o", "{tmp}/page.html"), 1, 0),
        (("compare", "--example", "--format", "table", "--html", "{tmp}/page.html"), 1, 0),
        ((*GATE, "--format", "json"), 0, 0),
        ((*GATE, "--baseline", "baseline", "--format", "markdown"), 1, 1),
    ],
)
def test_each_question_of_each_run_is_diagnosed_once_and_renderers_compute_nothing(
    args: tuple[str, ...], comparisons: int, exit_code: int, calls: Calls, tmp_path: Path
) -> None:
    _run(*(arg.format(tmp=tmp_path) for arg in args), exit_code=exit_code)
    assert calls.layered == EXAMPLE_RUNS
    assert sum(calls.diagnosed.values()) == EXAMPLE_RUNS * EXAMPLE_QUESTIONS
    assert calls.on_views == EXAMPLE_ON_VIEWS
    assert set(calls.diagnosed.values()) == {1}
    assert calls.compared == comparisons
    assert calls.in_renderers == []
    if args[0] == "gate":
        assert (tmp_path / "gate.xml").read_text(encoding="utf-8").startswith("<?xml")


def test_the_python_result_carries_the_diagnosis_and_boundaries(calls: Calls) -> None:
    evaluation = evaluate_files(example=True)
    assert calls.layered == EXAMPLE_RUNS
    assert sum(calls.diagnosed.values()) == EXAMPLE_RUNS * EXAMPLE_QUESTIONS
    assert calls.on_views == EXAMPLE_ON_VIEWS
    assert [run.diagnosis.run for run in evaluation.runs] == ["baseline", "improved"]
    verdicts = [q for run in evaluation.runs for q in run.diagnosis.questions]
    assert len(verdicts) == EXAMPLE_RUNS * EXAMPLE_QUESTIONS
    assert sum(q.primary != "ok" for q in verdicts) == EXAMPLE_FAILING
    assert evaluation.diagnoses == tuple(run.diagnosis for run in evaluation.runs)
    # Diagnosing again gives what the result carries.
    assert diagnose(evaluation) == evaluation.diagnoses
    assert diagnose_run(evaluation.runs[1]) == evaluation.runs[1].diagnosis
    assert [q.question_id for q in evaluation.runs[0].diagnosis.questions] == [
        r.question_id for r in evaluation.runs[0].questions
    ]
    for run in evaluation.runs:
        # The questions each check names, from the records' details in one part; the
        # permission section is the engine's (pinned in
        # tests/boundaries/test_boundaries_permissions.py).
        parts = [boundary_questions(
            [r.question_id for r in run.questions], [r.details for r in run.questions]
        )]
        assert run.boundaries == run_boundaries(
            parts, run.boundaries.permissions, run.self_labelled
        )
    assert diagnose_files(example=True) == evaluation.diagnoses


def test_the_arrays_detect_exactly_the_detected_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stage whose function only explains (`detected_stages`) has its detector over the
    arrays, and no detector is left without its stage."""
    found: list[set[str]] = []
    layers_of = _engine_pass.run_layers

    def run_layers(*args: Any) -> Any:
        scores, findings = layers_of(*args)
        found.append(set(findings))
        return scores, findings

    monkeypatch.setattr(_engine_pass, "run_layers", run_layers)
    evaluate_files(example=True)
    assert found and all(keys == set(detected_stages()) for keys in found)
    assert sorted(detected_stages()) == sorted(
        (*(stage for stage in STAGES if stage != OK), "injection_followed",
         "injection_in_context")
    )
