"""Build a review sheet from a dataset: a row per claim and a row per (answer, reference fact)."""

from __future__ import annotations

from dataclasses import dataclass

from ..detectors import mask_text, masked_item_text
from ..errors import InputError, Problem, found_text
from ..judges import check_judgeable, label_context_hash, passages_for
from ..loading import Dataset, SnapshotIndex
from ..paths import PathArg, as_path
from ..schemas import claim_ids
from ._sheet import ID_SEPARATOR, write_sheet

ID_EXPECTED = "an ID without a comma (a sheet's list cells are read back split at commas)"
"""What a context or cited ID a review sheet lists must be."""


def _as_is(text: str) -> str:
    return text


@dataclass(frozen=True)
class Skipped:
    """An answer that got no claim rows, and why."""

    run: str
    """Run name."""
    question_id: str
    """The question."""
    reason: str
    """Why (claims not extracted yet)."""


@dataclass(frozen=True)
class ReviewSheet:
    """The rows of a review sheet, and what was left out."""

    rows: tuple[dict[str, str], ...]
    """Rows as cell text by column name, verdict columns empty."""
    skipped: tuple[Skipped, ...]
    """Answered results without extracted claims (run `ragtriage judge` to extract them)."""

    @property
    def claim_rows(self) -> int:
        """How many claim rows."""
        return sum(row["row_kind"] == "claim" for row in self.rows)

    @property
    def fact_rows(self) -> int:
        """How many fact rows."""
        return sum(row["row_kind"] == "fact" for row in self.rows)


def build_sheet(dataset: Dataset, *, k: int | None = None, raw_text: bool = False) -> ReviewSheet:
    """Rows for every claim of every answered result, and every reference fact of its question.

    Question, answer, claim, context and fact text is masked like every report
    (`[masked:DETECTOR]` for each sensitive value) unless `raw_text` is true, for reviewers
    who may see the values. IDs and hashes are never masked: the import reads them back.
    """
    shown = _as_is if raw_text else mask_text
    ks = dataset.cutoffs(k)
    check_judgeable(dataset, ks)
    index = SnapshotIndex.build(dataset.snapshot)
    questions = {q.id: q for q in dataset.evalset.questions}
    rows: list[dict[str, str]] = []
    skipped: list[Skipped] = []
    problems: list[Problem] = []
    for run in dataset.runs:
        for res in run.results:
            if res.outcome != "answered" or res.answer is None:
                continue
            question = questions[res.question_id]
            passages = passages_for(res, index, ks[run.name])
            listed = (
                ("context", [p.id for p in passages]),
                ("claims.citations", [i for claim in res.claims or () for i in claim.citations]),
            )
            prefix = f"runs[{run.name}]." if dataset.article else ""
            problems.extend(
                Problem(
                    dataset.run_file(run.name), question.id, prefix + field, ID_EXPECTED,
                    found_text(i),
                )
                for field, ids in listed
                for i in dict.fromkeys(ids) if "," in i
            )
            common = {
                "run": run.name,
                "question_id": question.id,
                "question": shown(question.text),
                "answer": shown(res.answer),
                "context_hash": label_context_hash(res, index, ks[run.name]),
            }
            context = "\n\n".join(
                f"[{p.id}] {p.text if raw_text else masked_item_text(p.id, p.text, index)}"
                for p in passages
            )
            context_ids = ID_SEPARATOR.join(p.id for p in passages)
            if res.claims is None:
                skipped.append(Skipped(run.name, question.id, "claims not extracted"))
            given = res.claims or ()
            for claim_id, claim in zip(claim_ids(c.id for c in given), given, strict=True):
                rows.append(
                    {
                        **common,
                        "row_kind": "claim",
                        "claim_id": claim_id,
                        "claim": shown(claim.text),
                        "cited_ids": ID_SEPARATOR.join(claim.citations),
                        "context": context,
                        "context_ids": context_ids,
                    }
                )
            rows += [
                {**common, "row_kind": "fact", "fact_id": fact.id, "fact": shown(fact.text or "")}
                for fact in question.reference_facts
            ]
    if problems:
        raise InputError(problems)
    return ReviewSheet(tuple(rows), tuple(skipped))


def export_sheet(
    dataset: Dataset, path: PathArg, *, k: int | None = None, raw_text: bool = False
) -> ReviewSheet:
    """Build the sheet (masked unless `raw_text`) and write it as CSV or XLSX (by suffix)."""
    path = as_path(path)
    sheet = build_sheet(dataset, k=k, raw_text=raw_text)
    write_sheet(path, sheet.rows)
    return sheet
