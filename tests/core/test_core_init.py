"""`ragtriage init DIR`: a starter dataset that every main command runs on as written."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.api import StarterDataset, init_files
from ragtriage.cli.main import cli
from ragtriage.starter import STARTER_FILES, dataset_arguments

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(cli, list(args))
    return out.exit_code, out.stdout, out.stderr


def _starter(tmp_path: Path) -> Path:
    target = tmp_path / "my-eval"
    code, _stdout, stderr = _run("init", str(target))
    assert (code, stderr) == (0, ""), stderr
    return target


def test_init_writes_the_files_and_says_what_next(tmp_path: Path) -> None:
    target = tmp_path / "my-eval"
    code, stdout, stderr = _run("init", str(target))
    arguments = shlex.join(dataset_arguments(str(target)))
    assert (code, stderr) == (0, "")
    assert stdout == (
        f"wrote 6 files to {target}:\n"
        "  README.md\n  snapshot.json\n  evalset.json\n  run.json\n  labels.json\n  policy.toml\n"
        f"{target / 'README.md'} says what each file holds; next:\n"
        f"  ragtriage evaluate {arguments}\n"
        f"  ragtriage report {arguments} -o report.html\n"
    )
    assert sorted(p.name for p in target.iterdir()) == sorted(STARTER_FILES)


def test_every_main_command_runs_on_the_starter(tmp_path: Path) -> None:
    target = _starter(tmp_path)
    data = dataset_arguments(str(target))
    page = tmp_path / "report.html"
    for args in (
        ["evaluate", *data],
        ["evaluate", *data, "--format", "json"],
        ["diagnose", *data],
        ["gate", *data, "--policy", str(target / "policy.toml")],
        ["report", *data, "-o", str(page)],
    ):
        code, _stdout, stderr = _run(*args)
        assert (code, "Error" in stderr) == (0, False), (args, stderr)
    evaluation = json.loads(_run("evaluate", *data, "--format", "json")[1])
    summary = evaluation["runs"][0]["summary"]
    assert [(m, summary[m]["numerator"], summary[m]["denominator"]) for m in (
        "evidence_recall", "fact_coverage", "claim_support", "citation_validity", "correct_refusal",
        "false_refusal",
    )] == [
        ("evidence_recall", 4, 4), ("fact_coverage", 3.5, 4), ("claim_support", 4, 4),
        ("citation_validity", 4, 4), ("correct_refusal", 1, 1), ("false_refusal", 0, 4),
    ]
    diagnosis = json.loads(_run("diagnose", *data, "--format", "json")[1])
    stages = {q["id"]: q["primary"] for q in diagnosis["runs"][0]["questions"]}
    assert stages == {
        "export-formats": "ok", "free-limit": "ok", "sync-devices": "incomplete_answer",
        "reset-link": "ok", "offline-mode": "ok",
    }
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_the_starter_readme_commands_run_in_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _starter(tmp_path)
    readme = (target / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme, flags=re.S)
    assert block is not None
    commands = [shlex.split(line) for line in block.group(1).splitlines()]
    assert [c[:2] for c in commands] == [
        ["ragtriage", "evaluate"], ["ragtriage", "diagnose"], ["ragtriage", "gate"], ["ragtriage", "report"],
    ]
    monkeypatch.chdir(target)
    for words in commands:
        code, _stdout, stderr = _run(*words[1:])
        assert (code, "Error" in stderr) == (0, False), (words, stderr)
    assert (target / "report.html").is_file()


def test_a_directory_with_files_is_refused_without_force(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me", encoding="utf-8")
    code, stdout, stderr = _run("init", str(target))
    assert (code, stdout) == (2, "")
    assert stderr == (
        "Error: 1 problem found in the input:\n"
        f"- {target}: DIR: expected a new or empty directory (--force writes the starter files "
        "into it, overwriting files of the same name); found a directory holding notes.txt\n"
    )
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]


def test_force_overwrites_the_starter_files_and_keeps_the_others(tmp_path: Path) -> None:
    target = _starter(tmp_path)
    (target / "run.json").write_text("{}", encoding="utf-8")
    (target / "notes.txt").write_text("keep me", encoding="utf-8")
    code, stdout, _ = _run("init", str(target), "--force")
    assert code == 0
    assert "  run.json (overwritten)\n" in stdout
    assert (target / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert json.loads((target / "run.json").read_text(encoding="utf-8"))["name"] == "starter-run"


def test_force_checks_every_target_before_writing_any(tmp_path: Path) -> None:
    # Before: README.md, snapshot.json, ... were written one by one, then policy.toml (a
    # directory) failed with "Nothing was written".
    target = tmp_path / "mine"
    (target / "policy.toml").mkdir(parents=True)
    code, stdout, stderr = _run("init", str(target), "--force")
    assert (code, stdout) == (2, "")
    assert stderr == (
        f"Error: cannot write {target / 'policy.toml'}: it is a directory, not a regular file. "
        "Nothing was written.\n"
    )
    assert sorted(p.name for p in target.iterdir()) == ["policy.toml"]


def test_a_file_is_not_a_directory(tmp_path: Path) -> None:
    target = tmp_path / "file.json"
    target.write_text("{}", encoding="utf-8")
    code, _, stderr = _run("init", str(target))
    assert (code, stderr) == (
        2,
        f"Error: 1 problem found in the input:\n- {target}: DIR: expected a directory (new or "
        "empty); found a file\n",
    )


def test_a_name_too_long_for_the_file_system_is_refused_without_a_traceback(
    tmp_path: Path,
) -> None:
    # Before: an OSError traceback (exit 1) from looking the name up.
    target = tmp_path / ("é" * 300)
    code, stdout, stderr = _run("init", str(target))
    assert (code, stdout, stderr) == (
        2, "", f"Error: cannot write {target}: File name too long. Nothing was written.\n"
    )


def test_an_empty_directory_is_fine(tmp_path: Path) -> None:
    assert _run("init", str(tmp_path))[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(STARTER_FILES)


@pytest.mark.parametrize("kind", [str, Path])
def test_python_api_mirrors_the_command(tmp_path: Path, kind: type) -> None:
    target = tmp_path / "api"
    written = init_files(kind(target))
    assert isinstance(written, StarterDataset)
    assert (written.directory, [p.name for p in written.files], written.replaced) == (
        target, list(STARTER_FILES), ()
    )
    again = init_files(kind(target), force=True)
    assert again.replaced == again.files


def test_a_larger_directory_is_listed_briefly(tmp_path: Path) -> None:
    for n in range(7):
        (tmp_path / f"f{n}.txt").write_text("", encoding="utf-8")
    stderr = _run("init", str(tmp_path))[2]
    assert "found a directory holding f0.txt, f1.txt, f2.txt, f3.txt, f4.txt, ... (7 in all)\n" in stderr


def test_the_starter_files_ship_in_the_package() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"starter/files/*"' in pyproject


def test_readme_quick_start_is_two_commands_and_points_to_init() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme[readme.index("## Quick start") : readme.index("## Using it")]
    blocks = re.findall(r"```bash\n(.*?)```", start, flags=re.S)
    assert [b.count("\n") for b in blocks] == [1, 1]
    assert blocks[0].rstrip().endswith("ragtriage demo")
    assert "`ragtriage init my-eval`" in start


def test_readme_evaluate_example_runs_from_the_repository_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if x.startswith("ragtriage evaluate ") and "-k 2" in x)
    monkeypatch.chdir(ROOT)
    code, stdout, stderr = _run(*shlex.split(line)[1:])
    assert (code, stderr) == (0, "")
    assert "synthetic-baseline" in stdout


def test_html_docs_name_no_missing_extra() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    declared = set(re.findall(r"^(\w+) = \[", pyproject[pyproject.index("[project.optional-dependencies]") :], flags=re.M))
    for page in ("README.md", "docs/html-report.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        named = set(re.findall(r"ragtriage\[(\w+)\]", text)) | set(re.findall(r"\.\[(\w+)\]", text))
        assert named <= declared, (page, named - declared)
