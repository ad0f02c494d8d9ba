"""`review import` on hostile and broken sheets: refused early, with the file and the bound named.

Hostile workbooks are built at test time: an exported workbook whose worksheet is swapped for
one written chunk by chunk (a cell inflating to 1 GiB), or for a few hundred bytes of XML that
declare or use the sheet's last address (XFD1048576).
"""

from __future__ import annotations

import csv
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hostile_run import run_cli

from ragtriage.cli import cli
from ragtriage.loading import load_dataset
from ragtriage.paths import is_safe_file_stem
from ragtriage.review import SHEET_LIMITS, export_sheet

MIB = 1024 * 1024
SHEET = "xl/worksheets/sheet1.xml"
NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
LIMITS = f"at most {SHEET_LIMITS.max_rows} rows and {SHEET_LIMITS.max_columns} columns"


def _exported(dataset: Path, path: Path) -> Path:
    export_sheet(load_dataset(dataset), path)
    return path


def _swap_sheet(source: Path, target: Path, chunks: Iterable[bytes]) -> None:
    """`source` with its worksheet replaced by `chunks`, written as they come."""
    with (
        zipfile.ZipFile(source) as old,
        zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as new,
    ):
        for info in old.infolist():
            if info.filename != SHEET:
                new.writestr(info.filename, old.read(info.filename))
        with new.open(SHEET, "w", force_zip64=True) as handle:
            for chunk in chunks:
                handle.write(chunk)


def _one_huge_cell(mebibytes: int) -> Iterator[bytes]:
    yield (
        f'<worksheet {NS}><dimension ref="A1:A2"/><sheetData>'
        '<row r="1"><c r="A1" t="inlineStr"><is><t>row_kind</t></is></c></row>'
        '<row r="2"><c r="A2" t="inlineStr"><is><t>'
    ).encode()
    block = b"a" * MIB
    for _ in range(mebibytes):
        yield block
    yield b"</t></is></c></row></sheetData></worksheet>"


def _last_address(dimension: str | None) -> Iterator[bytes]:
    declared = f'<dimension ref="{dimension}"/>' if dimension else ""
    yield (
        f"<worksheet {NS}>{declared}<sheetData>"
        '<row r="1"><c r="A1" t="inlineStr"><is><t>row_kind</t></is></c></row>'
        '<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>x</t></is></c></row>'
        "</sheetData></worksheet>"
    ).encode()


def _error_lines(result: object) -> list[str]:
    return str(getattr(result, "stderr", "") or getattr(result, "output", "")).splitlines()


def test_a_1_mb_workbook_inflating_to_1_gib_is_refused_from_its_zip_directory(
    article_fixture: Path, tmp_path: Path
) -> None:
    bomb = tmp_path / "bomb.xlsx"
    _swap_sheet(_exported(article_fixture, tmp_path / "s.xlsx"), bomb, _one_huge_cell(1024))
    assert bomb.stat().st_size < 2 * MIB
    with zipfile.ZipFile(bomb) as book:
        total = sum(i.file_size for i in book.infolist())
        member = book.getinfo(SHEET)
    ratio = member.file_size / member.compress_size
    result = run_cli(
        "review", "import", article_fixture, bomb, "--reviewer", "ana", "-o", tmp_path / "out"
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "Error: 2 problems found in the input:",
        f"- {bomb}: (zip): expected at most {SHEET_LIMITS.max_unpacked_bytes} bytes unpacked; "
        f"found {total} bytes declared",
        f"- {bomb}: {SHEET}: expected a compression ratio of at most {SHEET_LIMITS.max_ratio}; "
        f"found {member.file_size} bytes from {member.compress_size} (ratio {ratio:.0f})",
    ]
    assert not (tmp_path / "out").exists()


def test_a_10_kb_workbook_declaring_the_last_address_is_refused(
    article_fixture: Path, tmp_path: Path
) -> None:
    hostile = tmp_path / "far.xlsx"
    _swap_sheet(
        _exported(article_fixture, tmp_path / "s.xlsx"), hostile, _last_address("A1:XFD1048576")
    )
    assert hostile.stat().st_size < 10_000
    result = run_cli("review", "import", article_fixture, hostile, "-o", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "Error: 1 problem found in the input:",
        f"- {hostile}: {SHEET}: dimension: expected {LIMITS}; found 'A1:XFD1048576'",
    ]


def test_a_cell_past_a_small_declared_dimension_is_found_by_its_address(
    article_fixture: Path, tmp_path: Path
) -> None:
    exported = _exported(article_fixture, tmp_path / "s.xlsx")
    for dimension in ("A1:Q2", None):
        hostile = tmp_path / f"lying-{dimension is None}.xlsx"
        _swap_sheet(exported, hostile, _last_address(dimension))
        result = run_cli("review", "import", article_fixture, hostile, "-o", tmp_path / "out")
        assert result.returncode == 2
        assert result.stderr.splitlines() == [
            "Error: 1 problem found in the input:",
            f"- {hostile}: {SHEET}: row 1048576: expected {LIMITS}; found a row at 1048576",
        ]


def test_cells_without_addresses_are_counted_where_readers_put_them(
    article_fixture: Path, tmp_path: Path
) -> None:
    wide = "".join('<c t="inlineStr"><is><t>x</t></is></c>' for _ in range(65))
    hostile = tmp_path / "wide.xlsx"
    _swap_sheet(
        _exported(article_fixture, tmp_path / "s.xlsx"),
        hostile,
        [f"<worksheet {NS}><sheetData><row>{wide}</row></sheetData></worksheet>".encode()],
    )
    result = CliRunner().invoke(
        cli, ["review", "import", str(article_fixture), str(hostile), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert _error_lines(result)[1] == (
        f"- {hostile}: {SHEET}: cell row 1, column 65: expected {LIMITS}; "
        "found a cell at row 1, column 65"
    )


def test_a_cell_longer_than_the_bound_is_refused_with_its_row_and_column(
    article_fixture: Path, tmp_path: Path
) -> None:
    hostile = tmp_path / "long.xlsx"
    cell = "b" * (SHEET_LIMITS.max_cell_chars + 1)
    xml = (
        f'<worksheet {NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>row_kind</t>'
        '</is></c><c r="B1" t="inlineStr"><is><t>question</t></is></c></row><row r="2">'
        f'<c r="B2" t="inlineStr"><is><t>{cell}</t></is></c></row></sheetData></worksheet>'
    )
    _swap_sheet(_exported(article_fixture, tmp_path / "s.xlsx"), hostile, [xml.encode()])
    result = CliRunner().invoke(
        cli, ["review", "import", str(article_fixture), str(hostile), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert _error_lines(result) == [
        "Error: 1 problem found in the input:",
        f"- {hostile}: row 2: question: expected at most {SHEET_LIMITS.max_cell_chars} "
        f"characters in a cell; found {SHEET_LIMITS.max_cell_chars + 1} characters",
    ]


def test_an_entity_expansion_bomb_is_refused_by_its_doctype(
    article_fixture: Path, tmp_path: Path
) -> None:
    levels = "".join(f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
    xml = (
        f'<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY a0 "aaaaaaaaaa">{levels}]>'
        f'<worksheet {NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&a9;</t></is>'
        "</c></row></sheetData></worksheet>"
    )
    hostile = tmp_path / "laughs.xlsx"
    _swap_sheet(_exported(article_fixture, tmp_path / "s.xlsx"), hostile, [xml.encode()])
    result = CliRunner().invoke(
        cli, ["review", "import", str(article_fixture), str(hostile), "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert _error_lines(result) == [
        "Error: 1 problem found in the input:",
        f"- {hostile}: {SHEET}: expected XML without a document type declaration (spreadsheets "
        "have none); found a <!DOCTYPE ...>",
    ]


def _csv(path: Path, rows: Iterable[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def _import(dataset: Path, sheet: Path, out: Path, *extra: str) -> Result:
    return CliRunner().invoke(
        cli, ["review", "import", str(dataset), str(sheet), "-o", str(out), *extra]
    )


def test_csv_sheets_are_bounded_in_rows_columns_cells_and_size(
    article_fixture: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    rows = _csv(tmp_path / "rows.csv", (["claim"] for _ in range(SHEET_LIMITS.max_rows + 1)))
    wide = _csv(tmp_path / "wide.csv", [["x"] * (SHEET_LIMITS.max_columns + 1)])
    long = _csv(tmp_path / "long.csv", [["row_kind"], ["c" * (SHEET_LIMITS.max_cell_chars + 1)]])
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.truncate(SHEET_LIMITS.max_file_bytes + 1)  # sparse: nothing is really written
    cases = {
        rows: f"row {SHEET_LIMITS.max_rows + 1}: expected {LIMITS}; "
        f"found more than {SHEET_LIMITS.max_rows} rows",
        wide: f"row 1: expected {LIMITS}; found {SHEET_LIMITS.max_columns + 1} columns",
        long: f"(file): expected valid CSV; found a cell of more than "
        f"{SHEET_LIMITS.max_cell_chars} characters (row 2)",
        big: f"(file): expected a sheet of at most {SHEET_LIMITS.max_file_bytes} bytes; "
        f"found {SHEET_LIMITS.max_file_bytes + 1} bytes",
    }
    for sheet, message in cases.items():
        result = _import(article_fixture, sheet, out)
        assert result.exit_code == 2
        assert _error_lines(result) == [
            "Error: 1 problem found in the input:",
            f"- {sheet}: {message}",
        ]
    assert not out.exists()


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def _write_rows(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_rows_naming_what_the_dataset_lacks_are_all_refused(
    article_fixture: Path, tmp_path: Path
) -> None:
    rows = _rows(_exported(article_fixture, tmp_path / "s.csv"))
    rows[0].update(run="nope", verdict="unsupported")
    rows[1].update(question_id="zz", verdict="covered")
    rows[2].update(claim_id="c99", verdict="unsupported")
    rows[3].update(fact_id="f9")
    sheet = _write_rows(tmp_path / "bad.csv", rows)
    result = _import(article_fixture, sheet, tmp_path / "out", "--reviewer", "ana")
    assert result.exit_code == 2
    assert _error_lines(result) == [
        "Error: 4 problems found in the input:",
        f"- {sheet}: question 'exact-code': row 2: run: expected a run of the dataset "
        "(synthetic-baseline, synthetic-corrected); found 'nope'",
        f"- {sheet}: question 'zz': row 3: question_id: expected a question answered by run "
        "'synthetic-baseline'; found 'zz'",
        f"- {sheet}: question 'two-facts': row 4: claim_id: expected a claim of the answer (c1); "
        "found 'c99'",
        f"- {sheet}: question 'two-facts': row 5: fact_id: expected a reference fact of the "
        "question (retention-7-days, export-json); found 'f9'",
    ]
    assert not (tmp_path / "out").exists()


def test_a_cell_under_no_column_name_is_refused_not_dropped(
    article_fixture: Path, tmp_path: Path
) -> None:
    # A reviewer's note typed past the last column (or under a column without a name) would
    # be read as nothing; an empty cell there is padding and stays accepted.
    rows = _rows(_exported(article_fixture, tmp_path / "s.csv"))
    header = [*rows[0], ""]
    table = [header, [*rows[0].values(), "reviewer note"], [*rows[1].values(), ""]]
    table += [list(row.values()) for row in rows[2:]]
    sheet = _csv(tmp_path / "extra.csv", table)
    result = _import(article_fixture, sheet, tmp_path / "out", "--reviewer", "ana")
    assert result.exit_code == 2
    assert _error_lines(result) == [
        "Error: 1 problem found in the input:",
        f"- {sheet}: row 2: column 18: expected no cell outside the exported columns (this "
        "column has no name in the header); found 'reviewer note'",
    ]
    assert not (tmp_path / "out").exists()


def test_a_sheet_without_rows_says_so(article_fixture: Path, tmp_path: Path) -> None:
    # A header alone (what export writes for runs with nothing to review) imported nothing
    # and printed nothing, exit 0: indistinguishable from a command that did not run.
    header = list(_rows(_exported(article_fixture, tmp_path / "s.csv"))[0])
    sheet = _csv(tmp_path / "header.csv", [header])
    result = _import(article_fixture, sheet, tmp_path / "out", "--reviewer", "ana")
    assert result.exit_code == 0
    assert result.stdout == f"{sheet}: no claim or fact rows to import; nothing was written\n"
    assert not (tmp_path / "out").exists()


def test_a_run_name_that_is_no_file_name_is_refused_not_mangled(
    article_fixture: Path, tmp_path: Path
) -> None:
    text = article_fixture.read_text(encoding="utf-8")
    renamed = tmp_path / "renamed.json"
    renamed.write_text(text.replace('"synthetic-baseline"', '"../base line"'), encoding="utf-8")
    rows = _rows(_exported(renamed, tmp_path / "s.csv"))
    rows[0].update(verdict="unsupported")
    rows[1].update(verdict="covered")
    sheet = _write_rows(tmp_path / "filled.csv", rows)
    result = _import(renamed, sheet, tmp_path / "out", "--reviewer", "ana")
    assert result.exit_code == 2
    assert _error_lines(result) == [
        "Error: 1 problem found in the input:",
        f"- {sheet}: question 'exact-code': row 2: run: expected a name usable as a file name "
        "(letters, digits, '-', '_', '.'; not starting with '.'; at most 100 characters); "
        "found '../base line'",
    ]
    assert not (tmp_path / "out").exists()


def _filled(dataset: Path, tmp_path: Path, reviewer: str, verdict: str) -> Path:
    rows = _rows(_exported(dataset, tmp_path / f"{reviewer}-export.csv"))
    for row in rows:
        if row["run"] == "synthetic-baseline":
            row.update(
                verdict=verdict if row["row_kind"] == "claim" else "cannot_judge", reviewer=reviewer
            )
    return _write_rows(tmp_path / f"{reviewer}.csv", rows)


def test_a_sheet_without_filled_rows_keeps_the_earlier_labels_without_calling_them_others(
    article_fixture: Path, tmp_path: Path
) -> None:
    # The earlier labels are ana's own: "kept 8 of other reviewers" said otherwise.
    out = tmp_path / "labels"
    target = out / "synthetic-baseline.labels.json"
    assert _import(article_fixture, _filled(article_fixture, tmp_path, "ana", "unsupported"),
                   out).exit_code == 0
    blank = _exported(article_fixture, tmp_path / "blank.csv")
    again = _import(article_fixture, blank, out, "--reviewer", "ana")
    assert (again.exit_code, again.output.splitlines()[0]) == (
        0,
        "run synthetic-baseline: 0 claim labels, 0 fact labels, kept 8 earlier labels "
        f"-> {target}",
    )


def test_two_reviewers_labels_are_merged_and_a_second_import_needs_force(
    article_fixture: Path, tmp_path: Path
) -> None:
    from ragtriage.schemas import LabelSet

    out = tmp_path / "labels"
    target = out / "synthetic-baseline.labels.json"
    ana = _filled(article_fixture, tmp_path, "ana", "unsupported")
    bo = _filled(article_fixture, tmp_path, "bo", "cannot_judge")
    first = _import(article_fixture, ana, out)
    assert first.exit_code == 0, first.output
    per_reviewer = len(LabelSet.model_validate_json(target.read_text()).claim_labels)
    second = _import(article_fixture, bo, out)
    assert second.exit_code == 0
    assert second.output.splitlines()[0] == (
        f"run synthetic-baseline: 4 claim labels, 4 fact labels, kept 8 earlier labels "
        f"-> {target}"
    )
    merged = LabelSet.model_validate_json(target.read_text())
    names = [e.label.labeller.name for e in merged.claim_labels]
    assert names == ["ana"] * per_reviewer + ["bo"] * per_reviewer
    again = _import(article_fixture, ana, out)
    assert again.exit_code == 2
    assert _error_lines(again) == [
        "Error: 1 problem found in the input:",
        f"- {target}: labeller: expected no labels yet by this sheet's reviewers (--force "
        "replaces them); found labels by human 'ana'",
    ]
    assert LabelSet.model_validate_json(target.read_text()) == merged
    forced = _import(article_fixture, ana, out, "--force")
    assert forced.exit_code == 0
    assert forced.output.splitlines()[0] == (
        f"run synthetic-baseline: 4 claim labels, 4 fact labels, kept 8 earlier labels, "
        f"replaced 8 earlier -> {target}"
    )
    final = LabelSet.model_validate_json(target.read_text())
    assert [e.label.labeller.name for e in final.claim_labels] == (
        ["bo"] * per_reviewer + ["ana"] * per_reviewer
    )


def test_the_old_one_argument_form_is_a_usage_error(article_fixture: Path, tmp_path: Path) -> None:
    sheet = _exported(article_fixture, tmp_path / "s.csv")
    result = CliRunner().invoke(cli, ["review", "import", str(sheet), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "Missing argument 'SHEET'" in result.output


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("base", True), ("run-1.v2_b", True), ("基线", True), ("x" * 100, True),
        ("", False), (".hidden", False), ("a/b", False), ("a b", False), ("../x", False),
        ("x" * 101, False), ("c:1", False), ("a\\b", False),
    ],
)  # fmt: skip
def test_which_run_names_are_file_names(name: str, safe: bool) -> None:
    assert is_safe_file_stem(name) is safe


def test_a_labels_file_that_is_not_one_is_refused_not_overwritten(
    article_fixture: Path, tmp_path: Path
) -> None:
    out = tmp_path / "labels"
    out.mkdir()
    target = out / "synthetic-baseline.labels.json"
    other = '{"schema_version": 1, "kind": "labels", "run": "synthetic-corrected"}'
    target.write_text(other, encoding="utf-8")
    result = _import(article_fixture, _filled(article_fixture, tmp_path, "ana", "unsupported"), out)
    assert result.exit_code == 2
    assert _error_lines(result) == [
        "Error: 1 problem found in the input:",
        f"- {target}: run: expected a labels file of run 'synthetic-baseline'; "
        "found a labels file of run 'synthetic-corrected'",
    ]
    assert target.read_text(encoding="utf-8") == other


def test_a_column_named_twice_is_refused_not_half_read(
    article_fixture: Path, tmp_path: Path
) -> None:
    # Two columns under one name kept the last one's cells: a reviewer's reasons typed in the
    # first `reason` column were dropped without a word when an empty second one followed.
    rows = _rows(_exported(article_fixture, tmp_path / "s.csv"))
    header = [*rows[0], "reason"]
    table = [header] + [[*row.values(), ""] for row in rows]
    table[1][header.index("reason")] = "the context says so"
    sheet = _csv(tmp_path / "twice.csv", table)
    result = _import(article_fixture, sheet, tmp_path / "out", "--reviewer", "ana")
    assert result.exit_code == 2
    assert _error_lines(result) == [
        "Error: 1 problem found in the input:",
        f"- {sheet}: row 1: reason: expected each column name once in the header; found "
        "'reason' in columns 15, 18",
    ]
    assert not (tmp_path / "out").exists()
