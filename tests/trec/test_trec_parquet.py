"""Parquet runs: same arrays as the text format, and every problem with its row number."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ragtriage.cli import cli
from ragtriage.columnar import QuestionPolicy, arrays_from_dicts, load_trec
from ragtriage.errors import InputError
from ragtriage.formats import read_run, write_qrels
from ragtriage.formats.trec_parquet import read_run_parquet, write_run_parquet
from ragtriage.importers import import_trec

QRELS = {"q1": {"a": 2, "c": 1}, "q2": {"x": 1}}
RUN = {"q1": [("a", 3.0), ("b", 2.0), ("c", 2.0)], "q2": [("y", 1.0), ("x", 0.5)]}


def test_round_trip_in_trec_order(tmp_path: Path) -> None:
    write_run_parquet(RUN, tmp_path / "r.parquet")
    assert read_run_parquet(tmp_path / "r.parquet") == {
        "q1": [("a", 3.0), ("c", 2.0), ("b", 2.0)],
        "q2": [("y", 1.0), ("x", 0.5)],
    }


def test_parquet_run_gives_the_text_runs_arrays(tmp_path: Path) -> None:
    write_qrels(QRELS, tmp_path / "q.txt")
    write_run_parquet(RUN, tmp_path / "r.parquet")
    loaded = load_trec(tmp_path / "q.txt", tmp_path / "r.parquet", depth=3)
    assert loaded.fast_path
    built = arrays_from_dicts(QRELS, RUN, 3)
    assert loaded.arrays.grades.tolist() == built.grades.tolist() == [[2, 1, 0], [0, 1, 0]]
    assert loaded.sha256[1] == hashlib.sha256((tmp_path / "r.parquet").read_bytes()).hexdigest()


def test_bad_parquet_rows_are_all_reported(tmp_path: Path) -> None:
    write_qrels(QRELS, tmp_path / "q.txt")
    table = pa.table(
        {
            "qid": ["q1", "q1", "q1", "q2", "q 2"],
            "docid": ["a", "a", "b", None, "x"],
            "score": [1.0, 0.5, float("nan"), 1.0, 2.0],
        }
    )
    path = tmp_path / "r.parquet"
    pq.write_table(table, path)
    with pytest.raises(InputError) as exc:
        load_trec(tmp_path / "q.txt", path, depth=3, policy=QuestionPolicy(allow_missing=True))
    assert [p.message() for p in exc.value.problems] == [
        f"{path}: question 'q1': row 2: document ID: expected each document at most once per"
        " question; found 'a' again (first on row 1)",
        f"{path}: question 'q1': row 3: score: expected a finite number; found 'nan'",
        f"{path}: question 'q2': row 4: document ID: expected a TREC field: non-empty, without"
        " whitespace or NUL; found null",
        f"{path}: question 'q 2': row 5: question ID: expected a TREC field: non-empty, without"
        " whitespace or NUL, not starting with #; found 'q 2'",
        f"{path}: question 'q 2': question ID: expected a question the qrels judge"
        " (or --allow-extra); found not in the qrels",
    ]


def test_a_null_cell_is_named_null_in_runs_and_qrels(tmp_path: Path) -> None:
    # As the JSON reader names a null; before, an ID was named '' and a score or grade 'None'.
    ids = {"qid": ["q1", None, "q1", "q1"], "docid": ["a", "b", None, "c"]}
    qrels, run = tmp_path / "q.parquet", tmp_path / "r.parquet"
    pq.write_table(pa.table({**ids, "grade": pa.array([1, 2, 3, None], pa.int64())}), qrels)
    pq.write_table(pa.table({**ids, "score": [1.0, 2.0, 3.0, None]}), run)
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    problems = [
        f"- {path}: row 2: question ID: expected a TREC field: non-empty, without whitespace or"
        f" NUL, not starting with #; found null\n- {path}: question 'q1': row 3: document ID:"
        f" expected a TREC field: non-empty, without whitespace or NUL; found null\n- {path}:"
        f" question 'q1': row 4: {field}: expected {expected}; found null\n"
        for path, field, expected in (
            (qrels, "grade", "an integer"), (run, "score", "a finite number")
        )
    ]
    assert (result.exit_code, result.output) == (
        2, "Error: 6 problems found in the input:\n" + "".join(problems)
    )


def test_integer_scores_are_read_as_the_text_reader_reads_them(tmp_path: Path) -> None:
    # Each rounded to the nearest float, as `float()` and trec_eval's `atof` read the digits:
    # 2**53 + 1 ties with 2**53 (ranked by document ID); past 2**53 the fast path's cast
    # would refuse, so the reader reads them. Before, an int64 score column was refused.
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1, "y": 0}}
    scores = {"q1": {"a": 2**53 + 1, "b": 2**53, "c": 2**63 - 1, "d": -(2**63)},
              "q2": {"x": 3, "y": 7}}
    rows = [(q, d, s) for q, docs in scores.items() for d, s in docs.items()]
    write_qrels(qrels, tmp_path / "q.txt")
    text, path = tmp_path / "r.txt", tmp_path / "r.parquet"
    text.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in rows), encoding="utf-8")
    columns = {"qid": [r[0] for r in rows], "docid": [r[1] for r in rows]}
    pq.write_table(pa.table({**columns, "score": pa.array([r[2] for r in rows], pa.int64())}), path)
    read = read_run_parquet(path)
    assert read == read_run(text) == {
        "q1": [("c", 2.0**63), ("b", 2.0**53), ("a", 2.0**53), ("d", -(2.0**63))],
        "q2": [("y", 7.0), ("x", 3.0)],
    }
    metrics = ["--metric", "ndcg@10", "--metric", "ap@100", "--per-question", "--format", "json"]
    reports = [
        json.loads(CliRunner().invoke(cli, ["trec-eval", str(tmp_path / "q.txt"), str(run),
                                            *metrics]).output)["questions"]
        for run in (text, path)
    ]
    # pytrec_eval on the text run: ndcg_cut_10 and map_cut_100
    assert [(q["id"], q["ndcg@10"], q["ap@100"]) for q in reports[1]] == [
        ("q1", 0.9502344167898356, 0.8333333333333333),
        ("q2", 0.6309297535714575, 0.5),
    ]
    assert reports[0] == reports[1]
    small = tmp_path / "small.parquet"  # within 2**53: the fast path, its arrays the text's
    pq.write_table(pa.table({"qid": ["q1", "q1"], "docid": ["a", "c"], "score": [2, 1]}), small)
    policy = QuestionPolicy(allow_missing=True)
    loaded = load_trec(tmp_path / "q.txt", small, depth=3, policy=policy)
    assert loaded.fast_path
    assert loaded.arrays.grades.tolist() == [[1, 2], [0, 0]]


def test_missing_column_is_named(tmp_path: Path) -> None:
    write_qrels(QRELS, tmp_path / "q.txt")
    path = tmp_path / "r.parquet"
    # q_id is ranx's name for qid (read), doc none of docid, doc_id
    pq.write_table(pa.table({"q_id": ["q1"], "doc": ["a"], "score": ["1"]}), path)
    with pytest.raises(InputError) as exc:
        load_trec(tmp_path / "q.txt", path, depth=3)
    assert [p.message() for p in exc.value.problems] == [
        f"{path}: column docid: expected a column docid or doc_id; found no such column (the"
        " file has q_id, doc, score)",
        f"{path}: column score: expected numbers; found string",
    ]


@pytest.mark.parametrize("allow", [[], ["--allow-missing"]])
def test_a_parquet_run_without_rows_is_refused_as_a_text_run_is(
    tmp_path: Path, allow: list[str]
) -> None:
    # It would score every qrels question as an empty ranking under --allow-missing.
    write_qrels(QRELS, tmp_path / "q.txt")
    path = tmp_path / "r.parquet"
    write_run_parquet({}, path)
    result = CliRunner().invoke(cli, ["trec-eval", str(tmp_path / "q.txt"), str(path), *allow])
    assert (result.exit_code, result.output) == (
        2,
        f"Error: 1 problem found in the input:\n- {path}: (file): expected at least one row"
        " (qid, docid, score); found a table without rows\n",
    )


def test_import_trec_reads_a_parquet_run_as_trec_eval_does(tmp_path: Path) -> None:
    write_qrels(QRELS, tmp_path / "q.txt")
    write_run_parquet(RUN, tmp_path / "r.parquet")
    data = import_trec(tmp_path / "q.txt", [tmp_path / "r.parquet"])
    results = data.runs[0].results
    assert [(r.question_id, [(c.id, c.score) for c in r.candidates]) for r in results] == [
        ("q1", [("a", 3.0), ("c", 2.0), ("b", 2.0)]),
        ("q2", [("y", 1.0), ("x", 0.5)]),
    ]


RANX_LZ4 = (
    " (ranx's `save(\"r.lz4\")` holds CBOR, not text: save the run with a .json or .trec name"
    " instead)"
)


@pytest.mark.parametrize(
    ("name", "head", "found"),
    [
        ("r.lz4", b"\x04\x22\x4d\x18\x64\x40\xa7\x1b", f"LZ4-compressed data, not text;"
         f" decompress it first: `lz4 -d r.lz4 r`{RANX_LZ4}"),
        ("run", b"\x04\x22\x4d\x18\x64\x40\xa7\x1b", f"LZ4-compressed data, not text;"
         f" decompress it first: `lz4 -d run run.decompressed`{RANX_LZ4}"),
        ("r.trec.zst", b"\x28\xb5\x2f\xfd\x04\x58", "zstd-compressed data, not text;"
         " decompress it first: `zstd -d r.trec.zst -o r.trec`"),
    ],
)
def test_an_lz4_or_zstd_run_is_named_with_how_to_decompress_it(
    tmp_path: Path, name: str, head: bytes, found: str
) -> None:
    # ranx's Run.save("r.lz4") among them: named as what it is, with no hint to convert it
    # from another text encoding, and how to read it (no decompressor is a dependency;
    # ranx's Parquet qrels and gzipped files are read: test_trec_peer_formats).
    qrels, run = tmp_path / "q.parquet", tmp_path / name
    pq.write_table(pa.table({"q_id": ["q1"], "doc_id": ["a"], "score": [1]}), qrels)
    run.write_bytes(head)
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    assert (result.exit_code, result.output) == (
        2,
        f"Error: 1 problem found in the input:\n- {run}: (file): expected UTF-8 text; found"
        f" {found}\n",
    )


def test_a_gzipped_evaluation_set_is_named_with_how_to_decompress_it(tmp_path: Path) -> None:
    # The JSONL readers read no gzip (the TREC readers do); the command keeps `.jsonl`.
    for name in ("e.jsonl.gz", "e.jsonl"):
        (tmp_path / name).write_bytes(gzip.compress(b'{"kind": "evalset"}\n'))
    outputs = [
        CliRunner().invoke(cli, ["evaluate", str(tmp_path / name)]).output
        for name in ("e.jsonl.gz", "e.jsonl")
    ]
    assert outputs == [
        f"Error: 1 problem found in the input:\n- {tmp_path / name}: (file): expected UTF-8"
        f" text; found gzip-compressed data, not text; decompress it first: `gzip -dc {name} >"
        f" {target}`\n"
        for name, target in (("e.jsonl.gz", "e.jsonl"), ("e.jsonl", "e.decompressed.jsonl"))
    ]
