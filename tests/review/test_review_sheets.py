"""Review sheets: export, fill, import round trip; validation; partly filled sheets; the CLI."""

from __future__ import annotations

import csv
import datetime
import json
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ragtriage.cli.review import review_command
from ragtriage.columnar import evaluate
from ragtriage.errors import InputError
from ragtriage.fileio import OutputError
from ragtriage.judges import label_context_hash
from ragtriage.loading import Dataset, SnapshotIndex, load_dataset
from ragtriage.review import (
    COLUMNS,
    build_sheet,
    export_sheet,
    import_sheet,
    read_sheet,
    write_sheet,
)
from ragtriage.schemas import (
    ClaimLabel,
    ClaimLabelEntry,
    FactLabel,
    FactLabelEntry,
    Labeller,
    LabelSet,
)

REVIEWER = Labeller(kind="human", name="ana")


def _truth(article_fixture: Path) -> dict[str, LabelSet]:
    """The fixture's embedded human labels as label sets, with the context hash of each answer."""
    dataset = load_dataset(article_fixture)
    ks = dataset.cutoffs()
    index = SnapshotIndex.build(dataset.snapshot)
    out = {}
    for run in dataset.runs:
        claims, facts = [], []
        for res in run.results:
            digest = label_context_hash(res, index, ks[run.name])
            for n, claim in enumerate(res.claims or [], start=1):
                lab = claim.labels[0]
                claims.append(
                    ClaimLabelEntry(
                        question_id=res.question_id,
                        claim_id=claim.id or f"c{n}",
                        label=ClaimLabel(
                            verdict=lab.verdict,
                            supported_by=list(lab.supported_by),
                            labeller=REVIEWER,
                            reason=f"checked {n}",
                            context_hash=digest,
                        ),
                    )
                )
            for lab in res.fact_labels:
                facts.append(
                    FactLabelEntry(
                        question_id=res.question_id,
                        label=FactLabel(
                            fact_id=lab.fact_id,
                            verdict=lab.verdict,
                            labeller=REVIEWER,
                            context_hash=digest,
                        ),
                    )
                )
        out[run.name] = LabelSet(run=run.name, claim_labels=claims, fact_labels=facts)
    return out


def _fill(rows: list[dict[str, str]], truth: dict[str, LabelSet]) -> list[dict[str, str]]:
    filled = []
    for row in rows:
        labels = truth[row["run"]]
        new = dict(row)
        if row["row_kind"] == "claim":
            entry = next(
                e
                for e in labels.claim_labels
                if (e.question_id, e.claim_id) == (row["question_id"], row["claim_id"])
            )
            new.update(
                verdict=entry.label.verdict,
                supported_by=", ".join(entry.label.supported_by),
                reason=entry.label.reason or "",
            )
        else:
            fact = next(
                e
                for e in labels.fact_labels
                if (e.question_id, e.label.fact_id) == (row["question_id"], row["fact_id"])
            )
            new.update(verdict=fact.label.verdict)
        filled.append(new)
    return filled


def _rewrite(path: Path, rows: list[dict[str, str]]) -> None:
    from ragtriage.review import write_sheet

    write_sheet(path, rows)


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_round_trip_gives_identical_labels(
    article_fixture: Path, tmp_path: Path, suffix: str
) -> None:
    dataset = load_dataset(article_fixture)
    sheet_path = tmp_path / f"sheet{suffix}"
    sheet = export_sheet(dataset, sheet_path)
    assert (sheet.claim_rows, sheet.fact_rows, sheet.skipped) == (8, 8, ())
    header, rows = read_sheet(sheet_path)
    assert header == COLUMNS
    assert [r.cells for r in rows] == [{c: row.get(c, "") for c in COLUMNS} for row in sheet.rows]
    truth = _truth(article_fixture)
    _rewrite(sheet_path, _fill([r.cells for r in rows], truth))
    imported = import_sheet(sheet_path, dataset, reviewer="ana")
    assert imported.unfilled == ()
    assert {s.run: s for s in imported.label_sets} == truth


def test_imported_labels_evaluate_like_the_embedded_ones(
    article_fixture: Path, tmp_path: Path
) -> None:
    dataset = load_dataset(article_fixture)
    sheet_path = tmp_path / "sheet.csv"
    export_sheet(dataset, sheet_path)
    _, rows = read_sheet(sheet_path)
    _rewrite(sheet_path, _fill([r.cells for r in rows], _truth(article_fixture)))
    runner = CliRunner()
    result = runner.invoke(
        review_command,
        [
            "import",
            str(article_fixture),
            str(sheet_path),
            "--reviewer",
            "ana",
            "--output",
            str(tmp_path / "labels"),
        ],
    )
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "labels").glob("*.json"))
    with_labels = load_dataset(article_fixture, labels=files)
    before = evaluate(dataset).runs[0].summary
    after = evaluate(with_labels).runs[0].summary
    for name in ("claim_support", "fact_coverage"):
        assert (after[name].numerator, after[name].denominator) == (
            before[name].numerator,
            before[name].denominator,
        )


def _exported(dataset: Dataset, tmp_path: Path) -> tuple[Path, list[dict[str, str]]]:
    """A CSV sheet of `dataset` exported into `tmp_path`, and its rows."""
    path = tmp_path / "sheet.csv"
    export_sheet(dataset, path)
    return path, _rows(path)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def test_partly_filled_sheet_imports_what_is_filled_and_lists_the_rest(
    article_fixture: Path, tmp_path: Path
) -> None:
    dataset = load_dataset(article_fixture)
    path, rows = _exported(dataset, tmp_path)
    rows[0].update(verdict="supported", supported_by="retry-v2")
    rows[1].update(verdict="covered", reviewer="bo")
    _rewrite(path, rows)
    result = CliRunner().invoke(
        review_command,
        [
            "import",
            str(article_fixture),
            str(path),
            "--reviewer",
            "ana",
            "--output",
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"run synthetic-baseline: 1 claim label, 1 fact label -> "
        f"{tmp_path / 'out' / 'synthetic-baseline.labels.json'}"
    )
    assert lines[1] == (
        f"run synthetic-corrected: 0 claim labels, 0 fact labels -> "
        f"{tmp_path / 'out' / 'synthetic-corrected.labels.json'}"
    )
    assert lines[2] == "14 rows not filled yet (left out):"
    assert lines[3] == "  row 4: run synthetic-baseline, question two-facts, claim c1"
    imported = import_sheet(path, load_dataset(article_fixture), reviewer="ana")
    facts = imported.label_sets[0].fact_labels
    assert [(f.question_id, f.label.fact_id, f.label.labeller.name) for f in facts] == [
        ("exact-code", "retry-30-seconds", "bo")
    ]


def test_one_row_left_unfilled_is_counted_in_the_singular(
    article_fixture: Path, tmp_path: Path
) -> None:
    path, rows = _exported(load_dataset(article_fixture), tmp_path)
    for row in rows[1:]:
        row.update(verdict="cannot_judge")
    _rewrite(path, rows)
    out = tmp_path / "out"
    args = ["import", str(article_fixture), str(path), "--reviewer", "ana", "-o", str(out)]
    result = CliRunner().invoke(review_command, args)
    assert (result.exit_code, result.output.splitlines()[2:]) == (
        0,
        [
            "1 row not filled yet (left out):",
            "  row 2: run synthetic-baseline, question exact-code, claim c1",
        ],
    )


def test_every_problem_of_a_returned_sheet_is_reported(
    article_fixture: Path, tmp_path: Path
) -> None:
    dataset = load_dataset(article_fixture)
    path, rows = _exported(dataset, tmp_path)
    rows[0].update(verdict="yes")
    rows[1].update(verdict="supported")
    rows[2].update(verdict="supported", supported_by="retry-v2, nowhere")
    rows[3].update(supported_by="retention-v2")
    rows[4].update(verdict="covered", supported_by="x")
    rows[5].update(verdict="unsupported", supported_by="retention-v1")
    rows[6].update(row_kind="note")
    rows[7].update(verdict="supported", supported_by="retention-v2")
    rows.append(dict(rows[7]))
    _rewrite(path, rows)
    with pytest.raises(InputError) as info:
        import_sheet(path, load_dataset(article_fixture), reviewer="ana")
    assert [p.message() for p in info.value.problems] == [
        f"{path}: question 'exact-code': row 2: verdict: expected one of supported, unsupported, "
        "cannot_judge on a claim row; found 'yes'",
        f"{path}: question 'exact-code': row 3: verdict: expected one of covered, not_covered, "
        "cannot_judge on a fact row; found 'supported'",
        f"{path}: question 'two-facts': row 4: supported_by: expected IDs from context_ids "
        "(retention-v2, retry-v2); found 'nowhere'",
        f"{path}: question 'two-facts': row 5: verdict: expected a verdict when supported_by is "
        "filled; found nothing",
        f"{path}: question 'two-facts': row 6: supported_by: expected nothing on a fact row; "
        "found 'x'",
        f"{path}: question 'stale-version': row 7: supported_by: expected nothing for a claim "
        "labelled unsupported; found retention-v1",
        f"{path}: question 'stale-version': row 8: row_kind: expected claim or fact (as exported); "
        "found 'note'",
        f"{path}: question 'missing-answer': row 18: claim_id: expected each claim once per run "
        "(already in row 9); found 'c1'",
    ]


def test_supported_by_is_checked_against_the_run_and_an_edited_context_ids_refused(
    article_fixture: Path, tmp_path: Path
) -> None:
    # Row 2 is run synthetic-baseline's claim on exact-code, whose final context in the run
    # is retry-v2, export-v2: a reviewer who adds retention-v1 to the sheet's context_ids
    # must not make it count as support.
    dataset = load_dataset(article_fixture)
    path, rows = _exported(dataset, tmp_path)
    rows[0].update(
        context_ids="retry-v2, export-v2, retention-v1",
        verdict="supported",
        supported_by="retention-v1",
    )
    rows[1].update(context_ids="retry-v2", verdict="covered")  # a fact row exports none
    rows[2].update(context_ids="retention-v2")  # not filled yet, still refused
    _rewrite(path, rows)
    with pytest.raises(InputError) as info:
        import_sheet(path, dataset, reviewer="ana")
    expected = "the run's final context for the question, as exported"
    assert [p.message() for p in info.value.problems] == [
        f"{path}: question 'exact-code': row 2: context_ids: expected {expected} "
        "(retry-v2, export-v2); found 'retry-v2, export-v2, retention-v1'",
        f"{path}: question 'exact-code': row 2: supported_by: expected IDs from context_ids "
        "(retry-v2, export-v2); found 'retention-v1'",
        f"{path}: question 'exact-code': row 3: context_ids: expected nothing on a fact row "
        "(as exported); found 'retry-v2'",
        f"{path}: question 'two-facts': row 4: context_ids: expected {expected} "
        "(retention-v2, retry-v2); found 'retention-v2'",
    ]


def _example_without_recorded_context(tmp_path: Path) -> list[str]:
    """The bundled example's evaluation set and snapshot, with its baseline run stripped of
    recorded contexts and labels: its final context is the top k of its ranking."""
    import json

    from ragtriage.example import example_paths

    paths = example_paths()
    data = json.loads(paths.runs[0].read_text(encoding="utf-8"))
    for result in data["results"]:
        result.pop("context", None)
        result["fact_labels"] = []
        for claim in result.get("claims") or []:
            claim["labels"] = []
    run = tmp_path / "baseline.json"
    run.write_text(json.dumps(data), encoding="utf-8")
    return [str(paths.evalset), "--snapshot", str(paths.snapshot), "--run", str(run)]


def test_review_import_takes_the_k_the_sheet_was_exported_with(tmp_path: Path) -> None:
    files = _example_without_recorded_context(tmp_path)
    sheet = tmp_path / "sheet.csv"
    runner = CliRunner()
    exported = runner.invoke(review_command, ["export", *files, "-k", "2", "-o", str(sheet)])
    assert exported.exit_code == 0, exported.output
    rows = _rows(sheet)
    assert (rows[0]["question_id"], rows[0]["context_ids"]) == ("exact-code", "endpoint, regions")
    rows[0].update(verdict="supported", supported_by="regions")
    _rewrite(sheet, rows)
    labels = tmp_path / "labels"
    command = ["import", files[0], str(sheet), *files[1:], "--reviewer", "ana", "-o", str(labels)]
    # Without -k the run's own cut-off (3) gives another context than the sheet's.
    refused = runner.invoke(review_command, command)
    assert refused.exit_code == 2
    assert refused.stderr.startswith("Error: 19 problems found in the input:\n")
    assert (
        f"- {sheet}: question 'exact-code': row 2: context_ids: expected the run's final "
        "context for the question, as exported (endpoint, regions, message-size); found "
        "'endpoint, regions'\n"
    ) in refused.stderr
    assert not labels.exists()
    imported = runner.invoke(review_command, [*command, "-k", "2"])
    assert imported.exit_code == 0, imported.output
    assert imported.stdout.startswith(
        f"run baseline: 1 claim label, 0 fact labels -> {labels / 'baseline.labels.json'}\n"
    )
    options = {
        name: {p.name: p for p in review_command.commands[name].params}["k"]
        for name in ("export", "import")
    }
    export_k, import_k = options["export"], options["import"]
    assert isinstance(export_k, click.Option) and isinstance(import_k, click.Option)
    assert (import_k.opts, import_k.help, import_k.default, import_k.type) == (
        export_k.opts, export_k.help, export_k.default, export_k.type
    )


def test_a_cell_read_otherwise_than_shown_is_reported_with_the_other_problems(
    article_fixture: Path, tmp_path: Path
) -> None:
    # A stray cell or a formula without its result once hid every other problem of the sheet.
    dataset = load_dataset(article_fixture)
    rows = [dict(r) for r in build_sheet(dataset).rows]
    rows[0].update(verdict="yes")
    rows[1].update(verdict="covered", supported_by="x")
    csv_path = tmp_path / "sheet.csv"
    with csv_path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for n, row in enumerate(rows):
            writer.writerow([row.get(c, "") for c in COLUMNS] + (["note"] if n == 2 else []))
    xlsx_path = tmp_path / "sheet.xlsx"
    write_sheet(xlsx_path, rows)
    from openpyxl import load_workbook

    book = load_workbook(str(xlsx_path))
    book["review"].cell(row=4, column=len(COLUMNS) + 2, value="note")
    book["review"].cell(row=5, column=COLUMNS.index("verdict") + 1, value="=1")
    book.save(str(xlsx_path))
    tail = [
        "question 'exact-code': row 2: verdict: expected one of supported, unsupported, "
        "cannot_judge on a claim row; found 'yes'",
        "question 'exact-code': row 3: supported_by: expected nothing on a fact row; found 'x'",
    ]
    stray = "expected no cell outside the exported columns (this column has no name in the header)"
    expected = {
        csv_path: [f"row 4: column 18: {stray}; found 'note'", *tail],
        xlsx_path: [
            "row 5: verdict: expected a value (a formula's result saved in the workbook); "
            "found the formula =1 without its result",
            f"row 4: column 19: {stray}; found 'note'",
            *tail,
        ],
    }
    for path, messages in expected.items():
        with pytest.raises(InputError) as info:
            import_sheet(path, dataset, reviewer="ana")
        assert [p.message() for p in info.value.problems] == [
            f"{path}: {m}" for m in messages
        ]


def test_merged_cells_are_refused_naming_their_range(
    article_fixture: Path, tmp_path: Path
) -> None:
    # The cells of a merged range but its first read as blank: a verdict merged over two rows
    # was one row's, the other row silently "not filled yet".
    from openpyxl import load_workbook

    dataset = load_dataset(article_fixture)
    rows = [dict(r) for r in build_sheet(dataset).rows]
    rows[1].update(verdict="covered")
    rows[2].update(verdict="covered")
    path = tmp_path / "sheet.xlsx"
    write_sheet(path, rows)
    book = load_workbook(str(path))
    book["review"].merge_cells("M3:M4")
    book["review"].merge_cells("O6:P6")
    book.save(str(path))
    with pytest.raises(InputError) as info:
        import_sheet(path, dataset, reviewer="ana")
    expected = "no merged cells (unmerge them: each cell but the first of a range reads as blank)"
    assert [p.message() for p in info.value.problems] == [
        f"{path}: cells M3:M4: expected {expected}; found M3:M4 merged",
        f"{path}: cells O6:P6: expected {expected}; found O6:P6 merged",
    ]


def test_an_id_of_the_other_kind_typed_into_a_row_is_refused(
    article_fixture: Path, tmp_path: Path
) -> None:
    # A fact row's claim_id (a claim row's fact_id) is empty as exported; one typed there was
    # dropped without a word, as context_ids on a fact row is not.
    dataset = load_dataset(article_fixture)
    path, rows = _exported(dataset, tmp_path)
    assert (rows[0]["row_kind"], rows[1]["row_kind"]) == ("claim", "fact")
    rows[0].update(verdict="supported", supported_by="retry-v2", fact_id="f9")
    rows[1].update(verdict="covered", claim_id="c9")
    _rewrite(path, rows)
    with pytest.raises(InputError) as info:
        import_sheet(path, dataset, reviewer="ana")
    assert [p.message() for p in info.value.problems] == [
        f"{path}: question 'exact-code': row 2: fact_id: expected nothing on a claim row (as "
        "exported); found 'f9'",
        f"{path}: question 'exact-code': row 3: claim_id: expected nothing on a fact row (as "
        "exported); found 'c9'",
    ]


def test_a_context_hash_edited_by_hand_is_refused_naming_its_row(
    article_fixture: Path, tmp_path: Path
) -> None:
    # copied into the label as it stands, it would make a labels file every command refuses
    dataset = load_dataset(article_fixture)
    path, rows = _exported(dataset, tmp_path)
    rows[0].update(verdict="supported", supported_by="retry-v2", context_hash="sha256:00")
    rows[1].update(verdict="covered", context_hash="SHA256:" + "A" * 64)
    rows[4].update(verdict="covered", context_hash="")  # an emptied cell: no hash, as before
    _rewrite(path, rows)
    with pytest.raises(InputError) as info:
        import_sheet(path, dataset, reviewer="ana")
    expected = "sha256: followed by 64 lowercase hex digits (as exported)"
    assert [p.message() for p in info.value.problems] == [
        f"{path}: question 'exact-code': row 2: context_hash: expected {expected}; "
        "found 'sha256:00'",
        f"{path}: question 'exact-code': row 3: context_hash: expected {expected}; "
        f"found 'SHA256:{'A' * 64}'",
    ]


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_a_sheet_without_its_context_hash_column_is_refused(
    article_fixture: Path, tmp_path: Path, suffix: str
) -> None:
    # Without the column the labels would carry no hash and escape the stale-label check.
    dataset = load_dataset(article_fixture)
    rows = [dict(r) for r in build_sheet(dataset).rows]
    path = tmp_path / f"sheet{suffix}"
    rows[1].update(verdict="covered")
    if suffix == ".xlsx":
        from openpyxl import load_workbook

        _rewrite(path, rows)
        book = load_workbook(str(path))
        book["review"].delete_cols(COLUMNS.index("context_hash") + 1)
        book.save(str(path))
    else:
        kept = [c for c in COLUMNS if c != "context_hash"]
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=kept, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    with pytest.raises(InputError) as info:
        import_sheet(path, dataset, reviewer="ana")
    assert [p.message() for p in info.value.problems] == [
        f"{path}: row 1: context_hash: expected a 'context_hash' column (the exported header); "
        "found no such column",
    ]


def test_a_sheet_made_against_a_context_changed_since_imports_and_its_labels_are_stale(
    article_fixture: Path, tmp_path: Path
) -> None:
    # A row's context_hash is the context the reviewer saw (the sheet shows its text), copied
    # into the label as exported and not compared with the run's context at import: evaluate
    # leaves a label made against a context changed since out and counts it. Refusing the row
    # would lose the review, and naming the current hash would invite pasting it, which is
    # what turns a stale label fresh.
    dataset = load_dataset(article_fixture)
    path, rows = _exported(dataset, tmp_path)
    rows[0].update(verdict="supported", supported_by="retry-v2")
    _rewrite(path, rows)
    data = json.loads(article_fixture.read_text(encoding="utf-8"))
    assert data["corpus"][0]["id"] == "retry-v2"
    data["corpus"][0]["text"] = data["corpus"][0]["text"].replace("30", "60")
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(
        review_command,
        ["import", str(changed), str(path), "--reviewer", "ana", "-o", str(tmp_path / "labels")],
    )
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "labels").glob("*.json"))
    stored = json.loads(files[0].read_text(encoding="utf-8"))["claim_labels"]
    assert [e["label"]["context_hash"] for e in stored] == [rows[0]["context_hash"]]
    now = load_dataset(changed)
    res = now.runs[0].results[0]
    index, k = SnapshotIndex.build(now.snapshot), now.cutoffs()[now.runs[0].name]
    current = label_context_hash(res, index, k)
    assert (res.question_id, current == rows[0]["context_hash"]) == ("exact-code", False)
    stale = evaluate(load_dataset(changed, labels=files)).runs[0].boundaries.stale_labels
    fresh = evaluate(load_dataset(article_fixture, labels=files)).runs[0].boundaries.stale_labels
    assert (stale, fresh) == ((("exact-code", ("c1",)),), ())


def test_header_and_file_problems(article_fixture: Path, tmp_path: Path) -> None:
    path = tmp_path / "sheet.csv"
    path.write_text("row_kind,run,question_id,verdict,colour\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_sheet(path, load_dataset(article_fixture), reviewer="ana")
    assert [p.message() for p in info.value.problems] == [
        f"{path}: row 1: claim_id: expected a 'claim_id' column (the exported header); "
        "found no such column",
        f"{path}: row 1: fact_id: expected a 'fact_id' column (the exported header); "
        "found no such column",
        f"{path}: row 1: context_ids: expected a 'context_ids' column (the exported header); "
        "found no such column",
        f"{path}: row 1: context_hash: expected a 'context_hash' column (the exported header); "
        "found no such column",
        f"{path}: row 1: colour: expected one of the exported columns ({', '.join(COLUMNS)}); "
        "found 'colour'",
    ]
    with pytest.raises(InputError) as info:
        import_sheet(tmp_path / "sheet.txt", load_dataset(article_fixture))
    assert info.value.problems[0].message() == (
        f"{tmp_path / 'sheet.txt'}: SHEET: expected a .csv or .xlsx file; found '.txt'"
    )
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InputError) as info:
        import_sheet(bad, load_dataset(article_fixture))
    assert info.value.problems[0].field == "(file)"
    assert info.value.problems[0].expected == "an XLSX workbook"


def test_a_filled_row_needs_a_reviewer(article_fixture: Path, tmp_path: Path) -> None:
    path = tmp_path / "sheet.csv"
    export_sheet(load_dataset(article_fixture), path)
    rows = _rows(path)
    rows[1].update(verdict="covered")
    _rewrite(path, rows)
    with pytest.raises(InputError) as info:
        import_sheet(path, load_dataset(article_fixture))
    assert [p.message() for p in info.value.problems] == [
        f"{path}: question 'exact-code': row 3: reviewer: expected a reviewer name in the row or "
        "--reviewer; found nothing"
    ]
    rows[1].update(reviewer="an\x07a")  # a name no labels file may hold (schemas.Identifier)
    _rewrite(path, rows)
    with pytest.raises(InputError) as info:
        import_sheet(path, load_dataset(article_fixture))
    assert [p.message() for p in info.value.problems] == [
        f"{path}: question 'exact-code': row 3: reviewer: expected an identifier without "
        "control characters, not only whitespace; found 'an\\x07a'"
    ]


def test_answers_without_extracted_claims_are_reported(
    tmp_path: Path, article_fixture: Path
) -> None:
    result = CliRunner().invoke(
        review_command, ["export", str(article_fixture), "-o", str(tmp_path / "s.xlsx")]
    )
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {tmp_path / 's.xlsx'}: 8 claim rows, 8 fact rows\n"
    assert build_sheet(load_dataset(article_fixture)).skipped == ()


def test_numbers_typed_into_a_workbook_read_back_as_text(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["row_kind", "run", "question_id", "claim_id", "context_ids", "verdict"])
    sheet.append(["claim", "r", 17, 1.0, None, "supported"])
    book.save(str(tmp_path / "typed.xlsx"))
    header, rows = read_sheet(tmp_path / "typed.xlsx")
    assert header == ("row_kind", "run", "question_id", "claim_id", "context_ids", "verdict")
    assert rows[0].cells == {
        "row_kind": "claim",
        "run": "r",
        "question_id": "17",
        "claim_id": "1",
        "context_ids": "",
        "verdict": "supported",
    }


@pytest.mark.parametrize(("text", "code"), [("a\x0bb", "U+000B"), ("\ufffe", "U+FFFE")])
def test_xlsx_refuses_a_character_it_cannot_hold_and_writes_nothing(
    tmp_path: Path, text: str, code: str
) -> None:
    rows = [
        {"row_kind": "claim", "question_id": "q1", "answer": "fine"},
        {"row_kind": "claim", "question_id": "q2", "answer": text, "claim": text},
    ]
    target = tmp_path / "sheet.xlsx"
    with pytest.raises(OutputError) as refused:
        write_sheet(target, rows)
    assert str(refused.value) == (
        f"cannot write {target}: row 3 (question 'q2'), column answer, holds {code}, a "
        "character an .xlsx sheet cannot hold (and 1 more cell); write a .csv sheet "
        "instead. Nothing was written."
    )
    assert list(tmp_path.iterdir()) == []
    write_sheet(tmp_path / "sheet.csv", rows)
    assert [r.cells["answer"] for r in read_sheet(tmp_path / "sheet.csv")[1]] == ["fine", text]


def test_a_formula_without_its_saved_result_is_refused_not_read_as_empty(
    tmp_path: Path,
) -> None:
    # openpyxl (and other programs that do not compute formulas) save a formula without its
    # result: the cell's value is unknown, and the row must not read as not filled yet.
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["row_kind", "run", "question_id", "claim_id", "verdict", "reason"])
    sheet.append(["claim", "r", "q", "c1", '=IF(TRUE,"supported","")', "ok"])
    sheet.append(["claim", "r", "q", "c2", "unsupported", "=A1"])
    book.save(str(tmp_path / "formulas.xlsx"))
    with pytest.raises(InputError) as refused:
        read_sheet(tmp_path / "formulas.xlsx")
    path = tmp_path / "formulas.xlsx"
    expected = "a value (a formula's result saved in the workbook)"
    assert [p.message() for p in refused.value.problems] == [
        f"{path}: row 2: verdict: expected {expected}; "
        "found the formula =IF(TRUE,\"supported\",\"\") without its result",
        f"{path}: row 3: reason: expected {expected}; found the formula =A1 without its result",
    ]


class _Clock(datetime.datetime):
    """`datetime.datetime` whose `now` is the time the test sets."""

    at = datetime.datetime(2031, 5, 6, 7, 8, 9, tzinfo=datetime.UTC)

    @classmethod
    def now(cls, tz: datetime.tzinfo | None = None) -> _Clock:
        moment = cls.at if tz is not None else cls.at.replace(tzinfo=None)
        return cls.fromtimestamp(moment.timestamp(), tz)


def test_an_xlsx_sheet_written_at_two_times_has_the_same_bytes(
    article_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zipfile

    import openpyxl.packaging.core
    import openpyxl.writer.excel
    from openpyxl import load_workbook

    clock = type("clock", (), {"datetime": _Clock, "timezone": datetime.timezone})
    monkeypatch.setattr(openpyxl.packaging.core, "datetime", clock)
    monkeypatch.setattr(openpyxl.writer.excel, "datetime", clock)
    written = []
    # Two exports at two clock times, years apart: openpyxl's document times and the ZIP
    # entries' dates both come from these clocks.
    moments = (datetime.datetime(2031, 5, 6, 7, 8, 9), datetime.datetime(2040, 1, 2, 3, 4, 5))
    for n, moment in enumerate(moments):
        _Clock.at = moment.replace(tzinfo=datetime.UTC)
        monkeypatch.setattr(time, "time", _Clock.at.timestamp)
        out = tmp_path / f"sheet{n}.xlsx"
        command = ["export", str(article_fixture), "-o", str(out)]
        result = CliRunner().invoke(review_command, command)
        assert result.exit_code == 0, result.output
        written.append(out)
    assert written[0].read_bytes() == written[1].read_bytes()
    with zipfile.ZipFile(written[0]) as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_DEFLATED}
    properties = load_workbook(written[0]).properties
    fixed = datetime.datetime(1980, 1, 1, 0, 0, 0)
    assert (properties.created, properties.modified, properties.creator) == (
        fixed, fixed, "ragtriage"
    )
    imported = import_sheet(written[0], load_dataset(article_fixture))
    assert (imported.filled, len(imported.unfilled)) == (0, 16)
