"""`ragtriage calibrate`: a judge's labels against human labels, under the holdout policy."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import InputError, check_callback, counted, flag_problems, range_problems
from ..holdout import DEFAULT_WARN_AFTER, Notice, holdout_ids
from ..paths import PathArg, as_paths
from ..validation import LEVEL_RANGE

if TYPE_CHECKING:
    from ..calibration import Calibration
    from ..request import Notify


def calibrate_labels(
    dataset: PathArg | None = None,
    *,
    judge_labels: Iterable[PathArg] | PathArg,
    human_labels: Iterable[PathArg] | PathArg = (),
    snapshot: PathArg | None = None,
    runs: Iterable[PathArg] | PathArg = (),
    confidence: float = 0.95,
    accept_self_labelling: bool = False,
    include_holdout: bool = False,
    who: str | None = None,
    holdout_warn_after: int = DEFAULT_WARN_AFTER,
    ledger: PathArg | None = None,
    notify: Notify | None = None,
) -> Calibration:
    """`ragtriage calibrate [DATASET] --judge-labels J --human-labels H`: a judge against humans.

    DATASET (optional) adds the human labels embedded in its runs (e.g. an article file), and
    its holdout questions' items are left out unless `include_holdout`, whose look is
    recorded once the calibration is made (as `export_trec_files` records it). With DATASET,
    the labels are those `evaluate` uses: stale ones are left out (and counted in a note), and
    judge labels made by a run's own generator are refused unless `accept_self_labelling`.
    """
    from ..calibration import calibrate_files
    from ..detectors import find_self_labelling, self_labelling_problems
    from ..request import Request, log_notice
    from ..validation import load_checked

    check_callback(notify, "notify")
    problems = range_problems(("--confidence", confidence, LEVEL_RANGE))
    problems += flag_problems(("--accept-self-labelling", accept_self_labelling))
    if problems:
        raise InputError(problems)  # before any file is read, as the command line refuses it
    judged = as_paths(judge_labels, "judge_labels")
    reviewed = as_paths(human_labels, "human_labels")
    request = Request.build(
        dataset, snapshot=snapshot, runs=as_paths(runs, "runs"), labels=[*judged, *reviewed],
        include_holdout=include_holdout, who=who, holdout_warn_after=holdout_warn_after,
        ledger=ledger,
    )
    request.holdout.check(dataset)
    request.holdout.refuse_ledger_as_input([
        ("DATASET", request.dataset), ("--snapshot", request.snapshot),
        *(("--run", p) for p in request.runs), *(("--judge-labels", p) for p in judged),
        *(("--human-labels", p) for p in reviewed),
    ])
    if dataset is None:
        return calibrate_files(judged, reviewed, confidence=confidence)
    # The label files name DATASET's runs, questions, claims and facts, checked as
    # `evaluate --labels` checks them. The runs then hold the human label files' labels too:
    # read again as embedded, each agrees with itself (`agreed_verdict`), so counts are kept.
    with request.holdout.checking_ledger(request.dataset):  # its problems with the input's
        loaded = load_checked(dataset, snapshot, request.runs, request.labels)
        if not accept_self_labelling:  # refused as `evaluate` refuses it (`input_problems`)
            found = find_self_labelling(loaded.runs)
            if problems := self_labelling_problems(found, loaded.label_file):
                raise InputError(problems)
    held = holdout_ids(loaded.evalset)
    calibration = calibrate_files(judged, reviewed, dataset=loaded, confidence=confidence,
                                  left_out=frozenset() if include_holdout else held)
    labelled = {r.question_id for run in loaded.runs for r in run.results
                if r.fact_labels or any(claim.labels for claim in r.claims or ())}
    names = [run.name for run in loaded.runs]
    notices = request.holdout_notices(len(held & labelled), "calibrate", names, "uses")
    if calibration.stale_labels:
        stale = counted(calibration.stale_labels, "stale label")
        text = f"{stale} not used: made against another context than the result's now"
        notices = (*notices, Notice("note", text))
    for notice in notices:
        (notify or log_notice)(notice)
    return calibration
