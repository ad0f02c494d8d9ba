"""Property tests of the sheet reader: any text survives a round trip; any filling either
imports exactly what was filled or fails with problems naming rows."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ragtriage.errors import InputError
from ragtriage.fileio import OutputError
from ragtriage.loading import load_dataset
from ragtriage.review import (
    CLAIM_VERDICTS,
    COLUMNS,
    FACT_VERDICTS,
    build_sheet,
    import_sheet,
    read_sheet,
    write_sheet,
)

# CSV holds anything but a lone surrogate; XLSX (XML 1.0) cannot hold most C0 controls nor
# U+FFFE/U+FFFF: the writer refuses those (tested below and by name in test_review_sheets).
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=40,
)
_NOT_IN_XLSX = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_ROW = st.fixed_dictionaries({c: _TEXT for c in COLUMNS}).filter(
    lambda row: bool(row["row_kind"].strip())
)
_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "article-fixture.json"
_DATASET = load_dataset(_FIXTURE)
_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(rows=st.lists(_ROW, max_size=6), suffix=st.sampled_from([".csv", ".xlsx"]))
def test_any_text_round_trips_through_the_sheet(rows: list[dict[str, str]], suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"sheet{suffix}"
        if suffix == ".xlsx" and any(_NOT_IN_XLSX.search(v) for r in rows for v in r.values()):
            refusal = re.escape("a character an .xlsx sheet cannot hold")
            with pytest.raises(OutputError, match=refusal):
                write_sheet(path, rows)
            assert not path.exists()
            return
        write_sheet(path, rows)
        header, read = read_sheet(path)
    assert header == COLUMNS
    assert [r.cells for r in read] == rows
    assert [r.number for r in read] == list(range(2, len(rows) + 2))


@_SETTINGS
@given(
    cells=st.lists(
        st.fixed_dictionaries(
            {
                c: _TEXT
                for c in (
                    "row_kind",
                    "run",
                    "question_id",
                    "claim_id",
                    "fact_id",
                    "context_ids",
                    "verdict",
                    "supported_by",
                    "reviewer",
                )
            }
        ),
        max_size=6,
    )
)
def test_any_sheet_imports_or_names_the_rows_at_fault(cells: list[dict[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sheet.csv"
        write_sheet(path, cells)
        try:
            imported = import_sheet(path, _DATASET, reviewer="ana")
        except InputError as exc:
            assert exc.problems
            assert all(p.file == str(path) and p.field.startswith("row ") for p in exc.problems)
            return
    listed = len(imported.unfilled) + imported.filled
    nonblank = [c for c in cells if any(v.strip() for v in c.values())]
    assert listed <= len(nonblank)


_FILL = st.tuples(
    st.sampled_from(["", *CLAIM_VERDICTS]),
    st.sampled_from(["", *FACT_VERDICTS]),
    st.booleans(),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12),
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fills=st.lists(_FILL, min_size=16, max_size=16), suffix=st.sampled_from([".csv", ".xlsx"]))
def test_what_is_filled_is_exactly_what_is_imported(
    article_fixture: Path, fills: list[tuple[str, str, bool, str]], suffix: str
) -> None:
    sheet = build_sheet(load_dataset(article_fixture))
    rows, expected_claims, expected_facts, expected_unfilled = [], [], [], []
    for number, (row, (claim_verdict, fact_verdict, second, reason)) in enumerate(
        zip(sheet.rows, fills, strict=True), start=2
    ):
        new = dict(row)
        verdict = claim_verdict if row["row_kind"] == "claim" else fact_verdict
        support = ""
        if verdict == "supported":
            ids = row["context_ids"].split(", ")
            support = ids[1] if second and len(ids) > 1 else ids[0]
        new.update(verdict=verdict, supported_by=support, reason=reason)
        rows.append(new)
        key = (row["run"], row["question_id"], row.get("claim_id") or row["fact_id"])
        if not verdict:
            expected_unfilled.append(number)
        elif row["row_kind"] == "claim":
            expected_claims.append((*key, verdict, support, reason.strip() or None))
        else:
            expected_facts.append((*key, verdict, reason.strip() or None))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"sheet{suffix}"
        write_sheet(path, rows)
        imported = import_sheet(path, load_dataset(article_fixture), reviewer="ana")
    got_claims = [
        (
            s.run,
            e.question_id,
            e.claim_id,
            e.label.verdict,
            ", ".join(e.label.supported_by),
            e.label.reason,
        )
        for s in imported.label_sets
        for e in s.claim_labels
    ]
    got_facts = [
        (s.run, e.question_id, e.label.fact_id, e.label.verdict, e.label.reason)
        for s in imported.label_sets
        for e in s.fact_labels
    ]
    assert got_claims == expected_claims
    assert got_facts == expected_facts
    assert [u.row for u in imported.unfilled] == expected_unfilled
