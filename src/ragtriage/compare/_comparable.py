"""Which runs `compare` may compare, and with which arguments: the runs named, on one snapshot
and question set unless allowed otherwise, and the statistics' arguments in their ranges; and
whether a comparison was made from an evaluation (the HTML page shows the two together)."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InputError, Problem, RequestError, option_problem
from ..evaluation import Evaluation, RunEvaluation
from ..validation import LEVEL_RANGE, PERMUTATIONS_RANGE, RESAMPLES_RANGE, SEED_RANGE
from ._comparison import Comparison


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


def check_made_from(comparison: object, evaluation: Evaluation) -> None:
    """Refuse a comparison not made from `evaluation` (a page showing both would mix two
    evaluations): it must be a `Comparison` of the evaluation's input files (by kind and
    content), of some of its runs, over its questions."""
    if not isinstance(comparison, Comparison):
        raise RequestError(
            "comparison: expected a Comparison (ragtriage.compare.compare or "
            f"ragtriage.compare_files makes one); found {type(comparison).__name__}"
        )
    mine = {(s.kind, s.sha256) for s in evaluation.sources}
    runs = {run.name: run for run in evaluation.runs}
    names = [name for group in comparison.groups for name in group.runs]
    found = []
    if other := [s.path for s in comparison.sources if (s.kind, s.sha256) not in mine]:
        found.append(f"input files the evaluation did not read ({', '.join(other)})")
    if lacking := [name for name in names if name not in runs]:
        found.append(f"runs it lacks ({', '.join(map(repr, lacking))})")
    else:
        base = runs[names[0]]
        ids = {q.question_id for q in base.questions} | set(base.no_result)
        if comparison.questions != len(ids) or not _question_ids(comparison) <= ids:
            counts = f"{comparison.questions}; the evaluation has {len(ids)}"
            found.append(f"other questions ({counts})")
    if found:
        raise RequestError(
            "comparison: expected one made from this evaluation, of its runs "
            f"({', '.join(runs) or 'none'}; ragtriage.compare.compare(evaluation) makes one); "
            f"found one of {', '.join(found)}"
        )


def _question_ids(comparison: Comparison) -> set[str]:
    """The IDs of the questions a comparison names: compared, or without a result."""
    return {
        qid
        for pair in comparison.pairs
        for qid in (
            *(q.question_id for q in pair.questions),
            *pair.base_no_result,
            *pair.candidate_no_result,
        )
    }
