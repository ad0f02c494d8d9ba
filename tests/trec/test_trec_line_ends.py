"""Line ends: pyarrow ends a line at a lone `\\r` (old Mac files), the line reader does not
(`str.split()` then sees one line with the next line's fields). A qrels or run file with a
carriage return not followed by a line break goes to the line reader, so both readers refuse
it with the same problems; `\\r\\n` line ends stay on the fast path."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtriage.columnar import load_trec
from ragtriage.columnar._trec import STRICT, _slow
from ragtriage.errors import InputError

QRELS = ["q1 0 a 1", "q2 0 b 2"]
RUN = ["q1 Q0 a 1 2 t", "q1 Q0 b 2 1 t", "q2 Q0 b 1 3 t"]


def _problems(qrels: Path, run: Path) -> tuple[list[str], list[str]]:
    """The problems of the fast reader and of the line reader."""
    found = []
    for read in (lambda: load_trec(qrels, run, depth=2), lambda: _slow(qrels, run, 2, STRICT)):
        with pytest.raises(InputError) as caught:
            read()
        found.append([p.message() for p in caught.value.problems])
    return found[0], found[1]


def _write(tmp_path: Path, qrels_end: str, run_end: str) -> tuple[Path, Path]:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_bytes("".join(line + qrels_end for line in QRELS).encode())
    run.write_bytes("".join(line + run_end for line in RUN).encode())
    return qrels, run


LONE_CR_CASES = {
    "run": ("\n", "\r", "r.run", [
        "question 'q1': line 1: expected 6 whitespace-separated fields"
        " (question ID, Q0, document ID, rank, score, run tag); found 18 fields",
        "question 'q2': question ID: expected a ranking for every"
        " question of the qrels (or --allow-missing); found no line for it",
    ]),
    "qrels": ("\r", "\n", "q.qrels", [
        "question 'q1': line 1: expected 4 whitespace-separated"
        " fields (question ID, iteration, document ID, grade); found 8 fields",
        "question 'q2': question ID: expected a question the qrels"
        " judge (or --allow-extra); found not in the qrels",
    ]),
}
"""Per file with lone carriage returns: the qrels and run line ends, the file named by the
first problem (the second is the run's), and the problems after the file name."""


@pytest.mark.parametrize("case", sorted(LONE_CR_CASES))
def test_lone_carriage_returns_are_refused_as_the_line_reader_does(
    tmp_path: Path, case: str
) -> None:
    qrels_end, run_end, first, problems = LONE_CR_CASES[case]
    fast, slow = _problems(*_write(tmp_path, qrels_end, run_end))
    assert fast == slow == [
        f"{tmp_path / first}: {problems[0]}",
        f"{tmp_path / 'r.run'}: {problems[1]}",
    ]


@pytest.mark.parametrize("hash_bytes", [1, 2, 3, 5, 1 << 20])
def test_one_lone_carriage_return_anywhere_in_a_plain_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hash_bytes: int
) -> None:
    # The first block looks plain (read without Q0, rank and tag); the lone `\r` comes
    # later, at the end of a hashed block or inside one, or ends the file.
    import ragtriage.columnar._sources as sources

    monkeypatch.setattr(sources, "_BLOCK_BYTES", 16)
    monkeypatch.setattr(sources, "_HASH_BYTES", hash_bytes)
    qrels, run = _write(tmp_path, "\n", "\n")
    body = run.read_bytes()
    cut = body.rindex(b"\n", 0, len(body) - 1)
    run.write_bytes(body[:cut] + b"\r" + body[cut + 1 :])
    fast, slow = _problems(qrels, run)
    assert fast == slow == [
        f"{tmp_path / 'r.run'}: question 'q1': line 2: expected 6 whitespace-separated fields"
        " (question ID, Q0, document ID, rank, score, run tag); found 12 fields",
        f"{tmp_path / 'r.run'}: question 'q2': question ID: expected a ranking for every"
        " question of the qrels (or --allow-missing); found no line for it",
    ]
    # A `\r` that ends the file: the line reader strips it, as the fast reader would; the
    # file still goes to the line reader (same result).
    run.write_bytes(body[:-1] + b"\r")
    loaded = load_trec(qrels, run, depth=2)
    assert (loaded.fast_path, loaded.arrays.grades.tolist()) == (False, [[1, 0], [2, 0]])


@pytest.mark.parametrize("hash_bytes", [1, 2, 3, 1 << 20])
def test_crlf_line_ends_stay_on_the_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hash_bytes: int
) -> None:
    # `\r\n` split across two hashed blocks is still one line end.
    import ragtriage.columnar._sources as sources

    monkeypatch.setattr(sources, "_HASH_BYTES", hash_bytes)
    qrels, run = _write(tmp_path, "\r\n", "\r\n")
    loaded = load_trec(qrels, run, depth=2)
    assert loaded.fast_path
    assert loaded.arrays.grades.tolist() == [[1, 0], [2, 0]]
    assert loaded.arrays.grades.tolist() == _slow(qrels, run, 2, STRICT).arrays.grades.tolist()
    assert loaded.sha256 == _slow(qrels, run, 2, STRICT).sha256
