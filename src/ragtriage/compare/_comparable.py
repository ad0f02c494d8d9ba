"""Which runs `compare` may compare, and with which arguments: the runs named, on one snapshot
and question set unless allowed otherwise, and the statistics' arguments in their ranges."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InputError, Problem, RequestError, option_problem
from ..evaluation import Evaluation, RunEvaluation
from ..validation import LEVEL_RANGE, PERMUTATIONS_RANGE, RESAMPLES_RANGE, SEED_RANGE


def check_comparable(
    selected: Sequence[RunEvaluation],
    allow_missing: bool,
    allow_snapshot: bool | None,
) -> list[str]:
    """Refuse runs on a different snapshot or evaluation set unless allowed; return warnings.
    `allow_snapshot` None: no option allows runs on different snapshots (a gate's).

    Runs without a result for some questions never get here unless `allow_missing`: the
    evaluation refuses them."""
    base = selected[0]
    problems: list[Problem] = []
    warnings: list[str] = []
    for run in selected[1:]:
        file = run.file or run.name
        for field, allowed, option in (
            ("snapshot_id", allow_snapshot, "--allow-different-snapshot"),
            ("evalset_id", allow_missing, "--allow-missing"),
        ):
            want, got = getattr(base.provenance, field), getattr(run.provenance, field)
            if want == got:
                continue
            if allowed:
                warnings.append(
                    f"run {run.name!r} has {_said(field, got)}, base {base.name!r} has "
                    f"{_said(field, want, bare=True)} (allowed by {option})"
                )
            else:
                advice = "a gate compares runs of one snapshot" if allowed is None else (
                    f"or pass {option}"
                )
                want_text = _said(field, want, bare=True)
                expected = f"{want_text} as in base run {base.name!r} ({advice})"
                found = "none recorded" if got is None else repr(got)
                problems.append(Problem(file, None, f"provenance.{field}", expected, found))
    if problems:
        raise InputError(problems)
    return warnings


def _said(field: str, value: str | None, bare: bool = False) -> str:
    """A recorded condition in words: `snapshot_id 's1'` (`'s1'` when `bare`), or `no
    snapshot_id` when none is recorded."""
    if value is None:
        return f"no {field}"
    return repr(value) if bare else f"{field} {value!r}"


def check_arguments(
    evaluation: object, seed: object, resamples: object, permutations: object, level: object
) -> None:
    """Refuse arguments `compare` cannot use, naming each (the command line's options have
    the same ranges)."""
    if not isinstance(evaluation, Evaluation):
        raise RequestError(
            "evaluation: expected an Evaluation (ragtriage.evaluate or ragtriage.evaluate_files "
            f"makes one); found {type(evaluation).__name__}"
        )
    check_numbers(seed, resamples, permutations, level)


def check_numbers(
    seed: object, resamples: object, permutations: object, level: object = 0.95
) -> None:
    """Refuse the statistics' numbers `compare` cannot use, naming each (as `check_arguments`
    does; the API checks them before scoring, as the command line does)."""
    problems = [
        f"{name}: expected {bound.expected()}; found {value!r}"
        for name, value, bound in (
            ("seed", seed, SEED_RANGE),
            ("resamples", resamples, RESAMPLES_RANGE),
            ("permutations", permutations, PERMUTATIONS_RANGE),
            ("level", level, LEVEL_RANGE),
        )
        if value not in bound
    ]
    if problems:
        raise RequestError("; ".join(problems))


def select_runs(evaluation: Evaluation, names: Sequence[str] | None) -> tuple[RunEvaluation, ...]:
    """The named runs in the order given (all runs for None); unknown names raise InputError."""
    by_name = {run.name: run for run in evaluation.runs}
    if names is None:
        return evaluation.runs
    known = ", ".join(by_name) or "none"
    problems = [
        option_problem("RUNS", f"the name of a loaded run ({known})", repr(n))
        for n in names
        if n not in by_name
    ]
    if problems:
        raise InputError(problems)
    return tuple(by_name[n] for n in names)
