"""Which runs `compare` and `gate` compare: the runs `--baseline` and `--candidate` name, by
name or by run file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import InputError, Problem, RequestError, option_problem
from ..paths import as_paths, file_suffix

if TYPE_CHECKING:
    from ..evaluation import Evaluation


def _file_key(path: str) -> str:
    """A run file as `pick_runs` matches it: one file however it is spelled (its real path;
    a file of the package by its name in reports, as its run records it)."""
    from ..loading import display_path

    shown = display_path(path)
    return shown if shown.startswith("ragtriage:") else os.path.realpath(shown)


def _not_a_run(value: str) -> str:
    """What a --baseline/--candidate value that names no loaded run is, in words."""
    path = as_paths(value)[0]
    if file_suffix(path) not in (".json", ".jsonl") and "/" not in value:
        return repr(value)
    if not path.exists():
        return f"{value!r}, a file that does not exist"
    return f"{value!r}, a file not loaded with --run (add --run {value})"


def pick_runs(
    evaluation: Evaluation,
    baseline: str | None,
    candidates: Sequence[str],
    *,
    gated: bool = False,
) -> list[str]:
    """Run names in comparison order: the baseline first, then the candidates.

    A name may also be a run file given with `--run`. Without `baseline`, the first loaded
    run is the baseline (for `gated`: there is none). Without candidates, every other run is
    one; `gated` then needs exactly one.
    """
    files = {_file_key(run.file): run.name for run in evaluation.runs if run.file}
    loaded_names = [run.name for run in evaluation.runs]
    known = ", ".join(loaded_names) or "none"
    problems: list[Problem] = []

    def resolve(option: str, value: str) -> str:
        if not isinstance(value, str):
            raise RequestError(
                f"{option}: expected a run name or a run file (a str); "
                f"found {type(value).__name__} {value!r}"
            )
        name = files.get(_file_key(value), value) if value not in loaded_names else value
        if name not in loaded_names:
            problems.append(
                option_problem(option, f"the name of a loaded run ({known})", _not_a_run(value))
            )
        return name

    base = None if baseline is None else resolve("--baseline", baseline)
    chosen = [resolve("--candidate", c) for c in candidates]
    for at, name in enumerate(chosen):
        # a run compared with itself (by name or by its file) says nothing
        if name == base:
            expected = f"a run other than the --baseline ({base})"
            problems.append(option_problem("--candidate", expected, repr(name)))
        elif name in chosen[:at]:
            expected = "each run once"
            found = f"{name!r} again"
            problems.append(option_problem("--candidate", expected, found))
    if problems:
        raise InputError(problems)
    if base is None and not gated:
        base = loaded_names[0] if loaded_names else None
    if not chosen:
        chosen = [n for n in loaded_names if n != base]
        if gated and len(chosen) != 1:
            raise RequestError(f"give --candidate NAME: the run to gate (loaded runs: {known})")
    return [*([] if base is None else [base]), *chosen]
