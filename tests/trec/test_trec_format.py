"""TREC qrels/run reading and writing: round trips, the tie rule, and exact error messages."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from ragtriage.cli.main import cli
from ragtriage.columnar import QuestionPolicy, evaluate_trec, load_trec
from ragtriage.errors import InputError
from ragtriage.formats import (
    qrels_to_evalset,
    read_qrels,
    read_run,
    run_to_native,
    write_qrels,
    write_run,
)
from ragtriage.render import dumps, trec_json, trec_json_text

token = st.text(alphabet="abcXYZ019._-é", min_size=1, max_size=10)
finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    qrels=st.dictionaries(token, st.dictionaries(token, st.integers(-2, 4), min_size=1), max_size=5)
)
def test_qrels_round_trip(qrels: dict[str, dict[str, int]], tmp_path: Path) -> None:
    write_qrels(qrels, tmp_path / "q.txt")
    assert read_qrels(tmp_path / "q.txt") == qrels


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(run=st.dictionaries(token, st.dictionaries(token, finite, min_size=1), max_size=5))
def test_run_round_trip_keeps_scores_and_order(
    run: dict[str, dict[str, float]], tmp_path: Path
) -> None:
    write_run({q: list(d.items()) for q, d in run.items()}, tmp_path / "r.txt")
    back = read_run(tmp_path / "r.txt")
    assert {q: dict(items) for q, items in back.items()} == run
    for items in back.values():
        keys = [(score, doc.encode()) for doc, score in items]
        assert keys == sorted(keys, reverse=True)


def test_ties_break_by_document_id_descending(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text(
        "q1 Q0 b 1 1.0 t\nq1 Q0 c 2 1.0 t\nq1 Q0 a 3 2.0 t\nq1 Q0 é 4 1.0 t\n", encoding="utf-8"
    )
    assert read_run(tmp_path / "r.txt") == {"q1": [("a", 2.0), ("é", 1.0), ("c", 1.0), ("b", 1.0)]}


def test_whitespace_variants_read_the_same(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("q1\t0\td1\t1\nq1  0 d2   2\n", encoding="utf-8")
    assert read_qrels(tmp_path / "q.txt") == {"q1": {"d1": 1, "d2": 2}}


def _messages(exc: pytest.ExceptionInfo[InputError]) -> list[str]:
    return [p.message() for p in exc.value.problems]


def test_bad_qrels_lines_are_all_reported(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2\nq1 0 d3 high\n\nq1 0 d1 2\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_qrels(path)
    assert _messages(exc) == [
        f"{path}: question 'q1': line 2"
        ": expected 4 whitespace-separated fields (question ID, iteration, document ID, grade);"
        " found 3 fields",
        f"{path}: question 'q1': line 3: grade: expected an integer; found 'high'",
        f"{path}: question 'q1': line 5: document ID"
        f": expected each document judged once per question; found 'd1' again (first on line 1)",
    ]


def test_a_grade_beyond_32_bits_is_refused_by_trec_eval(tmp_path: Path) -> None:
    # The engine holds grades as 32-bit integers (beyond 64 bits: a traceback before).
    qrels = tmp_path / "q.txt"
    grades = ["2147483647", "-2147483648", "2147483648", "-2147483649", "9223372036854775808",
              "9" * 5000]
    qrels.write_text("".join(f"q1 0 d{n} {g}\n" for n, g in enumerate(grades)), "utf-8")
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 2.0 t\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(tmp_path / "r.txt")])
    expected = "an integer from -2147483648 to 2147483647"
    assert (result.exit_code, result.output.splitlines()) == (2, [
        "Error: 4 problems found in the input:",
        *[f"- {qrels}: question 'q1': line {n + 1}: grade: expected {expected}; found '{g}'"
          for n, g in enumerate(grades) if n >= 2],
    ])


def test_numbers_only_python_reads_are_refused(tmp_path: Path) -> None:
    # Python's int and float take `1_0` (10) and digits of other scripts; trec_eval does not.
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1_0\nq1 0 d2 \u0663\nq1 0 d3 \uff13\nq1 0 d4 +2\n",
                     encoding="utf-8")
    run.write_text("q1 Q0 d1 1 1_0.5 t\nq1 Q0 d2 2 \u0661.\u0665 t\nq1 Q0 d4 3 +.5 t\n",
                   encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_qrels(qrels)
    assert _messages(exc) == [
        f"{qrels}: question 'q1': line 1: grade: expected an integer; found '1_0'",
        f"{qrels}: question 'q1': line 2: grade: expected an integer; found '\u0663'",
        f"{qrels}: question 'q1': line 3: grade: expected an integer; found '\uff13'",
    ]
    with pytest.raises(InputError) as exc:
        read_run(run)
    assert _messages(exc) == [
        f"{run}: question 'q1': line 1: score: expected a finite number; found '1_0.5'",
        f"{run}: question 'q1': line 2: score: expected a finite number; found '\u0661.\u0665'",
    ]
    qrels.write_text("q1 0 d4 +2\n", encoding="utf-8")
    run.write_text("q1 Q0 d4 3 +.5 t\n", encoding="utf-8")
    assert (read_qrels(qrels), read_run(run)) == ({"q1": {"d4": 2}}, {"q1": [("d4", 0.5)]})


def test_bad_run_lines_are_all_reported(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text(
        "q1 Q0 d1 1 3.5 t\nq1 Q0 d2 2 abc t\nq1 Q0 d3 3 inf t\nq1 Q0 d1 4 1.0 t\nq2 Q0 d1 1\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as exc:
        read_run(path)
    assert _messages(exc) == [
        f"{path}: question 'q1': line 2: score: expected a finite number; found 'abc'",
        f"{path}: question 'q1': line 3: score: expected a finite number; found 'inf'",
        f"{path}: question 'q1': line 4: document ID"
        f": expected each document at most once per question; found 'd1' again (first on line 1)",
        f"{path}: question 'q2': line 5"
        ": expected 6 whitespace-separated fields"
        " (question ID, Q0, document ID, rank, score, run tag); found 4 fields",
    ]


def test_missing_file_is_a_problem(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        read_qrels(tmp_path / "nope.txt")
    assert _messages(exc) == [
        f"{tmp_path / 'nope.txt'}: (file): expected an existing file; found no such file"
    ]


def test_fast_reader_reports_line_problems_and_question_problems(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq3 Q0 d9 1 1.0 t\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_trec(qrels, run, depth=10)
    assert _messages(exc) == [
        f"{run}: question 'q1': line 2: document ID"
        f": expected each document at most once per question; found 'd1' again (first on line 1)",
        f"{run}: question 'q2': question ID"
        ": expected a ranking for every question of the qrels (or --allow-missing);"
        " found no line for it",
        f"{run}: question 'q3': question ID"
        f": expected a question the qrels judge (or --allow-extra); found not in the qrels",
    ]


def test_question_policy_allows_missing_and_extra(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 2.0 t\nq3 Q0 d9 1 1.0 t\n", encoding="utf-8")
    loaded = load_trec(
        qrels, run, depth=5, policy=QuestionPolicy(allow_missing=True, allow_extra=True)
    )
    assert (loaded.missing, loaded.skipped, loaded.fast_path) == (("q2",), ("q3",), True)
    assert loaded.arrays.question_ids == ("q1", "q2")
    assert loaded.arrays.lengths.tolist() == [1, 0]


def test_conversion_to_native_models() -> None:
    evalset = qrels_to_evalset({"q2": {"d1": 0}, "q1": {"d2": 2, "d1": 1, "d3": 0}})
    assert [(q.id, q.answerability) for q in evalset.questions] == [
        ("q1", "answerable"),
        ("q2", "unanswerable"),
    ]
    assert [(g.any_of, g.grade) for g in evalset.questions[0].required_evidence] == [
        (["d1"], 1),
        (["d2"], 2),
    ]
    run = run_to_native({"q1": [("d2", 2.0), ("d1", 1.0)]}, "bm25")
    assert run.name == "bm25"
    assert [(i.id, i.score) for i in run.results[0].candidates] == [("d2", 2.0), ("d1", 1.0)]


def test_writers_refuse_ids_with_whitespace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="free of whitespace: 'd 1'"):
        write_qrels({"q1": {"d 1": 1}}, tmp_path / "q.txt")


def test_cli_trec_eval_json(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 2\nq1 0 c 1\nq2 0 x 0\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq2 Q0 x 1 1 t\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "trec-eval",
            str(qrels),
            str(run),
            "-m",
            "recall@1",
            "-m",
            "P@2",
            "--format",
            "json",
            "--per-question",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["summary"]["recall@1"] == {
        "averaging": "macro",
        "denominator": 1,
        "not_applicable": 1,
        "numerator": 0.5,
        "value": 0.5,
    }
    assert data["summary"]["precision@2"]["value"] == 0.5
    assert data["questions"] == [
        {"id": "q1", "recall@1": 0.5, "precision@2": 0.5},
        {"id": "q2", "recall@1": None, "precision@2": None},
    ]
    assert [m["reference_metric"] for m in data["metrics"]] == [
        "recall_candidates@1",
        "precision@2",
    ]


def test_a_measure_asked_for_twice_is_listed_once(tmp_path: Path) -> None:
    # By its name, another case and an alias: one measure, in the order first asked.
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\n", encoding="utf-8")
    asked = ["ndcg@3", "P@3", "NDCG@3", "precision@3", "ndcg@3"]
    result = CliRunner().invoke(
        cli, ["trec-eval", str(qrels), str(run), *(f"-m{m}" for m in asked), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [m["name"] for m in data["metrics"]] == list(data["summary"]) == [
        "ndcg@3", "precision@3"
    ]


def test_a_file_read_as_json_for_its_first_character_says_so(tmp_path: Path) -> None:
    # A TREC file whose first question ID starts with { is read as JSON (ranx's form): its
    # JSON problem says why it was read so.
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("{q1 0 a 1\n", encoding="utf-8")
    run.write_text("{q1 Q0 a 1 3 t\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    why = "the file starts with {, so it is read as a JSON qrels or run, as ranx writes one"
    found = "found a key not in double quotes, or a comma before a closing brace"
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        "Error: 2 problems found in the input:",
        f"- {qrels}: line 1 column 2: expected valid JSON ({why}); {found}",
        f"- {run}: line 1 column 2: expected valid JSON ({why}); {found}",
    ])


def test_cli_trec_eval_bad_input_exits_2(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 2\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 x t\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: 1 problem found in the input:\n- {run}: question 'q1': line 1: score"
        f": expected a finite number; found 'x'\n"
    )


def test_missing_files_through_the_fast_reader(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_trec(qrels, run, depth=5)
    assert _messages(exc) == [f"{run}: (file): expected an existing file; found no such file"]
    with pytest.raises(InputError) as exc:
        load_trec(tmp_path / "none.txt", qrels, depth=5)
    assert _messages(exc)[0] == (
        f"{tmp_path / 'none.txt'}: (file): expected an existing file; found no such file"
    )


@pytest.mark.parametrize("bad", ["run", "qrels"])
def test_a_file_not_utf8_is_one_problem_not_also_missing_questions(
    tmp_path: Path, bad: str
) -> None:
    # The decoder stops at the byte (`line 2 column 7`): the questions after it are unknown,
    # not missing from the run or unjudged (as for a file that cannot be opened).
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_bytes(b"q1 0 a 1\nq2 0 \xe9 1\n" if bad == "qrels" else b"q1 0 a 1\nq2 0 b 1\n")
    run.write_bytes(b"q1 Q0 a 1 1 t\nq2 Q0 \xe9 1 1 t\n" if bad == "run" else b"q1 Q0 a 1 1 t\n"
                    b"q2 Q0 b 1 1 t\n")
    path, column = (run, 7) if bad == "run" else (qrels, 6)
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: 1 problem found in the input:\n- {path}: line 2 column {column}: expected"
        " UTF-8 text; found the byte 0xE9, which is not UTF-8 (is the file GBK, Latin-1 or"
        f" UTF-16?); convert it to UTF-8, e.g. `iconv -f GBK -t UTF-8 {path.name} >"
        f" {path.stem}.utf8.txt`\n"
    )


def test_a_line_past_the_bound_is_one_problem_not_also_missing_questions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reader stops at the long line: q2 after it is unknown, not missing from the run.
    monkeypatch.setattr("ragtriage.fileio._open.MAX_LINE_BYTES", 40)
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n", encoding="utf-8")
    run.write_text(f"# a comment\nq1 Q0 {'a' * 40} 1 1 t\nq2 Q0 b 1 1 t\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    assert (result.exit_code, result.output) == (
        2,
        f"Error: 1 problem found in the input:\n- {run}: line 2: expected a line of at most 40"
        " bytes; found a longer line\n",
    )


def test_reported_hashes_are_the_files_sha256(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 1.5 t\nq1 Q0 b 2 0.5 t\n", encoding="utf-8")
    loaded = load_trec(qrels, run, depth=5)
    assert loaded.fast_path
    assert loaded.sha256 == (
        hashlib.sha256(qrels.read_bytes()).hexdigest(),
        hashlib.sha256(run.read_bytes()).hexdigest(),
    )


def test_cli_trec_eval_table_and_usage_errors(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 2\nq1 0 c 1\nq2 0 x 0\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq2 Q0 x 1 1 t\n", encoding="utf-8")
    table = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run), "-m", "recall@2"])
    assert table.exit_code == 0
    assert "│ recall@2 │ 0.5000 │" in table.output
    assert "0.5 / 1" in table.output
    assert "ragtriage trec-eval (2 questions)" in table.output
    qrels.write_text("q1 0 a 2\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 3 t\n", encoding="utf-8")
    one = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run), "-m", "recall@2"])
    assert "ragtriage trec-eval (1 question)" in one.output
    wrong = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run), "--ray-address", "auto"])
    assert wrong.exit_code == 2
    assert "--ray-address needs --executor ray" in wrong.output


def test_per_question_json_text_is_the_plain_documents(tmp_path: Path) -> None:
    # The report's text is written from the score arrays; it must be, byte for byte, the
    # text of the plain document (`trec_json`) that the general writer writes.
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    judged = [f"q{q}\u00e9 0 d{d} {(q + d) % 3}\n" for q in range(40) for d in range(0, 9, 2)]
    ranked = [
        f"q{q}\u00e9 Q0 d{d} {d + 1} {10 - d * 0.37:.4f} t\n" for q in range(40) for d in range(7)
    ]
    judged.append("qz\u00e9 0 d1 0\n")  # no relevant document: every value not applicable
    ranked.append("qz\u00e9 Q0 d1 1 1 t\n")
    qrels.write_text("".join(judged), encoding="utf-8")
    run.write_text("".join(ranked), encoding="utf-8")
    measures = ("recall@3", "P@3", "mrr@5", "ndcg@4", "ap@7", "success@2")
    result = evaluate_trec(qrels, run, metrics=measures)
    text = trec_json_text(result, per_question=True)
    assert text == dumps(trec_json(result, per_question=True))
    assert trec_json_text(result) == dumps(trec_json(result))
    questions = json.loads(text)["questions"]
    assert len(questions) == 41
    # q0: grades by rank 0 0 2 0 1 0 0 (d0..d6); relevant d2 (2), d4 (1), d8 (2, not ranked)
    assert questions[0] == {
        "ap@7": (1 / 3 + 2 / 5) / 3,
        "hit_rate@2": 0.0,
        "id": "q0\u00e9",
        "mrr@5": 1 / 3,
        "ndcg@4": (2 / math.log2(4)) / (2 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)),
        "precision@3": 1 / 3,
        "recall@3": 1 / 3,
    }
    assert questions[-1] == {
        "ap@7": None,
        "hit_rate@2": None,
        "id": "qz\u00e9",
        "mrr@5": None,
        "ndcg@4": None,
        "precision@3": None,
        "recall@3": None,
    }
    cli_out = tmp_path / "out.json"
    args = ["trec-eval", str(qrels), str(run), "--per-question", "--format", "json"]
    for name in measures:
        args += ["-m", name]
    result_cli = CliRunner().invoke(cli, [*args, "--output", str(cli_out)])
    assert result_cli.exit_code == 0, result_cli.output
    assert cli_out.read_text(encoding="utf-8") == text


def test_run_hash_read_in_many_small_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragtriage.columnar._sources as sources

    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    run.write_text("".join(f"q1 Q0 d{d} {d} {100 - d} t\n" for d in range(50)), encoding="utf-8")
    monkeypatch.setattr(sources, "_HASH_BYTES", 7)
    monkeypatch.setattr(sources, "_BLOCK_BYTES", 64)
    loaded = load_trec(qrels, run, depth=5)
    assert loaded.fast_path
    assert loaded.sha256[1] == hashlib.sha256(run.read_bytes()).hexdigest()


def test_file_names_that_are_not_utf8_are_read(tmp_path: Path) -> None:
    # pyarrow cannot open such a path: the line reader reads both files instead.
    qrels = Path(os.fsdecode(os.fsencode(tmp_path) + b"/q\xff.qrels"))
    run = Path(os.fsdecode(os.fsencode(tmp_path) + b"/r\xff.run"))
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n", encoding="utf-8")
    loaded = load_trec(qrels, run, depth=3)
    assert loaded.arrays.grades.tolist() == [[1, 0]]
    assert loaded.sha256 == (
        hashlib.sha256(b"q1 0 a 1\n").hexdigest(),
        hashlib.sha256(b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n").hexdigest(),
    )


def test_export_refuses_ids_a_trec_file_cannot_hold(tmp_path: Path) -> None:
    # An ID with a blank, or a question ID read back as a comment line, was a traceback.
    example = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
    evalset = json.loads((example / "evalset.json").read_text(encoding="utf-8"))
    evalset["questions"][0]["id"] = "a b"
    evalset["questions"][1]["id"] = "#two"
    evalset["questions"][1]["required_evidence"][0]["any_of"] = ["doc\u2003x"]
    (tmp_path / "e.json").write_text(json.dumps(evalset), encoding="utf-8")
    run = json.loads((example / "runs" / "baseline.json").read_text(encoding="utf-8"))
    run["results"][0]["question_id"] = "q\u3000x"
    (tmp_path / "r.json").write_text(json.dumps(run), encoding="utf-8")
    result = CliRunner().invoke(cli, [
        "export", "trec", str(tmp_path / "e.json"), "--qrels-out", str(tmp_path / "q.qrels"),
        "--run", str(tmp_path / "r.json"), "--run-out", str(tmp_path / "r.run"),
        "--run-tag", "my tag",
    ])
    e, r = tmp_path / "e.json", tmp_path / "r.json"
    field = "a TREC field: non-empty, without whitespace or NUL"
    # The run answers questions the evaluation set renamed: those are not its questions.
    known = "results.question_id: expected a question of the evaluation set; found no such question"
    assert (result.exit_code, result.output.splitlines()) == (2, [
        "Error: 7 problems found in the input:",
        f"- {e}: question 'a b': id: expected {field}, not starting with #; found 'a b'",
        f"- {e}: question '#two': id: expected {field}, not starting with #; found '#two'",
        f"- {e}: question '#two': required_evidence: expected {field}; found 'doc\\u2003x'",
        f"- {r}: question 'q\\u3000x': question_id: expected {field}, not starting with #; "
        "found 'q\\u3000x'",
        f"- {r}: question 'q\\u3000x': {known}",
        f"- {r}: question 'two-facts': {known}",
        f"- <command line>: --run-tag: expected {field}; found 'my tag'",
    ])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json", "r.json"]


def test_export_refuses_a_question_twice(tmp_path: Path) -> None:
    # A TREC file holds one entry per question: the second was merged into the first, silently.
    example = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
    evalset = json.loads((example / "evalset.json").read_text(encoding="utf-8"))
    evalset["questions"].append(evalset["questions"][0])
    (tmp_path / "e.json").write_text(json.dumps(evalset), encoding="utf-8")
    run = json.loads((example / "runs" / "baseline.json").read_text(encoding="utf-8"))
    run["results"] += run["results"][1:2] * 2
    (tmp_path / "r.json").write_text(json.dumps(run), encoding="utf-8")
    result = CliRunner().invoke(cli, [
        "export", "trec", str(tmp_path / "e.json"), "--qrels-out", str(tmp_path / "q.qrels"),
        "--run", str(tmp_path / "r.json"), "--run-out", str(tmp_path / "r.run"),
    ])
    e, r = tmp_path / "e.json", tmp_path / "r.json"
    first, second = evalset["questions"][0]["id"], run["results"][1]["question_id"]
    assert (result.exit_code, result.output.splitlines()) == (2, [
        "Error: 2 problems found in the input:",
        f"- {e}: question {first!r}: id: expected unique question IDs; "
        f"found {first!r} more than once",
        f"- {r}: question {second!r}: results: expected one result per question; found 3 results",
    ])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json", "r.json"]


def test_cli_trec_eval_refuses_an_empty_qrels_or_run(tmp_path: Path) -> None:
    # an empty qrels scored no question and exited 0; an empty run with --allow-missing
    # scored every question 0
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    empty, comments = tmp_path / "empty.txt", tmp_path / "comments.txt"
    qrels.write_text("q1 0 a 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 1.5 t\n", encoding="utf-8")
    empty.write_text("", encoding="utf-8")
    comments.write_text("# written by hand\n\n", encoding="utf-8")
    qrels_expected = (
        "expected at least one judgement line (question ID, iteration, document ID, grade)"
    )
    run_expected = (
        "expected at least one run line (question ID, Q0, document ID, rank, score, run tag)"
    )
    cases = {
        (empty, empty): [
            f"- {empty}: (file): {qrels_expected}; found an empty file",
            f"- {empty}: (file): {run_expected}; found an empty file",
        ],
        (comments, run): [f"- {comments}: (file): {qrels_expected}; found only 1 comment line"],
        (tmp_path / "none.txt", comments): [
            f"- {tmp_path / 'none.txt'}: (file): expected an existing file; found no such file",
            f"- {comments}: (file): {run_expected}; found only 1 comment line",
        ],
    }
    for (q, r), lines in cases.items():
        result = CliRunner().invoke(cli, ["trec-eval", str(q), str(r), "--allow-missing"])
        assert (result.exit_code, result.output.splitlines()[1:]) == (2, lines)
    ok = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    assert ok.exit_code == 0


def test_a_qrels_or_run_of_only_blank_lines_says_so(tmp_path: Path) -> None:
    # Before, "found an empty file", by trec-eval and import trec alike.
    from ragtriage.importers import import_trec

    blank, run = tmp_path / "blank.txt", tmp_path / "r.txt"
    blank.write_text("  \n\t\n\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 1.5 t\n", encoding="utf-8")
    qrels_line = (
        f"{blank}: (file): expected at least one judgement line (question ID, iteration, "
        "document ID, grade); found only blank lines"
    )
    result = CliRunner().invoke(cli, ["trec-eval", str(blank), str(run)])
    assert (result.exit_code, result.output.splitlines()[1:]) == (2, [f"- {qrels_line}"])
    with pytest.raises(InputError) as caught:
        import_trec(blank, [run])
    assert [p.message() for p in caught.value.problems] == [qrels_line]


def test_a_field_count_names_a_separator_trec_eval_does_not_split_at(tmp_path: Path) -> None:
    # "q1 0 d\u00a0x 1" shows 4 fields; the no-break space made it 5, so the message says so
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d\u00a0x 1\nq1 0 d\x1cy 1\n", encoding="utf-8")
    # Two run lines whose count comes right: before, read as document 'a', rank 'x', score
    # 2.0 (trec_eval's document is 'a\u00a0x'), and as fields split at the no-break space.
    run.write_text("q1 Q0 d\u3000x 1 2 t\nq1 Q0 a\u00a0x 2 0.5\nq1\u00a0Q0 b 3 0.1 t\n",
                   encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    qrels_fields = "4 whitespace-separated fields (question ID, iteration, document ID, grade)"
    run_fields = (
        "6 whitespace-separated fields (question ID, Q0, document ID, rank, score, run tag)"
    )
    assert (result.exit_code, result.output.splitlines()[1:]) == (
        2,
        [
            f"- {qrels}: question 'q1': line 1: expected {qrels_fields}; found 5 fields,"
            " split also at U+00A0 NO-BREAK SPACE (column 7)",
            f"- {qrels}: question 'q1': line 2: expected {qrels_fields}; found 5 fields,"
            " split also at U+001C (column 7)",
            f"- {run}: question 'q1': line 1: expected {run_fields}; found 7 fields,"
            " split also at U+3000 IDEOGRAPHIC SPACE (column 8)",
            f"- {run}: question 'q1': line 2: expected {run_fields}; found 6 fields,"
            " split also at U+00A0 NO-BREAK SPACE (column 8)",
            f"- {run}: question 'q1': line 3: expected {run_fields}; found 6 fields,"
            " split also at U+00A0 NO-BREAK SPACE (column 3)",
        ],
    )


@pytest.mark.parametrize(("name", "data", "question"), [
    # A JSON object is read (test_trec_peer_formats); an array is no peer's form
    ("q.json", b'[["q1", "d1", 1]]\n', '[["q1",'),
    # Gzip holds TREC text; gzipped JSON is not read (unpacked, it is), so it is named as JSON
    ("q.json.gz", gzip.compress(b'{"q1": {"d1": 1}}\n'), '{"q1":'),
])
def test_a_json_array_or_gzipped_json_is_named_as_json_on_its_first_line(
    tmp_path: Path, name: str, data: bytes, question: str
) -> None:
    qrels, run = tmp_path / name, tmp_path / "r.txt"
    qrels.write_bytes(data)
    run.write_text("q1 Q0 d1 1 0.5 r\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run)])
    qrels_fields = "4 whitespace-separated fields (question ID, iteration, document ID, grade)"
    assert (result.exit_code, result.output.splitlines()[1:2]) == (
        2,
        [
            f"- {qrels}: question '{question}': line 1: expected {qrels_fields}; found 3 fields"
            "; the file looks like a JSON document, not TREC lines",
        ],
    )


def test_per_question_values_in_a_table_are_refused(tmp_path: Path) -> None:
    # Before, --per-question was dropped without a word when the format was the table.
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 0.5 t\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run), "--per-question"])
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        2, "Error: --per-question needs --format json (the table shows the means)"
    )


def test_the_table_writes_a_sum_as_evaluate_writes_it(tmp_path: Path) -> None:
    # recall@2 of q1 is 1/3: `0.333 / 1`, as evaluate, its Markdown, the HTML page and the
    # gate write a numerator (`0.333333 / 1` before, and a million questions `1e+06`).
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\nq1 0 c 1\n", encoding="utf-8")
    run.write_text("q1 Q0 a 1 2 t\nq1 Q0 x 2 1 t\n", encoding="utf-8")
    table = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(run), "-m", "recall@2"])
    assert table.exit_code == 0
    assert "│ recall@2 │ 0.3333 │               0.333 / 1 │   0 │" in table.output
