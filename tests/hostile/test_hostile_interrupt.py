"""Ctrl-C (SIGINT) during a command: status 130 as a shell reports it, no traceback from the
command or its forked workers, and no output file (outputs are written whole or not at all)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
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


def _full_pipe() -> tuple[int, int]:
    """A pipe whose buffer is full: a process writing to it waits until it is read."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(write, b"x" * 4096)
    os.set_blocking(write, True)
    return read, write


def test_sigterm_ends_the_command_with_143_and_leaves_no_partial_file(tmp_path: Path) -> None:
    # Before: no SIGTERM handler, so the process died where it was and left its temporary
    # file (.r.html.XXXX.partial) beside the output. Here the command waits at a known
    # point: its HTML page is written (not yet renamed) and its report to stdout waits on a
    # full pipe.
    read, write = _full_pipe()
    command = [sys.executable, "-m", "ragtriage", "evaluate", "--example", "--html", "r.html"]
    process = subprocess.Popen(
        command, stdout=write, stderr=subprocess.PIPE, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    os.close(write)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".r.html.*.partial")) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)  # the page written, the report waits on stdout
    process.send_signal(signal.SIGTERM)
    with os.fdopen(read, "rb") as stdout:  # the report goes on once read
        stdout.read()
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    assert (process.wait(timeout=30), stderr.splitlines()[-2:]) == (
        143, ["", "Aborted: terminated (SIGTERM)."]
    )
    assert list(tmp_path.iterdir()) == []


BUSY_WORKERS = """
import os, sys, time
from ragtriage.executors import alongside

HERE = os.getpid()

def work(n):
    if os.getpid() != HERE:  # a forked worker: says it started, then works a while
        open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
        time.sleep(5)
    else:
        time.sleep(60)
    return n

alongside(work, [(1,), (2,), (3,)])
"""


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_forked_workers_end_with_the_process_that_forked_them(
    tmp_path: Path, signum: int
) -> None:
    # Before: with the parent gone, each worker finished its task (5 s), then printed
    # `Process ForkPoolWorker-N: ... BrokenPipeError` (34 lines) to the caller's stderr.
    process = subprocess.Popen(
        [sys.executable, "-c", BUSY_WORKERS, str(tmp_path)], stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    started = time.monotonic()
    process.send_signal(signum)
    assert process.stderr is not None
    stderr = process.stderr.read()  # its end: when the workers, which share it, have ended
    assert (process.wait(timeout=30), stderr) == (-signum, b"")
    assert time.monotonic() - started < 3
