"""TREC qrels and runs: import to native files and export back (round trip), bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ragtriage.cli import cli
from ragtriage.errors import InputError
from ragtriage.importers import (
    evalset_to_qrels,
    export_trec,
    import_trec,
    question_qrels,
    result_ranking,
    run_to_trec,
)
from ragtriage.schemas import EvalSet, EvidenceGroup, Question, QuestionResult, RankedItem, Run

QRELS = "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d4 1\n"
RUN = "q1 Q0 d2 1 3.5 sys\nq1 Q0 d9 2 1.25 sys\nq2 Q0 d4 1 0.5 sys\n"


def _files(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "q.qrels", tmp_path / "bm25.run"
    qrels.write_text(QRELS, encoding="utf-8")
    run.write_text(RUN, encoding="utf-8")
    return qrels, run


def test_import_then_export_gives_the_same_files(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    data = import_trec(qrels, [run])
    assert [d.id for d in data.snapshot.documents] == ["d1", "d2", "d3", "d4", "d9"]
    q1 = data.evalset.questions[0]
    assert [(g.any_of, g.grade) for g in q1.required_evidence] == [(["d1"], 1), (["d2"], 2)]
    assert [r.name for r in data.runs] == ["bm25"]
    assert [(c.id, c.score) for c in data.runs[0].results[0].candidates] == [
        ("d2", 3.5),
        ("d9", 1.25),
    ]
    export_trec(
        [question_qrels(q) for q in data.evalset.questions],
        [result_ranking(r) for r in data.runs[0].results],
        qrels_path=tmp_path / "out.qrels",
        run_path=tmp_path / "out.run",
        tag="sys",
    )
    # d3 (grade 0) is not relevant, so it is not required evidence and not written back
    assert (tmp_path / "out.qrels").read_text(
        encoding="utf-8"
    ) == "q1 0 d1 1\nq1 0 d2 2\nq2 0 d4 1\n"
    assert (tmp_path / "out.run").read_text(encoding="utf-8") == RUN


def test_groups_of_alternatives_become_several_relevant_documents() -> None:
    evalset = EvalSet(
        evalset_id="e",
        questions=[
            Question(
                id="q",
                text="t",
                answerability="answerable",
                required_evidence=[
                    EvidenceGroup(any_of=["a", "b"], grade=2),
                    EvidenceGroup(any_of=["b"]),
                ],
            ),
            Question(id="u", text="t", answerability="unanswerable"),
        ],
    )
    assert evalset_to_qrels(evalset) == {"q": {"a": 2, "b": 2}}


def test_unscored_rankings_get_order_keeping_scores() -> None:
    run = Run(
        name="r",
        results=[
            QuestionResult(
                question_id="q",
                candidates=[RankedItem(id="x", score=0.1), RankedItem(id="y")],
                reranked=[RankedItem(id="y"), RankedItem(id="x")],
            ),
        ],
    )
    assert run_to_trec(run) == {"q": [("y", 2.0), ("x", 1.0)]}


@pytest.mark.parametrize(("scores", "written"), [
    ([("a", 1.0), ("x", 1.0)], [("a", 2.0), ("x", 1.0)]),  # trec_eval would put x first
    ([("x", 0.5), ("a", 0.5), ("b", 0.9)], [("x", 3.0), ("a", 2.0), ("b", 1.0)]),
    ([("x", 1.0), ("a", 1.0), ("b", -2.0)], [("x", 1.0), ("a", 1.0), ("b", -2.0)]),
])
def test_scores_that_would_rank_otherwise_give_way_to_order_keeping_ones(
    scores: list[tuple[str, float]], written: list[tuple[str, float]]
) -> None:
    # Before, the recorded scores were written: trec_eval ranked x above a, so trec-eval on
    # the exported files gave mrr 0.5 where evaluate, reading the list's order, gave 1.0.
    run = Run(name="r", results=[QuestionResult(
        question_id="q", candidates=[RankedItem(id=d, score=v) for d, v in scores]
    )])
    assert run_to_trec(run) == {"q": written}


def test_bad_trec_lines_are_reported_with_line_numbers(tmp_path: Path) -> None:
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("q1 0 d1\nq1 0 d2 x\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_trec(qrels)
    assert str(info.value).splitlines() == [
        "2 problems found in the input:",
        f"- {qrels}: question 'q1': line 1: expected 4 whitespace-separated fields "
        "(question ID, iteration, document ID, grade); found 3 fields",
        f"- {qrels}: question 'q1': line 2: grade: expected an integer; found 'x'",
    ]


def test_a_qrels_not_read_through_does_not_also_refuse_the_run_questions(
    tmp_path: Path,
) -> None:
    # The decoder stops at line 2: q2 is unknown to the qrels, not unjudged.
    qrels, run = _files(tmp_path)
    qrels.write_bytes(b"q1 0 d1 1\nq2 0 \xe9 1\n")
    with pytest.raises(InputError) as info:
        import_trec(qrels, [run])
    assert [p.message() for p in info.value.problems] == [
        f"{qrels}: line 2 column 6: expected UTF-8 text; found the byte 0xE9, which is not UTF-8"
        " (is the file GBK, Latin-1 or UTF-16?); convert it to UTF-8, e.g. `iconv -f GBK -t"
        " UTF-8 q.qrels > q.utf8.qrels`"
    ]


def test_cli_import_trec_writes_native_files(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    result = CliRunner().invoke(
        cli,
        ["import", "trec", "--qrels", str(qrels), "--trec-run", str(run),
         "-o", str(tmp_path / "n")],
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "n").iterdir()) == [
        "bm25.jsonl",
        "evalset.json",
        "snapshot.json",
    ]
    back = CliRunner().invoke(
        cli,
        [
            "export",
            "trec",
            str(tmp_path / "n" / "evalset.json"),
            "--qrels-out",
            str(tmp_path / "b.qrels"),
        ],
    )
    assert back.exit_code == 0, back.output
    assert (tmp_path / "b.qrels").read_text(encoding="utf-8") == "q1 0 d1 1\nq1 0 d2 2\nq2 0 d4 1\n"


def test_two_trec_runs_of_one_name_are_refused_naming_the_option(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    (tmp_path / "other").mkdir()
    twin = tmp_path / "other" / run.name
    twin.write_text(RUN, encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        ["import", "trec", "--qrels", str(qrels), "--trec-run", str(run), "--trec-run",
         str(twin), "-o", str(tmp_path / "n")],
    )
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --trec-run: expected run files with distinct names; "
        "found 'bm25' more than once\n"
    )
    assert not (tmp_path / "n").exists()


def test_cli_import_error_exits_2_without_traceback(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["import", "seed", str(tmp_path / "missing.json"), "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert result.output == (
        "Error: 1 problem found in the input:\n"
        f"- {tmp_path / 'missing.json'}: (file): expected an existing file; found no such file\n"
    )


def test_qrels_and_run_ids_must_exist_in_a_given_snapshot(tmp_path: Path) -> None:
    from ragtriage.schemas import Document, Snapshot

    qrels, run = _files(tmp_path)
    snapshot = Snapshot(
        snapshot_id="mine", documents=[Document(id=d, text=d) for d in ("d1", "d2", "d4")]
    )
    with pytest.raises(InputError) as info:
        import_trec(qrels, [run], snapshot=snapshot)
    assert str(info.value).splitlines()[1:] == [
        f"- {qrels}: question 'q1': document ID: expected an ID of the given snapshot; found 'd3'",
        f"- {run}: question 'q1': document ID: expected an ID of the given snapshot; found 'd9'",
    ]
    extra = [Document(id="d3", text="x"), Document(id="d9", text="y")]
    fine = Snapshot(snapshot_id="mine", documents=[*snapshot.documents, *extra])
    data = import_trec(qrels, [run], snapshot=fine)
    assert data.snapshot is fine and data.evalset.snapshot_id == "mine"
    assert data.runs[0].provenance.snapshot_id == "mine"


def test_a_qrels_or_run_without_a_line_to_import_is_refused(tmp_path: Path) -> None:
    # an empty evaluation set or run is never what was meant: name each such file
    qrels, run = _files(tmp_path)
    empty_qrels, comments_run = tmp_path / "empty.qrels", tmp_path / "c.run"
    empty_qrels.write_text("", encoding="utf-8")
    comments_run.write_text("# header\n\n   \n# end\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_trec(empty_qrels, [run, comments_run])
    assert [p.message() for p in caught.value.problems] == [
        f"{empty_qrels}: (file): expected at least one judgement line (question ID, iteration,"
        " document ID, grade); found an empty file",
        f"{comments_run}: (file): expected at least one run line (question ID, Q0, document ID,"
        " rank, score, run tag); found only 2 comment lines",
    ]
    assert [q.id for q in import_trec(qrels, [run]).evalset.questions] == ["q1", "q2"]


def test_run_questions_the_qrels_do_not_judge_are_refused(tmp_path: Path) -> None:
    # the evaluation set holds the qrels' questions, so `evaluate` would refuse such a run;
    # q3's qrels line is malformed (reported as such), so its ranking is not called extra
    qrels, run = tmp_path / "q.qrels", tmp_path / "bm25.run"
    qrels.write_text(QRELS + "q3 0 d5 high\n", encoding="utf-8")
    run.write_text(RUN + "q3 Q0 d5 1 1 sys\nqX Q0 d1 1 2 sys\nqA Q0 d1 1 2 sys\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_trec(qrels, [run])
    expected = (
        "expected a question the qrels judge (the evaluation set holds only those; "
        "--allow-extra leaves the others out)"
    )
    assert [p.message() for p in caught.value.problems] == [
        f"{qrels}: question 'q3': line 5: grade: expected an integer; found 'high'",
        f"{run}: question 'qA': question ID: {expected}; found not in the qrels",
        f"{run}: question 'qX': question ID: {expected}; found not in the qrels",
    ]


def _export_example(tmp_path: Path) -> tuple[Path, Path, Result]:
    """`export trec` of the bundled example's set and baseline run: the qrels, the run file
    (`baseline.run`) and how the command ended."""
    from ragtriage.example import example_paths

    evalset, run = example_paths().evalset, example_paths().runs[0]
    qrels, trec_run = tmp_path / "q.qrels", tmp_path / "baseline.run"
    result = CliRunner().invoke(cli, [
        "export", "trec", str(evalset), "--qrels-out", str(qrels),
        "--run", str(run), "--run-out", str(trec_run),
    ])
    return qrels, trec_run, result


def test_with_allow_extra_the_run_questions_the_qrels_do_not_judge_are_left_out_and_named(
    tmp_path: Path,
) -> None:
    # Before: refused whatever was asked, so the pair `export trec` writes for a set with
    # questions without required evidence could not be imported back.
    qrels, trec_run, exported = _export_example(tmp_path)
    assert exported.exit_code == 0, exported.output
    out = tmp_path / "native"
    args = ["import", "trec", "--qrels", str(qrels), "--trec-run", str(trec_run), "-o", str(out)]
    refused = CliRunner().invoke(cli, args)
    assert refused.exit_code == 2 and refused.stderr.count("found not in the qrels") == 3
    result = CliRunner().invoke(cli, [*args, "--allow-extra"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"wrote 16 documents, 12 questions and 1 run (baseline.jsonl) to {out}\n"
        "note: run baseline: 3 questions the qrels do not judge left out (log-extension, "
        "raise-limit, refund)\n"
    )
    imported = import_trec(qrels, [trec_run], allow_extra=True)
    assert imported.extra == (("baseline", ("log-extension", "raise-limit", "refund")),)
    assert sorted(r.question_id for r in imported.runs[0].results) == sorted(
        q.id for q in imported.evalset.questions
    )
    scored = CliRunner().invoke(cli, [
        "evaluate", str(out / "evalset.json"), "--snapshot", str(out / "snapshot.json"),
        "--run", str(out / "baseline.jsonl"), "-k", "5", "--metric", "recall_candidates@5",
        "--format", "json",
    ])
    assert scored.exit_code == 0, scored.output


def test_an_empty_dataset_id_is_an_option_problem_not_a_traceback(tmp_path: Path) -> None:
    # import trec raised pydantic's ValidationError; import ragas used its default ID instead
    qrels, run = _files(tmp_path)
    records = tmp_path / "r.json"
    records.write_text(
        '[{"user_input": "Q?", "retrieved_contexts": ["a"], "reference_contexts": ["a"]}]',
        encoding="utf-8",
    )
    problem = "- <command line>: --dataset-id: expected a non-empty ID; found ''"
    for args in (
        ["import", "trec", "--qrels", str(qrels), "--trec-run", str(run)],
        ["import", "ragas", str(records)],
    ):
        result = CliRunner().invoke(cli, [*args, "--dataset-id", "", "-o", str(tmp_path / "o")])
        assert (result.exit_code, result.output.splitlines()) == (
            2,
            ["Error: 1 problem found in the input:", problem],
        )
    assert not (tmp_path / "o").exists()


def test_ids_holding_control_characters_are_refused_not_a_traceback(tmp_path: Path) -> None:
    # native files refuse them (schemas.Identifier): building the snapshot raised pydantic's
    # ValidationError, a traceback
    qrels, run = tmp_path / "a.qrels", tmp_path / "b.run"
    qrels.write_text("q\x1b1 0 d1 1\nq2 0 d\x072 1\n", encoding="utf-8")
    run.write_text("q2 Q0 d\x7f3 1 2.0 t\nq2 Q0 d\x7f3x 2 1.0 t\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_trec(qrels, [run])
    expected = "expected an identifier without control characters, not only whitespace"
    assert str(info.value).splitlines() == [
        "4 problems found in the input:",
        f"- {qrels}: question 'q\\x1b1': question ID: {expected}; found 'q\\x1b1'",
        f"- {qrels}: question 'q2': document ID: {expected}; found 'd\\x072'",
        f"- {run}: question 'q2': document ID: {expected}; found 'd\\x7f3'",
        f"- {run}: question 'q2': document ID: {expected}; found 'd\\x7f3x'",
    ]


def test_export_names_the_questions_its_qrels_leave_out(tmp_path: Path) -> None:
    """Questions without required evidence have no line in TREC qrels: the export says which,
    and how `trec-eval` then scores a run that ranks them; the exported pair scores so."""
    qrels, trec_run, result = _export_example(tmp_path)
    assert (result.exit_code, result.stdout) == (0, "")
    # The holdout question sso (no required evidence either) is left out as the holdout.
    assert result.stderr == (
        "note: 2 holdout questions left out; --include-holdout writes them (and records the "
        f"look)\nnote: {qrels} leaves out 3 questions without required evidence (log-extension, "
        "refund, raise-limit); `ragtriage trec-eval` scores a run that ranks them with "
        "--allow-extra\n"
    )
    scored = CliRunner().invoke(cli, ["trec-eval", str(qrels), str(trec_run), "--allow-extra"])
    assert scored.exit_code == 0, scored.output
    # Where every question has required evidence, nothing is said.
    qrels_file, _ = _files(tmp_path)
    imported = import_trec(qrels_file, [])
    questions = [question_qrels(q) for q in imported.evalset.questions]
    assert export_trec(questions, None, qrels_path=tmp_path / "b.qrels", run_path=None) == ()


def test_export_refuses_a_result_of_a_question_the_evaluation_set_lacks(tmp_path: Path) -> None:
    """Written, it would be a TREC run line of no question of the qrels: refused as `evaluate`
    refuses it (a holdout question's result is left out with its question, not refused)."""
    import json

    from ragtriage.example import example_paths

    evalset, run = example_paths().evalset, example_paths().runs[0]
    data = json.loads(run.read_text(encoding="utf-8"))
    extra = {**data["results"][0], "question_id": "refnud"}
    data["results"] += [extra, {**extra, "question_id": "nope"}]
    changed = tmp_path / "run.json"
    changed.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(cli, [
        "export", "trec", str(evalset), "--qrels-out", str(tmp_path / "q.qrels"),
        "--run", str(changed), "--run-out", str(tmp_path / "r.run"),
    ])
    expected = (
        "results.question_id: expected a question of the evaluation set; found no such question"
    )
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        "Error: 2 problems found in the input:",
        f"- {changed}: question 'nope': {expected}",
        f"- {changed}: question 'refnud': {expected} (did you mean 'refund'?)",
    ])
    assert list(tmp_path.iterdir()) == [changed]  # nothing written


def test_export_trec_files_refuses_a_run_tag_that_is_no_str(tmp_path: Path) -> None:
    # Before: an AttributeError ('int' object has no attribute 'split') from the field check.
    import ragtriage.api
    from ragtriage.example import example_paths

    evalset, run = example_paths().evalset, example_paths().runs[0]
    with pytest.raises(InputError) as refused:
        ragtriage.api.export_trec_files(
            evalset, runs=run, run_out=tmp_path / "r.run", run_tag=5  # type: ignore[arg-type]
        )
    assert str(refused.value).splitlines() == [
        "1 problem found in the input:",
        "- <command line>: --run-tag: expected a TREC field: non-empty, without whitespace or "
        "NUL; found 5",
    ]
    assert list(tmp_path.iterdir()) == []
