"""Evaluate, diagnose, compare, gate, report and trec-eval: one call per command."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from ..errors import (
    InputError,
    RequestError,
    check_keywords,
    flag_problems,
    option_problem,
    shortened,
)
from ..executors import ExecutorName
from ..paths import PathArg, as_names, as_path
from ..request import Notify, Request
from ..schemas import LabelPolicy
from ..validation import GATE_RESAMPLES_DEFAULT, PERMUTATIONS_DEFAULT, RESAMPLES_DEFAULT
from ._converting import check_some_run
from ._picking import pick_runs

if TYPE_CHECKING:
    from ..compare import Comparison
    from ..diagnosis import RunDiagnosis
    from ..evaluation import Evaluation, LevelChoice
    from ..gate import GateResult


def evaluate_files(
    dataset: PathArg | None = None,
    *,
    notify: Notify | None = None,
    **options: Unpack[RequestOptions],
) -> Evaluation:
    """`ragtriage evaluate DATASET ...`: the four layers per question and in aggregate."""
    request, _ = built("evaluate_files", dataset, options, RequestOptions)
    return evaluate_request(request, notify=notify)


def evaluate_request(request: Request, *, notify: Notify | None = None) -> Evaluation:
    """`evaluate_files` for an already built request."""
    return scored_runs(request, "evaluate", notify)


def scored_runs(
    request: Request, command: str, notify: Notify | None, metrics: list[str] | None = None
) -> Evaluation:
    """The request scored and shown; with no run loaded, refused (`check_some_run`) before
    its look at the holdout is recorded."""
    scored = request.score(command, notify, metrics=metrics)
    check_some_run(len(scored.evaluation.runs), command)
    return scored.shown()


def diagnose_files(
    dataset: PathArg | None = None,
    *,
    notify: Notify | None = None,
    **options: Unpack[DiagnoseOptions],
) -> tuple[RunDiagnosis, ...]:
    """`ragtriage diagnose DATASET ...`: the failing stage of every question of every run."""
    request, _ = built("diagnose_files", dataset, options, DiagnoseOptions)
    return diagnose_request(request, notify=notify)[1]


def diagnose_request(
    request: Request, *, notify: Notify | None = None
) -> tuple[Evaluation, tuple[RunDiagnosis, ...]]:
    """`diagnose_files` for a built request; also returns the evaluation diagnosed."""
    evaluation = scored_runs(request, "diagnose", notify, metrics=[])
    return evaluation, evaluation.diagnoses


@dataclass(frozen=True)
class ComparedRuns:
    """A comparison and the evaluation it was made from (the HTML report shows both)."""

    evaluation: Evaluation
    """The evaluation of every loaded run."""
    comparison: Comparison
    """The baseline against each candidate."""


class DiagnoseOptions(TypedDict, total=False):
    """The keywords every dataset-reading call takes besides DATASET (see `Request.build`),
    the keywords of `diagnose_files`; the others also take `metrics` (`RequestOptions`).

    Each is the command line's option name (`--label-policy` -> `label_policy`); a repeatable
    option takes a list under its plural name (`--run` -> `runs`, `--tag` -> `tags`).
    `ragtriage diagnose` has no `--metric` (a diagnosis reads no measure's value), so
    `diagnose_files(metrics=...)` is refused as any keyword it does not take.
    """

    snapshot: PathArg | None
    runs: Iterable[PathArg]
    labels: Iterable[PathArg]
    calibrations: Iterable[PathArg]
    versions: PathArg | None
    example: bool
    k: int | None
    label_policy: LabelPolicy
    allow_unreviewed: bool
    allow_missing: bool
    accept_self_labelling: bool
    evidence_level: LevelChoice
    tags: Iterable[str]
    splits: Iterable[str]
    stages: Iterable[str]
    ids: Iterable[str]
    include_holdout: bool
    who: str | None
    holdout_warn_after: int
    ledger: PathArg | None
    executor: ExecutorName
    ray_address: str | None


class RequestOptions(DiagnoseOptions, total=False):
    """The keywords of `evaluate_files` and `report_html`: the dataset options and `metrics`
    (`--metric`, repeatable), the measures to report."""

    metrics: Iterable[str]


class CompareOptions(RequestOptions, total=False):
    """The keywords of `compare_files`: the dataset options and those of `compare_request`."""

    baseline: str | None
    candidates: Iterable[str]
    seed: int
    resamples: int
    permutations: int
    allow_different_snapshot: bool
    no_grouping: bool


class GateOptions(RequestOptions, total=False):
    """The keywords of `gate_files`: the dataset options and those of `gate_request`."""

    policy: PathArg | None
    candidate: str | None
    baseline: str | None
    seed: int
    resamples: int


def built(
    function: str, dataset: PathArg | None, options: Mapping[str, Any], keywords: type[Any]
) -> tuple[Request, dict[str, Any]]:
    """The request of `options`' dataset options, and the command's own options; `options`
    are `function`'s keywords, refused as Python refuses them unless `keywords` (their
    `TypedDict`) has them."""
    check_keywords(function, options, keywords)
    own = {
        key: value for key, value in options.items() if key not in RequestOptions.__annotations__
    }
    return Request.build(dataset, **{k: options[k] for k in options.keys() - own}), own


def compare_files(
    dataset: PathArg | None = None,
    *,
    notify: Notify | None = None,
    **options: Unpack[CompareOptions],
) -> Comparison:
    """`ragtriage compare DATASET --run A --run B ...`: runs compared question by question.

    The baseline is `baseline` (a run name) or the first run loaded; the candidates are
    `candidates` or every other run.
    """
    request, own = built("compare_files", dataset, options, CompareOptions)
    return compare_request(request, notify=notify, **own).comparison


def compare_request(
    request: Request,
    *,
    baseline: str | None = None,
    candidates: Iterable[str] = (),
    seed: int = 0,
    resamples: int = RESAMPLES_DEFAULT,
    permutations: int = PERMUTATIONS_DEFAULT,
    allow_different_snapshot: bool = False,
    no_grouping: bool = False,
    notify: Notify | None = None,
) -> ComparedRuns:
    """`compare_files` for a built request; also returns the evaluation compared."""
    from ..compare import check_numbers, compare

    # The look at the holdout is recorded once the runs are picked and compared: a refused
    # comparison records none.
    check_numbers(seed, resamples, permutations)  # a usage error, as the command line's
    chosen = list(as_names(candidates, "candidates"))  # one name is one run, not its characters
    problems = flag_problems(
        ("--allow-different-snapshot", allow_different_snapshot), ("--no-grouping", no_grouping)
    )
    if problems := [*problems, *request.option_problems()]:
        raise InputError(problems)
    scored = request.score("compare", notify)
    evaluation = scored.evaluation
    names = pick_runs(evaluation, baseline, chosen)
    comparison = compare(
        evaluation,
        names,
        seed=seed,
        resamples=resamples,
        permutations=permutations,
        allow_missing=request.allow_missing,
        allow_different_snapshot=allow_different_snapshot,
        group=not no_grouping,
    )
    return ComparedRuns(scored.shown(), comparison)


def gate_files(
    dataset: PathArg | None = None,
    *,
    notify: Notify | None = None,
    **options: Unpack[GateOptions],
) -> GateResult:
    """`ragtriage gate DATASET --policy POLICY ...`: a run checked against a release policy.

    The gated run is `candidate`, or the only loaded run that is not the baseline. Without
    `policy`, `example=True` uses the example's policy. `result.passed` is the verdict.
    """
    request, own = built("gate_files", dataset, options, GateOptions)
    return gate_request(request, notify=notify, **own)


def gate_request(
    request: Request,
    *,
    policy: PathArg | None = None,
    candidate: str | None = None,
    baseline: str | None = None,
    seed: int = 0,
    resamples: int = GATE_RESAMPLES_DEFAULT,
    notify: Notify | None = None,
) -> GateResult:
    """`gate_files` for a built request."""
    from ..compare import check_numbers
    from ..gate import gate, load_policy
    from ..metrics import default_measures

    check_numbers(seed, resamples, PERMUTATIONS_DEFAULT)
    if policy is None:
        if not request.example:
            raise RequestError("give --policy (or --example for the example's policy)")
        from ..example import example_paths

        policy = example_paths().policy
    policy = as_path(policy, "policy")
    # The request's own files are refused as the ledger by `Request.score`; the policy is gate's.
    request.holdout.refuse_ledger_as_input([("--policy", policy)])
    wanted = [*(m.name for m in default_measures()), *request.metrics]
    try:
        loaded_policy = load_policy(policy)
    except InputError as refused:
        # The input's problems come with the policy's: its rules are not needed to find them.
        try:
            request.score("gate", lambda _: None, metrics=wanted)
        except InputError as exc:
            raise InputError([*refused.problems, *exc.problems]) from None
        raise
    # The look at the holdout is recorded once the gate has found its runs: a refused gate
    # records none.
    scored = request.score(
        "gate", notify, metrics=list(dict.fromkeys([*wanted, *loaded_policy.metrics()]))
    )
    evaluation = scored.evaluation
    check_some_run(len(evaluation.runs), "gate")  # --candidate cannot name a run not loaded
    names = pick_runs(evaluation, baseline, [] if candidate is None else [candidate], gated=True)
    result = gate(
        evaluation,
        loaded_policy,
        names[-1],
        baseline=names[0] if baseline is not None else None,
        seed=seed,
        resamples=resamples,
    )
    scored.shown()
    return result


def report_html(
    dataset: PathArg | None = None,
    *,
    title: str = "ragtriage report",
    notify: Notify | None = None,
    **options: Unpack[RequestOptions],
) -> str:
    """`ragtriage report DATASET ... --output FILE`: the self-contained HTML page, as text.

    The first run is the base that later runs are compared with.
    """
    request, _ = built("report_html", dataset, options, RequestOptions)
    return report_request(request, title=title, notify=notify)


def report_request(
    request: Request, *, title: str = "ragtriage report", notify: Notify | None = None
) -> str:
    """`report_html` for a built request."""
    _check_title(title)
    return report_page(scored_runs(request, "report", notify), title=title)


def report_page(
    evaluation: Evaluation,
    *,
    comparison: Comparison | None = None,
    title: str = "ragtriage report",
) -> str:
    """The HTML page of an evaluation (each run's diagnosis as the evaluation carries it).

    Without `comparison`, two or more runs are compared first run against the others
    (`ragtriage.compare.default_comparison`); the page shows the comparison it is given, which
    must be made from `evaluation` (`RequestError` otherwise, as `render_html` says).
    """
    from ..compare import default_comparison
    from ..render.html import render_html

    _check_title(title)
    if comparison is None:
        comparison = default_comparison(evaluation)
    return render_html(evaluation, comparison=comparison, title=title)


def _check_title(title: object) -> None:
    """Refuse a page title that is no str, as the command line's `--title` would."""
    if not isinstance(title, str):
        found = shortened(repr(title))
        raise InputError([option_problem("--title", "a page title (a str)", found)])
