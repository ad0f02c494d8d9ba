"""Review sheets against formula injection: a cell a spreadsheet would run as a formula is
written with a leading `'` (both forms), read back without it, and imports exactly."""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st
from test_review_sheets import _fill, _truth

from ragtriage.cli.main import cli
from ragtriage.loading import load_dataset
from ragtriage.review import COLUMNS, export_sheet, import_sheet, read_sheet, write_sheet

# Each replacement gives an ID, a run name, a question, a claim or a document ID of the
# article fixture a first character from OWASP's list (or a quote of its own).
_HOSTILE = (
    ('"exact-code"', '"=exact-code"'),
    ('"retry-v2"', '"@retry-v2"'),
    ("[retry-v2]", "[@retry-v2]"),
    ("synthetic-baseline", "-baseline"),
    ('"遇到 R-17，要等多久再重试？"', '"+遇到 R-17？"'),
    ('"等待 30 秒"', "\"'等待 30 秒\""),
    ('"日志保留 7 天"', '"\\t=日志保留 7 天"'),
    ('"最多可扩容到 90 天"', '"\\r=最多可扩容到 90 天"'),
)


@pytest.fixture()
def hostile(article_fixture: Path, tmp_path: Path) -> Path:
    text = article_fixture.read_text(encoding="utf-8")
    for old, new in _HOSTILE:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_cells_starting_a_formula_are_written_as_text(hostile: Path, tmp_path: Path) -> None:
    export_sheet(load_dataset(hostile), tmp_path / "sheet.csv")
    with (tmp_path / "sheet.csv").open(encoding="utf-8-sig", newline="") as handle:
        header, first, *rest = list(csv.reader(handle))
    cells = dict(zip(header, first, strict=True))
    assert [cells[c] for c in ("run", "question_id", "question", "answer", "claim", "cited_ids",
                               "context_ids")] == [
        "'-baseline", "'=exact-code", "'+遇到 R-17？", "等待 30 秒再重试。[@retry-v2]",
        "''等待 30 秒", "'@retry-v2", "'@retry-v2, export-v2",
    ]
    claims = [dict(zip(header, row, strict=True))["claim"] for row in rest if row[0] == "claim"]
    assert claims[:3] == ["'\t=日志保留 7 天", "日志保留 30 天", "'\r=最多可扩容到 90 天"]


def test_xlsx_cells_are_text_cells_with_the_same_guard(hostile: Path, tmp_path: Path) -> None:
    from openpyxl import load_workbook

    export_sheet(load_dataset(hostile), tmp_path / "sheet.xlsx")
    sheet = load_workbook(tmp_path / "sheet.xlsx")["review"]
    first = {c: sheet.cell(row=2, column=n) for n, c in enumerate(COLUMNS, start=1)}
    assert [(first[c].value, first[c].data_type) for c in ("run", "question_id", "claim")] == [
        ("'-baseline", "s"), ("'=exact-code", "s"), ("''等待 30 秒", "s")
    ]
    kinds = {cell.data_type for line in sheet.iter_rows() for cell in line if cell.value}
    assert kinds == {"s"}  # text only: no formula ("f") cell


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_a_hostile_sheet_round_trips_to_identical_labels(
    hostile: Path, tmp_path: Path, suffix: str
) -> None:
    dataset = load_dataset(hostile)
    path = tmp_path / f"sheet{suffix}"
    sheet = export_sheet(dataset, path)
    _, rows = read_sheet(path)
    assert [r.cells for r in rows] == [{c: row.get(c, "") for c in COLUMNS} for row in sheet.rows]
    assert rows[0].cells["claim"] == "'等待 30 秒"
    truth = _truth(hostile)
    write_sheet(path, _fill([r.cells for r in rows], truth))
    imported = import_sheet(path, dataset, reviewer="ana")
    assert imported.unfilled == ()
    assert {s.run: s for s in imported.label_sets} == truth
    assert [e.question_id for e in truth["-baseline"].claim_labels][:1] == ["=exact-code"]


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_ids_starting_or_ending_with_white_space_round_trip(
    article_fixture: Path, tmp_path: Path, suffix: str
) -> None:
    # An ID keeps its spaces (`Identifier`; tabs and carriage returns are refused), and the
    # cells the rows are matched by are read as exported, not stripped.
    text = article_fixture.read_text(encoding="utf-8")
    for old, new in (
        ('"two-facts"', '" two-facts"'),
        ('"stale-version"', '"stale-version "'),
        ('"retention-v1"', '" retention-v1  "'),
        ("[retention-v1]", "[ retention-v1  ]"),
    ):
        assert old in text
        text = text.replace(old, new)
    source = tmp_path / "padded.json"
    source.write_text(text, encoding="utf-8")
    dataset = load_dataset(source)
    path = tmp_path / f"sheet{suffix}"
    export_sheet(dataset, path)
    truth = _truth(source)
    _, rows = read_sheet(path)
    filled = _fill([r.cells for r in rows], truth)  # supported_by as a reviewer types it:
    assert [r["supported_by"] for r in filled if r["question_id"] == "stale-version "][:1] == [
        " retention-v1  "  # read stripped, then matched to the context ID it names
    ]
    write_sheet(path, filled)
    imported = import_sheet(path, dataset, reviewer="ana")
    assert imported.unfilled == ()
    assert {s.run: s for s in imported.label_sets} == truth
    [baseline] = [s for s in imported.label_sets if s.run == "synthetic-baseline"]
    assert [(e.question_id, e.label.supported_by) for e in baseline.claim_labels][1:3] == [
        (" two-facts", ["retention-v2"]), ("stale-version ", [" retention-v1  "])
    ]


def test_only_the_guards_quote_is_removed_on_reading(tmp_path: Path) -> None:
    path = tmp_path / "sheet.csv"
    write_sheet(path, [{"row_kind": "claim", "reason": "'quoted' by the reviewer"}])
    assert path.read_text(encoding="utf-8-sig").splitlines()[1] == (
        "claim,,,,,,,,,,,,,,''quoted' by the reviewer,,"
    )
    assert read_sheet(path)[1][0].cells["reason"] == "'quoted' by the reviewer"
    path.write_text(  # filled by hand: a quote is the guard only before a formula character
        ",".join(COLUMNS) + "\r\n"
        + "".join(f"claim,,,,,,,,,,,,,,{reason},,\r\n" for reason in ("'=sum", "'x", "'", "=x")),
        encoding="utf-8",
    )
    assert [r.cells["reason"] for r in read_sheet(path)[1]] == ["=sum", "'x", "'", "=x"]


_START = st.sampled_from(["=", "+", "-", "@", "\t", "\r", "'", "''", "'=", "a"])
# What both forms hold (XLSX refuses most C0 controls: tested in test_review_properties).
_REST = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff")
    | st.sampled_from("\t\n\r"),
    max_size=12,
)
_CELL = st.builds(lambda a, b: a + b, _START, _REST)


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(_CELL, min_size=1, max_size=len(COLUMNS) - 1),
    suffix=st.sampled_from([".csv", ".xlsx"]),
)
def test_any_text_starting_a_formula_round_trips(texts: list[str], suffix: str) -> None:
    row = {"row_kind": "claim", **dict(zip(COLUMNS[1:], texts, strict=False))}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"sheet{suffix}"
        write_sheet(path, [row])
        [read] = read_sheet(path)[1]
    assert read.cells == {c: row.get(c, "") for c in COLUMNS}


def test_an_id_with_a_comma_is_refused_before_a_sheet_is_written(
    article_fixture: Path, tmp_path: Path
) -> None:
    # A list cell is read back split at commas: `retry,v2` in a context or among the cited
    # IDs could not be matched or typed in supported_by. Refused, every place named.
    text = article_fixture.read_text(encoding="utf-8").replace("retry-v2", "retry,v2")
    path = tmp_path / "commas.json"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "sheet.csv"
    outcome = CliRunner().invoke(cli, ["review", "export", str(path), "-o", str(out)])
    expected = "an ID without a comma (a sheet's list cells are read back split at commas)"
    problems = [line for line in outcome.output.splitlines() if line.startswith("- ")]
    base, corrected = "runs[synthetic-baseline]", "runs[synthetic-corrected]"
    found = f"expected {expected}; found 'retry,v2'"
    assert (outcome.exit_code, problems) == (2, [
        f"- {path}: question 'exact-code': {base}.context: {found}",
        f"- {path}: question 'exact-code': {base}.claims.citations: {found}",
        f"- {path}: question 'two-facts': {base}.context: {found}",
        f"- {path}: question 'exact-code': {corrected}.context: {found}",
        f"- {path}: question 'exact-code': {corrected}.claims.citations: {found}",
    ])
    assert not out.exists()
