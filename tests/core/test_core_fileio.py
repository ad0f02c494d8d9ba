"""`ragtriage.fileio`: one byte-order-mark rule, strict JSON in both readers, exact places."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from ragtriage import fileio
from ragtriage.columnar._native_checks import loads as fast_loads, loads_again
from ragtriage.errors import InputError, ProblemCollector
from ragtriage.formats.trec_files import parse_run, read_qrels
from ragtriage.review import read_sheet

BOM = b"\xef\xbb\xbf"


def _message(exc: pytest.ExceptionInfo[InputError]) -> str:
    return exc.value.problems[0].message()


def test_a_utf8_bom_at_the_start_is_skipped_in_every_format(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(BOM + b'{"a": 1}')
    (tmp_path / "a.jsonl").write_bytes(BOM + b'{"a": 1}\n{"b": 2}\n')
    (tmp_path / "a.toml").write_bytes(BOM + b"a = 1\n")
    (tmp_path / "a.qrels").write_bytes(BOM + b"q1 0 d1 1\n")
    (tmp_path / "a.csv").write_bytes(BOM + b"run,question_id\nr,q\n")
    assert fileio.read_json(tmp_path / "a.json") == {"a": 1}
    assert list(fileio.json_lines(tmp_path / "a.jsonl")) == [(1, {"a": 1}), (2, {"b": 2})]
    assert fileio.read_toml(tmp_path / "a.toml") == {"a": 1}
    assert read_qrels(tmp_path / "a.qrels") == {"q1": {"d1": 1}}
    header, rows = read_sheet(tmp_path / "a.csv")
    assert (header, [r.cells for r in rows]) == (("run", "question_id"), [{"run": "r",
                                                                           "question_id": "q"}])


def test_a_bom_inside_a_jsonl_file_is_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(b'{"a": 1}\n' + BOM + b'{"b": 2}\n')
    with pytest.raises(InputError) as caught:
        list(fileio.json_lines(tmp_path / "a.jsonl"))
    assert _message(caught) == (
        f"{tmp_path / 'a.jsonl'}: line 2 column 1: expected valid JSON; "
        "found something that is not a JSON value"
    )


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"a": 1, "a": 2}', "line 1 column 10: expected each key at most once in an object; "
                             "found the key 'a' twice"),
        ('{"a": [1,\n NaN]}', "line 2 column 2: expected a finite number; found NaN"),
        ('{"a": 1e400}', "line 1 column 7: expected a finite number; "
                         "found 1e400 (beyond the largest number, about 1.8e308)"),
        # The refused value is named where it is: not in a string before it, and followed by
        # anything (the decoder stops at the constant).
        ('{"t": "r:NaN, [Infinity \\" :NaN", "a": NaN}', "line 1 column 40: expected a finite "
                                                      "number; found NaN"),
        ('{"a": NaN240.0}', "line 1 column 7: expected a finite number; found NaN"),
        ('[1.5, 1e400.5]', "line 1 column 7: expected a finite number; "
                           "found 1e400 (beyond the largest number, about 1.8e308)"),
        # An integer beyond the largest float too, the first in the text (it was "expected a
        # valid number" where a float is read, and read as an integer elsewhere).
        ('{"t": "' + "9" * 400 + '", "a": [2, -1' + "0" * 309 + ", 1" + "0" * 400 + "]}",
         "line 1 column 420: expected a finite number; "
         f"found -1{'0' * 75}... (beyond the largest number, about 1.8e308)"),
        # A long number is shown shortened, marked so (it was cut at 40 characters, unmarked).
        ('{"a": 1' + "0" * 5000 + ".5}", "line 1 column 7: expected a finite number; "
         f"found 1{'0' * 76}... (beyond the largest number, about 1.8e308)"),
        # A lone surrogate escape is named where it is written (it was at "(file)"): not a
        # pair's, nor a backslash escaped by another.
        ('{"a": "\\ud83d\\ude00 \\\\ud800",\n "b": ["x\\udc00\\ud800"]}',
         "line 2 column 10: expected text UTF-8 can encode; "
         "found a lone surrogate escape \\udc00 in a string"),
        ('{"a": 1} {"b": 2}', "line 1 column 10: expected valid JSON; "
                              "found more text after the JSON value"),
        ('{"a": "x', "line 1 column 7: expected valid JSON; found a string that is not closed"),
        ("", "line 1 column 1: expected valid JSON; found the end of the file "
             "(the JSON is cut short)"),
    ],
)
def test_parse_json_refuses_with_a_place(text: str, found: str) -> None:
    with pytest.raises(InputError) as caught:
        fileio.parse_json(text, "f.json")
    assert _message(caught) == f"f.json: {found}"


def test_a_lone_surrogate_in_a_jsonl_line_is_named_by_its_line_and_column() -> None:
    with pytest.raises(InputError) as caught:
        fileio.parse_json('{"q": "a\\ud800"}', "f.jsonl", 4)
    assert _message(caught) == (
        "f.jsonl: line 4 column 9: expected text UTF-8 can encode; "
        "found a lone surrogate escape \\ud800 in a string"
    )


@pytest.mark.parametrize(
    ("text", "place", "key"),
    [
        ('{"a": 1, "a": 2}', "line 1 column 10", "a"),
        # The object that ends first is the one named, as the decoder checks objects.
        ('{"a": 1, "a": 2, "b": {"x": 1, "x": 2}}', "line 1 column 32", "x"),
        ('[1, {"k": [{"z": "}"}, {"q": 2,\n "q" : 3}]}]', "line 2 column 2", "q"),
        # Nested near the interpreter's recursion limit (the file's own bound is checked after).
        ('{"a":' * 950 + '{"x": 1, "x": 2}' + "}" * 950, "line 1 column 4760", "x"),
        # Keys inside a string are no keys.
        ('{"t": "\\"a\\": 1, \\"a\\": 2", "r": [{"id": "x", "n": {}},\n  {"id": 1, "id": 2}]}',
         "line 2 column 13", "id"),
    ],
)
def test_a_key_written_twice_is_named_where_it_is_written_again(
    text: str, place: str, key: str
) -> None:
    with pytest.raises(InputError) as caught:
        fileio.parse_json(text, "f.json")
    assert _message(caught) == (
        f"f.json: {place}: expected each key at most once in an object; found the key {key!r} "
        "twice"
    )


def test_an_integer_a_float_can_hold_is_read_exactly() -> None:
    largest = int(sys.float_info.max)  # 309 digits, as the smallest integer refused
    text = f'{{"a": [{largest}, -{largest}], "t": "{"1" * 400}"}}'
    assert fileio.parse_json(text, "f.json") == {"a": [largest, -largest], "t": "1" * 400}


def test_json_values_one_after_another_are_read_strictly() -> None:
    text = '{"a": 1}\n\n{\n  "b": [2]\n}\n'
    assert list(fileio.parse_json_values(text, "s.json")) == [(1, {"a": 1}), (3, {"b": [2]})]


@pytest.mark.parametrize(
    "line",
    [
        b'{"id": "q1", "id": "q2"}',
        b'{"id": "q1", "text": "\\u00e9", "text": "x"}',
        b'{"id": "q1", "nested": {"k": 1, "k" : 2}}',
        b'{"id":"q1","id":"q1"}\n',
        b'{"a":{"k":1,"k":1}}\r\n',
        b'{"id": "q1", "score": NaN}',
        b'{"id": "q1", "score": 1e400}',
        b'{"id": "q1", "score": 1' + b"0" * 309 + b"}",
        b'{"id": "\\ud800"}',
        # Nested deeper than the bound: orjson reads it but cannot write it, or refuses it.
        b'{"id": "q1", "x": ' + b"[" * 300 + b"]" * 300 + b"}",
        b'{"id": "q1", "x": ' + b"[" * 1100 + b"]" * 1100 + b"}",
    ],
)
def test_the_fast_reader_refuses_what_the_strict_parser_refuses(line: bytes) -> None:
    with pytest.raises(InputError):
        fileio.parse_json(line.decode(), "f.jsonl", 1)
    assert type(fast_loads(line)) is object  # the marker every shape check refuses


@pytest.mark.parametrize(
    "line",
    [
        b'{"id": "q1", "text": "he said \\"k\\": v", "k": 1}',
        b'{"id": "q1", "text": "caf\\u00e9 \\"a\\" : 1"}',
        b'{"a": {"b": {"c": [1, 2, {"d": "\xe4\xb8\xad"}]}}}',
        b'{"a":{"b":{"c":[1,2.5,{"d":"\xe4\xb8\xad"}]}},"k":null}\n',
        b'[{"k":true},{"k":false}]\r\n',
        # Integers beyond 64 bits in texts the reference parser reads (a `\\u` escape):
        # kept as integers when read again too (orjson reads them as floats).
        b'{"id": "caf\\u00e9", "n": [1180591620717411303425, -9223372036854775809]}',
        b'{"id":"caf\\u00e9","n":1180591620717411303425}',
        # ... and in texts without one, compact or spaced (orjson alone would read floats).
        b'{"id":"q1","n":1180591620717411303425}',
        b'{"id": "q1", "n": [1180591620717411303425, -9223372036854775809], "f": 0.5}',
        b'{"id": "q1", "n": 1e2, "f": 12345678901234567890.5, "s": "12345678901234567890"}',
    ],
)
def test_the_fast_reader_keeps_what_the_strict_parser_keeps(line: bytes) -> None:
    assert fast_loads(line) == fileio.parse_json(line.decode(), "f.jsonl", 1)
    assert loads_again(line) == fast_loads(line)  # a record read again: the same value


@pytest.mark.parametrize(
    "line",
    [b'{"id": "q1", "score": NaN}', b'{"id": "q1", "score": 1e400}', b'{"id": "\\ud800"}'],
)
def test_a_text_orjson_refuses_is_read_again_as_loads_reads_it(line: bytes) -> None:
    # `loads_again` (a record the fast checks accepted, read again) leaves orjson's refusals
    # to `loads`: the same marker, never an orjson error.
    assert loads_again(line) is fast_loads(line)
    assert type(loads_again(line)) is object


class _Members(list[tuple[str, Any]]):
    """An object as written: its members in order, a key possibly twice."""


_SCALARS = (
    st.none() | st.booleans() | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet='a:"\\ \n\u00e9', max_size=5)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3)
    | st.lists(st.tuples(st.text(alphabet='ab:" \u00e9', max_size=2), inner), max_size=4).map(
        _Members
    ),
    max_leaves=10,
)
_SPACES = st.sampled_from(["", " ", "  ", "\t", "\n", "\r\n "])


def _written(value: Any, space: tuple[str, str, str, str], strings: str) -> str:
    """`value` as JSON text, each object's members as listed (a key written twice stays
    twice), spaced by `space`: before and after each comma, before and after each colon.
    `strings`: "plain" (UTF-8 kept), "ascii" (`\\u` escapes beyond ASCII) or "colons"
    (each colon in a string spelled `\\u003a`)."""
    before, after, key_end, value_start = space
    comma = f"{before},{after}"
    if isinstance(value, _Members):
        return "{" + comma.join(
            _written(k, space, strings) + f"{key_end}:{value_start}" + _written(v, space, strings)
            for k, v in value
        ) + "}"
    if isinstance(value, list):
        return "[" + comma.join(_written(v, space, strings) for v in value) + "]"
    text = json.dumps(value, ensure_ascii=strings == "ascii")
    return text.replace(":", "\\u003a") if strings == "colons" else text


@given(
    _VALUES.filter(lambda value: isinstance(value, list)),  # an object or a list
    st.tuples(_SPACES, _SPACES, _SPACES, _SPACES),
    st.sampled_from(["plain", "ascii", "colons"]),
)
def test_the_fast_reader_refuses_and_keeps_what_the_strict_parser_does(
    value: list[Any], space: tuple[str, str, str, str], strings: str
) -> None:
    # Spaced every way; keys and strings with colons, quotes, backslashes and `\\u` escapes;
    # a key twice in an object now and then (the keys are few and short).
    line = _written(value, space, strings).encode()
    try:
        expected = fileio.parse_json(line.decode(), "f.jsonl", 1)
    except InputError:
        assert type(fast_loads(line)) is object
    else:
        assert fast_loads(line) == expected


def test_a_duplicate_key_in_a_valid_run_line_is_refused_by_the_file_reader_too(
    tmp_path: Path,
) -> None:
    from loader_path import READERS, invoke

    example = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
    run = json.loads((example / "runs" / "baseline.json").read_text(encoding="utf-8"))
    results = run.pop("results")
    lines = [json.dumps(run, ensure_ascii=False)]
    lines += [json.dumps(r, ensure_ascii=False) for r in results]
    lines[2] = lines[2][:-1] + ', "answer": "changed"}'
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["evaluate", str(example / "evalset.json"), "--snapshot",
            str(example / "snapshot.json"), "--run", str(tmp_path / "run.jsonl")]
    outputs = [
        invoke(reader, [*args])
        for reader in READERS
    ]
    column = lines[2].rindex('"answer"') + 1  # the key written the second time
    expected = (
        f"- {tmp_path / 'run.jsonl'}: line 3 column {column}: expected each key at most once "
        "in an object; found the key 'answer' twice"
    )
    assert [(o.exit_code, o.stderr.splitlines()[-1]) for o in outputs] == [(2, expected)] * 2


def test_jsonl_lines_ended_by_cr_alone_are_refused_as_such_by_both_readers(tmp_path: Path) -> None:
    from loader_path import READERS, invoke

    example = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
    run = json.loads((example / "runs" / "baseline.json").read_text(encoding="utf-8"))
    results = run.pop("results")
    lines = [json.dumps(run, ensure_ascii=False), *(json.dumps(r, ensure_ascii=False) for r in results)]
    (tmp_path / "run.jsonl").write_bytes(("\r".join(lines) + "\r").encode())
    args = ["evaluate", str(example / "evalset.json"), "--snapshot",
            str(example / "snapshot.json"), "--run", str(tmp_path / "run.jsonl")]
    expected = (
        f"- {tmp_path / 'run.jsonl'}: line 1: expected LF or CRLF line ends; "
        f"found one line holding {len(lines)} CR characters (old Mac line ends)"
    )
    outputs = [invoke(reader, args) for reader in READERS]
    assert [(o.exit_code, o.stderr.splitlines()[-1]) for o in outputs] == [(2, expected)] * 2


def test_an_integer_beyond_64_bits_in_a_run_header_is_reported_exactly_by_both_readers(
    tmp_path: Path,
) -> None:
    from loader_path import READERS, invoke

    example = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
    run = json.loads((example / "runs" / "baseline.json").read_text(encoding="utf-8"))
    run["provenance"]["generator"]["settings"]["max_tokens"] = 2**70 + 1
    (tmp_path / "run.json").write_text(json.dumps(run, ensure_ascii=False), encoding="utf-8")
    args = ["evaluate", str(example / "evalset.json"), "--snapshot",
            str(example / "snapshot.json"), "--run", str(tmp_path / "run.json"),
            "--format", "json"]
    outputs = [invoke(reader, args) for reader in READERS]
    assert [o.exit_code for o in outputs] == [0, 0]
    assert outputs[1].stdout == outputs[0].stdout
    settings = [json.loads(o.stdout)["runs"][0]["provenance"]["generator"]["settings"]
                for o in outputs]
    assert settings == [{"max_tokens": 1180591620717411303425, "temperature": 0.0}] * 2


def test_files_hashed_in_a_second_thread_give_file_sha256_and_its_error(tmp_path: Path) -> None:
    from ragtriage.loading import file_sha256, file_sha256_later

    (tmp_path / "a.jsonl").write_bytes(b'{"a": 1}\n' * 100_000)
    (tmp_path / "b.jsonl").write_bytes(b"")
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    assert file_sha256_later(paths)() == [file_sha256(p) for p in paths]
    later = file_sha256_later([*paths, tmp_path / "gone.jsonl"])
    with pytest.raises(InputError) as raised:
        file_sha256(tmp_path / "gone.jsonl")
    with pytest.raises(InputError) as raised_later:
        later()
    assert _message(raised_later) == _message(raised)


def test_a_text_written_in_pieces_is_handed_to_the_disk_early_and_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every 10 characters written, a flush of what the file holds so far (each seen from its
    # own thread, the file's content then on disk), while the next pieces are written (by
    # the writing thread, while the caller makes the next ones).
    import os
    import threading
    import time

    from ragtriage.fileio import _write

    monkeypatch.setattr(_write, "_FLUSH_EVERY", 10)
    seen: list[tuple[bytes, bool]] = []

    def datasync(fd: int) -> None:
        seen.append((os.pread(fd, 100, 0), threading.current_thread().name == "ragtriage-flush"))

    monkeypatch.setattr(os, "fdatasync", datasync)
    def pieces() -> Iterator[str]:
        yield from ["abcdef", "ghijkl"]  # the first flush starts after the second piece
        while not seen or any(t.name == "ragtriage-flush" for t in threading.enumerate()):
            time.sleep(0.001)  # (a flush due while the last one runs is left for later)
        yield from ["mnop", "qrstuvwxyz", "!"]

    target = tmp_path / "report.json"
    fileio.write_text(target, pieces())
    assert target.read_text() == "abcdefghijklmnopqrstuvwxyz!"
    assert seen == [(b"abcdefghijkl", True), (b"abcdefghijklmnopqrstuvwxyz", True)]
    assert _ours_running() == []  # no thread left to wait for at the exit


def test_pieces_of_text_and_of_utf8_bytes_are_written_as_they_are(tmp_path: Path) -> None:
    # Bytes and memoryviews are written without being decoded; text is encoded; line breaks
    # are kept as given (no translation) in either.
    target = tmp_path / "report.json"
    made = "✓ b\r\nc\n".encode()
    fileio.write_text(target, iter(["a ", made, memoryview(made)[3:], "é\n"]))
    assert target.read_bytes() == "a ✓ b\r\nc\n b\r\nc\né\n".encode()


def _refused(tmp_path: Path, pieces: Iterable[str | bytes], error: type[BaseException]) -> str:
    """Write `pieces` over an older report.json: the error's message, once checked that the
    older file is left as it was, with no partial file beside it and no thread running."""
    target = tmp_path / "report.json"
    target.write_text("older")
    with pytest.raises(error) as caught:
        fileio.write_text(target, pieces)
    assert target.read_text() == "older"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    assert _ours_running() == []
    return str(caught.value)


def _ours_running() -> list[str]:
    """The writer's threads still running (`ragtriage-write`, `ragtriage-flush`): another
    library's, such as the tqdm monitor bm25s starts in an earlier test, are not the writer's."""
    import threading

    return [t.name for t in threading.enumerate() if t.name.startswith("ragtriage-")]


def test_an_early_flush_that_fails_fails_the_writing_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    from ragtriage.fileio import _write

    monkeypatch.setattr(_write, "_FLUSH_EVERY", 4)

    def datasync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fdatasync", datasync)
    message = _refused(tmp_path, iter(["abcd", "efgh", "ij"]), fileio.OutputError)
    target = tmp_path / "report.json"
    assert message == f"cannot write {target}: Input/output error. Nothing was written."


def test_a_piece_utf8_cannot_encode_fails_the_writing_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    # The piece is written by the writing thread: its error reaches the caller, as if the
    # caller had written it.
    message = _refused(tmp_path, iter([b"first ", "bad \ud800 ", "third"]), fileio.OutputError)
    assert message == (
        f"cannot write {tmp_path / 'report.json'}: the text holds '\\ud800', which utf-8 "
        "cannot encode (a lone surrogate?). Nothing was written."
    )


def test_an_error_making_the_pieces_is_raised_as_it_is_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    def pieces() -> Iterator[str]:
        yield "first "
        raise ZeroDivisionError("made here")

    assert _refused(tmp_path, pieces(), ZeroDivisionError) == "made here"


def test_a_line_that_is_not_utf8_is_one_problem_and_the_reading_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the reading of the file stopped at such a line: the problems of the lines after
    # it were never reported, and an evaluation set read so far said it had no question.
    from loader_path import both_readers
    from ragtriage.columnar import _native_records, evaluate_native
    from ragtriage.holdout import read_ledger
    from ragtriage.loading import load_dataset

    example = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
    data = json.loads((example / "evalset.json").read_text(encoding="utf-8"))
    questions = data.pop("questions")
    questions[2]["answerability"] = "maybe"
    lines = [json.dumps(v).encode() for v in [data, *questions]]
    lines[1] = lines[1].replace(b'"text": "', b'"text": "\xe9', 1)
    evalset = tmp_path / "evalset.jsonl"
    evalset.write_bytes(b"\n".join(lines) + b"\n")
    column = lines[1].index(b"\xe9") + 1
    expected = [
        f"{evalset}: line 2 column {column}: expected UTF-8 text; found the byte 0xE9, which is "
        "not UTF-8 (is the file GBK, Latin-1 or UTF-16?); convert it to UTF-8, e.g. "
        "`iconv -f GBK -t UTF-8 evalset.jsonl > evalset.utf8.jsonl`",
        f"{evalset}: question '{questions[2]['id']}': line 4: answerability: expected "
        "'answerable', 'unanswerable' or 'needs_clarification'; found 'maybe'",
    ]
    snapshot, run = example / "snapshot.json", example / "runs" / "baseline.json"
    found = [[p.message() for p in f] for f in both_readers(evalset, snapshot, run)]
    monkeypatch.setattr(_native_records, "_SPLIT_BYTES", 1)  # read in byte ranges
    with pytest.raises(InputError) as split:
        evaluate_native(evalset, snapshot, [run], workers=2)
    with pytest.raises(InputError) as loaded:
        load_dataset(evalset, snapshot=snapshot, runs=[run])
    found += [[p.message() for p in e.value.problems] for e in (split, loaded)]
    assert found == [expected] * 4
    # Only bad lines after the header: each is named, none is "found none".
    evalset.write_bytes(lines[0] + b"\n" + lines[1] + b"\n")
    assert [p.message() for p in both_readers(evalset, snapshot, run)[1]] == expected[:1]
    # A header that cannot be read stops the reading, as one that is not JSON does.
    evalset.write_bytes(b"\n".join([lines[1], lines[0], lines[2]]) + b"\n")
    assert [p.message() for p in both_readers(evalset, snapshot, run)[1]] == [
        expected[0].replace("line 2", "line 1")
    ]
    # TREC lines alike: the line not UTF-8, then the bad score of the next line.
    (tmp_path / "run.txt").write_bytes(b"q1 Q0 d\xe91 1 1.0 r\nq1 Q0 d2 2 x r\n")
    collector = ProblemCollector()
    parse_run(tmp_path / "run.txt", collector)
    assert [p.message() for p in collector.problems] == [
        f"{tmp_path / 'run.txt'}: line 1 column 8: expected UTF-8 text; found the byte 0xE9, "
        "which is not UTF-8 (is the file GBK, Latin-1 or UTF-16?); convert it to UTF-8, e.g. "
        "`iconv -f GBK -t UTF-8 run.txt > run.utf8.txt`",
        f"{tmp_path / 'run.txt'}: question 'q1': line 2: score: expected a finite number; "
        "found 'x'",
    ]
    # So are a holdout ledger's lines.
    (tmp_path / "ledger.jsonl").write_bytes(b'{"who": "\xe9"}\n{bad\n')
    with pytest.raises(InputError) as ledger:
        read_ledger(tmp_path / "ledger.jsonl")
    assert [p.field for p in ledger.value.problems] == ["line 1 column 10", "line 2 column 2"]


_THREADS_NEAR_THE_BOUND = """
import resource, sys, threading
from pathlib import Path
from ragtriage.fileio import room_for_a_thread, write_text
from ragtriage.loading import file_sha256_later
started = []
start = threading.Thread.start
def spy(self):
    started.append(self.name)
    start(self)
threading.Thread.start = spy
if sys.argv[1] != "none":
    with open("/proc/self/status", encoding="ascii") as status:
        size = next(int(line.split()[1]) << 10 for line in status if line.startswith("VmSize:"))
    bound = size + int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (bound, bound))
target = Path(sys.argv[2])
write_text(target, iter(["ab", b"cd"]))
digests = file_sha256_later([target])()
print(room_for_a_thread(), started, target.read_text(), len(digests[0]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status")
def test_near_the_address_space_bound_no_thread_is_started_and_the_work_is_done_here(
    tmp_path: Path,
) -> None:
    # Before: the writer and the hash each started a thread whatever the bound; under 10 MB
    # (`ulimit -v`) a thread's start-up could run out of memory, and CPython's
    # Thread.start() then waited for it without end (seen in CI: the command hung).
    import os
    import subprocess

    def run(extra: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", _THREADS_NEAR_THE_BOUND, extra, str(tmp_path / "r.json")],
            capture_output=True, text=True, timeout=60, check=True,
            env={**os.environ, "PYTHONPATH": str(Path(fileio.__file__).parents[2])},
        )
        return done.stdout

    assert run(str(10 << 20)) == "False [] abcd 64\n"
    assert run("none") == "True ['ragtriage-write', 'ragtriage-sha256'] abcd 64\n"
