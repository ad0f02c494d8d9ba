"""Every public function takes `str | os.PathLike` where it takes a path, never `Path` only,
and refuses anything else naming the argument."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from pathlib import Path

import pytest

import ragtriage
import ragtriage.api
from ragtriage import RequestError
from ragtriage.example import example_paths


def _public_functions() -> dict[str, object]:
    found: dict[str, object] = {}
    for info in pkgutil.walk_packages(ragtriage.__path__, "ragtriage."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[0] == "cli":
            continue
        module = importlib.import_module(info.name)
        for attr in getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")]):
            obj = getattr(module, attr, None)
            home = getattr(obj, "__module__", "") or ""
            if inspect.isfunction(obj) and home.startswith("ragtriage."):
                found[f"{home}.{obj.__qualname__}"] = obj
    return found


def _path_only(annotation: str) -> bool:
    # `Callable[[Path], None]` is a callback that receives a path, not a path argument.
    return "Path" in annotation and "PathArg" not in annotation and "Callable" not in annotation


def test_no_public_function_takes_only_path() -> None:
    functions = _public_functions()
    assert len(functions) > 100
    offenders = sorted(
        f"{name}({param.name}: {param.annotation})"
        for name, func in functions.items()
        for param in inspect.signature(func).parameters.values()  # type: ignore[arg-type]
        if _path_only(str(param.annotation))
    )
    assert offenders == []


def _refusal(call: Callable[[], object]) -> str:
    with pytest.raises(RequestError) as raised:
        call()
    return str(raised.value)


PATHS = example_paths()
CALLS: dict[str, tuple[Callable[[], object], str]] = {
    "evaluate_files(3)": (
        lambda: ragtriage.evaluate_files(3, snapshot=PATHS.snapshot),  # type: ignore[arg-type]
        "dataset: expected a path (a str or os.PathLike); found int 3",
    ),
    "evaluate_files(bytes)": (
        lambda: ragtriage.evaluate_files(b"e.json", snapshot=PATHS.snapshot),  # type: ignore[arg-type]
        "dataset: expected a path (a str or os.PathLike); found bytes b'e.json'",
    ),
    "runs=None": (
        lambda: ragtriage.evaluate_files(PATHS.evalset, runs=None),  # type: ignore[arg-type]
        "runs: expected a path or an iterable of paths; found None",
    ),
    "runs=[None]": (
        lambda: ragtriage.evaluate_files(PATHS.evalset, runs=[None]),  # type: ignore[list-item]
        "runs: expected a path (a str or os.PathLike); found None",
    ),
    "labels=5": (
        lambda: ragtriage.diagnose_files(PATHS.evalset, labels=5),  # type: ignore[arg-type]
        "labels: expected a path or an iterable of paths; found int 5",
    ),
    "load_dataset(None)": (
        lambda: ragtriage.load_dataset(None),  # type: ignore[arg-type]
        "dataset: expected a path (a str or os.PathLike); found None",
    ),
    "gate_files(candidate=3)": (
        lambda: ragtriage.gate_files(
            example=True, policy=PATHS.policy, candidate=3  # type: ignore[arg-type]
        ),
        "--candidate: expected a run name or a run file (a str); found int 3",
    ),
    "compare_files(candidates=None)": (  # was a TypeError once every run was scored
        lambda: ragtriage.compare_files(example=True, candidates=None),  # type: ignore[arg-type]
        "candidates: expected a str or an iterable of str; found None",
    ),
    # The calls below said "expected a path ..." without naming the argument.
    **{
        call: (function, f"{name}: expected a path (a str or os.PathLike); found {found}")
        for call, function, name, found in [
            ("init_files(5)", lambda: ragtriage.api.init_files(5), "directory", "int 5"),
            ("trec_eval_files(None, run)", lambda: ragtriage.trec_eval_files(None, "r"), "qrels",
             "None"),
            ("trec_eval_files(qrels, 5)", lambda: ragtriage.trec_eval_files("q", 5), "run",
             "int 5"),
            ("import_tau2_files(output=None)",
             lambda: ragtriage.api.import_tau2_files("d", output=None), "output", "None"),
            ("import_trec_files(qrels=None)",
             lambda: ragtriage.api.import_trec_files(qrels=None, output="o"), "qrels", "None"),
            ("import_records_files(None)",
             lambda: ragtriage.api.import_records_files(None, "ragas", output="o"), "file",
             "None"),
            ("import_openinference_files(traces=None)",
             lambda: ragtriage.api.import_openinference_files("e", None, output="r.jsonl"),
             "traces", "None"),
            ("export_trec_files(qrels_out=5)",
             lambda: ragtriage.api.export_trec_files("e", qrels_out=5), "qrels_out", "int 5"),
            ("review_export_files(output=None)",
             lambda: ragtriage.api.review_export_files("e", output=None), "output", "None"),
            ("review_import_files(sheet=None)",
             lambda: ragtriage.api.review_import_files("e", None, output="o"), "sheet", "None"),
            ("judge_files(cache=5)",
             lambda: ragtriage.judge_files("e", output="o", cache=5), "cache", "int 5"),
            ("run_files(output=None)",
             lambda: ragtriage.run_files("e", snapshot="s", output=None), "output", "None"),
        ]
    },
    # notify=5 was a TypeError ('int' object is not callable) once the work was done.
    **{
        call: (function, "notify: expected a callable or None; found int 5")
        for call, function in [
            ("evaluate_files(notify=5)", lambda: ragtriage.evaluate_files(example=True, notify=5)),
            ("gate_files(notify=5)", lambda: ragtriage.gate_files(example=True, notify=5)),
            ("calibrate_labels(notify=5)",
             lambda: ragtriage.calibrate_labels(judge_labels=["j"], notify=5)),
            ("export_trec_files(notify=5)",
             lambda: ragtriage.api.export_trec_files("e", qrels_out="q", notify=5)),
        ]
    },
    "calibrate_labels(judge_labels=5)": (
        lambda: ragtriage.calibrate_labels(judge_labels=5),  # type: ignore[arg-type]
        "judge_labels: expected a path or an iterable of paths; found int 5",
    ),
    "import_trec_files(trec_runs=None)": (
        lambda: ragtriage.api.import_trec_files(
            qrels="q", trec_runs=None, output="o"  # type: ignore[arg-type]
        ),
        "trec_runs: expected a path or an iterable of paths; found None",
    ),
    "evaluate(None)": (
        lambda: ragtriage.evaluate(None),  # type: ignore[arg-type]
        "dataset: expected a Dataset (ragtriage.load_dataset reads one from files; "
        "ragtriage.evaluate_files scores files); found NoneType None",
    ),
    "evaluate(str)": (
        lambda: ragtriage.evaluate("evalset.json"),  # type: ignore[arg-type]
        "dataset: expected a Dataset (ragtriage.load_dataset reads one from files; "
        "ragtriage.evaluate_files scores files); found str 'evalset.json'",
    ),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_value_that_is_no_path_is_refused_naming_the_argument(call: str) -> None:
    # Was a TypeError or AttributeError from deep inside (os.fspath, a loop, an attribute).
    function, message = CALLS[call]
    assert _refusal(function) == message


@pytest.mark.parametrize(
    ("keyword", "value", "found"),
    [
        ("ids", [1], "int 1"),
        ("tags", None, "None"),
        ("stages", 5, "int 5"),
        ("splits", {"dev": 1}, "dict {'dev': 1}"),
        ("metrics", [b"recall"], "bytes b'recall'"),
    ],
)
def test_a_name_list_that_is_no_list_of_str_is_refused_naming_the_keyword(
    keyword: str, value: object, found: str
) -> None:
    # `ids=[1]` was a TypeError from inside the glob match.
    with pytest.raises(RequestError) as refused:
        ragtriage.evaluate_files(example=True, **{keyword: value})
    assert str(refused.value) == f"{keyword}: expected a str or an iterable of str; found {found}"


def test_one_name_as_a_str_is_one_name() -> None:
    one = ragtriage.evaluate_files(example=True, ids="exact-*", notify=lambda n: None)
    assert [[q.question_id for q in run.questions] for run in one.runs] == [["exact-code"]] * 2


_ID = "expected an identifier without control characters, not only whitespace; found 5"


def test_a_name_or_id_that_is_no_str_is_refused_naming_the_keyword(tmp_path: Path) -> None:
    # Before: a TypeError from inside ("sequence item 0: expected str instance, int found",
    # "object of type 'int' has no len()").
    from ragtriage.errors import InputError

    missing = tmp_path / "missing.json"
    calls: list[tuple[Callable[[], object], list[str]]] = [
        (
            lambda: ragtriage.run_files(
                missing, snapshot=missing, output=tmp_path / "r.jsonl", name=5  # type: ignore[arg-type]
            ),
            [f"--name: {_ID}"],
        ),
        (
            lambda: ragtriage.api.import_openinference_files(
                missing, missing, output=tmp_path / "r.jsonl", name=5  # type: ignore[arg-type]
            ),
            [f"--name: {_ID}"],
        ),
        (
            lambda: ragtriage.api.review_import_files(
                missing, missing, output=tmp_path, reviewer=5  # type: ignore[arg-type]
            ),
            [f"--reviewer: {_ID}"],
        ),
        (
            lambda: ragtriage.api.import_trec_files(
                qrels=missing, dataset_id=5, output=tmp_path  # type: ignore[arg-type]
            ),
            [f"--dataset-id: {_ID}"],
        ),
        (
            lambda: ragtriage.api.import_records_files(
                missing, "ragas", output=tmp_path, name=5, dataset_id=5  # type: ignore[arg-type]
            ),
            [
                f"--dataset-id: {_ID}",
                "--name: expected a name usable as a file name (letters, digits, '-', '_', '.'; "
                "not starting with '.'; at most 100 characters); found 5",
            ],
        ),
        (
            lambda: ragtriage.judge_files(
                missing, judge="lexical", output=tmp_path, model=5  # type: ignore[arg-type]
            ),
            [f"--model: {_ID}"],
        ),
    ]
    for call, expected in calls:
        with pytest.raises(InputError) as refused:
            call()
        problems = refused.value.problems
        assert [f"{p.field}: expected {p.expected}; found {p.found}" for p in problems] == expected


def test_trec_eval_files_takes_one_measure_as_a_str_and_refuses_none(tmp_path: Path) -> None:
    # Before: "ndcg@10" was seven measures, one per character ("found 'n'" ...), and None a
    # TypeError from inside.
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 1.0 r\n", encoding="utf-8")
    one = ragtriage.trec_eval_files(qrels, run, metrics="ndcg@10")
    assert one == ragtriage.trec_eval_files(qrels, run, metrics=["ndcg@10"])
    assert [m.measure.name for m in one.scores.measures] == ["ndcg@10"]
    assert _refusal(lambda: ragtriage.trec_eval_files(qrels, run, metrics=None)) == (
        "metrics: expected a str or an iterable of str; found None"
    )
