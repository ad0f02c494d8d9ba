"""Debian's Chromium for the browser tests: where it is and how it is started."""

from __future__ import annotations

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def missing(what: str) -> None:
    """Skip on a developer's machine; fail in CI, which installs everything."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI needs {what}")
    pytest.skip(f"needs {what}")
