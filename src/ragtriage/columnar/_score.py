"""Score TREC files (or any `RankArrays`) with rank measures, on a chosen executor."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import get_args

import numpy as np

from .._version import __version__
from ..errors import InputError, choice_problems
from ..executors import Executor, LocalExecutor, shard_bounds
from ..loading import SourceFile
from ..metrics import Aggregate, Measure, PerQuestion, RankForm, parse_measures
from ..paths import PathArg, as_path
from ._arrays import RankArrays
from ._averaging import AveragingRule, average
from ._stream import load_trec
from ._trec import STRICT, QuestionPolicy

DEFAULT_TREC_MEASURES = ("recall@10", "precision@10", "mrr@10", "ndcg@10", "ap@100")
"""What `trec-eval` reports when no measure is named."""


@dataclass(frozen=True)
class RankMeasure:
    """A registry measure with a rank form, at its cut-off, as `trec-eval` reports it."""

    measure: Measure
    """The registry measure (`recall_candidates@10`)."""

    @property
    def form(self) -> RankForm:
        """The metric's rank form."""
        form = self.measure.spec.rank
        if form is None:  # parse_rank_measures accepts only metrics with one
            raise ValueError(f"{self.measure.name} has no rank form")
        return form

    @property
    def k(self) -> int:
        """Cut-off."""
        return dict(self.measure.params)["k"]

    @property
    def label(self) -> str:
        """The name `trec-eval` reports, with the cut-off (`recall@10`)."""
        return f"{self.form.name}@{self.k}"

    @property
    def summary(self) -> str:
        """The per-question formula in TREC terms."""
        return self.form.formula

    @property
    def reference(self) -> str:
        """The registry metric's canonical name, without the cut-off."""
        return self.measure.spec.name

    def per_question(self, arrays: RankArrays) -> PerQuestion:
        """Numerator and denominator for every question."""
        return self.form.compute(arrays, self.k)


def parse_rank_measures(
    texts: Iterable[str], source: str = "<command line>"
) -> tuple[RankMeasure, ...]:
    """Parse `name@k` measures (`recall@10`, `P@10`, `map@100`: a registry metric with a
    rank form, by its name or an alias), reporting every bad one at once; a measure asked
    for again (by another name) is the first one's (`ndcg@3` and `NDCG@3`: one measure)."""
    out: dict[str, RankMeasure] = {}
    for parsed in parse_measures(texts, source, rank=True):
        measure = RankMeasure(parsed)
        out.setdefault(measure.label, measure)
    return tuple(out.values())


@dataclass(frozen=True)
class RankScores:
    """Per-question numerators/denominators of every measure, and the aggregates."""

    question_ids: tuple[str, ...]
    """Scored questions, in row order."""
    measures: tuple[RankMeasure, ...]
    """Measures, in the order asked."""
    per_question: Mapping[str, PerQuestion]
    """By measure label."""
    summary: Mapping[str, Aggregate]
    """Macro averages by measure label."""


@dataclass(frozen=True)
class TrecEvaluation:
    """The result of scoring one run file against one qrels file."""

    scores: RankScores
    """Per-question values and aggregates."""
    sources: tuple[SourceFile, ...]
    """Qrels and run files with their hashes."""
    missing: tuple[str, ...]
    """Qrels questions with no ranking, scored as empty rankings (`--allow-missing`)."""
    skipped: tuple[str, ...]
    """Run questions without judgements, not scored (`--allow-extra`)."""
    tie_rule: str = "score descending, then document ID descending (trec_eval)"
    """How rankings were ordered."""
    averaging: AveragingRule = "relevant"
    """Which questions the aggregates average over (see `AVERAGING_RULES`)."""
    comment_lines: tuple[int, int] = (0, 0)
    """`#` comment lines skipped in the qrels and in the run file (as trec_eval 10.0 does)."""
    tool_version: str = field(default=__version__)
    """ragtriage version."""


def _score_shard(measures: Sequence[RankMeasure], shard: RankArrays) -> dict[str, PerQuestion]:
    return {m.label: m.per_question(shard) for m in measures}


def score_arrays(
    arrays: RankArrays,
    measures: Sequence[RankMeasure],
    executor: Executor | None = None,
    *,
    averaging: AveragingRule = "relevant",
    missing: Sequence[str] = (),
) -> RankScores:
    """Score every question; shards (if the executor uses several) are re-joined in order.

    `missing` names the questions scored as empty rankings because the run had none; the
    `trec_eval` rule leaves them out of the aggregates, `trec_eval-c` averages them in.
    """
    executor = executor or LocalExecutor()
    bounds = shard_bounds(len(arrays.question_ids), executor.shard_count(len(arrays.question_ids)))
    shards = [arrays.shard(lo, hi) for lo, hi in bounds] if len(bounds) > 1 else [arrays]
    parts = executor.map(partial(_score_shard, tuple(measures)), shards)
    left = set(missing)
    absent = np.array([qid in left for qid in arrays.question_ids], dtype=bool)
    per_question = {m.label: _concat([part[m.label] for part in parts]) for m in measures}
    summary = {
        label: average(label, scores, averaging, absent) for label, scores in per_question.items()
    }
    return RankScores(arrays.question_ids, tuple(measures), per_question, summary)


def _concat(pieces: Sequence[PerQuestion]) -> PerQuestion:
    if len(pieces) == 1:
        return pieces[0]
    return PerQuestion(
        np.concatenate([p.numerator for p in pieces]),
        np.concatenate([p.denominator for p in pieces]),
    )


def evaluate_trec(
    qrels: PathArg,
    run: PathArg,
    *,
    metrics: Sequence[str] = DEFAULT_TREC_MEASURES,
    policy: QuestionPolicy = STRICT,
    executor: Executor | None = None,
    averaging: AveragingRule = "relevant",
) -> TrecEvaluation:
    """Read a TREC qrels and run file and score the run; `InputError` lists every problem.

    With `averaging="trec_eval"` or `"trec_eval-c"` the question policy is trec_eval's
    (qrels questions without a ranking and run questions without judgements are accepted
    and listed), since that is part of what those rules reproduce.
    """
    if problems := choice_problems(("--averaging", averaging, get_args(AveragingRule))):
        raise InputError(problems)  # as the command line's choices, before any file is read
    if averaging != "relevant":
        policy = QuestionPolicy(allow_missing=True, allow_extra=True)
    qrels, run = as_path(qrels), as_path(run)
    measures = parse_rank_measures(metrics)
    depth = max(m.k for m in measures)
    loaded = load_trec(qrels, run, depth=depth, policy=policy)  # hashes the files as it reads
    scores = score_arrays(
        loaded.arrays, measures, executor, averaging=averaging, missing=loaded.missing
    )
    sources = (
        SourceFile(str(qrels), "trec-qrels", loaded.sha256[0]),
        SourceFile(str(run), "trec-run", loaded.sha256[1]),
    )
    return TrecEvaluation(
        scores, sources, loaded.missing, loaded.skipped, averaging=averaging,
        comment_lines=loaded.comment_lines,
    )
