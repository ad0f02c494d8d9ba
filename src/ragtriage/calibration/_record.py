"""The calibration record file (`ragtriage calibrate --record`): its schema, writer and reader.

`evaluate` reads these records to mark judge-labelled measures as calibrated; the schema is
checked strictly, like every other input file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, cast

from pydantic import NonNegativeInt

from ..errors import InputError, ProblemCollector
from ..fileio import content_hash, read_json
from ..loading import display_path, validate_item
from ..paths import PathArg, as_paths
from ..schemas import Labeller, SchemaVersion, StrictModel, declared_kind
from ..validation import LEVEL_RANGE, labeller_problems
from ._agreement import ItemKind, categories_of, from_matrix


class RatioRecord(StrictModel):
    """A share with its parts; `value` is null for an empty denominator."""

    value: float | None
    """numerator / denominator, or null."""
    numerator: NonNegativeInt
    """What counted."""
    denominator: NonNegativeInt
    """Out of how many."""


class NotedRatioRecord(RatioRecord):
    """A share that carries how it must be read."""

    note: str
    """E.g. `judge-labelled, uncalibrated`."""


class MatrixRecord(StrictModel):
    """A confusion matrix."""

    rows: Literal["human"]
    """Rows are the human verdicts."""
    columns: Literal["judge"]
    """Columns are the judge's verdicts."""
    counts: list[list[NonNegativeInt]]
    """Counts in `categories` order."""


class AgreementRecord(StrictModel):
    """Agreement of the judge with humans on one item kind."""

    items: NonNegativeInt
    """Items both labelled."""
    categories: list[str]
    """Verdicts in matrix order."""
    confusion_matrix: MatrixRecord
    """Rows human, columns judge."""
    agreement: RatioRecord
    """Same verdict / paired items."""
    cohen_kappa: float | None
    """Cohen's kappa; null when undefined."""
    precision: RatioRecord
    """Precision of `supported` (claims) or `covered` (facts)."""
    recall: RatioRecord
    """Recall of `supported` (claims) or `covered` (facts)."""
    judge_cannot_judge: RatioRecord
    """Share of paired items the judge could not judge."""
    human_cannot_judge: RatioRecord
    """Share of paired items humans could not judge."""


class MeanRecord(StrictModel):
    """An estimate with its confidence interval."""

    estimate: float | None
    """Point estimate; null when too few items."""
    ci_low: float | None
    """Lower bound."""
    ci_high: float | None
    """Upper bound."""
    confidence: float
    """Nominal coverage."""
    n_labelled: NonNegativeInt
    """Items with a human label."""
    n_unlabelled: NonNegativeInt
    """Items with only a judge label."""


class SupportRecord(StrictModel):
    """claim_support of one run three ways."""

    run: str
    """Run name."""
    judge_only: NotedRatioRecord
    """From the judge alone (uncalibrated)."""
    human_only: MeanRecord
    """From human labels alone."""
    ppi: MeanRecord
    """Prediction-powered estimate."""


class InputRecord(StrictModel):
    """A label file (or dataset) the calibration read."""

    role: Literal["judge", "human"]
    """Whose labels it held."""
    path: str
    """The path as given."""
    kind: str
    """File kind (`labels`, `article`, `evalset`, `run`, ...)."""
    sha256: str
    """SHA-256 of the file's bytes."""


class CalibrationRecord(StrictModel):
    """One judge compared with human labels, as written by `ragtriage calibrate --record`."""

    schema_version: SchemaVersion
    """Format version."""
    kind: Literal["calibration"]
    """Always `calibration`."""
    judge: Labeller
    """The judge calibrated: model name, prompt version, endpoint kind, temperature, seed."""
    reviewers: list[str]
    """Human reviewers compared with."""
    claims: AgreementRecord
    """Agreement on claims."""
    facts: AgreementRecord
    """Agreement on reference facts."""
    judge_only_items: NonNegativeInt
    """Items only the judge labelled."""
    human_only_items: NonNegativeInt
    """Items only humans labelled."""
    confidence: float
    """Nominal coverage of the intervals."""
    claim_support: list[SupportRecord]
    """claim_support per run, including the prediction-powered estimate."""
    inputs: list[InputRecord]
    """The files compared, with hashes."""

    def matches(self, judge: Labeller) -> bool:
        """Whether this record calibrates `judge`: same model name and prompt version."""
        return (self.judge.name, self.judge.prompt_version) == (judge.name, judge.prompt_version)

    def agreement_for(self, kind: str) -> AgreementRecord:
        """The agreement on `claim` or `fact` items."""
        return self.claims if kind == "claim" else self.facts

    def digest(self) -> str:
        """SHA-256 of the record's canonical JSON: names the record in reports without a path."""
        return "sha256:" + content_hash(self.model_dump(mode="json"))


def read_calibrations(paths: Sequence[PathArg]) -> tuple[CalibrationRecord, ...]:
    """Read calibration records; every problem of every file is raised at once."""
    paths = as_paths(paths)
    collector = ProblemCollector()
    out = []
    for path in paths:
        shown = display_path(path)
        try:
            data = read_json(path, shown)
        except InputError as exc:
            collector.extend(exc.problems)
            continue
        kind = declared_kind(data)
        if kind not in (None, "calibration"):  # another kind of file: not each of its fields
            collector.add(shown, None, "kind", "'calibration'", repr(kind))
            continue
        if (record := validate_item(CalibrationRecord, data, shown, collector, None)) is not None:
            _figure_problems(record, shown, collector)
            out.append(record)
    collector.raise_if_any()
    return tuple(out)


_RATIOS = ("agreement", "precision", "recall", "judge_cannot_judge", "human_cannot_judge")


def _same(found: float | None, expected: float | None) -> bool:
    if found is None or expected is None:
        return found is expected
    return math.isclose(found, expected, rel_tol=1e-9, abs_tol=1e-12)


def _figure_problems(record: CalibrationRecord, shown: str, collector: ProblemCollector) -> None:
    """A problem for each figure of an item kind that is not what its confusion matrix gives
    (`from_matrix`, as `calibrate` wrote it), for a confidence `--confidence` refuses, and for
    a judge that is not one with its prompt version (as labels name it: `labeller_problems`)."""
    if record.judge.kind != "judge":
        collector.add(shown, None, "judge.kind", "'judge'", repr(record.judge.kind))
    for expected, given in labeller_problems(record.judge):
        collector.add(shown, None, "judge.prompt_version", expected, given)
    if record.confidence not in LEVEL_RANGE:
        collector.add(shown, None, "confidence", LEVEL_RANGE.expected(), repr(record.confidence))
    for kind in cast(tuple[ItemKind, ...], ("claim", "fact")):
        found, name, categories = record.agreement_for(kind), f"{kind}s", categories_of(kind)
        counts, size = found.confusion_matrix.counts, len(categories)
        if found.categories != list(categories):
            collector.add(shown, None, f"{name}.categories", ", ".join(categories),
                          ", ".join(found.categories))
            continue
        if len(counts) != size or any(len(row) != size for row in counts):
            collector.add(shown, None, f"{name}.confusion_matrix.counts",
                          f"{size} rows of {size} counts (one per category)",
                          f"{len(counts)} rows of {', '.join(str(len(r)) for r in counts)}")
            continue
        want, source = from_matrix(kind, counts), f" (from {name}.confusion_matrix)"
        if found.items != want.items:
            collector.add(shown, None, f"{name}.items", f"{want.items}{source}", str(found.items))
        if not _same(found.cohen_kappa, want.kappa):
            collector.add(shown, None, f"{name}.cohen_kappa", f"{want.kappa!r}{source}",
                          repr(found.cohen_kappa))
        for field in _RATIOS:
            ratio, expected = getattr(found, field), getattr(want, field)
            if (ratio.numerator, ratio.denominator) != (expected.numerator, expected.denominator):
                collector.add(shown, None, f"{name}.{field}",
                              f"{expected.numerator}/{expected.denominator}{source}",
                              f"{ratio.numerator}/{ratio.denominator}")
            elif not _same(ratio.value, expected.value):
                collector.add(shown, None, f"{name}.{field}.value", f"{expected.value!r}{source}",
                              repr(ratio.value))
