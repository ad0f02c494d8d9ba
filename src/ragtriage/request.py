"""The request: what to load and how to score it, shared by the Python API and every command.

A `Request` holds the paths (evaluation set, snapshot, runs, labels, calibration records,
versions file, or the bundled example) and the scoring policy (k, measures, label policy,
evidence level, question filters, and the holdout split with its ledger). `ragtriage evaluate`
and `ragtriage.evaluate_files(...)` build the same request from the same words, so both score
the same questions: the holdout is left out unless asked for, and every look at it is recorded.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from .errors import (
    InputError,
    Problem,
    RequestError,
    check_callback,
    choice_problems,
    flag_problems,
    problems_of,
)
from .executors import ExecutorName, check_ray_address
from .filters import QuestionSelection
from .holdout import DEFAULT_WARN_AFTER, HoldoutPolicy, Notice, ledger_path
from .paths import PathArg, as_names, as_optional_path, as_paths, repeated_files
from .schemas import LabelPolicy

if TYPE_CHECKING:
    from .evaluation import Evaluation, IdsCheck, LevelChoice, QuestionFilter

Notify = Callable[[Notice], None]
"""Where a request's notes and warnings go (the command line prints them on stderr)."""

MISSING_DATASET = "give DATASET or --example"
"""The message when neither an evaluation set nor the example was asked for."""

_LOG = logging.getLogger("ragtriage")


def log_notice(notice: Notice) -> None:
    """The default `Notify` of the Python API: notes as INFO, warnings as WARNING logs."""
    _LOG.log(logging.WARNING if notice.level == "warning" else logging.INFO, str(notice))


@dataclass(frozen=True)
class RequestFiles:
    """The files a request reads, after `--example` has put the example's files in place."""

    dataset: Path
    """Evaluation set or article-format file."""
    snapshot: Path | None
    """Snapshot file (native evaluation sets)."""
    runs: tuple[Path, ...]
    """Run files, in order (the example's first)."""


@dataclass(frozen=True)
class Request:
    """What to load and how to score it. Build it with `Request.build(...)` (str paths welcome)."""

    dataset: Path | None = None
    """Evaluation set or article-format file (None: only with `example`)."""
    snapshot: Path | None = None
    """Snapshot file for a native evaluation set."""
    runs: tuple[Path, ...] = ()
    """Run files (JSON or JSONL)."""
    labels: tuple[Path, ...] = ()
    """Label files."""
    calibrations: tuple[Path, ...] = ()
    """Calibration records (`ragtriage calibrate --record`) for judge-labelled measures."""
    versions: Path | None = None
    """Document versions file (for corpora without them, e.g. the article format)."""
    example: bool = False
    """Use the bundled example: its evaluation set and snapshot, its runs first."""
    k: int | None = None
    """Cut-off of the final ranking (the context when a run records none)."""
    metrics: tuple[str, ...] = ()
    """Measures to report (empty: the standard set)."""
    label_policy: LabelPolicy = "human-first"
    """Which labels count."""
    allow_unreviewed: bool = False
    """Score unreviewed answers as not applicable instead of refusing the input."""
    allow_missing: bool = False
    """Accept runs without a result for some questions: listed as no result, never scored."""
    accept_self_labelling: bool = False
    """Use judge labels made by the run's own generator."""
    evidence_level: LevelChoice = "auto"
    """How retrieved IDs are matched to required evidence."""
    selection: QuestionSelection = field(default_factory=QuestionSelection)
    """The question filters."""
    holdout: HoldoutPolicy = field(default_factory=HoldoutPolicy)
    """The holdout split: left out, or scored with the look recorded."""
    executor: ExecutorName = "local"
    """Where the large files of a native set are read apart: forked workers of this machine
    (`local`), or the workers of a Ray cluster (`ray`). The report is the same."""
    ray_address: str | None = None
    """The Ray cluster to join (with `executor="ray"`; None: a private local Ray)."""

    @classmethod
    def build(
        cls,
        dataset: PathArg | None = None,
        *,
        snapshot: PathArg | None = None,
        runs: Iterable[PathArg] = (),
        labels: Iterable[PathArg] = (),
        calibrations: Iterable[PathArg] = (),
        versions: PathArg | None = None,
        example: bool = False,
        k: int | None = None,
        metrics: Iterable[str] = (),
        label_policy: LabelPolicy = "human-first",
        allow_unreviewed: bool = False,
        allow_missing: bool = False,
        accept_self_labelling: bool = False,
        evidence_level: LevelChoice = "auto",
        tags: Iterable[str] = (),
        splits: Iterable[str] = (),
        stages: Iterable[str] = (),
        ids: Iterable[str] = (),
        include_holdout: bool = False,
        who: str | None = None,
        holdout_warn_after: int = DEFAULT_WARN_AFTER,
        ledger: PathArg | None = None,
        executor: ExecutorName = "local",
        ray_address: str | None = None,
    ) -> Request:
        """A request from the command line's words (each keyword is the option's name)."""
        selection, refused = QuestionSelection.parted(tags, splits, stages, ids)
        request = cls(
            dataset=as_optional_path(dataset, "dataset"),
            snapshot=as_optional_path(snapshot, "snapshot"),
            runs=as_paths(runs, "runs"),
            labels=as_paths(labels, "labels"),
            calibrations=as_paths(calibrations, "calibrations"),
            versions=as_optional_path(versions, "versions"),
            example=example,
            k=k,
            metrics=as_names(metrics, "metrics"),
            label_policy=label_policy,
            allow_unreviewed=allow_unreviewed,
            allow_missing=allow_missing,
            accept_self_labelling=accept_self_labelling,
            evidence_level=evidence_level,
            selection=selection,
            holdout=HoldoutPolicy(
                include=include_holdout,
                who=who,
                warn_after=holdout_warn_after,
                ledger=as_optional_path(ledger, "ledger"),
            ),
            executor=executor,
            ray_address=ray_address,
        )
        if refused:  # a bad tag or split is refused with every other option's problem
            raise InputError([*refused, *request.option_problems()])
        return request

    @property
    def metric_names(self) -> list[str] | None:
        """The measures as `evaluate` takes them (None: the standard set)."""
        return list(self.metrics) or None

    def files(self) -> RequestFiles:
        """The files to read; with `example`, the example's dataset and snapshot (a dataset
        or snapshot given with it is refused: it would not be read) and its runs first.
        Raises `RequestError` when there is no dataset.
        """
        dataset, snapshot, runs = self.dataset, self.snapshot, list(self.runs)
        if self.example:
            from .example import example_paths

            given = {"DATASET": dataset, "--snapshot": snapshot}
            if any(path is not None for path in given.values()):
                found = " and ".join(f"{k} '{v}'" for k, v in given.items() if v is not None)
                raise RequestError(
                    "--example brings its own evaluation set and snapshot: give it without "
                    f"DATASET and --snapshot (found {found})"
                )

            paths = example_paths()
            dataset, snapshot = paths.evalset, paths.snapshot
            runs = [*paths.runs, *runs]
        if dataset is None:
            raise RequestError(MISSING_DATASET)
        return RequestFiles(dataset, snapshot, tuple(runs))

    def note_unused_k(self, evaluation: Evaluation, notify: Notify | None = None) -> None:
        """Say, per run, that the request's `k` was not used (every result records its
        context) or was used in place of the run's other `provenance.k`; nothing when no `k`
        was given."""
        from .evaluation import k_note

        if self.k is None:
            return
        for run in evaluation.runs:
            if note := k_note(run, self.k):
                (notify or log_notice)(Notice("note", note))

    def option_problems(self, metrics: Sequence[str] | None = None) -> list[Problem]:
        """Every problem of this request's options, each as the command line says it (the
        measures, or `metrics` for them; the stages, k, the holdout options, the executor, the
        label policy, the evidence level, the flags): `score` raises them in one `InputError`
        before any file is read."""
        from .diagnosis import stage_names
        from .evaluation import option_problems
        from .metrics import measures
        from .validation import parse_k

        # The engine checks the stages, the label policy and the evidence level again for
        # its other callers.
        return [
            *problems_of(measures, self.metric_names if metrics is None else list(metrics)),
            *problems_of(stage_names, self.selection.stages),
            *repeated_files("--labels", self.labels),
            *repeated_files("--calibration", self.calibrations),
            *(() if self.k is None else problems_of(parse_k, self.k)),
            *self.holdout.problems(),
            *choice_problems(("--executor", self.executor, get_args(ExecutorName))),
            *option_problems(self.label_policy, self.evidence_level),
            *flag_problems(
                ("--example", self.example), ("--allow-unreviewed", self.allow_unreviewed),
                ("--allow-missing", self.allow_missing),
                ("--accept-self-labelling", self.accept_self_labelling),
            ),
        ]

    def evaluate(
        self,
        command: str = "python",
        notify: Notify | None = None,
        *,
        metrics: Sequence[str] | None = None,
    ) -> Evaluation:
        """This request's questions scored (`score`) and shown: a look at the holdout, if
        any, is recorded at once. A caller that may still refuse the result calls `score`,
        then `Scored.shown` once its own checks pass."""
        return self.score(command, notify, metrics=metrics).shown()

    def score(
        self,
        command: str = "python",
        notify: Notify | None = None,
        *,
        metrics: Sequence[str] | None = None,
    ) -> Scored:
        """Score this request's questions; `metrics` overrides the request's measures.

        A native evaluation set (with its snapshot) is read and scored as arrays
        (`columnar.evaluate_native`, on the request's executor); an article-format file is
        loaded as models and scored by the same engine (`columnar.load_and_evaluate`).
        Either way the whole input is checked (`InputError` with every problem, holdout
        questions included) and this request's selection and holdout policy apply (see
        `score_with`): the look at the holdout is recorded by `Scored.shown`, not here.
        `command` is what the holdout ledger records as having looked; `notify` receives the
        notes and warnings (default: the `ragtriage` logger).
        """
        from .calibration import read_calibrations
        from .validation import parse_k

        check_callback(notify, "notify")
        if problems := self.option_problems(metrics):
            raise InputError(problems)
        names = self.metric_names if metrics is None else list(metrics)
        k = None if self.k is None else parse_k(self.k)
        check_ray_address(self.executor, self.ray_address)
        files = self.files()
        self.holdout.refuse_ledger_as_input([
            ("DATASET", files.dataset), ("--snapshot", files.snapshot),
            ("--versions", self.versions), *(("--run", p) for p in files.runs),
            *(("--labels", p) for p in self.labels),
            *(("--calibration", p) for p in self.calibrations),
        ])
        if files.snapshot is None and self.executor == "ray":
            raise RequestError("--executor ray needs a native evaluation set and its --snapshot")
        options: dict[str, Any] = dict(
            k=k, metrics=names, label_policy=self.label_policy, versions=self.versions,
            allow_unreviewed=self.allow_unreviewed, evidence_level=self.evidence_level,
            accept_self_labelling=self.accept_self_labelling, allow_missing=self.allow_missing,
            calibrations=read_calibrations(self.calibrations), labels=self.labels,
        )
        with contextlib.ExitStack() as stack:
            if files.snapshot is None:
                from .columnar import load_and_evaluate

                engine = partial(load_and_evaluate, files.dataset, runs=files.runs)
            else:
                from .columnar import evaluate_native

                if self.executor == "ray":
                    from .executors import RayExecutor

                    options["executor"] = stack.enter_context(RayExecutor(self.ray_address))
                engine = partial(evaluate_native, files.dataset, files.snapshot, list(files.runs))

            def score(
                keep: QuestionFilter, held: QuestionFilter, stages: tuple[str, ...],
                ids_check: IdsCheck,
            ) -> Evaluation:
                return engine(
                    question_filter=keep, input_filter=held, stages=stages, ids_check=ids_check,
                    **options,
                )

            with self.holdout.checking_ledger(files.dataset):
                scored = self.score_with(score, command, notify)
        self.note_unused_k(scored.evaluation, notify)
        return scored

    def score_with(
        self,
        score: Callable[[QuestionFilter, QuestionFilter, tuple[str, ...], IdsCheck], Evaluation],
        command: str = "python",
        notify: Notify | None = None,
    ) -> Scored:
        """This request's questions scored by `score`, which reads the files itself: the
        selection and the holdout split applied in the same pass (`filters.score_selected`,
        which says what `score(keep, held, stages, ids_check)` is given and must do).

        The selection and the holdout policy are this request's (`score` scores through
        here): the note that the holdout was left out is given here; a look at it is recorded
        when the result is shown (`Scored.shown`).
        """
        from .filters import score_selected

        selected = score_selected(score, self.selection, self.holdout.include)
        result = selected.evaluation
        if self.holdout.include:
            # A look is what was scored: none when the filters leave out every holdout question.
            return Scored(result, self, command, selected.looked, notify)
        for notice in self.holdout_notices(selected.held, command, [r.name for r in result.runs]):
            (notify or log_notice)(notice)
        return Scored(result, self, command, 0, notify)

    def holdout_notices(
        self, count: int, command: str, runs: Sequence[str], including: str = "scores"
    ) -> tuple[Notice, ...]:
        """What the holdout policy says of `count` holdout questions of this request's
        evaluation set that `runs` answer (`HoldoutPolicy.notices`): left out, or (with
        `include`) the look at them recorded in the ledger and a warning once it was looked
        at too often."""
        from .loading import display_path, file_sha256

        if count == 0:
            return ()
        path = self.files().dataset
        # The hash is only recorded with a look: a large set is not read again for a note.
        sha = file_sha256(path) if self.holdout.include else ""
        # The ledger's place comes from the file itself: the bundled example is shown as
        # `ragtriage:example/...`, which names no folder (its ledger is in the temp dir).
        policy = self.holdout
        if policy.ledger is None:
            policy = replace(policy, ledger=ledger_path(path))
        return policy.notices((display_path(path), sha), count, command, runs, including)


@dataclass(frozen=True)
class Scored:
    """A request's evaluation before it is shown, its look at the holdout not yet recorded.

    `Request.score` makes it. A command with checks of its own on the result (the runs it
    names, whether they can be compared) calls `shown` once they pass and before it writes
    anything, so a command refused after scoring records no look; `Request.evaluate` is
    `score(...).shown()`.
    """

    evaluation: Evaluation
    """The request's result."""
    request: Request
    """The request scored."""
    command: str
    """What the ledger records as having looked."""
    holdout_questions: int
    """The holdout questions scored, whose look `shown` records (0: none, or left out)."""
    notify: Notify | None = field(default=None, repr=False, compare=False)
    """Where the warning of a look goes (None: the `ragtriage` logger)."""

    def shown(self) -> Evaluation:
        """The evaluation, once the look at the holdout (if any was scored) is recorded in
        the ledger; warns when it was looked at too often, and of a run recorded against
        other inputs (`Evaluation.recorded_elsewhere`). Each call records one look."""
        notices = self.request.holdout_notices(
            self.holdout_questions, self.command, [run.name for run in self.evaluation.runs]
        )
        warned = [Notice("warning", text) for text in self.evaluation.recorded_elsewhere()]
        for notice in (*warned, *notices):
            (self.notify or log_notice)(notice)
        return self.evaluation
