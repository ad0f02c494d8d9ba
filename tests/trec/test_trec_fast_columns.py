"""The fast TREC path reads pyarrow columns through their buffers (`_numbers`, `_arrow`):
same values as pyarrow's own conversions, and no pandas import on the way. Its fields hold
nothing the line reader splits on (`_plain_fields`): both readers give the same problems."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from ragtriage.cli.main import cli
from ragtriage.columnar import QuestionPolicy, id_keys, load_trec
from ragtriage.columnar._trec import STRICT, _arrow, _numbers, _slow
from ragtriage.errors import InputError

SRC = Path(__file__).resolve().parents[2] / "src"

COLUMNS = {
    "floats, sliced": pa.array([0.5, -1.0, 2.25, 1e-300, 7.0]).slice(1, 3),
    "ints": pa.array([3, 0, -2], pa.int64()),
    "int32, sliced": pa.array([1, 2, 3, 4, 5, 6], pa.int32()).slice(5),
    "booleans over a byte": pa.array([True, False, True] * 7).slice(3, 13),
    "booleans, empty": pa.array([True]).slice(1),
    "chunked floats": pa.chunked_array([pa.array([1.0, 2.0]), pa.array([3.0]).slice(1)]),
    "chunked booleans": pa.chunked_array(
        [pa.array([True, False, False]).slice(1), pa.array([False, True])]
    ),
    "chunked, no chunk": pa.chunked_array([], pa.float64()),
    "with nulls": pa.array([1.0, None, 3.0]),
}


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_numbers_equal_to_numpy(name: str) -> None:
    column = COLUMNS[name]
    got = _numbers(column)
    want = column.to_numpy(zero_copy_only=False)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize(
    "values",
    [
        np.array([4, 0, 9], np.int64),
        np.arange(10, dtype=np.int64)[::3],
        np.array([True, False, True, True, False, False, False, True, True]),
        np.zeros(0, bool),
        np.array([0.5, -2.0]),
    ],
)
def test_arrow_equals_pa_array(values: np.ndarray) -> None:
    got = _arrow(values)
    assert got.equals(pa.array(values))
    assert got.to_pylist() == values.tolist()


# Short IDs are their own 8-byte keys; longer ones are hashed and confirmed on the strings.
@pytest.mark.parametrize("doc", ["d", "a-document-id-longer-than-eight-bytes-"])
def test_trec_eval_imports_no_pandas(tmp_path: Path, doc: str) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(
        f"q1 0 {doc}1 1\nq1 0 {doc}2 0\nq2 0 {doc}3 2\nq3 0 {doc}1 1\n", encoding="utf-8"
    )
    run.write_text(
        f"q1 Q0 {doc}2 1 0.9 r\nq1 Q0 {doc}1 2 0.5 r\nq2 Q0 {doc}3 1 0.7 r\n"
        f"q2 Q0 {doc}9999 2 0.1 r\nq3 Q0 {doc}4 1 0.3 r\nq4 Q0 {doc}1 1 0.2 r\n",
        encoding="utf-8",
    )
    code = (
        "import sys\nfrom ragtriage.cli.main import cli\n"
        "try:\n    cli(prog_name='ragtriage')\n"
        "except SystemExit as exc:\n    print(exc.code, 'pandas' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "trec-eval", str(qrels), str(run), "--allow-extra",
         "--per-question", "--format", "json", "--output", str(tmp_path / "out.json")],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC)},
    )
    assert (out.stdout, out.stderr) == ("0 False\n", "")


def test_pyarrow_is_imported_before_the_run_is_parsed_in_a_second_thread(tmp_path: Path) -> None:
    # Two threads importing pyarrow for the first time at once can find it partly
    # initialised; the reader imports what both threads use before it starts the others
    # (one hashes the run file, one parses it).
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 0.9 r\n", encoding="utf-8")
    code = (
        "import sys, threading\n"
        "start = threading.Thread.start\n"
        "def spy(self):\n"
        "    wanted = ('pyarrow', 'pyarrow.compute', 'pyarrow.csv')\n"
        "    print(self.name, [m for m in wanted if m not in sys.modules])\n"
        "    start(self)\n"
        "threading.Thread.start = spy\n"
        "from ragtriage.columnar import load_trec\n"
        f"load_trec({str(qrels)!r}, {str(run)!r}, depth=10)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False,
        env={"PYTHONPATH": str(SRC)},
    )
    assert (out.stdout, out.stderr) == ("ragtriage-sha256 []\nragtriage-csv []\n", "")


# Every character `str.split()` splits on, but the line break itself (computed, not listed).
BLANKS = [c for c in map(chr, range(0x3001)) if c.isspace() and c != "\n"]


def _problems(read: object) -> list[str]:
    with pytest.raises(InputError) as caught:
        read()  # type: ignore[operator]
    return [p.message() for p in caught.value.problems]


@pytest.mark.parametrize(("kind", "field"), [("run", f) for f in range(6)] + [
    ("qrels", f) for f in range(4)
])
def test_a_blank_inside_a_field_gives_the_line_readers_problems(
    tmp_path: Path, kind: str, field: int
) -> None:
    qrels_lines = [["q1", "0", "d1", "1"], ["q2", "0", "d2", "1"]]
    run_lines = [["q1", "Q0", "d1", "1", "0.5", "r"], ["q2", "Q0", "d2", "1", "0.5", "r"]]
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    for blank in BLANKS:
        lines = [list(line) for line in (run_lines if kind == "run" else qrels_lines)]
        lines[0][field] = f"{lines[0][field]}{blank}x"
        written = "".join(" ".join(line) + "\n" for line in lines)
        other = qrels_lines if kind == "run" else run_lines
        (run if kind == "run" else qrels).write_text(written, encoding="utf-8")
        (qrels if kind == "run" else run).write_text(
            "".join(" ".join(line) + "\n" for line in other), encoding="utf-8"
        )
        slow = _problems(lambda: _slow(qrels, run, 10, STRICT))
        assert slow, repr(blank)
        assert _problems(lambda: load_trec(qrels, run, depth=10)) == slow, repr(blank)


@pytest.mark.parametrize("grade", ["0x10", "0X1f", "1_0", "2147483648", "9223372036854775808"])
def test_a_grade_the_line_reader_refuses_is_refused_by_the_file_reader_too(
    tmp_path: Path, grade: str
) -> None:
    # pyarrow alone reads `0x10` as 16; the grade matrix held 2147483648 as -2147483648.
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(f"q1 0 d1 {grade}\nq1 0 d2 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 0.5 r\n", encoding="utf-8")
    expected = "an integer from -2147483648 to 2147483647" if grade.isdigit() else "an integer"
    slow = [f"{qrels}: question 'q1': line 1: grade: expected {expected}; found {grade!r}"]
    assert _problems(lambda: _slow(qrels, run, 10, STRICT)) == slow
    assert _problems(lambda: load_trec(qrels, run, depth=10)) == slow


def test_a_document_twice_in_a_question_the_qrels_do_not_judge_is_refused(
    tmp_path: Path,
) -> None:
    # --allow-extra skips such a question; its lines are checked all the same.
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 0.5 r\nq9 Q0 d2 1 0.5 r\nq9 Q0 d2 2 0.4 r\n", encoding="utf-8")
    extra = QuestionPolicy(allow_extra=True)
    slow = [f"{run}: question 'q9': line 3: document ID: expected each document at most once "
            "per question; found 'd2' again (first on line 2)"]
    assert _problems(lambda: _slow(qrels, run, 10, extra)) == slow
    assert _problems(lambda: load_trec(qrels, run, depth=10, policy=extra)) == slow


def test_a_question_the_qrels_do_not_judge_may_come_back_later(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q9 Q0 d2 1 0.5 r\nq1 Q0 d1 1 0.5 r\nq9 Q0 d3 2 0.4 r\n", encoding="utf-8")
    loaded = load_trec(qrels, run, depth=2, policy=QuestionPolicy(allow_extra=True))
    assert (loaded.skipped, loaded.arrays.grades.tolist()) == (("q9",), [[1]])


def test_a_grade_with_a_plus_sign_is_read_by_the_line_reader(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 d1 +2\nq1 0 d2 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 0.5 r\n", encoding="utf-8")
    loaded = load_trec(qrels, run, depth=3)
    assert (loaded.fast_path, loaded.arrays.grades.tolist()) == (False, [[2]])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(min_size=0, max_size=8).filter(lambda t: len(t.encode("utf-8")) <= 8),
        min_size=1,
        max_size=30,
    ),
    st.integers(0, 5),
    st.integers(0, 5),
)
def test_short_id_keys_are_the_ids_bytes_read_big_endian(
    ids: list[str], cut: int, end: int
) -> None:
    cut = min(cut, len(ids) - 1)
    stop = max(cut + 1, len(ids) - end)
    # A slice: offsets not starting at 0, data (or not) after the last ID.
    column = pa.array(ids, pa.string()).slice(cut, stop - cut)
    got = id_keys(column)
    want = [int.from_bytes(i.encode("utf-8").ljust(8, b"\0"), "big") for i in ids[cut:stop]]
    assert got.exact
    assert got.keys.tolist() == want


@pytest.mark.parametrize(
    ("judged", "extra"),
    [("q", "x"), ("q", "an-unjudged-question-id"), ("a-long-question-id-", "x")],
)
def test_run_questions_found_by_short_or_long_ids(tmp_path: Path, judged: str, extra: str) -> None:
    # Short question IDs are found by binary search on their keys, others by a dict:
    # the same rows, and the same unjudged questions skipped.
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(f"{judged}2 0 a 1\n{judged}1 0 b 1\n", encoding="utf-8")
    run.write_text(
        f"{judged}1 Q0 b 1 2 t\n{extra} Q0 a 1 3 t\n{extra} Q0 b 2 1 t\n{judged}2 Q0 c 1 2 t\n"
        f"{judged}2 Q0 a 2 1 t\n",
        encoding="utf-8",
    )
    loaded = load_trec(qrels, run, depth=2, policy=QuestionPolicy(allow_extra=True))
    assert loaded.fast_path
    assert loaded.arrays.question_ids == (f"{judged}1", f"{judged}2")
    assert loaded.arrays.grades.tolist() == [[1, 0], [0, 1]]
    assert (loaded.skipped, loaded.missing) == ((extra,), ())


@pytest.mark.parametrize("field", range(6))
def test_odd_bytes_past_the_first_block_read_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: int
) -> None:
    # A run that looks plain in its first block is parsed without Q0, rank and tag; the
    # bytes counted while hashing must then prove every field plain, or the run is read
    # again with them. Either way: the result (or the problems) of the line reader.
    import ragtriage.columnar._sources as sources

    monkeypatch.setattr(sources, "_BLOCK_BYTES", 64)
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(12)), encoding="utf-8")
    lines = [["q" + str(q), "Q0", f"d{q}", "1", "0.5", "r"] for q in range(12)]
    odd = [f"x{blank}y" for blank in BLANKS] + ["", "\u00e9"]
    for value in odd:
        changed = [list(line) for line in lines]
        changed[10][field] = value
        text = "".join(" ".join(line) + "\n" for line in changed)
        run.write_text(text, encoding="utf-8")
        try:
            want: object = _slow(qrels, run, 10, STRICT).arrays.grades.tolist()
        except InputError as exc:
            want = [p.message() for p in exc.problems]
        try:
            got: object = load_trec(qrels, run, depth=10).arrays.grades.tolist()
        except InputError as exc:
            got = [p.message() for p in exc.problems]
        assert got == want, repr(value)
    body = "".join(" ".join(line) + "\n" for line in lines)
    cut = body.index("\n", 150)
    for text in ("\n\n", "\r\n", "\n \n"):  # a blank line, a CRLF line end, blanks alone
        run.write_text(body[:cut] + text + body[cut + 1 :], encoding="utf-8")
        want = _slow(qrels, run, 10, STRICT).arrays.grades.tolist()
        assert load_trec(qrels, run, depth=10).arrays.grades.tolist() == want == [[1]] * 12


def test_a_plain_run_is_parsed_once_without_q0_rank_and_tag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragtriage.columnar._stream as stream

    calls: list[bool] = []
    batches = stream._batches

    def spy(path: Path, lean: bool = False) -> object:
        calls.append(lean)
        return batches(path, lean)

    monkeypatch.setattr(stream, "_batches", spy)
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q1 0 a 1\nq2 0 b 2\n", encoding="utf-8")
    # No line break after the last line.
    run.write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 b 1 3 t", encoding="utf-8")
    assert load_trec(qrels, run, depth=2).arrays.grades.tolist() == [[1, 0], [2, 0]]
    assert calls == [True]
    run.write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n\nq2 Q0 b 1 3 t\n", encoding="utf-8")
    assert load_trec(qrels, run, depth=2).arrays.grades.tolist() == [[1, 0], [2, 0]]
    assert calls == [True, True, False]  # a blank line: read again, Q0, rank and tag too


def test_the_readers_parse_into_jemalloc_where_pyarrow_has_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ragtriage.columnar import _trec

    _trec.reader_pool.cache_clear()
    try:
        jemalloc = pa.jemalloc_memory_pool()
    except NotImplementedError:
        assert _trec.reader_pool() is None
    else:
        assert _trec.reader_pool() is not None
        assert _trec.reader_pool().backend_name == jemalloc.backend_name == "jemalloc"

    def missing() -> pa.MemoryPool:
        raise pa.ArrowNotImplementedError("built without jemalloc")

    _trec.reader_pool.cache_clear()
    monkeypatch.setattr(_trec.pa, "jemalloc_memory_pool", missing)
    assert _trec.reader_pool() is None
    _trec.reader_pool.cache_clear()


@pytest.mark.parametrize(
    ("grades", "kind"),
    [((1, 3), np.int8), ((-128, 127), np.int8), ((-1, 300), np.int16), ((2, 70_000), np.int32)],
)
def test_the_grade_matrix_takes_the_smallest_type_holding_every_grade(
    tmp_path: Path, grades: tuple[int, int], kind: type
) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(f"q1 0 a {grades[0]}\nq1 0 b {grades[1]}\nq2 0 c 1\n", encoding="utf-8")
    run.write_text("q1 Q0 b 1 3 t\nq1 Q0 a 2 2 t\nq2 Q0 c 1 1 t\n", encoding="utf-8")
    loaded = load_trec(qrels, run, depth=3)
    assert loaded.fast_path
    assert loaded.arrays.grades.dtype == kind
    assert loaded.arrays.grades.tolist() == [[grades[1], grades[0]], [1, 0]]
    assert loaded.arrays.grades.tolist() == _slow(qrels, run, 3, STRICT).arrays.grades.tolist()


@pytest.mark.parametrize("at_once", [1, 2, 4])
def test_batches_matched_a_few_at_a_time_cut_no_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_once: int
) -> None:
    # Blocks of a line or two; questions of 1 to 7 lines, one of 40 lines (through many
    # batches), then a question seen again after others (not contiguous: the line reader).
    import ragtriage.columnar._sources as sources
    import ragtriage.columnar._stream as stream

    monkeypatch.setattr(sources, "_BLOCK_BYTES", 40)
    monkeypatch.setattr(stream, "_BATCHES_AT_ONCE", at_once)
    sizes = [1, 7, 3, 40, 2, 5, 1, 6, 4]
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(
        "".join(f"q{q} 0 d{q * 3 % size} {q % 3 + 1}\n" for q, size in enumerate(sizes)),
        encoding="utf-8",
    )
    lines = [
        f"q{q} Q0 d{d} {d + 1} {100 - d} r\n" for q, size in enumerate(sizes) for d in range(size)
    ]
    run.write_text("".join(lines), encoding="utf-8")
    loaded = load_trec(qrels, run, depth=8)
    want = _slow(qrels, run, 8, STRICT).arrays
    assert loaded.fast_path
    assert loaded.arrays.grades.tolist() == want.grades.tolist()
    assert loaded.arrays.lengths.tolist() == want.lengths.tolist() == sizes
    run.write_text("".join(lines) + "q1 Q0 x 9 0.5 r\n", encoding="utf-8")
    again = load_trec(qrels, run, depth=8)
    assert not again.fast_path
    assert again.arrays.grades.tolist() == _slow(qrels, run, 8, STRICT).arrays.grades.tolist()


@pytest.mark.parametrize("block", [40, 1 << 20])
def test_the_grade_matrix_is_as_wide_as_the_longest_ranking_not_the_largest_k(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    # ndcg@10000 on rankings of at most 4 documents: 4 columns, not 10,000 per question
    # (read in batches of a line or two, the matrix widens as longer rankings come).
    import ragtriage.columnar._sources as sources

    monkeypatch.setattr(sources, "_BLOCK_BYTES", block)
    sizes = [1, 3, 2, 4, 1]
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("".join(f"q{q} 0 d{q % size} 1\n" for q, size in enumerate(sizes)), "utf-8")
    lines = [f"q{q} Q0 d{d} {d + 1} {9 - d} r\n" for q, n in enumerate(sizes) for d in range(n)]
    run.write_text("".join(lines), encoding="utf-8")
    loaded = load_trec(qrels, run, depth=10_000)
    assert loaded.fast_path
    assert loaded.arrays.grades.tolist() == [[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0],
                                             [0, 0, 0, 1], [1, 0, 0, 0]]
    assert loaded.arrays.grades.tolist() == _slow(qrels, run, 10_000, STRICT).arrays.grades.tolist()
    assert loaded.arrays.ideal.tolist() == [[1]] * 5


@pytest.mark.parametrize("suffix", [".txt", ".parquet"])
@pytest.mark.parametrize("long_id", ["aaaaaaaa", "aaaaaaaaa"])
def test_tied_scores_on_lines_apart_rank_by_document_id(
    tmp_path: Path, suffix: str, long_id: str
) -> None:
    # d1 and u2 tie at 0.1 on lines 1 and 3: u2 ranks first (IDs descending), so d1, the
    # relevant one, is second. Before, with an ID past 8 bytes in the file, the fast reader
    # missed the tie (not on adjacent lines) and ranked by the IDs' hashes: 1.0, not 0.5.
    rows = [("d1", 0.1), ("u1", 0.0), ("u2", 0.1), (long_id, 0.01)]
    run = tmp_path / f"run{suffix}"
    if suffix == ".parquet":
        pq.write_table(pa.table({"qid": ["q1"] * 4, "docid": [d for d, _ in rows],
                                 "score": [s for _, s in rows]}), run)
    else:
        run.write_text("".join(f"q1 Q0 {d} {n} {s} t\n" for n, (d, s) in enumerate(rows, 1)),
                       encoding="utf-8")
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["trec-eval", str(tmp_path / "q.qrels"), str(run), "-m",
                                   "mrr@10", "--per-question", "--format", "json"])
    assert json.loads(out.stdout)["questions"] == [{"id": "q1", "mrr@10": 0.5}]
