"""How long `ragtriage --version` and `ragtriage --help` take (target: under 0.3 s).

Runs each in a fresh interpreter several times and prints the median and the best wall
time, plus the number of modules imported (from `python -X importtime`).

    python benchmarks/cli_start.py [--repeat 10] [--command ragtriage]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def _times(argv: list[str], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    """Time the start of the command; print one line per option."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument(
        "--command", default=None, help="The console script to time (default: python -m ragtriage)"
    )
    args = parser.parse_args()
    if args.command is not None:
        script = shutil.which(args.command)
        if script is None:
            raise SystemExit(f"no {args.command} on PATH")
        base = [script]
    else:
        base = [sys.executable, "-m", "ragtriage"]
    floor = _times([sys.executable, "-c", "pass"], args.repeat)
    print(f"python -c pass: median {statistics.median(floor):.3f} s, best {min(floor):.3f} s")
    for option in ("--version", "--help"):
        times = _times([*base, option], args.repeat)
        report = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "ragtriage", option],
            capture_output=True, text=True, check=True,
        )
        modules = sum(line.startswith("import time:") for line in report.stderr.splitlines()) - 1
        print(
            f"{' '.join(base[-1:])} {option}: median {statistics.median(times):.3f} s, "
            f"best {min(times):.3f} s, {modules} modules imported (target < 0.3 s)"
        )


if __name__ == "__main__":
    main()
