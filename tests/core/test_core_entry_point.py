"""The console-script entry point ends the process as `sys.exit` would, without the teardown."""

from __future__ import annotations

import errno
import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage import Evaluation, __version__

entry = importlib.import_module("ragtriage.cli.main")  # the package exports `main`, the function


class _Ended(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


def _os_exit(status: int) -> None:
    raise _Ended(status)


class _Handlers:
    ran = 0

    @classmethod
    def _run_exitfuncs(cls) -> None:
        cls.ran += 1


def test_main_runs_the_exit_handlers_then_ends_without_teardown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(entry.os, "_exit", _os_exit)
    monkeypatch.setattr(entry, "atexit", _Handlers)
    monkeypatch.setattr(entry.threading, "active_count", lambda: 1)
    monkeypatch.setattr(sys, "argv", ["ragtriage", "--version"])
    _Handlers.ran = 0
    with pytest.raises(_Ended) as ended:
        entry.main()
    assert ended.value.status == 0
    assert _Handlers.ran == 1
    assert capsys.readouterr().out == f"ragtriage, version {__version__}\n"
    monkeypatch.setattr(sys, "argv", ["ragtriage", "no-such-command"])
    with pytest.raises(_Ended) as ended:
        entry.main()
    assert ended.value.status == 2
    assert "Error: No such command 'no-such-command'." in capsys.readouterr().err


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
        timeout=60, check=False,
    )


def test_exit_handlers_run_and_the_output_is_flushed() -> None:
    done = _python("""
        import atexit, sys
        from ragtriage.cli.main import main
        atexit.register(lambda: print("handler ran"))
        sys.argv = ["ragtriage", "--version"]
        print("buffered", end="")
        main()
    """)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, f"bufferedragtriage, version {__version__}\nhandler ran\n", ""
    )


def _shut(args: str, closed: str) -> subprocess.CompletedProcess[bytes]:
    # Python sets sys.stdout (and sys.stderr) to None when its descriptor is closed at start
    return subprocess.run(
        f"{sys.executable} -m ragtriage {args} {closed}", shell=True, stderr=subprocess.PIPE,
        timeout=120, check=False,
    )


def test_a_command_started_without_stdout_or_stderr_ends_as_before(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert _shut("--version", "1>&-").returncode == 0
    assert _shut("--version", "1>&-").stderr == b""
    done = _shut(f"evaluate --example --format json --output {out}", "1>&-")
    assert (done.returncode, done.stderr) == (
        0,
        b"note: 2 holdout questions left out; --include-holdout scores them "
        b"(and records the look)\n",
    )
    assert out.read_text(encoding="utf-8").startswith("{\n")
    out.unlink()
    assert _shut(f"evaluate --example --format json --output {out}", "1>&- 2>&-").returncode == 0
    assert out.read_text(encoding="utf-8").startswith("{\n")


def test_a_message_ends_with_status_1_as_sys_exit_does() -> None:
    done = _python("""
        from ragtriage.cli.main import end
        end("stopped here")
    """)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "stopped here\n")


def test_a_running_thread_is_waited_for() -> None:
    done = _python("""
        import threading, time
        from ragtriage.cli.main import end
        def later():
            time.sleep(0.2)
            print("thread done", flush=True)
        threading.Thread(target=later).start()
        end(3)
    """)
    assert (done.returncode, done.stdout) == (3, "thread done\n")


def test_the_last_command_result_is_held_until_the_next(tmp_path: Path) -> None:
    # Held so that the entry point ends the process without freeing it (`held`).
    common = importlib.import_module("ragtriage.cli._common")
    out = tmp_path / "out.json"
    ran = CliRunner().invoke(entry.cli, ["evaluate", "--example", "--output", str(out)])
    assert ran.exit_code == 0, ran.output
    [result] = common._HELD
    assert isinstance(result, Evaluation)
    assert [len(run.questions) for run in result.runs] == [15, 15]
    ran = CliRunner().invoke(entry.cli, ["diagnose", "--example", "--output", str(out)])
    assert ran.exit_code == 0, ran.output
    [(evaluation, diagnoses)] = common._HELD
    assert isinstance(evaluation, Evaluation) and evaluation is not result
    assert diagnoses == evaluation.diagnoses


FIXTURE = Path(__file__).parents[1] / "data" / "article-fixture.json"


def test_a_full_stdout_is_one_line_and_status_2() -> None:
    # Before: a 45-line OSError traceback and status 1 (a failed gate's).
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "ragtriage", "evaluate", str(FIXTURE), "--format", "json"],
            stdout=full, stderr=subprocess.PIPE, timeout=120, check=False,
        )
    assert (done.returncode, done.stderr) == (
        2, b"Error: cannot write the report to standard output: no space left on the device\n"
    )


def test_a_reader_that_stops_ends_the_command_quietly_with_141() -> None:
    # Before: status 1 (click turns a broken pipe into 1, a failed gate's) for `| head`.
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the report is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ragtriage", "evaluate", str(FIXTURE), "--format", "json"],
            stdout=write, stderr=subprocess.PIPE, timeout=120, check=False,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, b"")


@pytest.mark.parametrize(
    ("args", "status"), [(["--example", "-o", "out.txt"], 0), (["nope.json"], 2)]
)
def test_a_full_stderr_leaves_the_report_and_the_status_as_they_are(
    tmp_path: Path, args: list[str], status: int
) -> None:
    # Before: the note (holdout left out) or the error that stderr refused ended the command
    # with a traceback (written nowhere) and status 1, a failed gate's, and no report.
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "ragtriage", "evaluate", *args], cwd=tmp_path,
            stdout=subprocess.PIPE, stderr=full, timeout=120, check=False,
        )
    assert (done.returncode, done.stdout) == (status, b"")
    assert (tmp_path / "out.txt").exists() == (status == 0)


SUMMARY_COMMANDS = [
    ["init", "starter"],
    ["judge", str(FIXTURE), "--judge", "lexical", "--no-progress", "-o", "labels"],
]
"""Commands whose main output is files, with a summary of them on stdout."""


@pytest.mark.parametrize("args", SUMMARY_COMMANDS)
def test_a_full_stdout_for_a_summary_is_one_line_and_status_2(
    tmp_path: Path, args: list[str]
) -> None:
    # Before: an OSError traceback and status 1 (a failed gate's), as for a report once.
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "ragtriage", *args], cwd=tmp_path,
            stdout=full, stderr=subprocess.PIPE, timeout=120, check=False,
        )
    assert (done.returncode, done.stderr.splitlines()[-1:]) == (
        2, [b"Error: cannot write the report to standard output: no space left on the device"]
    )
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("args", SUMMARY_COMMANDS)
def test_a_reader_that_stops_a_summary_ends_the_command_quietly_with_141(
    tmp_path: Path, args: list[str]
) -> None:
    # Before: status 1 (click turns a broken pipe into 1, a failed gate's), as for a report once.
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ragtriage", *args], cwd=tmp_path,
            stdout=write, stderr=subprocess.PIPE, timeout=120, check=False,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr.strip()) == (141, b"")


@pytest.mark.parametrize("args", ["evaluate --example", "schema run", "trec-eval q.txt r.txt"])
def test_a_report_for_a_closed_stdout_is_refused_before_the_work(args: str) -> None:
    # Before: click wrote the report nowhere and the command ended with status 0.
    done = _shut(args, "1>&-")
    assert (done.returncode, done.stderr) == (
        2, b"Error: cannot write the report: standard output is closed\n"
    )


def _chained(exc: BaseException, context: BaseException) -> BaseException:
    exc.__context__ = context
    return exc


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (MemoryError(), "out of memory: the command needs more than this process may use "
         "(ulimit -v)"),
        (RuntimeError("can't start new thread"),
         "out of memory: a thread could not start (ulimit -v, ulimit -u)"),
        (OSError(errno.EMFILE, "Too many open files"),
         "too many open files: this process may open no more (ulimit -n)"),
        (OSError(errno.ENFILE, "Too many open files in system"),
         "too many open files: the system may open no more (ulimit -n)"),
        # The pool's own error, raised while it handled the MemoryError of its result thread.
        (_chained(AssertionError("Cannot have cache"), MemoryError()),
         "out of memory: the command needs more than this process may use (ulimit -v)"),
        (RuntimeError("a bug"), None),
        (OSError(errno.ENOENT, "No such file or directory"), None),
        (_chained(KeyError("k"), ValueError("v")), None),
    ],
)
def test_only_running_out_of_memory_threads_or_files_is_named(
    exc: BaseException, said: str | None
) -> None:
    assert entry.ran_out(exc) == said


MEMORY_BOUND = """
import resource, sys
import numpy  # its start-up reserves depend on the machine: bounded after it
from ragtriage.api import evaluate_request
from ragtriage.cli import evaluate
from ragtriage.cli.main import main

with open("/proc/self/status", encoding="ascii") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
bound = size + int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (bound, bound))
sys.argv = ["ragtriage", *sys.argv[2:]]
main()
"""


@pytest.mark.parametrize("extra", [1 << 20, 10 << 20, 40 << 20])
def test_running_out_of_memory_is_one_line_status_2_and_no_file(
    tmp_path: Path, extra: int
) -> None:
    # Before: a 59-106 line traceback (MemoryError, numpy's, a thread that could not start)
    # and status 1, a failed gate's.
    (tmp_path / "r.json").write_text("old", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_BOUND, str(extra), "evaluate", "--example", "--format",
         "json", "-o", "r.json", "--html", "r.html"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(Path(entry.__file__).parents[2])},
    )
    lines = [line for line in done.stderr.splitlines() if not line.startswith("note: ")]
    assert done.returncode == 2
    assert len(lines) == 1
    assert lines[0] in {
        "Error: out of memory: the command needs more than this process may use (ulimit -v)",
        "Error: out of memory: a thread could not start (ulimit -v, ulimit -u)",
    }
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == "old"
