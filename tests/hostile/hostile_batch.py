"""Run many CLI invocations in one child process, each under a time bound, the child under a
memory bound.

One child per batch keeps the suite fast (the CLI starts once, not once per case) while a
hang (a read that never ends) or a runaway allocation still cannot take the test runner down:
every case runs under `signal.alarm`, and the child's address space is capped with
`RLIMIT_AS` (set once the CLI and its compiled libraries are loaded), so a read that tried to
hold a whole hostile file would fail with MemoryError, which the case reports instead of an
exit status. The whole child also has a wall-clock
guard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
CASE_SECONDS = 20
"""Time bound of one case (a guard against a hang; the cases take well under a second)."""
MEMORY_BYTES = 3 * 1024**3
"""Address space a case may add to the child's start-up (the CLI, numpy and pyarrow loaded:
how much those reserve depends on the machine's CPU count, so the bound is set after them)."""

_CHILD = """
import json, resource, signal, sys
from click.testing import CliRunner
from ragtriage.cli.main import cli
from importlib.util import find_spec
import numpy  # the compiled parts load before the bound: their start-up is not a case
if find_spec("pyarrow") is not None:
    import pyarrow, pyarrow.compute, pyarrow.csv, pyarrow.parquet

def address_space():
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")

bound = address_space() + MEMORY_BYTES
resource.setrlimit(resource.RLIMIT_AS, (bound, bound))

class Hang(Exception):
    pass

def alarm(signum, frame):
    raise Hang()

signal.signal(signal.SIGALRM, alarm)
out = []
for args in json.loads(sys.stdin.read()):
    signal.alarm(CASE_SECONDS)
    try:
        result = CliRunner().invoke(cli, args, catch_exceptions=True)
    finally:
        signal.alarm(0)
    exc = result.exception
    if isinstance(exc, Hang):
        out.append({"code": "timeout", "stderr": ""})
    elif exc is not None and not isinstance(exc, SystemExit):
        out.append({"code": "exception", "stderr": repr(exc)})
    else:
        out.append({"code": result.exit_code, "stderr": result.stderr})
print(json.dumps(out))
""".replace("CASE_SECONDS", str(CASE_SECONDS)).replace("MEMORY_BYTES", str(MEMORY_BYTES))


@dataclass(frozen=True)
class Outcome:
    """How one invocation ended: exit status (or `timeout`/`exception`) and its stderr."""

    code: int | str
    stderr: str


def run_batch(cases: list[list[str]], cwd: Path) -> list[Outcome]:
    """Run every case (CLI arguments) in one child process, in order."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    child = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=CASE_SECONDS * len(cases) + 60,
        check=False,
    )
    if child.returncode != 0:
        raise RuntimeError(f"the batch child failed: {child.stderr[-2000:]}")
    return [Outcome(item["code"], item["stderr"]) for item in json.loads(child.stdout)]
