"""Fixtures for the HTML report tests: the bundled example, a copy with hostile text, and one
headless Chromium per test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import ARGS, CHROMIUM, missing
from html_report_injection import write_injected

from ragtriage.columnar import load_and_evaluate
from ragtriage.evaluation import Evaluation
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


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium for the module (Debian's, driven by Playwright)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright (pip install -e '.[test]')")
    if not Path(CHROMIUM).exists():
        missing("/usr/bin/chromium (apt-get install chromium)")
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()
