"""Run the CLI in a child process with a hang guard, for inputs that could exhaust memory or time.

A child process keeps a runaway read from taking the test runner down with it; the timeout is
a guard against a hang, not a measurement (nothing asserts how long a run took).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
HANG_GUARD_SECONDS = 120


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`python -m ragtriage ARGS` with this checkout's code; output captured as text."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run(
        [sys.executable, "-m", "ragtriage", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )
