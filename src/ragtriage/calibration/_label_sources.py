"""Where a measure's counted labels came from, and whether a calibration record vouches for them.

A measure that reads labels (claim_support, fact_coverage, ...) counts, on each question where
it applies, the label that counts under the label policy for each claim or fact. Those are
split into human and judge labels; when judge labels count, the measure is "judge-labelled,
uncalibrated" unless every judge whose labels count has a matching calibration record (same
model name and prompt version) with at least one paired item of the kind the measure reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..metrics import Measure, value_text
from ..schemas import Labeller
from ._record import CalibrationRecord

UNCALIBRATED = "judge-labelled, uncalibrated"
"""How a measure computed from judge labels is marked until a calibration record matches."""

LABEL_KINDS = {"claim labels": "claim", "fact labels": "fact"}
"""A measure's required input -> the item kind whose labels it counts."""


@dataclass(frozen=True)
class CalibrationMatch:
    """A calibration record that vouches for one judge on one item kind."""

    judge: Labeller
    """The judge as recorded in the calibration."""
    kind: str
    """`claim` or `fact`."""
    items: int
    """Items the judge and humans both labelled."""
    kappa: float | None
    """Cohen's kappa on those items (None when undefined)."""
    agreement: float | None
    """Share of those items with the same verdict."""
    record: str
    """The record's digest (`CalibrationRecord.digest`)."""


@dataclass(frozen=True)
class LabelSources:
    """Where one measure's counted labels came from in one run."""

    human: int
    """Counted items labelled by humans."""
    judge: int
    """Counted items labelled by a judge."""
    judges: tuple[Labeller, ...]
    """The judges whose labels counted, sorted by name and prompt version."""
    calibration: tuple[CalibrationMatch, ...]
    """One match per (judge, item kind) when every one is calibrated; empty otherwise."""

    @property
    def calibrated(self) -> bool:
        """Judge labels counted and every judge is calibrated."""
        return self.judge > 0 and bool(self.calibration)

    def mark(self) -> str | None:
        """The report mark: None without judge labels, else calibrated or uncalibrated."""
        if self.judge == 0:
            return None
        if not self.calibration:
            return UNCALIBRATED
        if len(self.calibration) == 1:
            return f"judge-labelled, calibrated ({_figure(self.calibration[0])})"
        parts = "; ".join(f"{m.judge.name} {_figure(m)}" for m in self.calibration)
        return f"judge-labelled, calibrated ({parts})"


def _figure(match: CalibrationMatch) -> str:
    return f"kappa {value_text(match.kappa, 2)} on {match.items} items"


def measure_kinds(measure: Measure) -> tuple[str, ...]:
    """The item kinds (`claim`, `fact`) whose labels a measure reads; empty for none."""
    return tuple(LABEL_KINDS[r] for r in measure.spec.requires if r in LABEL_KINDS)


def _match(
    judge: Labeller, kind: str, calibrations: Sequence[CalibrationRecord]
) -> CalibrationMatch | None:
    found = [
        CalibrationMatch(
            record.judge,
            kind,
            record.agreement_for(kind).items,
            record.agreement_for(kind).cohen_kappa,
            record.agreement_for(kind).agreement.value,
            record.digest(),
        )
        for record in calibrations
        if record.matches(judge) and record.agreement_for(kind).items > 0
    ]
    # Several records for one judge: the one on most items speaks for it (digest breaks ties).
    return min(found, key=lambda m: (-m.items, m.record), default=None)


def label_sources(
    measure: Measure,
    human: int,
    judge: int,
    judges: Mapping[tuple[str, str], Labeller],
    calibrations: Sequence[CalibrationRecord] = (),
) -> LabelSources:
    """One measure's label sources in one run: the items whose counted label is a person's
    (`human`) or a judge's (`judge`), on the questions where it applies (the engine counts
    them over its arrays), and the judges of those judge-labelled items' current labels by
    (name, prompt version); calibrated when a record matches every judge on every item kind
    the measure reads."""
    ordered = tuple(judges[key] for key in sorted(judges))
    matches = [_match(j, kind, calibrations) for j in ordered for kind in measure_kinds(measure)]
    complete = judge > 0 and all(m is not None for m in matches)
    return LabelSources(
        human=human,
        judge=judge,
        judges=ordered,
        calibration=tuple(m for m in matches if m is not None) if complete else (),
    )


def judge_key(judge: Labeller) -> tuple[str, str]:
    """A judge as label sources and calibration records match it: (name, prompt version)."""
    return judge.name, judge.prompt_version or ""


def _judge_text(judge: Labeller) -> str:
    return f"{judge.name} (prompt {judge.prompt_version})"


def calibration_notes(
    sources: Iterable[Mapping[str, LabelSources]],
    measures: Sequence[Measure],
    calibrations: Sequence[CalibrationRecord],
) -> tuple[str, ...]:
    """A note for each record that calibrates nothing here, so none is ignored silently."""
    by_name = {m.name: m for m in measures}
    needed: dict[tuple[str, str], set[str]] = {}
    present: dict[tuple[str, str], Labeller] = {}
    for run in sources:
        for name, found in run.items():
            for judge in found.judges:
                present.setdefault(judge_key(judge), judge)
                needed.setdefault(judge_key(judge), set()).update(measure_kinds(by_name[name]))
    notes = []
    for record in calibrations:
        key = judge_key(record.judge)
        if key not in present:
            counted = ", ".join(_judge_text(present[k]) for k in sorted(present)) or "none"
            notes.append(
                f"calibration record for judge {_judge_text(record.judge)} was not used: "
                f"no counted label is by that judge (judges whose labels count: {counted})"
            )
            continue
        for kind in sorted(needed[key]):
            if record.agreement_for(kind).items == 0:
                notes.append(
                    f"calibration record for judge {_judge_text(record.judge)} has no paired "
                    f"{kind} items: measures reading {kind} labels stay uncalibrated"
                )
    return tuple(notes)
