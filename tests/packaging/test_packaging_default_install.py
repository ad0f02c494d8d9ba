"""The default install: every module imports without the extras, the main job runs, and a
missing extra is one line naming the `pip install` command (exit 2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from default_install import CLI, allowed_modules, run_default

from ragtriage._optional import EXTRAS, MissingExtra, extra_module, require_extra
from ragtriage.cli.main import cli
from ragtriage.example import example_paths

WALK = r"""
import importlib, json, pkgutil
import ragtriage
failed = []
def onerror(name):
    failed.append(f"{name}: {sys.exc_info()[0].__name__}: {sys.exc_info()[1]}")
for info in pkgutil.walk_packages(ragtriage.__path__, "ragtriage.", onerror=onerror):
    if info.name == "ragtriage.__main__":  # runs the command when imported
        continue
    try:
        importlib.import_module(info.name)
    except Exception as exc:
        failed.append(f"{info.name}: {type(exc).__name__}: {exc}")
print(json.dumps({"failed": failed, "modules": len(sys.modules)}))
"""


def test_the_simulation_blocks_the_extras_and_allows_the_defaults() -> None:
    assert {"numpy", "pydantic", "click", "rich", "jinja2", "markupsafe"} <= allowed_modules()
    assert not {"pyarrow", "scipy", "httpx", "openpyxl", "altair", "vl_convert"} & allowed_modules()
    probe = "import importlib.util, json\n" + (
        "print(json.dumps([importlib.util.find_spec(n) is None for n in "
        "('pyarrow', 'httpx', 'openpyxl', 'json')]))\n"
        "try:\n    import scipy\nexcept ModuleNotFoundError as exc:\n    print(exc)\n"
    )
    out = run_default(probe)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "[true, true, true, false]",
        "No module named 'scipy' (not in the default install)",
    ]


# Modules that exist only for an extra: importing them without it is the extra's one-line
# error, nothing else.
EXTRA_ONLY = {"ragtriage.recording.langchain": ("langchain", "the LangChain callback handler")}


def test_every_module_imports_on_the_default_install() -> None:
    out = run_default(WALK)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["failed"] == [
        f"{module}: MissingExtra: {feature} needs the optional extra ragtriage[{extra}] "
        f"(missing: {', '.join(EXTRAS[extra])}): pip install 'ragtriage[{extra}]'"
        for module, (extra, feature) in sorted(EXTRA_ONLY.items())
    ]


def test_the_main_job_runs_on_the_default_install(tmp_path: Path) -> None:
    # stderr may carry notes (holdout left out), never an error.
    out = run_default(CLI, "demo")
    assert out.returncode == 0, out.stderr
    assert "Error" not in out.stderr
    assert "baseline" in out.stdout
    html = tmp_path / "report.html"
    out = run_default(CLI, "evaluate", "--example", "--html", str(html), "--format", "json")
    assert out.returncode == 0, out.stderr
    page = html.read_text(encoding="utf-8")
    assert page.count('<rect class="bar"') > 12
    # The other commands of the main job, on the bundled example (gate: its policy fails
    # the improved run, exit 1).
    for args, code in (
        (["diagnose", "--example", "--format", "json"], 0),
        (["compare", "--example", "--baseline", "baseline", "--candidate", "improved",
          "--format", "json"], 0),
        (["gate", "--example", "--candidate", "improved", "--baseline", "baseline"], 1),
    ):
        out = run_default(CLI, *args)
        assert out.returncode == code, (args, out.stderr)
        assert "Error" not in out.stderr, args


TREC_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
TREC_RUN = "q1 Q0 d2 1 0.9 r\nq1 Q0 d1 2 0.5 r\nq2 Q0 d3 1 0.7 r\nq2 Q0 d9 2 0.1 r\n"


def test_trec_eval_without_pyarrow_reads_line_by_line(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(TREC_QRELS, encoding="utf-8")
    run.write_text(TREC_RUN, encoding="utf-8")
    args = ["trec-eval", str(qrels), str(run), "--format", "json", "--per-question"]
    lean = run_default(CLI, *args)
    assert (lean.returncode, lean.stderr) == (0, "")
    full = CliRunner().invoke(cli, args)
    assert full.exit_code == 0
    assert lean.stdout == full.stdout


def test_a_parquet_run_without_pyarrow_is_one_line(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.parquet"
    qrels.write_text(TREC_QRELS, encoding="utf-8")
    run.write_bytes(b"PAR1")
    out = run_default(CLI, "trec-eval", str(qrels), str(run))
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        "Error: reading a Parquet run needs the optional extra ragtriage[parquet] "
        "(missing: pyarrow): pip install 'ragtriage[parquet]'\n"
    )


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> object:
    """Mark modules as not installed for the rest of the test."""

    def hide(*names: str) -> None:
        for name in names:
            monkeypatch.setitem(sys.modules, name, None)

    return hide


def test_review_sheet_as_xlsx_without_openpyxl(without: object, tmp_path: Path) -> None:
    without("openpyxl")  # type: ignore[operator]
    paths = example_paths()
    out = CliRunner().invoke(
        cli,
        [
            "review", "export", str(paths.evalset), "--snapshot", str(paths.snapshot),
            "--run", str(paths.runs[0]), "--output", str(tmp_path / "sheet.xlsx"),
        ],
    )
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == (
        "Error: writing a review sheet (.xlsx) needs the optional extra ragtriage[review] "
        "(missing: openpyxl): pip install 'ragtriage[review]'\n"
    )


def test_the_endpoint_client_without_httpx(without: object) -> None:
    from ragtriage.judges import ChatClient, ClientOptions, JudgeSpec

    without("httpx")  # type: ignore[operator]
    spec = JudgeSpec(model="m", endpoint_kind="openai-compatible", prompt_version="p")
    with pytest.raises(MissingExtra) as caught:
        ChatClient(spec, ClientOptions(base_url="http://127.0.0.1:9"))
    assert str(caught.value) == (
        "calling an OpenAI-compatible endpoint needs the optional extra ragtriage[judge] "
        "(missing: httpx): pip install 'ragtriage[judge]'"
    )


def test_run_without_the_retrieval_extra(without: object, tmp_path: Path) -> None:
    without("bm25s", "Stemmer")  # type: ignore[operator]
    paths = example_paths()
    out = CliRunner().invoke(
        cli,
        [
            "run", str(paths.evalset), "--snapshot", str(paths.snapshot),
            "--output", str(tmp_path / "run.json"),
        ],
    )
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == (
        "Error: ragtriage run needs the optional extra ragtriage[retrieval] "
        "(missing: bm25s, Stemmer): pip install 'ragtriage[retrieval]'\n"
    )


def test_ray_engine_without_ray(without: object) -> None:
    from ragtriage.executors import RayExecutor

    without("ray")  # type: ignore[operator]
    with pytest.raises(MissingExtra) as caught:
        RayExecutor()
    assert str(caught.value) == (
        "--executor ray needs the optional extra ragtriage[ray] (missing: ray): "
        "pip install 'ragtriage[ray]'"
    )


def test_extra_module_imports_at_first_use(without: object) -> None:
    present = extra_module("json", "judge", "a feature")
    assert present.dumps([1]) == "[1]"
    without("httpx")  # type: ignore[operator]
    absent = extra_module("httpx", "judge", "calling an endpoint")
    with pytest.raises(MissingExtra) as caught:
        absent.Client()
    assert (caught.value.extra, caught.value.missing) == ("judge", ("httpx",))
    with pytest.raises(MissingExtra):
        require_extra("judge", "calling an endpoint")


def test_every_extra_is_declared_in_pyproject() -> None:
    from default_install import pyproject

    declared = pyproject()["optional-dependencies"]
    assert isinstance(declared, dict)
    assert set(EXTRAS) <= set(declared)
    assert declared["all"] == [
        "ragtriage[trec,parquet,review,judge,retrieval,ray,langchain]"
    ]


def test_every_file_of_the_package_that_is_not_python_is_package_data() -> None:
    # the example's README.md, which `ragtriage demo` tells the user to read, was left out of
    # the wheel: no package-data pattern named it
    import tomllib

    root = Path(__file__).parents[2]
    package = root / "src" / "ragtriage"
    with (root / "pyproject.toml").open("rb") as handle:
        patterns = tomllib.load(handle)["tool"]["setuptools"]["package-data"]["ragtriage"]
    shipped = {path for pattern in patterns for path in package.glob(pattern) if path.is_file()}
    files = {
        path
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".py"
    }
    assert sorted(str(path.relative_to(package)) for path in files - shipped) == []
