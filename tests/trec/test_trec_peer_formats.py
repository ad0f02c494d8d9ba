"""The qrels and runs the peers write (ranx, pytrec_eval, ir_measures, gzipped TREC): read as
the TREC text they stand for, with the text reader's refusals.

The files have the shapes the peers write (checked against ranx 0.3.21, pytrec_eval and
ir_measures 0.4.3): ranx `save("x.json")` is orjson indented by 2, pytrec_eval's dictionaries
`json.dump` on one line, ranx `save("x.parq")` Parquet with `q_id`, `doc_id`, `score` (an
int64 grade in qrels), ir_measures' DataFrames `query_id`, `doc_id`, `relevance`/`score`.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ragtriage.cli import cli
from ragtriage.formats import write_qrels, write_run
from ragtriage.importers import import_trec

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d6": 3}}
RUN = {
    "q1": {"d1": 0.5, "d3": 0.25, "d9": 0.125, "d2": 0.25},
    "q2": {"d4": 1.0, "d5": 0.3, "d6": 0.1},
}
METRICS = ["--metric", "ndcg@10", "--metric", "ap@100", "--per-question", "--format", "json"]


def _scores(qrels: Path, run: Path) -> object:
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run), *METRICS])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    return report["questions"], report["summary"]


def _table(columns: dict[str, list[object]], path: Path) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


def _peer_files(tmp_path: Path) -> dict[str, tuple[Path, Path]]:
    pairs = [(q, d, g, RUN[q].get(d)) for q in QRELS for d, g in QRELS[q].items()]
    ranked = [(q, d, s) for q in RUN for d, s in RUN[q].items()]
    files = {
        "ranx json": (tmp_path / "q.json", tmp_path / "r.json"),
        "pytrec_eval json": (tmp_path / "qp.json", tmp_path / "rp.json"),
        "gzip": (tmp_path / "q.gz", tmp_path / "r.gz"),
    }
    for (qrels, run), indent in zip(files.values(), (2, None), strict=False):
        qrels.write_text(json.dumps(QRELS, indent=indent), encoding="utf-8")
        run.write_text(json.dumps(RUN, indent=indent), encoding="utf-8")
    write_qrels(QRELS, tmp_path / "q.txt")
    write_run({q: list(d.items()) for q, d in RUN.items()}, tmp_path / "r.txt")
    files["gzip"][0].write_bytes(gzip.compress((tmp_path / "q.txt").read_bytes()))
    files["gzip"][1].write_bytes(gzip.compress((tmp_path / "r.txt").read_bytes()))
    columns = {"ranx parquet": ("q_id", "doc_id", "score"),
               "ir_measures parquet": ("query_id", "doc_id", "relevance")}
    for name, (qid, docid, grade) in columns.items():
        stem = name.replace(" ", "_")
        qrels_columns = {qid: [p[0] for p in pairs], docid: [p[1] for p in pairs],
                         grade: [p[2] for p in pairs]}
        run_columns = {qid: [r[0] for r in ranked], docid: [r[1] for r in ranked],
                       "score": [r[2] for r in ranked]}
        files[name] = (_table(qrels_columns, tmp_path / f"{stem}.parq"),
                       _table(run_columns, tmp_path / f"{stem}.run.parq"))
    return files


def test_every_peer_form_scores_as_the_trec_text_and_pytrec_eval(tmp_path: Path) -> None:
    files = _peer_files(tmp_path)
    text = _scores(tmp_path / "q.txt", tmp_path / "r.txt")
    # pytrec_eval 0.5 on the same dictionaries: ndcg_cut_10 and map
    assert [(q["id"], q["ndcg@10"], q["ap@100"]) for q in text[0]] == [  # type: ignore[index]
        ("q1", 0.8597186998521972, 1.0),
        ("q2", 0.6885288809404666, 0.8333333333333333),
    ]
    assert {name: _scores(*pair) for name, pair in files.items()} == dict.fromkeys(files, text)
    imported = [import_trec(*files[name][:1], files[name][1:]) for name in files]
    first = imported[0].runs[0].results
    assert all(data.runs[0].results == first for data in imported)
    assert [(c.id, c.score) for c in first[0].candidates] == [
        ("d1", 0.5), ("d3", 0.25), ("d2", 0.25), ("d9", 0.125)
    ]


@pytest.mark.parametrize("where", ["qrels", "run"])
def test_a_malformed_json_form_names_question_record_and_value(tmp_path: Path, where: str) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(QRELS if where == "run" else RUN), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"q1": {"d1": "1", "d2": [1], "d 3": 1, "d4": 9999999999, "d5": true},'
        ' "q2": {}, "q3": [], "q4": {"d1": 1}}',
        encoding="utf-8",
    )
    value, expected = ("grade", "an integer") if where == "qrels" else ("score", "a number")
    files = [bad, good] if where == "qrels" else [good, bad]
    result = CliRunner().invoke(cli, ["trec-eval", *map(str, files), "--allow-missing",
                                      "--allow-extra"])
    big = ["an integer from -2147483648 to 2147483647", "'9999999999'"] if where == "qrels" else []
    assert (result.exit_code, result.output.splitlines()) == (2, [
        f"Error: {7 if big else 6} problems found in the input:",
        f"- {bad}: question 'q1': record 1: {value}: expected {expected}; found a string ('1')",
        f"- {bad}: question 'q1': record 2: {value}: expected {expected}; found an array ([1])",
        f"- {bad}: question 'q1': record 3: document ID: expected a TREC field: non-empty,"
        " without whitespace or NUL; found 'd 3'",
        *([f"- {bad}: question 'q1': record 4: grade: expected {big[0]}; found {big[1]}"]
          if big else []),
        f"- {bad}: question 'q1': record 5: {value}: expected {expected}; found true or false"
        " (True)",
        f"- {bad}: question 'q2': (question): expected an object of document IDs to {value}s,"
        " at least one; found an object ({})",
        f"- {bad}: question 'q3': (question): expected an object of document IDs to {value}s,"
        " at least one; found an array ([])",
    ])


def test_a_qrels_question_refused_as_a_whole_is_not_also_missing_from_the_run(
    tmp_path: Path,
) -> None:
    # Its ID was counted as judged, so the run, ranking only q1, was also told 'no line for
    # it'; a run ranking q3 would have been told 'not in the qrels'.
    qrels, run = tmp_path / "qrels.json", tmp_path / "run.txt"
    qrels.write_text('{"q1": {"d1": 1}, "q2": {}, "q3": 5}', encoding="utf-8")
    run.write_text("q1 Q0 d1 1 1.0 r\nq3 Q0 d1 1 1.0 r\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    expected = "expected an object of document IDs to grades, at least one"
    assert (result.exit_code, result.output.splitlines()) == (2, [
        "Error: 2 problems found in the input:",
        f"- {qrels}: question 'q2': (question): {expected}; found an object ({{}})",
        f"- {qrels}: question 'q3': (question): {expected}; found 5",
    ])


@pytest.mark.parametrize(("name", "text", "places"), [
    ("qrels.txt", "q1 0 d1 1\nq2 0 d1 x\nq2 0 d2 y\n", ("line 2", "line 3")),
    ("qrels.json", '{"q1": {"d1": 1}, "q2": {"d1": "x", "d2": "y"}}', ("record 2", "record 3")),
])
def test_a_qrels_question_every_line_of_is_refused_is_not_also_missing_from_the_run(
    tmp_path: Path, name: str, text: str, places: tuple[str, str]
) -> None:
    # q2 was counted as judged, so the run, ranking only q1, was also told 'no line for it'.
    qrels, run = tmp_path / name, tmp_path / "run.txt"
    qrels.write_text(text, encoding="utf-8")
    run.write_text("q1 Q0 d1 1 1.0 r\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    found = ("'x'", "'y'") if name == "qrels.txt" else ("a string ('x')", "a string ('y')")
    assert (result.exit_code, result.output.splitlines()) == (2, [
        "Error: 2 problems found in the input:",
        *(f"- {qrels}: question 'q2': {place}: grade: expected an integer; found {value}"
          for place, value in zip(places, found, strict=True)),
    ])


def test_an_empty_object_a_repeated_document_and_a_broken_gzip_are_refused(
    tmp_path: Path,
) -> None:
    empty, twice, broken = tmp_path / "e.json", tmp_path / "t.json", tmp_path / "b.gz"
    empty.write_text("{}", encoding="utf-8")
    twice.write_text('{"q1": {"d1": 0.5, "d1": 0.4}}', encoding="utf-8")
    broken.write_bytes(gzip.compress(b"q1 Q0 d1 1 0.5 r\n")[:20])
    parquet = _table({"q_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "score": [1, 2]},
                     tmp_path / "q.parq")
    outputs = [CliRunner().invoke(cli, ["trec-eval", str(q), str(r)]).output for q, r in
               [(empty, twice), (parquet, broken)]]
    assert outputs == [
        f"Error: 2 problems found in the input:\n- {empty}: (file): expected an object of"
        " question IDs, each an object of document IDs to grades; found an object ({})\n"
        f"- {twice}: line 1 column 20: expected each key at most once in an object; found the"
        " key 'd1' twice\n",
        f"Error: 2 problems found in the input:\n- {parquet}: question 'q1': row 2: document"
        " ID: expected each document judged once per question; found 'd1' again (first on row"
        f" 1)\n- {broken}: (file): expected gzip-compressed text; found Compressed file ended"
        " before the end-of-stream marker was reached\n",
    ]
