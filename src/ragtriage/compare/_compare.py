"""`compare`: two or more runs on one evaluation set, question by question and in aggregate."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from ..diagnosis import stage_order
from ..errors import counted
from ..evaluation import Evaluation, RunEvaluation
from ..fileio import file_problem
from ..loading import SourceFile
from ..metrics import Measure
from ..validation import PERMUTATIONS_DEFAULT, RESAMPLES_DEFAULT
from ._comparable import check_arguments, check_comparable, select_runs
from ._comparison import (
    STATUS_ORDER,
    Comparison,
    FlakyQuestion,
    MetricChange,
    MetricComparison,
    PairComparison,
    QuestionChange,
    RepeatStat,
    RunGroup,
    StageMap,
)
from ._pairing import (
    GroupValues,
    change_status,
    combine_statuses,
    group_question_ids,
    group_values,
    overall,
    pair,
    pooled,
)
from ._provenance import diff_conditions, group_conditions, group_repeats
from ._stages import modal_stage, run_stages
from ._stats import TestResult, bootstrap_ci, group_means, mcnemar_exact, sign_flip_test


def _primary(stages: StageMap, run: str, question: str) -> str | None:
    found = stages.get(run, {}).get(question)
    return None if found is None else found.primary


def _repeat_stats(
    runs: Sequence[RunEvaluation], chosen: Sequence[Measure]
) -> tuple[RepeatStat, ...]:
    if len(runs) < 2:
        return ()
    out = []
    for m in chosen:
        values = [v for v in (run.summary[m.name].value for run in runs) if v is not None]
        mean = math.fsum(values) / len(values) if values else None
        std = float(np.std(values, ddof=1)) if len(values) > 1 else None
        out.append(RepeatStat(m.name, mean, std, len(values)))
    return tuple(out)


def _flaky(
    runs: Sequence[RunEvaluation], stages: StageMap, ids: tuple[str, ...]
) -> tuple[FlakyQuestion, ...]:
    if len(runs) < 2:
        return ()
    found = [{r.question_id: r.outcome for r in run.questions} for run in runs]
    out = []
    for qid in ids:
        outcomes = tuple(outcome.get(qid) for outcome in found)
        primaries = tuple(_primary(stages, run.name, qid) for run in runs)
        if len(set(outcomes)) > 1 or len(set(primaries)) > 1:
            out.append(FlakyQuestion(qid, outcomes, primaries))
    return tuple(out)


def _group(
    runs: Sequence[RunEvaluation],
    chosen: Sequence[Measure],
    stages: StageMap,
    ids: tuple[str, ...],
) -> RunGroup:
    names = tuple(run.name for run in runs)
    return RunGroup(
        "+".join(names),
        names,
        group_conditions(runs),
        _repeat_stats(runs, chosen),
        _flaky(runs, stages, ids),
    )


def _inputs(sources: Sequence[SourceFile]) -> tuple[SourceFile, ...]:
    """The input files with the run files in their places sorted by path, for runs grouped as
    repeats: the same files given in another order make the same report (`group_repeats`
    orders the runs; runs not grouped keep the order given, which sets the columns)."""
    runs = iter(sorted((s for s in sources if s.kind == "run"), key=lambda s: s.path))
    return tuple(next(runs) if s.kind == "run" else s for s in sources)


def _metric(
    m: Measure,
    values: tuple[GroupValues, GroupValues],
    label: str,
    *,
    seed: int,
    resamples: int,
    permutations: int,
    level: float,
) -> MetricComparison:
    base_values, cand_values = values
    paired = pair(base_values, cand_values)
    s = paired.sample
    spec = m.spec
    head = (m.name, spec.layer, spec.direction, spec.kind, spec.averaging)
    wholes = (overall(base_values), overall(cand_values))
    if s.size == 0:  # nothing paired: no values, interval, test or counts
        return MetricComparison(
            *head, 0, paired.unpaired, None, None, None, None, None, 0, 0, 0, *wholes
        )
    bn, bd = group_means(s.base_num, s.base_den)
    cn, cd = group_means(s.cand_num, s.cand_den)
    base_value = pooled(s.base_num, s.base_den)
    cand_value = pooled(s.cand_num, s.cand_den)
    statuses = [
        change_status(spec.direction, float(b), float(c))
        for b, c in zip(bn / bd, cn / cd, strict=True)
    ]
    ci = bootstrap_ci(s, resamples=resamples, seed=seed, label=label, level=level)
    test: TestResult
    if spec.kind == "boolean" and not s.repeated:
        test = mcnemar_exact(s.base_num[:, 0] > 0.5, s.cand_num[:, 0] > 0.5)
    else:
        test = sign_flip_test(s, resamples=permutations, seed=seed, label=label)
    return MetricComparison(
        *head,
        s.size,
        paired.unpaired,
        base_value,
        cand_value,
        cand_value - base_value,
        ci,
        test,
        statuses.count("improved"),
        statuses.count("unchanged"),
        statuses.count("regressed"),
        *wholes,
    )


def no_result(runs: Sequence[RunEvaluation]) -> tuple[str, ...]:
    """Questions no run of a group has a result for (`allow_missing`), in evaluation-set order."""
    common = set.intersection(*(set(run.no_result) for run in runs))
    return tuple(qid for qid in runs[0].no_result if qid in common)


def _question_status(base_stage: str | None, cand_stage: str | None, metric_status: str) -> str:
    if base_stage == "ok" and cand_stage not in (None, "ok"):
        return "regressed"
    if cand_stage == "ok" and base_stage not in (None, "ok"):
        return "improved"
    if metric_status in ("regressed", "improved", "mixed"):
        return metric_status
    if base_stage != cand_stage:
        return "changed"
    return "unchanged"


def _questions(
    base: Sequence[RunEvaluation],
    cand: Sequence[RunEvaluation],
    ids: tuple[tuple[str, ...], tuple[str, ...]],
    chosen: Sequence[Measure],
    stages: StageMap,
    values: tuple[dict[str, GroupValues], dict[str, GroupValues]],
) -> tuple[QuestionChange, ...]:
    order = stage_order()
    base_values = {name: v.values() for name, v in values[0].items()}
    cand_values = {name: v.values() for name, v in values[1].items()}
    cand_rows = {qid: i for i, qid in enumerate(ids[1])}
    records = {rec.question_id: rec for run in base for rec in run.questions}
    out = []
    for row, qid in enumerate(ids[0]):
        crow = cand_rows.get(qid)
        if crow is None:  # no candidate repeat has a result for it (`no_result`)
            continue
        rec = records[qid]
        changes = []
        for m in chosen:
            b = base_values[m.name][row]
            c = cand_values[m.name][crow]
            changes.append(
                MetricChange(m.name, m.spec.layer, b, c, change_status(m.spec.direction, b, c))
            )
        layers: dict[str, list[str]] = {}
        for ch in changes:
            layers.setdefault(ch.layer, []).append(ch.status)
        b_stage = modal_stage([_primary(stages, r.name, qid) for r in base], order)
        c_stage = modal_stage([_primary(stages, r.name, qid) for r in cand], order)
        metric_status = combine_statuses([ch.status for ch in changes])
        out.append(
            QuestionChange(
                qid,
                rec.tags,
                rec.split,
                _question_status(b_stage, c_stage, metric_status),
                b_stage,
                c_stage,
                tuple(changes),
                {layer: combine_statuses(v) for layer, v in layers.items()},
            )
        )
    return tuple(sorted(out, key=lambda q: STATUS_ORDER.index(q.status)))


def compare(
    evaluation: Evaluation,
    runs: Sequence[str] | None = None,
    *,
    seed: int = 0,
    resamples: int = RESAMPLES_DEFAULT,
    permutations: int = PERMUTATIONS_DEFAULT,
    level: float = 0.95,
    allow_missing: bool = False,
    allow_different_snapshot: bool = False,
    group: bool = True,
) -> Comparison:
    """Compare runs of one evaluation: the first named run (or its group of repeats) is the base.

    Runs that differ only in their recorded seed are grouped as repeats when `group` is
    true; each other configuration is compared with the base. Raises `InputError` for
    fewer than two runs, unknown names, or runs on a different snapshot or question set
    unless allowed. With `allow_missing`, only the questions both sides answered are paired;
    the others are listed per pair (`base_no_result`, `candidate_no_result`).
    """
    check_arguments(evaluation, seed, resamples, permutations, level)
    if runs is not None:
        # One name is one run (not its characters); an iterator is read once.
        runs = (runs,) if isinstance(runs, str) else tuple(runs)
    selected = select_runs(evaluation, runs)
    if len(selected) < 2:
        found = counted(len(selected), "run")
        raise file_problem("<command line>", "at least two runs to compare", found, "RUNS")
    if len({r.name for r in selected}) != len(selected):
        found = ", ".join(r.name for r in selected)
        raise file_problem("<command line>", "each run named once", found, "RUNS")
    warnings = check_comparable(selected, allow_missing, allow_different_snapshot)
    stages = {run.name: run_stages(run) for run in selected}
    grouped = group_repeats(selected) if group else tuple((run,) for run in selected)
    chosen = evaluation.measures

    @functools.cache
    def order() -> tuple[str, ...]:
        return tuple(q.id for q in evaluation.questions)

    ids = tuple(group_question_ids(g, order) for g in grouped)
    groups = tuple(_group(g, chosen, stages, i) for g, i in zip(grouped, ids, strict=True))
    pairs = []
    every = {q.question_id for q in selected[0].questions} | set(selected[0].no_result)
    base_values = {m.name: group_values(grouped[0], m, ids[0]) for m in chosen}
    for members, info, cand_ids in zip(grouped[1:], groups[1:], ids[1:], strict=True):
        diff = diff_conditions(groups[0].conditions, info.conditions)
        if diff.confounded:
            warnings.append(f"{groups[0].label} vs {info.label}: {diff.warning()}")
        if every <= {*no_result(grouped[0]), *no_result(members)}:
            warnings.append(
                f"{groups[0].label} vs {info.label}: no question has a result on both sides, "
                "so nothing is compared"
            )
        cand_values = {m.name: group_values(members, m, cand_ids) for m in chosen}
        metrics = tuple(
            _metric(
                m,
                (base_values[m.name], cand_values[m.name]),
                f"{m.name}:{groups[0].label}:{info.label}",
                seed=seed,
                resamples=resamples,
                permutations=permutations,
                level=level,
            )
            for m in chosen
        )
        pairs.append(
            PairComparison(
                groups[0],
                info,
                diff,
                metrics,
                _questions(
                    grouped[0],
                    members,
                    (ids[0], cand_ids),
                    chosen,
                    stages,
                    (base_values, cand_values),
                ),
                base_no_result=no_result(grouped[0]),
                candidate_no_result=no_result(members),
            )
        )
    return Comparison(
        groups,
        tuple(pairs),
        chosen,
        seed,
        resamples,
        permutations,
        level,
        len(selected[0].questions) + len(selected[0].no_result),
        tuple(warnings),
        _inputs(evaluation.sources) if len(grouped) < len(selected) else evaluation.sources,
        selection=evaluation.selection,
    )


def default_comparison(evaluation: Evaluation) -> Comparison | None:
    """The first run against every other, as `ragtriage compare` would; None for one run.

    What the HTML report shows: a report shows runs whatever their snapshot or question set,
    so such differences are allowed here and appear among the comparison's warnings.
    """
    if len(evaluation.runs) < 2:
        return None
    return compare(evaluation, allow_missing=True, allow_different_snapshot=True)
