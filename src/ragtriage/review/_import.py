"""Read a filled review sheet back as human labels, checking every filled row.

A row whose verdict is empty is not filled: it is reported, not an error. A filled row with a
wrong value is an error naming file, row, field, expected and found; every such problem is
reported at once and nothing is imported until they are fixed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ProblemCollector, found_text
from ..loading import Dataset
from ..paths import PathArg, as_path
from ..schemas import (
    CONTEXT_HASH,
    CONTEXT_HASH_EXPECTED,
    IDENTIFIER_EXPECTED,
    ClaimLabel,
    ClaimLabelEntry,
    FactLabel,
    FactLabelEntry,
    Labeller,
    LabelSet,
    plain_ids,
)
from ._known import KnownIds
from ._sheet import (
    CLAIM_VERDICTS,
    COLUMNS,
    FACT_VERDICTS,
    ID_SEPARATOR,
    SheetRow,
    sheet_with_problems,
    split_ids,
)

REQUIRED_COLUMNS = (
    "row_kind",
    "run",
    "question_id",
    "claim_id",
    "fact_id",
    "context_ids",
    "verdict",
    "context_hash",
)
"""Columns an imported sheet must have (the others are for the reviewer's eyes). Without
`context_hash` the labels would carry no hash and escape the stale-label check."""


@dataclass(frozen=True)
class Unfilled:
    """A row the reviewer has not filled yet."""

    row: int
    """Row number."""
    run: str
    """Run name."""
    question_id: str
    """The question."""
    item: str
    """`claim c1` or `fact f1`."""


@dataclass(frozen=True)
class ImportedLabels:
    """What a sheet held: labels per run, and the rows still to fill."""

    label_sets: tuple[LabelSet, ...]
    """One label set per run, runs in sheet order."""
    unfilled: tuple[Unfilled, ...]
    """Rows without a verdict."""

    @property
    def filled(self) -> int:
        """How many labels were imported."""
        return sum(len(s.claim_labels) + len(s.fact_labels) for s in self.label_sets)


def _labeller(
    row: SheetRow, reviewer: str | None, file: str, collector: ProblemCollector
) -> Labeller | None:
    name = row.get("reviewer") or reviewer
    qid, where = row.get("question_id") or None, f"row {row.number}: reviewer"
    if not name:
        collector.add(file, qid, where, "a reviewer name in the row or --reviewer", "nothing")
        return None
    if not plain_ids((name,)):
        collector.add(file, qid, where, IDENTIFIER_EXPECTED, found_text(name))
        return None
    return Labeller(kind="human", name=name)


def _check_context_hash(row: SheetRow, file: str, collector: ProblemCollector) -> None:
    # The hash is copied into the label as it stands: one edited by hand would make a labels
    # file that every later command refuses, so it is refused here, naming the row.
    stamp = row.get("context_hash")
    if stamp and not CONTEXT_HASH.fullmatch(stamp):
        where = f"row {row.number}: context_hash"
        expected = CONTEXT_HASH_EXPECTED + " (as exported)"
        collector.add(file, row.get("question_id"), where, expected, repr(stamp))


def _context_id(typed: str, context: tuple[str, ...]) -> str | None:
    """The context ID a reviewer typed (stripped, as every typed cell): itself, or the one
    context ID that starts or ends with spaces, a tab or a carriage return around it."""
    if typed in context:
        return typed
    padded = [cid for cid in context if cid.strip() == typed]
    return padded[0] if len(padded) == 1 else None


def _check_context_ids(
    row: SheetRow, context: tuple[str, ...] | None, file: str, collector: ProblemCollector
) -> None:
    """The row's `context_ids` must be what the export wrote: on a claim row, the run's final
    context for the question (read from the run, never from the sheet); on a fact row,
    nothing. An edited cell would let `supported_by` name passages the answer never had."""
    cell = row.get("context_ids")
    if row.get("row_kind") == "fact":
        expected, exported = "nothing on a fact row (as exported)", ""
    elif context is None:
        return  # the run or question is unknown: reported by the row checks
    else:
        exported = ID_SEPARATOR.join(context)
        expected = f"the run's final context for the question, as exported ({exported or 'empty'})"
    if cell != exported:
        collector.add(
            file, row.get("question_id"), f"row {row.number}: context_ids", expected, repr(cell)
        )


def _check_other_id(row: SheetRow, kind: str, file: str, collector: ProblemCollector) -> None:
    """A claim row's `fact_id` and a fact row's `claim_id` are empty as exported: an ID typed
    there would be dropped, not read."""
    other = "fact" if kind == "claim" else "claim"
    cell = row.get(f"{other}_id")
    if cell:
        where, expected = f"row {row.number}: {other}_id", f"nothing on a {kind} row (as exported)"
        collector.add(file, row.get("question_id"), where, expected, repr(cell))


def _checked_verdict(row: SheetRow, kind: str, file: str, collector: ProblemCollector) -> str:
    """The verdict of a filled claim or fact row, checked with the ID of the row's item."""
    verdicts = CLAIM_VERDICTS if kind == "claim" else FACT_VERDICTS
    qid, where, verdict = row.get("question_id"), f"row {row.number}: ", row.get("verdict")
    if verdict not in verdicts:
        expected = f"one of {', '.join(verdicts)} on a {kind} row"
        collector.add(file, qid, where + "verdict", expected, repr(verdict))
    if not row.get(f"{kind}_id"):
        item = "claim" if kind == "claim" else "reference fact"
        collector.add(file, qid, where + f"{kind}_id", f"the {item}'s ID (as exported)", "nothing")
    return verdict


def _support(
    row: SheetRow,
    verdict: str,
    kind: str,
    context: tuple[str, ...] | None,
    file: str,
    collector: ProblemCollector,
) -> list[str]:
    """The context IDs a claim row's `supported_by` names, as exported, checked against its
    verdict and `context`, the run's final context (None: the run or question is unknown,
    reported by the row checks); a fact row names none."""
    qid, where = row.get("question_id"), f"row {row.number}: supported_by"
    if kind == "fact":
        if row.get("supported_by"):
            collector.add(file, qid, where, "nothing on a fact row", repr(row.get("supported_by")))
        return []
    if context is None:
        return []
    typed = split_ids(row.get("supported_by"))
    support = []
    for item in typed:
        found = _context_id(item, context)
        if found is None:
            expected = f"IDs from context_ids ({', '.join(context) or 'empty'})"
            collector.add(file, qid, where, expected, repr(item))
        else:
            support.append(found)
    if verdict == "supported" and not typed:
        expected = "at least one context ID for a supported claim"
        collector.add(file, qid, where, expected, "nothing")
    if verdict in ("unsupported", "cannot_judge") and typed:
        expected = f"nothing for a claim labelled {verdict}"
        collector.add(file, qid, where, expected, ", ".join(typed))
    return support


def import_sheet(
    path: PathArg, dataset: Dataset, *, reviewer: str | None = None, k: int | None = None
) -> ImportedLabels:
    """Labels from a filled sheet; raise `InputError` listing every problem of filled rows.

    Every row must name a run of `dataset`, a question that run answered, and a claim of that
    answer or a reference fact of that question; the run's name must be usable as a file name.
    A claim row's `context_ids` must be the run's final context for the question (with the
    cut-off `k` the sheet was exported with), and `supported_by` is checked against that
    context, never against the sheet's cell.
    """
    path = as_path(path)
    known = KnownIds(dataset, k)
    file = str(path)
    header, rows, sheet_problems = sheet_with_problems(path)
    collector = ProblemCollector()
    # A cell the sheet does not read as shown is reported with every other problem of the
    # sheet; its row is still checked.
    collector.extend(sheet_problems)
    before = len(collector.problems)
    exported = f"one of the exported columns ({', '.join(COLUMNS)})"
    wrong = [
        (c, f"a {c!r} column (the exported header)", "no such column")
        for c in REQUIRED_COLUMNS
        if c not in header
    ]
    wrong += [(c, exported, repr(c)) for c in header if c and c not in COLUMNS]
    for column, expected, found in wrong:
        collector.add(file, None, f"row 1: {column}", expected, found)
    if len(collector.problems) > before:
        collector.raise_if_any()  # the rows cannot be read without the exported header
    claims: dict[str, list[ClaimLabelEntry]] = {}
    facts: dict[str, list[FactLabelEntry]] = {}
    seen: dict[tuple[str, str, str, str], int] = {}
    unfilled: list[Unfilled] = []
    runs: list[str] = []
    for row in rows:
        kind, run, qid = row.get("row_kind"), row.get("run"), row.get("question_id")
        where = f"row {row.number}: "
        if kind not in ("claim", "fact"):
            collector.add(
                file, qid or None, where + "row_kind", "claim or fact (as exported)", repr(kind)
            )
            continue
        if not run or not qid:
            for column, value in (("run", run), ("question_id", qid)):
                if not value:
                    collector.add(
                        file, qid or None, where + column, "the exported value", "nothing"
                    )
            continue
        item_id = row.get("claim_id") if kind == "claim" else row.get("fact_id")
        key = (run, qid, kind, item_id)
        if key in seen:
            expected = f"each {kind} once per run (already in row {seen[key]})"
            collector.add(file, qid, where + f"{kind}_id", expected, repr(item_id))
            continue
        seen[key] = row.number
        known.check(file, row.number, kind, run, qid, item_id, collector)
        context = known.final_context(run, qid)
        _check_context_ids(row, context, file, collector)
        _check_other_id(row, kind, file, collector)
        if run not in runs:
            runs.append(run)
        if not row.get("verdict"):
            if row.get("supported_by"):
                collector.add(
                    file, qid, where + "verdict", "a verdict when supported_by is filled", "nothing"
                )
            else:
                unfilled.append(Unfilled(row.number, run, qid, f"{kind} {item_id}"))
            continue
        labeller = _labeller(row, reviewer, file, collector)
        before = len(collector.problems)
        verdict = _checked_verdict(row, kind, file, collector)
        support = _support(row, verdict, kind, context, file, collector)
        _check_context_hash(row, file, collector)
        if len(collector.problems) > before or labeller is None:
            continue
        # The verdict is checked against the row kind's verdicts above.
        label: dict[str, Any] = {
            "verdict": verdict,
            "labeller": labeller,
            "reason": row.get("reason") or None,
            "context_hash": row.get("context_hash") or None,
        }
        if kind == "claim":
            claim = ClaimLabel(supported_by=support, **label)
            entry = ClaimLabelEntry(question_id=qid, claim_id=row.get("claim_id"), label=claim)
            claims.setdefault(run, []).append(entry)
        else:
            fact = FactLabel(fact_id=row.get("fact_id"), **label)
            facts.setdefault(run, []).append(FactLabelEntry(question_id=qid, label=fact))
    collector.raise_if_any()
    sets = tuple(
        LabelSet(run=run, claim_labels=claims.get(run, []), fact_labels=facts.get(run, []))
        for run in runs
    )
    return ImportedLabels(sets, tuple(unfilled))
