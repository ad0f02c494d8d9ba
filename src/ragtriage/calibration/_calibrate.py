"""Calibrate one judge against human labels: pair the items, compare, and correct claim support."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import cast

from ..detectors import is_stale, label_context_hash
from ..errors import ProblemCollector, option_problem
from ..loading import Dataset, SnapshotIndex, SourceFile, Wanted, read_file
from ..paths import PathArg, as_paths
from ..schemas import (
    ClaimLabel,
    ClaimLabelEntry,
    FactLabel,
    FactLabelEntry,
    Labeller,
    LabelSet,
    Run,
    agreed_verdict,
    claim_ids,
)
from ..validation import labeller_problems, support_problems
from ._agreement import Agreement, ItemKind, Ratio, agreement
from ._ppi import MeanEstimate, classical_mean, ppi_mean

Key = tuple[str, str, ItemKind, str]
"""(run, question ID, `claim` or `fact`, claim ID or fact ID)."""

PREDICTION = {"supported": 1.0, "unsupported": 0.0, "cannot_judge": 0.5}
"""A judge verdict as a prediction of "supported" for PPI. `cannot_judge` counts as 0.5: any
fixed prediction keeps the estimate unbiased, because the human subset measures and removes
the judge's bias; it only widens the interval."""


@dataclass(frozen=True)
class SupportEstimate:
    """claim_support of one run: from the judge alone, from humans alone, and PPI-corrected."""

    run: str
    """Run name."""
    judge_only: Ratio
    """Judge-supported / judge-judged claims: what `evaluate --label-policy judge` reports
    (judge-labelled, uncalibrated)."""
    human_only: MeanEstimate
    """Human-supported share of every human-judged claim of the run (the judge's or not), with
    its interval."""
    ppi: MeanEstimate
    """The prediction-powered estimate: judge labels on every claim, corrected with the
    human-labelled ones."""


@dataclass(frozen=True)
class Calibration:
    """One judge compared with human labels."""

    judge: Labeller
    """The judge calibrated (name, prompt version, endpoint kind, temperature, seed)."""
    reviewers: tuple[str, ...]
    """Human reviewers whose labels were used."""
    claims: Agreement
    """Agreement on claims both labelled."""
    facts: Agreement
    """Agreement on reference facts both labelled."""
    judge_only_items: int
    """Items only the judge labelled."""
    human_only_items: int
    """Items only humans labelled (the judge missed them)."""
    support: tuple[SupportEstimate, ...]
    """claim_support per run."""
    confidence: float = 0.95
    """Nominal coverage of the intervals."""
    inputs: tuple[tuple[str, SourceFile], ...] = ()
    """The files compared, as (`judge` or `human`, file with its hash)."""
    stale_labels: int = 0
    """Labels left out as `evaluate` leaves them out: made against another context than
    their result's now (only known with a dataset)."""


def _merge(verdicts: Sequence[str]) -> str:
    # Labellers of one side who disagree make the item uncertain, as `evaluate` counts it
    # (`agreed_verdict`: never None here, an item is listed with its first verdict).
    return cast(str, agreed_verdict(verdicts))


def _entries(sets: Iterable[LabelSet]) -> Iterable[tuple[Key, ClaimLabel | FactLabel]]:
    for labels in sets:
        for entry in labels.claim_labels:
            yield (labels.run, entry.question_id, "claim", entry.claim_id), entry.label
        for fentry in labels.fact_labels:
            yield (labels.run, fentry.question_id, "fact", fentry.label.fact_id), fentry.label


def _side(
    sets: Sequence[tuple[str, LabelSet]], kind: str, option: str, collector: ProblemCollector
) -> tuple[dict[Key, str], list[Labeller]]:
    verdicts: dict[Key, list[str]] = {}
    labellers: list[Labeller] = []
    for path, labels in sets:
        for key, label in _entries([labels]):
            # Refused as `evaluate` refuses it (with a dataset, it was on loading).
            labeller = f"claims[{key[3]}].labels.labeller" if key[2] == "claim" else (
                "fact_labels.labeller")
            if isinstance(label, ClaimLabel):
                for expected, found in support_problems(label):
                    field = f"claims[{key[3]}].supported_by"
                    collector.add(path, key[1], field, expected, found)
            for expected, found in labeller_problems(label.labeller):
                collector.add(path, key[1], f"{labeller}.prompt_version", expected, found)
            if label.labeller.kind != kind:
                field = f"{key[2]}_labels.label.labeller.kind"
                expected = f"{kind} labels only (this file was given as {option})"
                collector.add(path, key[1], field, expected, repr(label.labeller.kind))
                continue
            verdicts.setdefault(key, []).append(label.verdict)
            if label.labeller not in labellers:
                labellers.append(label.labeller)
    return {key: _merge(v) for key, v in verdicts.items()}, labellers


def spec_text(judge: Labeller) -> str:
    """A judge by its whole spec: `jm (prompt v1, vllm, temperature 0.0, seed 0)`."""
    return (f"{judge.name} (prompt {judge.prompt_version}, {judge.endpoint_kind}, "
            f"temperature {judge.temperature}, seed {judge.seed})")


def calibrate(
    judge_sets: Sequence[tuple[str, LabelSet]],
    human_sets: Sequence[tuple[str, LabelSet]],
    *,
    confidence: float = 0.95,
    left_out: Collection[str] = frozenset(),
) -> Calibration:
    """Compare one judge's labels with human labels; `*_sets` are (file, label set) pairs.
    The items of the questions `left_out` (the holdout) are checked, then not compared."""
    collector = ProblemCollector()
    judge, judges = _side(judge_sets, "judge", "--judge-labels", collector)
    human, humans = _side(human_sets, "human", "--human-labels", collector)
    if len(judges) > 1:
        keys = Counter((j.name, j.prompt_version) for j in judges)
        names = ", ".join(spec_text(j) if keys[j.name, j.prompt_version] > 1
                          else f"{j.name} (prompt {j.prompt_version})" for j in judges)
        expected = "labels of one judge (calibrate each alone)"
        found = f"{len(judges)} judges: {names}"
        collector.extend([option_problem("--judge-labels", expected, found)])
    if not judges:
        collector.extend([option_problem("--judge-labels", "at least one judge label", "none")])
    if not humans:
        collector.extend([option_problem("--human-labels", "at least one human label", "none")])
    collector.raise_if_any()
    judge, human = ({k: v for k, v in s.items() if k[1] not in left_out} for s in (judge, human))
    paired = sorted(set(judge) & set(human))
    by_kind: dict[str, tuple[list[str], list[str]]] = {"claim": ([], []), "fact": ([], [])}
    for key in paired:
        by_kind[key[2]][0].append(human[key])
        by_kind[key[2]][1].append(judge[key])
    runs = sorted({key[0] for key in judge if key[2] == "claim"})
    return Calibration(
        judge=judges[0],
        reviewers=tuple(sorted({h.name for h in humans})),
        claims=agreement("claim", *by_kind["claim"]),
        facts=agreement("fact", *by_kind["fact"]),
        judge_only_items=len(set(judge) - set(human)),
        human_only_items=len(set(human) - set(judge)),
        support=tuple(_support(run, judge, human, confidence) for run in runs),
        confidence=confidence,
    )


def _support(
    run: str, judge: dict[Key, str], human: dict[Key, str], confidence: float
) -> SupportEstimate:
    claims = sorted(k for k in judge if k[0] == run and k[2] == "claim")
    judged = [judge[k] for k in claims if judge[k] != "cannot_judge"]
    judge_only = Ratio(sum(v == "supported" for v in judged), len(judged))
    truth, pred, rest = [], [], []
    for key in claims:
        verdict = human.get(key)
        if verdict is None:
            rest.append(PREDICTION[judge[key]])
        elif verdict != "cannot_judge":  # claims humans cannot judge are outside claim_support
            truth.append(1.0 if verdict == "supported" else 0.0)
            pred.append(PREDICTION[judge[key]])
    # Humans alone: every claim of the run they judged, whether the judge labelled it or not.
    humans = [v == "supported" for k, v in sorted(human.items())
              if k[0] == run and k[2] == "claim" and v != "cannot_judge"]
    return SupportEstimate(
        run, judge_only, classical_mean([float(v) for v in humans], confidence),
        ppi_mean(truth, pred, rest, confidence),
    )


def labels_in_runs(runs: Sequence[Run], kind: str, source: str) -> list[tuple[str, LabelSet]]:
    """The labels of one labeller kind embedded in runs, as (source, label set) pairs."""
    out = []
    for run in runs:
        claims = [
            ClaimLabelEntry(question_id=res.question_id, claim_id=claim_id, label=lab)
            for res in run.results
            for claim_id, claim in zip(
                claim_ids(c.id for c in res.claims or ()), res.claims or (), strict=True
            )
            for lab in claim.labels
            if lab.labeller.kind == kind
        ]
        facts = [
            FactLabelEntry(question_id=res.question_id, label=lab)
            for res in run.results
            for lab in res.fact_labels
            if lab.labeller.kind == kind
        ]
        if claims or facts:
            out.append((source, LabelSet(run=run.name, claim_labels=claims, fact_labels=facts)))
    return out


def fresh_sets(
    dataset: Dataset, sets: Sequence[tuple[str, LabelSet]]
) -> list[tuple[str, LabelSet]]:
    """The label sets without the labels `evaluate` leaves out as stale (`detectors.is_stale`
    against the hash of the context of the result each names, at its run's cut-off)."""
    index, ks = SnapshotIndex.build(dataset.snapshot), dataset.cutoffs()
    results = {(run.name, res.question_id): res for run in dataset.runs for res in run.results}

    def fresh(run: str, qid: str, label: ClaimLabel | FactLabel) -> bool:
        result = results.get((run, qid))  # a label naming no result is refused on loading
        if label.context_hash is None or result is None:
            return True
        return not is_stale(label, label_context_hash(result, index, ks[run]))

    return [
        (path, labels.model_copy(update={
            "claim_labels": [e for e in labels.claim_labels
                             if fresh(labels.run, e.question_id, e.label)],
            "fact_labels": [e for e in labels.fact_labels
                            if fresh(labels.run, e.question_id, e.label)],
        }))
        for path, labels in sets
    ]


def _count(sets: Sequence[tuple[str, LabelSet]]) -> int:
    return sum(len(labels.claim_labels) + len(labels.fact_labels) for _, labels in sets)


def calibrate_files(
    judge_files: Sequence[PathArg],
    human_files: Sequence[PathArg],
    *,
    dataset: Dataset | None = None,
    confidence: float = 0.95,
    left_out: Collection[str] = frozenset(),
) -> Calibration:
    """Read the label files (every problem of every file at once) and calibrate; or take them
    as `dataset` read them (loaded with them, judge files first), whose runs' embedded human
    labels (e.g. an article-format file's reviews) count too and whose other files are
    human inputs; with `dataset`, stale labels are left out as `evaluate` leaves them out
    (`fresh_sets`) and counted. The items of the questions `left_out` do not count
    (`calibrate`). The result lists every input file with its hash."""
    judge_files, human_files = as_paths(judge_files), as_paths(human_files)
    judged = len(judge_files)
    embedded: list[tuple[str, LabelSet]] = []
    stale = 0
    if dataset is None:
        collector = ProblemCollector()
        read = []
        for at, path in enumerate([*judge_files, *human_files]):
            option = "--judge-labels" if at < judged else "--human-labels"
            wanted = Wanted(("labels",), f"labels (a label file for {option})")
            read.append((str(path), read_file(path, collector, wanted=wanted)))
        collector.raise_if_any()
        sets = [(path, cast(LabelSet, file.content)) for path, file in read]
        sources, others = [file.source for _, file in read], []
    else:
        sets = fresh_sets(dataset, dataset.label_sets)
        sources = [source for source in dataset.sources if source.kind == "labels"]
        others = [source for source in dataset.sources if source.kind != "labels"]
        embedded = labels_in_runs(dataset.runs, "human", dataset.sources[0].path)
        # The human files' labels are in the runs too (attached): counted once, as embedded.
        stale = _count(dataset.label_sets[:judged]) - _count(sets[:judged]) + _count(embedded)
        embedded = fresh_sets(dataset, embedded)
        stale -= _count(embedded)
    inputs = [("judge" if at < judged else "human", source) for at, source in enumerate(sources)]
    inputs += [("human", source) for source in others]
    cal = calibrate(sets[:judged], sets[judged:] + embedded, confidence=confidence,
                    left_out=left_out)
    return replace(cal, inputs=tuple(inputs), stale_labels=stale)
