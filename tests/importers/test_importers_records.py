"""Ragas-style records, the seed sample record and DeepEval test cases -> native files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli.main import cli
from ragtriage.errors import InputError, ProblemCollector
from ragtriage.importers import import_records, text_id, write_native
from ragtriage.loading import load_dataset, read_file
from ragtriage.schemas import ContextItem, EvalSet, RankedItem, Run, Snapshot

SEED_RECORD = {
    "question": "退款申请需要什么？",
    "retrieved_contexts": ["无关内容", "退款申请需要订单号。"],
    "retrieved_context_ids": ["doc-3", "doc-7"],
    "response": "需要订单号，并且必须在 30 天内提交。",
    "reference": "需要订单号。",
    "reference_context_ids": ["doc-7"],
}


def _file(tmp_path: Path, name: str, records: object) -> Path:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        assert isinstance(records, list)
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    else:
        path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


def test_seed_record_golden(tmp_path: Path) -> None:
    data = import_records(_file(tmp_path, "seed.json", [SEED_RECORD]), "seed")
    assert [(d.id, d.text) for d in data.snapshot.documents] == [
        ("doc-3", "无关内容"),
        ("doc-7", "退款申请需要订单号。"),
    ]
    question = data.evalset.questions[0]
    assert (question.id, question.text, question.answerability) == (
        "q0001",
        "退款申请需要什么？",
        "answerable",
    )
    assert [g.any_of for g in question.required_evidence] == [["doc-7"]]
    assert [(f.id, f.text) for f in question.reference_facts] == [("reference", "需要订单号。")]
    result = data.run.results[0]
    assert [c.id for c in result.candidates] == ["doc-3", "doc-7"]
    assert [(c.id, c.text) for c in result.context or []] == [
        ("doc-3", "无关内容"),
        ("doc-7", "退款申请需要订单号。"),
    ]
    assert (result.answer, result.outcome, result.claims) == (
        SEED_RECORD["response"],
        "answered",
        None,
    )
    assert data.evalset.metadata == {"imported_from": "seed", "source_file": "seed.json"}


def test_written_files_read_back_equal_and_evaluate(tmp_path: Path) -> None:
    data = import_records(_file(tmp_path, "seed.jsonl", [SEED_RECORD]), "seed", name="seeded")
    paths = {
        "snapshot": tmp_path / "o" / "snapshot.json",
        "evalset": tmp_path / "o" / "evalset.jsonl",
        "run": tmp_path / "o" / "run.jsonl",
    }
    write_native(data.snapshot, paths["snapshot"])
    write_native(data.evalset, paths["evalset"])
    write_native(data.run, paths["run"])
    collector = ProblemCollector()
    loaded = {kind: read_file(path, collector).content for kind, path in paths.items()}
    assert collector.problems == ()
    assert isinstance(loaded["snapshot"], Snapshot) and loaded["snapshot"] == data.snapshot
    assert isinstance(loaded["evalset"], EvalSet) and loaded["evalset"] == data.evalset
    assert isinstance(loaded["run"], Run) and loaded["run"].model_dump() == data.run.model_dump()
    dataset = load_dataset(paths["evalset"], snapshot=paths["snapshot"], runs=[paths["run"]])
    assert [run.name for run in dataset.runs] == ["seeded"]


def test_ragas_records_accept_user_input_and_derive_ids_from_text(tmp_path: Path) -> None:
    record = {
        "user_input": "How are refunds paid?",
        "retrieved_contexts": ["Refunds are paid in five days.", "Cards are blue."],
        "response": "In five days.",
        "reference": "Within five days.",
        "reference_contexts": ["Refunds are paid in five days."],
    }
    data = import_records(_file(tmp_path, "ragas.json", {"samples": [record]}), "ragas")
    refund = text_id("Refunds are paid in five days.")
    assert refund == "ctx-888eba1a6b83"  # ctx- and the first 12 hex digits of its SHA-256
    assert [c.id for c in data.run.results[0].candidates] == [refund, text_id("Cards are blue.")]
    assert data.evalset.questions[0].required_evidence[0].any_of == [refund]


def test_ragas_reference_ids_missing_from_the_contexts_become_placeholders(tmp_path: Path) -> None:
    record = {**SEED_RECORD, "reference_context_ids": ["doc-9"]}
    record["user_input"] = record.pop("question")
    data = import_records(_file(tmp_path, "r.jsonl", [record]), "ragas")
    placeholder = data.snapshot.documents[-1]
    assert (placeholder.id, placeholder.text, placeholder.metadata["placeholder"]) == (
        "doc-9",
        "",
        True,
    )


def test_ragas_reference_texts_given_with_their_ids_are_kept_and_checked(tmp_path: Path) -> None:
    # Both lists given: each ID takes its text (no empty placeholder for a text the file
    # shows), a text that differs from the ID's retrieved one is refused, and so is a count
    # of IDs that differs from the count of texts, as for the retrieved contexts.
    record = {**SEED_RECORD, "reference_context_ids": ["doc-9"], "reference_contexts": ["九"]}
    record["user_input"] = record.pop("question")
    data = import_records(_file(tmp_path, "r.jsonl", [record]), "ragas")
    assert [(d.id, d.text, d.metadata) for d in data.snapshot.documents][-1] == ("doc-9", "九", {})
    clash = {**record, "id": "r2", "reference_context_ids": ["doc-7"], "reference_contexts": ["x"]}
    counts = {**record, "id": "r3", "reference_context_ids": ["doc-7", "doc-9"]}
    path = _file(tmp_path, "c.json", [clash, counts])
    with pytest.raises(InputError) as info:
        import_records(path, "ragas")
    assert str(info.value).splitlines()[1:] == [
        f"- {path}: question 'r2': [0].reference_contexts[0]: expected the same text for context 'doc-7' in every record; found a different text",  # noqa: E501
        f"- {path}: question 'r3': [1].reference_context_ids: expected one ID per reference context (1); found 2 IDs",  # noqa: E501
    ]


def test_a_reference_text_takes_the_id_the_record_gives_that_retrieved_text(
    tmp_path: Path,
) -> None:
    # Retrieved contexts with IDs, reference contexts by text only (as Ragas' test set
    # generator writes them): a reference text the record retrieved is that context, not a
    # second document under the text's hash; a text retrieved under two IDs is found by
    # either; a text not retrieved keeps its hash ID.
    record = {
        "user_input": "How are refunds paid?",
        "retrieved_contexts": [
            "Refunds are paid in five days.",
            "Cards are blue.",
            "Cards are blue.",
        ],
        "retrieved_context_ids": ["doc-3", "doc-7", "doc-8"],
        "response": "In five days.",
        "reference": "Within five days.",
        "reference_contexts": [
            "Refunds are paid in five days.",
            "Cards are blue.",
            "Refunds need an order.",
        ],
    }
    path = _file(tmp_path, "ragas.jsonl", [record])
    data = import_records(path, "ragas")
    other = text_id("Refunds need an order.")
    assert [g.any_of for g in data.evalset.questions[0].required_evidence] == [
        ["doc-3"],
        ["doc-7", "doc-8"],
        [other],
    ]
    assert [d.id for d in data.snapshot.documents] == [other, "doc-3", "doc-7", "doc-8"]
    out = tmp_path / "o"
    for name, content in (
        ("snapshot", data.snapshot),
        ("evalset", data.evalset),
        ("run", data.run),
    ):
        write_native(content, out / f"{name}.json")
    args = [str(out / "evalset.json"), "--snapshot", str(out / "snapshot.json"), "--run"]
    args += [str(out / "run.json"), "--allow-unreviewed", "--format", "json"]
    result = CliRunner().invoke(cli, ["evaluate", *args, "--output", str(out / "report.json")])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "report.json").read_text(encoding="utf-8"))["runs"][0]["summary"]
    recall = summary["evidence_recall"]
    assert (recall["numerator"], recall["denominator"]) == (0.6666666666666666, 1)  # 2 of 3 groups


def test_a_retrieved_text_takes_the_id_the_record_gives_that_reference_text(
    tmp_path: Path,
) -> None:
    # The reverse: retrieved contexts by text only, reference contexts by ID and text. A text
    # two reference IDs share cannot say which one was retrieved, and is refused.
    record = {
        "id": "r1",
        "user_input": "How are refunds paid?",
        "retrieved_contexts": ["Cards are blue.", "Refunds are paid in five days."],
        "reference_context_ids": ["doc-3"],
        "reference_contexts": ["Refunds are paid in five days."],
    }
    data = import_records(_file(tmp_path, "ragas.jsonl", [record]), "ragas")
    assert [c.id for c in data.run.results[0].candidates] == [text_id("Cards are blue."), "doc-3"]
    assert [d.id for d in data.snapshot.documents] == [text_id("Cards are blue."), "doc-3"]
    shared = {**record, "reference_context_ids": ["doc-3", "doc-4"]}
    shared["reference_contexts"] = ["Refunds are paid in five days."] * 2
    path = _file(tmp_path, "shared.jsonl", [shared])
    with pytest.raises(InputError) as info:
        import_records(path, "ragas")
    assert str(info.value).splitlines()[1:] == [
        f"- {path}: question 'r1': line 1.retrieved_contexts[1]: expected retrieved context IDs: this text is more than one reference context's; found the text of 'doc-3', 'doc-4'",  # noqa: E501
    ]


def test_deepeval_test_cases_golden(tmp_path: Path) -> None:
    case = {
        "input": "How are refunds paid?",
        "actual_output": "In five days.",
        "expected_output": "Within five days.",
        "retrieval_context": ["Refunds are paid in five days."],
        "context": ["Refunds are paid in five days.", "Refunds need an order number."],
        "name": "refunds-1",
    }
    data = import_records(_file(tmp_path, "cases.json", [case]), "deepeval", name="deepeval-run")
    question = data.evalset.questions[0]
    assert [g.any_of for g in question.required_evidence] == [
        [text_id("Refunds are paid in five days.")],
        [text_id("Refunds need an order number.")],
    ]
    assert len(data.snapshot.documents) == 2  # both reference contexts are known by text
    assert data.run.results[0].answer == "In five days."
    assert data.run.name == "deepeval-run"


def test_seed_bad_records_name_file_record_field_expected_found(tmp_path: Path) -> None:
    bad = [
        {**SEED_RECORD, "retrieved_context_ids": ["doc-3"]},
        {**SEED_RECORD, "id": "r2", "question": " ", "response": ""},
        {**SEED_RECORD, "id": "r3", "retrieved_contexts": "text", "extra": 1, "reference": None},
        {key: value for key, value in SEED_RECORD.items() if key != "reference"} | {"id": "r4"},
        "not a record",
    ]
    path = _file(tmp_path, "bad.json", bad)
    with pytest.raises(InputError) as info:
        import_records(path, "seed")
    assert str(info.value).splitlines() == [
        "7 problems found in the input:",
        f"- {path}: question 'q0001': [0].retrieved_context_ids: expected one ID per retrieved context (2); found 1 IDs",  # noqa: E501
        f"- {path}: question 'r2': [1].question: expected a non-empty question; found ' '",
        f"- {path}: question 'r2': [1].response: expected a non-empty response; found an empty response",  # noqa: E501
        f"- {path}: question 'r3': [2].extra: expected no such field (a seed record has id, question, reference, reference_context_ids, response, retrieved_context_ids, retrieved_contexts); found an unknown field",  # noqa: E501
        f"- {path}: question 'r3': [2].retrieved_contexts: expected a list of strings; found 'text'",  # noqa: E501
        f"- {path}: question 'r4': [3].reference: expected a string or null (required field); found nothing",  # noqa: E501
        f"- {path}: [4]: expected a JSON object (one record); found 'not a record'",
    ]


@pytest.mark.parametrize("name", ["", "../escape", "a b"])
def test_a_run_name_that_is_no_file_name_is_refused_before_any_write(
    tmp_path: Path, name: str
) -> None:
    # the run is written to OUT/NAME.jsonl: '../escape' would land outside OUT, '' crashed
    source = _file(tmp_path, "seed.json", [SEED_RECORD])
    out = tmp_path / "out"
    args = ["import", "seed", str(source), "-o", str(out), "--name", name]
    result = CliRunner().invoke(cli, args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: 1 problem found in the input:\n"
        "- <command line>: --name: expected a name usable as a file name (letters, digits, "
        f"'-', '_', '.'; not starting with '.'; at most 100 characters); found {name!r}\n"
    )
    assert not out.exists() and not (tmp_path / "escape.jsonl").exists()


def test_an_empty_context_id_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    bad = [
        {**SEED_RECORD, "id": "r1", "reference_context_ids": [""]},
        {**SEED_RECORD, "id": "r2", "retrieved_context_ids": ["doc-3", ""]},
    ]
    path = _file(tmp_path, "bad.json", bad)
    with pytest.raises(InputError) as info:
        import_records(path, "seed")
    assert str(info.value).splitlines() == [
        "2 problems found in the input:",
        f"- {path}: question 'r1': [0].reference_context_ids: expected a list of non-empty IDs; "
        "found an empty ID",
        f"- {path}: question 'r2': [1].retrieved_context_ids: expected a list of non-empty IDs; "
        "found an empty ID",
    ]


def test_an_id_holding_a_control_character_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    bad = [
        {**SEED_RECORD, "id": "sync\ndevices"},
        {**SEED_RECORD, "id": "r2", "retrieved_context_ids": ["doc-3", "doc\t4"]},
    ]
    path = _file(tmp_path, "bad.json", bad)
    with pytest.raises(InputError) as info:
        import_records(path, "seed")
    assert str(info.value).splitlines() == [
        "2 problems found in the input:",
        f"- {path}: question 'q0001': [0].id: expected an identifier without control "
        "characters, not only whitespace; found 'sync\\ndevices'",
        f"- {path}: question 'r2': [1].retrieved_context_ids: expected a list of IDs: each an "
        "identifier without control characters, not only whitespace; found 'doc\\t4'",
    ]


def test_conflicting_text_for_one_context_id_is_a_problem(tmp_path: Path) -> None:
    other = {**SEED_RECORD, "id": "r2", "retrieved_contexts": ["changed", "退款申请需要订单号。"]}
    path = _file(tmp_path, "c.json", [SEED_RECORD, other])
    with pytest.raises(InputError) as info:
        import_records(path, "seed")
    assert str(info.value).splitlines()[1:] == [
        f"- {path}: question 'r2': [1].retrieved_contexts[0]: expected the same text for context 'doc-3' in every record; found a different text"  # noqa: E501
    ]


def test_deepeval_without_reference_contexts_is_refused(tmp_path: Path) -> None:
    path = _file(
        tmp_path, "d.json", [{"input": "q", "actual_output": "a", "retrieval_context": []}]
    )
    with pytest.raises(InputError) as info:
        import_records(path, "deepeval")
    assert str(info.value).splitlines()[1:] == [
        f"- {path}: question 'q0001': [0]: expected the reference contexts (context) to score retrieval against; found nothing"  # noqa: E501
    ]


def test_broken_jsonl_line_is_located(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(SEED_RECORD) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_records(path, "seed")
    assert str(info.value).splitlines()[1:] == [
        f"- {path}: line 2 column 2: expected valid JSON; found a key not in double quotes, or a comma before a closing brace"  # noqa: E501
    ]


@pytest.mark.parametrize("dialect", ["ragas", "deepeval"])
def test_every_jsonl_line_that_does_not_parse_is_reported_with_the_records_problems(
    tmp_path: Path, dialect: str
) -> None:
    # The first line that did not parse once hid every other line and every record's problem.
    path = tmp_path / "x.jsonl"
    question = "user_input" if dialect == "ragas" else "input"
    contexts = "retrieved_contexts" if dialect == "ragas" else "retrieval_context"
    lines = [json.dumps({question: "Q", contexts: ["a"]}), "not json", f'{{"{question}": 5}}']
    lines.append(f'{{"{question}": "Q", "x": NaN}}')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_records(path, dialect)
    messages = [p.message() for p in info.value.problems]
    assert messages[:2] == [
        f"{path}: line 2 column 1: expected valid JSON; found something that is not a JSON value",
        f"{path}: line 4 column {len(question) + 16}: expected a finite number; found NaN",
    ]
    # the records that parse are checked on: line 3's question is named
    assert (len(messages), messages[3]) == (
        6,
        f"{path}: question 'q0002': line 3.{question}: expected a non-empty question; found 5",
    )


def test_ragas_bad_records_are_all_reported(tmp_path: Path) -> None:
    records = [
        {"user_input": "a", "question": "b", "retrieved_contexts": [], "reference_context_ids": []},
        {
            "retrieved_contexts": ["x"],
            "retrieved_context_ids": ["d1"],
            "response": 3,
            "reference_context_ids": ["d1"],
            "rubric": {},
        },
    ]
    path = _file(tmp_path, "ragas.jsonl", records)
    with pytest.raises(InputError) as info:
        import_records(path, "ragas")
    assert str(info.value).splitlines() == [
        "4 problems found in the input:",
        f"- {path}: question 'q0001': line 1.question: expected the same text as user_input; found a different question",  # noqa: E501
        f"- {path}: question 'q0002': line 2.rubric: expected no such field (a ragas record has id, multi_responses, persona_name, query_length, query_style, question, reference, reference_context_ids, reference_contexts, response, retrieved_context_ids, retrieved_contexts, rubrics, synthesizer_name, user_input); found an unknown field",  # noqa: E501
        f"- {path}: question 'q0002': line 2.user_input: expected a non-empty question; found nothing",  # noqa: E501
        f"- {path}: question 'q0002': line 2.response: expected a string or null; found 3",
    ]


def test_null_fields_are_absent_and_pipe_lists_split(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    record = {
        "input": "Q?",
        "actual_output": "A.",
        "expected_output": "Ref.",
        "retrieval_context": "one|two",
        "context": "one",
        "name": None,
        "input_token_count": 12,
        "expectations": None,
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    data = import_records(path, "deepeval")
    assert [c.text for c in data.run.results[0].context] == ["one", "two"]
    assert data.ignored_fields == ("input_token_count",)


@pytest.mark.parametrize("name", ["cases.json", "cases.jsonl"])
def test_deepeval_sourced_contexts_are_split_into_text_and_source(
    tmp_path: Path, name: str
) -> None:
    # DeepEval 4.3 writes a RetrievedContextData as this marker in every file and its own
    # readers rebuild (source, context): the text must match the reference context's.
    refund = "Refunds within 30 days."
    marked = [f"deepeval_source=faq.md,deepeval_context={refund}", "plain"]
    case = {"input": "Q?", "actual_output": "A.", "context": [refund]}
    cases = [
        {**case, "retrieval_context": marked if name.endswith(".json") else "|".join(marked)},
        {**case, "retrieval_context": [f"deepeval_source=faq2.md,deepeval_context={refund}"]},
    ]
    with pytest.raises(InputError) as caught:
        import_records(_file(tmp_path, name, cases), "deepeval")
    place = "[1]" if name.endswith(".json") else "line 2"
    assert [p.message() for p in caught.value.problems] == [
        f"{tmp_path / name}: question 'q0002': {place}.retrieval_context[0]: expected the same"
        f" source for context {text_id(refund)!r} in every record; found 'faq2.md'"
    ]
    data = import_records(_file(tmp_path, name, cases[:1]), "deepeval")
    assert [(c.id, c.text) for c in data.run.results[0].context] == [
        (text_id(refund), refund),
        (text_id("plain"), "plain"),
    ]
    assert data.evalset.questions[0].required_evidence[0].any_of == [text_id(refund)]
    assert {d.text: d.metadata for d in data.snapshot.documents} == {
        refund: {"source": "faq.md"},
        "plain": {},
    }


def test_a_parquet_file_of_records_is_refused_naming_the_formats_read(tmp_path: Path) -> None:
    # Ragas' `to_pandas().to_parquet()`: before, called text that is not UTF-8 (use iconv).
    path = tmp_path / "samples.parquet"
    path.write_bytes(b"PAR1\x15\x04\xdc\x00PAR1")
    result = CliRunner().invoke(cli, ["import", "ragas", str(path), "-o", str(tmp_path / "o")])
    assert (result.exit_code, result.output) == (
        2,
        f"Error: 1 problem found in the input:\n- {path}: (file): expected records in JSON, JSONL"
        " or CSV; found a .parquet file (pandas writes JSON with to_json(orient='records'))\n",
    )


def test_ragas_csv_list_cell_that_is_not_a_literal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "user_input,retrieved_contexts,reference_contexts,response\n"
        "Q?,__import__('os'),['a'],A.\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        import_records(path, "ragas")
    assert [p.message() for p in caught.value.problems] == [
        f"{path}: row 1.retrieved_contexts: expected a list of strings written as a Python list"
        " literal (Ragas' CSV); found \"__import__('os')\"",
    ]


def test_ragas_csv_list_cell_printed_by_numpy_is_refused_not_joined(tmp_path: Path) -> None:
    # pandas writes a NumPy array cell (a Hugging Face dataset's to_csv, a DataFrame read
    # from Parquet) as ['a' 'b']: Python joins the side-by-side strings into one, 'ab'.
    path = tmp_path / "r.csv"
    path.write_text(
        "user_input,retrieved_contexts,retrieved_context_ids,reference_context_ids\n"
        "Q?,\"['Alpha.'\n 'Beta.']\",['d1' 'd2'],['d1']\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        import_records(path, "ragas")
    side_by_side = (
        " (strings side by side without a comma, as NumPy prints an array: Python would"
        " join them into one)"
    )
    expected = "expected a list of strings written as a Python list literal (Ragas' CSV); found"
    assert [p.message() for p in caught.value.problems] == [
        f"{path}: row 1.retrieved_contexts: {expected} \"['Alpha.'\\n 'Beta.']\"{side_by_side}",
        f"{path}: row 1.retrieved_context_ids: {expected} \"['d1' 'd2']\"{side_by_side}",
    ]


def test_deepeval_csv_empty_list_cell_is_an_empty_list_as_deepeval_reads_it(
    tmp_path: Path,
) -> None:
    # DeepEval's save_as("csv") writes an empty list as an empty cell, and its own CSV reader
    # reads a column's empty cell as []; only a column the file lacks is absent.
    path = tmp_path / "cases.csv"
    path.write_text(
        "input,actual_output,expected_output,retrieval_context,context,name\n"
        "Colour?,I don't know.,,Founded 2004.,,\n"
        "Nothing retrieved,,,,Refunds: 30 days.,\n",
        encoding="utf-8",
    )
    data = import_records(path, "deepeval")
    first, second = data.evalset.questions
    assert (first.answerability, first.required_evidence) == ("unanswerable", [])
    assert [g.any_of for g in second.required_evidence] == [[text_id("Refunds: 30 days.")]]
    assert [(r.candidates, r.context, r.outcome) for r in data.run.results] == [
        ([RankedItem(id=text_id("Founded 2004."))],
         [ContextItem(id=text_id("Founded 2004."), text="Founded 2004.")], "answered"),
        ([], [], None),
    ]
    assert data.ignored_fields == ()
    no_column = tmp_path / "no_context.csv"
    no_column.write_text("input,actual_output,retrieval_context\nQ?,A.,\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_records(no_column, "deepeval")
    assert [p.message() for p in caught.value.problems] == [
        f"{no_column}: question 'q0001': row 1: expected the reference contexts (context) to"
        " score retrieval against; found nothing"
    ]


def test_records_without_system_output_import_as_an_evaluation_set_without_a_run(
    tmp_path: Path,
) -> None:
    # A Ragas testset (what its generator writes) and DeepEval goldens before any run: no
    # record retrieved anything or answered.
    refund = "Refunds are accepted within 30 days."
    testset = _file(tmp_path, "testset.jsonl", [
        {"user_input": "Refund window?", "reference_contexts": [refund], "reference": "30 days.",
         "persona_name": "Shopper", "query_style": "PERFECT_GRAMMAR", "query_length": "SHORT",
         "synthesizer_name": "single_hop_specific_query_synthesizer"},
    ])
    goldens = _file(tmp_path, "goldens.json", [
        {"input": "Refund window?", "actual_output": None, "expected_output": "30 days.",
         "retrieval_context": None, "context": [refund]},
        {"input": "CEO's colour?", "actual_output": None, "retrieval_context": [], "context": []},
    ])
    for path, fmt in ((testset, "ragas"), (goldens, "deepeval")):
        data = import_records(path, fmt)  # type: ignore[arg-type]
        assert data.run is None
        first = data.evalset.questions[0]
        assert (first.text, [g.any_of for g in first.required_evidence]) == (
            "Refund window?", [[text_id(refund)]]
        )
        assert [(d.id, d.text) for d in data.snapshot.documents] == [(text_id(refund), refund)]
    assert import_records(testset, "ragas").ignored_fields == (
        "persona_name", "query_length", "query_style", "synthesizer_name"
    )
    out = tmp_path / "o"
    result = CliRunner().invoke(cli, ["import", "deepeval", str(goldens), "-o", str(out)])
    assert (result.exit_code, result.output) == (
        0,
        f"wrote 1 document, 2 questions to {out}\nnote: no record retrieved a context or has"
        " a response (actual_output): no run written\n",
    )
    assert sorted(p.name for p in out.iterdir()) == ["evalset.json", "snapshot.json"]
    # One record with system output makes every record need it.
    mixed = _file(tmp_path, "mixed.json", [
        {"input": "Q?", "actual_output": "A.", "retrieval_context": [refund], "context": [refund]},
        {"input": "R?", "context": [refund]},
    ])
    with pytest.raises(InputError) as caught:
        import_records(mixed, "deepeval")
    assert [p.message() for p in caught.value.problems] == [
        f"{mixed}: question 'q0002': [1].retrieval_context: expected a list of strings;"
        " found nothing"
    ]


def test_csv_cells_longer_than_the_csv_module_default_are_read(tmp_path: Path) -> None:
    long_context = "x" * 200_000  # the csv module refuses cells over 131,072 by default
    path = tmp_path / "cases.csv"
    path.write_text(
        "input,actual_output,expected_output,retrieval_context,context\n"
        f"Q?,A.,Ref.,{long_context}|short,{long_context}\n",
        encoding="utf-8",
    )
    data = import_records(path, "deepeval")
    assert [len(c.text) for c in data.run.results[0].context] == [200_000, 5]
    assert data.evalset.questions[0].required_evidence[0].any_of == [text_id(long_context)]
    assert csv.field_size_limit() == 131_072  # restored after the read


def test_an_id_that_is_not_a_non_empty_string_is_refused_not_renumbered(tmp_path: Path) -> None:
    records = [
        {**SEED_RECORD, "id": 7},
        {**SEED_RECORD, "id": ""},
        {**SEED_RECORD, "id": None},  # absent in Ragas records: numbered
    ]
    path = _file(tmp_path, "ids.json", records)
    with pytest.raises(InputError) as caught:
        import_records(path, "ragas")
    expected = "expected a non-empty string (or no `id`: records are numbered q0001, q0002, ...)"
    assert [p.message() for p in caught.value.problems] == [
        f"{path}: question 'q0001': [0].id: {expected}; found 7",
        f"{path}: question 'q0002': [1].id: {expected}; found ''",
    ]


def test_a_context_twice_in_one_record_is_refused_not_merged(tmp_path: Path) -> None:
    records = [
        {
            "user_input": "Q?",
            "retrieved_contexts": ["a", "b", "a"],
            "response": "A.",
            "reference_contexts": ["b", "b"],
        },
        {
            "user_input": "Q?",
            "retrieved_contexts": ["a", "b"],
            "retrieved_context_ids": ["d1", "d1"],
            "reference_context_ids": ["d1"],
        },
    ]
    path = _file(tmp_path, "twice.json", records)
    with pytest.raises(InputError) as caught:
        import_records(path, "ragas")
    expected = "expected each context at most once per record"
    assert [p.message() for p in caught.value.problems] == [
        f"{path}: question 'q0001': [0].reference_contexts[1]: {expected}; "
        "found 'b' again (first at [0])",
        f"{path}: question 'q0001': [0].retrieved_contexts[2]: {expected}; "
        "found 'a' again (first at [0])",
        f"{path}: question 'q0002': [1].retrieved_context_ids[1]: {expected}; "
        "found 'd1' again (first at [0])",
    ]


def test_a_csv_header_naming_a_column_twice_is_refused(tmp_path: Path) -> None:
    # each record kept one of the two cells and dropped the other unseen
    path = tmp_path / "cases.csv"
    path.write_text(
        "input,actual_output,context,retrieval_context,context\n"
        "Q?,A.,one,one|two,two\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        import_records(path, "deepeval")
    assert [p.message() for p in caught.value.problems] == [
        f"{path}: header: expected each column name once; found 'context' in columns 3, 5",
    ]


def test_a_record_list_key_holding_no_list_is_named_with_what_it_holds(tmp_path: Path) -> None:
    # the message listed the object's keys (['test_cases']), as if the key were missing
    path = _file(tmp_path, "cases.json", {"test_cases": {"input": "Q?"}, "name": "set"})
    with pytest.raises(InputError) as caught:
        import_records(path, "deepeval")
    assert [p.message() for p in caught.value.problems] == [
        f'{path}: test_cases: expected a JSON array of records; found {{"input": "Q?"}}'
    ]


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("e.csv", "", "at least one record; found an empty file"),
        ("w.csv", " \n\n", "at least one record; found only blank lines"),
        ("e.jsonl", "", "at least one record; found an empty file"),
        ("w.jsonl", " \n\n", "at least one record; found only blank lines"),
        ("w.json", " \n\n", "a JSON document; found only whitespace"),
    ],
)
def test_an_empty_or_blank_records_file_is_named_as_such(
    tmp_path: Path, name: str, text: str, found: str
) -> None:
    # Before: an empty CSV and a blank CSV or JSONL were '(records): ...; found none'.
    (path := tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_records(path, "ragas")
    assert str(info.value).splitlines()[1:] == [f"- {path}: (file): expected {found}"]


MULTI_TURN = (
    "a single-turn sample; found a multi-turn sample (user_input is a list of messages): "
    "multi-turn samples are not supported"
)
CONVERSATIONAL = (
    "a single-turn golden or test case; found a conversational golden or test case (with "
    "scenario and turns): conversational goldens and test cases are not supported"
)


@pytest.mark.parametrize(
    ("name", "fmt", "text", "problem"),
    [
        # as ragas 0.4.3 writes a MultiTurnSample (to_jsonl, to_csv)
        (
            "multi.jsonl", "ragas",
            '{"user_input": [{"content": "Refund window?", "type": "human"}, {"content": '
            '"30 days.", "type": "ai"}], "reference": "30 days."}\n',
            f"line 1: expected {MULTI_TURN}",
        ),
        (
            "multi.csv", "ragas",
            "user_input,reference\n\"[{'content': 'Refund window?', 'type': 'human'}, "
            "{'content': '30 days.', 'type': 'ai'}]\",30 days.\n",
            f"row 1: expected {MULTI_TURN}",
        ),
        # as deepeval 4.3.1 saves a ConversationalGolden (save_as("jsonl"))
        (
            "talk.jsonl", "deepeval",
            '{"scenario": "Refunds.", "turns": [{"role": "user", "content": "Refund window?", '
            '"metadata": null}], "expected_outcome": null, "context": null}\n',
            f"line 1: expected {CONVERSATIONAL}",
        ),
    ],
)
def test_a_conversation_is_refused_once_as_such(
    tmp_path: Path, name: str, fmt: str, text: str, problem: str
) -> None:
    # Before: field by field (user_input no question, retrieved_contexts missing, ...); the
    # CSV's list of messages was taken for the question.
    (path := tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_records(path, fmt)
    assert str(info.value).splitlines()[1:] == [f"- {path}: question 'q0001': {problem}"]
