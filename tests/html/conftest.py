"""Fixtures for the HTML report tests: the bundled example and a copy with hostile text."""

from __future__ import annotations

from pathlib import Path

import pytest
from html_report_injection import write_injected

from ragtriage.evaluation import Evaluation, load_and_evaluate
from ragtriage.example import example_paths


@pytest.fixture(scope="session")
def example_evaluation() -> Evaluation:
    """The bundled example, evaluated with its defaults."""
    paths = example_paths()
    return load_and_evaluate(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)


@pytest.fixture(scope="session")
def injected_evaluation(tmp_path_factory: pytest.TempPathFactory) -> Evaluation:
    """The example with markup planted in documents, answers, claims, questions, tags and IDs."""
    evalset, snapshot, runs = write_injected(tmp_path_factory.mktemp("injected"))
    return load_and_evaluate(evalset, snapshot=snapshot, runs=runs)


@pytest.fixture(scope="session")
def output_dir() -> Path:
    """Where screenshots go (`test-output/html/` at the repository root; gitignored)."""
    path = Path(__file__).resolve().parents[2] / "test-output" / "html"
    path.mkdir(parents=True, exist_ok=True)
    return path
