"""Output targets that cannot be written, and writes that fail half-way.

Every output option is checked before the work (exit 2, one message for every command, exit
1 stays for a failed gate), and every file is written whole or not at all: a failed run never
leaves a partial file and never destroys an older good one.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_batch import run_batch

from ragtriage import fileio

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragtriage" / "example" / "data"
DATA = ["evalset.json", "--snapshot", "snapshot.json", "--run", "runs/baseline.json"]

FILE_OPTIONS = {
    "evaluate -o": lambda t: ["evaluate", *DATA, "-o", t],
    "evaluate --html": lambda t: ["evaluate", *DATA, "--html", t],
    "diagnose -o": lambda t: ["diagnose", *DATA, "-o", t],
    "compare -o": lambda t: ["compare", *DATA, "--run", "runs/improved.json", "-o", t],
    "compare --html": lambda t: ["compare", *DATA, "--run", "runs/improved.json", "--html", t],
    "report -o": lambda t: ["report", *DATA, "-o", t],
    "gate -o": lambda t: ["gate", *DATA, "--policy", "policy.toml", "-o", t],
    "gate --junit": lambda t: ["gate", *DATA, "--policy", "policy.toml", "--junit", t],
    "export trec --run-out": lambda t: ["export", "trec", "--run", "runs/baseline.json",
                                        "--run-out", t],
    "export trec --qrels-out": lambda t: ["export", "trec", "evalset.json", "--qrels-out", t],
    "review export -o": lambda t: ["review", "export", *DATA, "-o", t],
    "calibrate --record": lambda t: ["calibrate", "--judge-labels", "j.json", "--human-labels",
                                     "h.json", "--record", t],
    "run -o": lambda t: ["run", "evalset.json", "--snapshot", "snapshot.json", "-o", t],
    "schema -o": lambda t: ["schema", "run", "-o", t],
    "trec-eval -o": lambda t: ["trec-eval", "v.qrels", "v.run", "-o", t],
}
FOLDER_OPTIONS = {
    "import ragas -o": lambda t: ["import", "ragas", "records.json", "-o", t],
    "judge -o": lambda t: ["judge", *DATA, "--judge", "lexical", "-o", t],
    "review import -o": lambda t: ["review", "import", *DATA, "sheet.csv", "-o", t],
}
SUFFIX = {"review export -o": ".csv", "run -o": ".jsonl", "evaluate --html": ".html",
          "compare --html": ".html", "report -o": ".html"}

SLASH = "a path ending in '/' names a folder, not a file"
FILE_TARGETS = {
    "missing folder": ("nope/out{s}", "the folder 'nope' does not exist"),
    "a directory": ("adir{s}", "it is a directory, not a regular file"),
    "below a file": ("afile.txt/out{s}", "a part of the path is a file, not a folder"),
    "/dev/full": ("/dev/full", "it is a character device, not a regular file"),
    # Before: replaced by the report (renamed over it), keeping its mode 0444.
    "a read-only file": ("readonly{s}", "it is read-only"),
    # Before: written as the file 'newout' (or over 'afile.txt'): the '/' was dropped.
    "a folder's name": ("newout/", SLASH),
    "a file's name as a folder's": ("afile.txt/", SLASH),
}
FOLDER_TARGETS = {
    "an existing file": ("afile.txt", "it exists and is not a folder"),
    "below a file": ("afile.txt/out", "'afile.txt' is a file, not a folder"),
    "/dev/full": ("/dev/full", "it exists and is not a folder"),
    # Before: an OSError traceback (exit 1) from looking the name up.
    "a name too long": ("é" * 300, "File name too long"),
}
CASES = [
    (option, target, FILE_TARGETS[target][0].format(s=SUFFIX.get(option, ".out")),
     FILE_TARGETS[target][1], build)
    for option, build in FILE_OPTIONS.items()
    for target in FILE_TARGETS
] + [
    (option, target, *FOLDER_TARGETS[target], build)
    for option, build in FOLDER_OPTIONS.items()
    for target in FOLDER_TARGETS
]


def _inputs(root: Path) -> None:
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    labels = {"kind": "labels", "schema_version": 1, "run": "baseline",
              "claim_labels": [], "fact_labels": []}
    for name in ("j.json", "h.json"):
        (root / name).write_text(json.dumps(labels), encoding="utf-8")
    (root / "v.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    (root / "v.run").write_text("q1 Q0 d1 1 2.5 t\n", encoding="utf-8")
    (root / "records.json").write_text("[]", encoding="utf-8")
    (root / "sheet.csv").write_text("run\n", encoding="utf-8")
    (root / "afile.txt").write_text("keep\n", encoding="utf-8")
    for suffix in {".out", *SUFFIX.values()}:
        (root / f"adir{suffix}").mkdir()
        (root / f"readonly{suffix}").write_text("keep\n", encoding="utf-8")
        (root / f"readonly{suffix}").chmod(0o444)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int | str, str]]:
    root = tmp_path_factory.mktemp("outputs")
    _inputs(root)
    results = run_batch([build(path) for _, _, path, _, build in CASES], root)
    assert (root / "afile.txt").read_text(encoding="utf-8") == "keep\n"
    kept = {f.read_text(encoding="utf-8") for f in root.glob("readonly.*")}
    assert kept == {"keep\n"}
    assert not (root / "nope").exists()
    assert not (root / "newout").exists()
    return [(r.code, r.stderr) for r in results]


@pytest.mark.parametrize(
    "index", range(len(CASES)), ids=[f"{c[0]}:{c[1]}" for c in CASES]
)
def test_an_unwritable_target_is_refused_before_the_work(
    outcomes: list[tuple[int | str, str]], index: int
) -> None:
    _, _, path, reason, _ = CASES[index]
    assert outcomes[index] == (
        2, f"Error: cannot write {path}: {reason}. Nothing was written.\n"
    )


def test_a_text_utf8_cannot_encode_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old good report", encoding="utf-8")
    with pytest.raises(fileio.OutputError) as caught:
        fileio.write_text(target, "new \ud800 report")
    assert str(caught.value) == (
        f"cannot write {target}: the text holds '\\ud800', which utf-8 cannot encode "
        "(a lone surrogate?). Nothing was written."
    )
    assert target.read_text(encoding="utf-8") == "old good report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_a_write_failing_half_way_leaves_the_old_file_and_no_partial(tmp_path: Path) -> None:
    target = tmp_path / "sheet.csv"
    target.write_bytes(b"a,b\r\n1,2\r\n")
    with pytest.raises(ZeroDivisionError), fileio.atomic_output(target, newline="") as handle:
        handle.write("a,b\r\n")
        handle.write(str(1 / 0))
    assert target.read_bytes() == b"a,b\r\n1,2\r\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.csv"]


def test_outputs_written_together_are_all_or_none(tmp_path: Path) -> None:
    first, second = tmp_path / "report.json", tmp_path / "page.html"
    first.write_text("old report", encoding="utf-8")
    with pytest.raises(ZeroDivisionError), fileio.outputs_together():
        fileio.write_text(first, "new report")
        fileio.write_text(second, str(1 / 0))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    assert first.read_text(encoding="utf-8") == "old report"
    with fileio.outputs_together():
        fileio.write_text(first, "new report")
        with fileio.outputs_together():  # an inner block joins the outer one
            fileio.write_text(second, "new page")
        assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
            "report.json"
        ]
    assert (first.read_text(encoding="utf-8"), second.read_text(encoding="utf-8")) == (
        "new report", "new page"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html", "report.json"]


def test_outputs_of_two_commands_at_once_are_all_of_one_never_a_mix(tmp_path: Path) -> None:
    # Before, two commands writing the same -o and --junit at once renamed their files in
    # turn, so the folder could end with one command's report and the other's JUnit file.
    import fcntl
    import threading

    first, second = tmp_path / "report.md", tmp_path / "junit.xml"

    def command() -> None:
        with fileio.outputs_together():
            fileio.write_text(first, "mine")
            fileio.write_text(second, "mine")

    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # another command, renaming its outputs
        mine = threading.Thread(target=command)
        mine.start()
        mine.join(timeout=0.3)
        waited = mine.is_alive() and not first.exists()
        first.write_text("theirs", encoding="utf-8")
        second.write_text("theirs", encoding="utf-8")
    finally:
        os.close(folder)  # the other command is done
    mine.join()
    assert waited
    assert (first.read_text(encoding="utf-8"), second.read_text(encoding="utf-8")) == (
        "mine", "mine"
    )


def test_a_command_whose_second_output_fails_writes_neither(tmp_path: Path) -> None:
    # Before: ok.txt was replaced by the new report, then writing r.html failed (a full disk;
    # here files may not grow past 50 kB) and the message said "Nothing was written".
    (tmp_path / "ok.txt").write_text("old report", encoding="utf-8")

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))

    done = subprocess.run(
        [sys.executable, "-m", "ragtriage", "evaluate", "--example", "-o", "ok.txt",
         "--html", "r.html"],
        capture_output=True, text=True, cwd=tmp_path, preexec_fn=small_files, timeout=120,
        env={**os.environ, "PYTHONPATH": str(EXAMPLE.parents[2])},
    )
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        2, "Error: cannot write r.html: File too large. Nothing was written."
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.txt"]
    assert (tmp_path / "ok.txt").read_text(encoding="utf-8") == "old report"


def test_a_new_file_gets_the_usual_permissions_and_an_old_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    fresh, kept = tmp_path / "fresh.txt", tmp_path / "kept.txt"
    kept.write_text("x", encoding="utf-8")
    kept.chmod(0o600)
    fileio.write_text(fresh, "new")
    fileio.write_text(kept, "new")
    assert (fresh.read_text(encoding="utf-8"), kept.stat().st_mode & 0o777) == ("new", 0o600)
    assert fresh.stat().st_mode & 0o077 != 0  # not the temporary file's 0600


def test_a_surrogate_in_an_answer_leaves_the_previous_report_and_sheet(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path, dirs_exist_ok=True)
    run = tmp_path / "runs" / "baseline.json"
    text = run.read_text(encoding="utf-8")
    answer = json.dumps(json.loads(text)["results"][0]["answer"], ensure_ascii=False)
    assert answer in text
    run.write_text(text.replace(answer, answer[:-1] + '\\ud800"', 1), encoding="utf-8")
    (tmp_path / "report.html").write_text("previous report", encoding="utf-8")
    (tmp_path / "sheet.csv").write_text("previous sheet", encoding="utf-8")
    results = run_batch(
        [["report", *DATA, "-o", "report.html"], ["review", "export", *DATA, "-o", "sheet.csv"]],
        tmp_path,
    )
    message = (
        "Error: 1 problem found in the input:\n"
        "- runs/baseline.json: line 37 column 34: expected text UTF-8 can encode; "
        "found a lone surrogate escape \\ud800 in a string\n"
    )
    assert [(r.code, r.stderr) for r in results] == [(2, message), (2, message)]
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == "previous report"
    assert (tmp_path / "sheet.csv").read_text(encoding="utf-8") == "previous sheet"


INPUT_AS_OUTPUT = {
    "evaluate -o": ("runs/baseline.json", "--run"),
    "evaluate --html": ("evalset.json", "DATASET"),
    "diagnose -o": ("snapshot.json", "--snapshot"),
    "compare -o": ("runs/improved.json", "--run"),
    "compare --html": ("runs/baseline.json", "--run"),
    "report -o": ("evalset.json", "DATASET"),
    "gate -o": ("policy.toml", "--policy"),
    "gate --junit": ("runs/baseline.json", "--run"),
    "export trec --run-out": ("runs/baseline.json", "--run"),
    "export trec --qrels-out": ("evalset.json", "DATASET"),
    "review export -o": ("evalset.json", "DATASET"),
    "calibrate --record": ("h.json", "--human-labels"),
    "run -o": ("snapshot.json", "--snapshot"),
    "trec-eval -o": ("v.run", "RUN"),
}


def _refused(
    root: Path, cases: list[tuple[list[str], str, str]],
    reason: str = "it is also an input of this command ({})",
) -> None:
    """Each command of `cases` (its arguments, the path refused, the option `reason` names) is
    refused before the work: exit 2, the one message, every file below `root` unchanged."""
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    results = run_batch([args for args, _, _ in cases], root)
    assert [(r.code, r.stderr) for r in results] == [
        (2, f"Error: cannot write {path}: {reason.format(name)}. Nothing was written.\n")
        for _, path, name in cases
    ]
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_an_output_that_is_an_input_is_refused_before_the_work(tmp_path: Path) -> None:
    """Writing the report would replace the file it is made from: refused, the input kept,
    whether the output names the input or a link to it."""
    _inputs(tmp_path)
    (tmp_path / "link.json").symlink_to(tmp_path / "runs" / "baseline.json")
    cases = [(option, *INPUT_AS_OUTPUT[option]) for option in INPUT_AS_OUTPUT]
    cases.append(("evaluate -o", "link.json", "--run"))
    _refused(tmp_path, [(FILE_OPTIONS[option](path), path, name) for option, path, name in cases])


def test_two_outputs_of_one_command_naming_one_file_are_refused(tmp_path: Path) -> None:
    """The second output would replace the first (a report by the HTML page, a run by the
    chunked snapshot): refused before the work, nothing written."""
    _inputs(tmp_path)
    cases = [
        (["evaluate", *DATA, "-o", "r.html", "--html", "r.html"], "r.html", "--output"),
        (["gate", *DATA, "--policy", "policy.toml", "-o", "g.xml", "--junit", "./g.xml"],
         "g.xml", "--output"),
        (["run", "evalset.json", "--snapshot", "snapshot.json", "-o", "r.json", "--chunk-chars",
          "200", "--chunked-snapshot", "r.json"], "r.json", "--chunked-snapshot"),
        (["export", "trec", "evalset.json", "--qrels-out", "t.txt", "--run",
          "runs/baseline.json", "--run-out", "t.txt"], "t.txt", "--qrels-out"),
    ]
    _refused(tmp_path, cases, "it is also this command's {}")


RECORD = {"user_input": "Why?", "response": "So.", "reference": "So.",
          "retrieved_contexts": ["So."], "retrieved_context_ids": ["d1"],
          "reference_context_ids": ["d1"]}
"""A Ragas record: its run answers without claims, so a judge writes a run with claims."""


def test_an_import_into_the_folder_of_its_input_keeps_the_input(tmp_path: Path) -> None:
    """An import writes snapshot.json, evalset.json and NAME.jsonl into its folder: one of
    them naming an input file was replaced by the import (a qrels file by the snapshot, a
    records file by the evaluation set, a run file by the imported run) after it was read."""
    (tmp_path / "snapshot.json").write_text("q1 0 d1 1\n", encoding="utf-8")
    (tmp_path / "v.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    (tmp_path / "bm25.jsonl").write_text("q1 Q0 d1 1 2.5 t\n", encoding="utf-8")
    (tmp_path / "evalset.json").write_text(json.dumps([RECORD]), encoding="utf-8")
    cases = [
        (["import", "trec", "--qrels", "snapshot.json", "-o", "."], "snapshot.json", "--qrels"),
        (["import", "trec", "--qrels", "v.qrels", "--trec-run", "bm25.jsonl", "-o", "."],
         "bm25.jsonl", "--trec-run"),
        (["import", "ragas", "evalset.json", "-o", "."], "evalset.json", "FILE"),
    ]
    _refused(tmp_path, cases)


def test_a_judge_into_the_folder_of_its_run_keeps_the_run(tmp_path: Path) -> None:
    """`judge -o DIR` writes DIR/NAME.run.json when it extracted claims: a --run file of that
    path was replaced by the judge's run after it was read. A run with claims, where the
    judge writes no run, is still judged into its own folder."""
    (tmp_path / "records.json").write_text(json.dumps([RECORD]), encoding="utf-8")
    assert run_batch([["import", "ragas", "records.json", "-o", "."]], tmp_path)[0].code == 0
    header, *results = (
        json.loads(line) for line in (tmp_path / "imported.jsonl").read_text("utf-8").splitlines()
    )
    (tmp_path / "imported.run.json").write_text(json.dumps({**header, "results": results}))
    before = (tmp_path / "imported.run.json").read_bytes()
    data = ["evalset.json", "--snapshot", "snapshot.json", "--judge", "lexical", "--no-progress"]
    into_its_folder, elsewhere, with_claims = run_batch(
        [
            ["judge", *data, "--run", "imported.run.json", "-o", "."],
            ["judge", *data, "--run", "imported.run.json", "-o", "out"],
            ["judge", *data, "--run", "out/imported.run.json", "-o", "out"],
        ],
        tmp_path,
    )
    assert (into_its_folder.code, into_its_folder.stderr) == (
        2,
        "Error: cannot write imported.run.json: it is also an input of this command (--run). "
        "Nothing was written.\n",
    )
    assert (tmp_path / "imported.run.json").read_bytes() == before
    assert not (tmp_path / "imported.labels.json").exists()
    assert (elsewhere.code, with_claims.code) == (0, 0)


def test_the_python_api_refuses_an_output_that_is_an_input_as_the_cli_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`api.run_files` and `api.import_openinference_files` wrote over their inputs (a run over
    the snapshot, a run over the traces) where the command line refuses: the same message."""
    from ragtriage import api

    _inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "traces.jsonl").write_text("{}\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    calls = [
        (lambda: api.run_files("evalset.json", snapshot="snapshot.json", output="snapshot.json"),
         "snapshot.json", "an input of this command (--snapshot)"),
        (lambda: api.run_files("evalset.json", snapshot="snapshot.json", output="r.json",
                               chunk_chars=200, chunked_snapshot="r.json"),
         "r.json", "this command's --chunked-snapshot"),
        (lambda: api.import_openinference_files("evalset.json", "traces.jsonl",
                                                output="traces.jsonl"),
         "traces.jsonl", "an input of this command (TRACES)"),
    ]
    for call, path, what in calls:
        with pytest.raises(fileio.OutputError) as caught:
            call()
        assert str(caught.value) == f"cannot write {path}: it is also {what}. Nothing was written."
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_the_python_api_refuses_a_file_path_ending_in_a_slash_as_the_cli_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: `Path` dropped the '/': the run, sheet or TREC file was written as 'out'.
    from ragtriage import api

    _inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "traces.jsonl").write_text("{}\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    calls = [
        lambda: api.run_files("evalset.json", snapshot="snapshot.json", output="out/"),
        lambda: api.run_files("evalset.json", snapshot="snapshot.json", output="r.jsonl",
                              chunk_chars=200, chunked_snapshot="out/"),
        lambda: api.import_openinference_files("evalset.json", "traces.jsonl", output="out/"),
        lambda: api.export_trec_files("evalset.json", qrels_out="out/"),
        lambda: api.export_trec_files(runs=["runs/baseline.json"], run_out="out/"),
        lambda: api.review_export_files("evalset.json", snapshot="snapshot.json",
                                        runs=["runs/baseline.json"], output="out.csv/"),
    ]
    for call in calls:
        with pytest.raises(fileio.OutputError) as caught:
            call()
        assert str(caught.value).endswith(f"/: {SLASH}. Nothing was written.")
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "r.jsonl").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="/proc is not writable for others: refused first")
def test_a_folder_that_takes_no_new_file_is_not_called_missing() -> None:
    # Before: "its folder does not exist" (creating the temporary file failed with ENOENT).
    done = subprocess.run(
        [sys.executable, "-m", "ragtriage", "schema", "run", "-o", "/proc/x.json"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(EXAMPLE.parents[2])},
    )
    assert (done.returncode, done.stderr) == (
        2, "Error: cannot write /proc/x.json: a file cannot be created in the folder '/proc'. "
        "Nothing was written.\n"
    )
