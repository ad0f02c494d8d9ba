"""`review import` of sheets edited the way people edit them: saved again by a spreadsheet
program (another separator, line ends, byte order mark), columns moved, rows added."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ragtriage.errors import InputError
from ragtriage.loading import load_dataset
from ragtriage.review import export_sheet, import_sheet


def _filled(article_fixture: Path, tmp_path: Path) -> list[dict[str, str]]:
    sheet = tmp_path / "exported.csv"
    export_sheet(load_dataset(article_fixture), sheet)
    with sheet.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row.update(verdict="cannot_judge", reviewer="ana", reason="unclear, see; the policy")
    return rows


def _saved(path: Path, rows: list[dict[str, str]], delimiter: str) -> Path:
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]), delimiter=delimiter, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_sheet_saved_with_semicolons_or_tabs_imports_as_the_one_saved_with_commas(
    article_fixture: Path, tmp_path: Path, separator: str
) -> None:
    # Spreadsheet programs in locales with a decimal comma save CSV with ';' between cells,
    # and a sheet copied out of one is saved with tabs; such a sheet was read as one column,
    # and a cell holding a comma split the row into cells 'outside the exported columns'.
    rows = _filled(article_fixture, tmp_path)
    dataset = load_dataset(article_fixture)
    commas = import_sheet(_saved(tmp_path / "commas.csv", rows, ","), dataset)
    other = import_sheet(_saved(tmp_path / "other.csv", rows, separator), dataset)
    assert other == commas
    assert commas.filled == 16
    assert {e.label.reason for s in commas.label_sets for e in s.claim_labels} == {
        "unclear, see; the policy"
    }


def test_a_claim_row_of_an_unknown_run_is_refused_once_not_for_its_support(
    article_fixture: Path, tmp_path: Path
) -> None:
    # Its supported_by was checked against an empty context and refused as 'expected IDs
    # from context_ids (empty)', while the row's context_ids cell named the IDs.
    rows = _filled(article_fixture, tmp_path)
    rows[0].update(run="other-run", verdict="supported", supported_by=rows[0]["context_ids"])
    sheet = _saved(tmp_path / "other.csv", rows, ",")
    with pytest.raises(InputError) as info:
        import_sheet(sheet, load_dataset(article_fixture))
    assert rows[0]["context_ids"] == "retry-v2, export-v2"
    assert [p.message() for p in info.value.problems] == [
        f"{sheet}: question 'exact-code': row 2: run: expected a run of the dataset "
        "(synthetic-baseline, synthetic-corrected); found 'other-run'"
    ]
