"""Ctrl-C (SIGINT) during a command: status 130 as a shell reports it, no traceback from the
command or its forked workers, and no output file (outputs are written whole or not at all)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragtriage
from ragtriage.cli import evaluate as evaluate_module
from ragtriage.cli.main import cli

SRC = Path(ragtriage.__file__).parents[1]


def test_an_interrupted_command_ends_with_130_not_a_failed_gates_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: click's "Aborted!" and status 1, which `gate` uses for a failed gate.
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate_module, "evaluate_request", interrupted)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["evaluate", "--example", "--format", "json", "-o", str(out)])
    assert (result.exit_code, result.stdout, result.stderr) == (
        130, "", "\nAborted: interrupted (SIGINT).\n"
    )
    assert list(tmp_path.iterdir()) == []


WORKERS = """
import os, signal
from ragtriage.executors import alongside

# As from a terminal (a process started in the background inherits SIGINT ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
HERE = os.getpid()

def work(n):
    if os.getpid() != HERE:  # in the forked workers: as Ctrl-C reaches the whole group
        os.kill(os.getpid(), signal.SIGINT)
    return n * 10

print(alongside(work, [(1,), (2,), (3,)]))
"""


def test_a_forked_worker_leaves_ctrl_c_to_the_command() -> None:
    # Before: each worker printed a KeyboardInterrupt traceback and died, and the pool
    # waited for its result forever.
    done = subprocess.run(
        [sys.executable, "-c", WORKERS], capture_output=True, text=True, timeout=30,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "[10, 20, 30]\n", "")
