"""Shared test fixtures: paths to the shared article fixture and the bundled example."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def article_fixture() -> Path:
    """The article's published fixture (schemaVersion 1)."""
    path = SHARED / "fixtures" / "article-fixture.json"
    if not path.is_file():  # the fixture is also vendored for machines without shared/
        path = ROOT / "tests" / "data" / "article-fixture.json"
    return path


@pytest.fixture(autouse=True)
def _terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Terminal tables laid out for 200 columns in every test, whatever terminal runs pytest
    (a test that pins another width sets COLUMNS itself)."""
    monkeypatch.setenv("COLUMNS", "200")
