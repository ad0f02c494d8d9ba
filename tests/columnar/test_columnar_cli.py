"""`evaluate --algorithm columnar` and `judge --executor ray` against their reference paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from native_layers_data import write_dataset

from ragtriage.cli.main import cli
from ragtriage.columnar import NATIVE_MEASURES
from ragtriage.metrics import REGISTRY

NAMES = [f"{name}@3" if REGISTRY[name].params else name for name in NATIVE_MEASURES]
"""Every measure the columnar algorithm computes, rank measures at k = 3."""
ALL_METRICS = [arg for name in NAMES for arg in ("--metric", name)]
USAGE_HEAD = (
    "Usage: cli evaluate [OPTIONS] [DATASET]\nTry 'cli evaluate --help' for help.\n\n"
)


def _shared(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The keys both paths compute: run name, k, summary, per-question values and diagnosis."""
    return [
        {
            "name": run["name"],
            "k": run["k"],
            "k_used": run["k_used"],
            "summary": run["summary"],
            "questions": [
                {
                    "id": q["id"],
                    **{m["name"]: q[m["name"]] for m in report["metrics"]},
                    "diagnosis": {
                        "primary": q["diagnosis"]["primary"],
                        "secondary": q["diagnosis"]["secondary"],
                    },
                }
                for q in run["questions"]
            ],
        }
        for run in report["runs"]
    ]


def _reports(
    args: list[str], metrics: list[str] = ALL_METRICS
) -> tuple[dict[str, Any], dict[str, Any]]:
    runner = CliRunner()
    reference = runner.invoke(cli, ["evaluate", *args, "--format", "json", *metrics])
    assert reference.exit_code == 0, reference.output
    columnar = runner.invoke(
        cli, ["evaluate", *args, "--format", "json", "--algorithm", "columnar", *metrics]
    )
    assert columnar.exit_code == 0, columnar.output
    return json.loads(reference.stdout), json.loads(columnar.stdout)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_columnar_json_equals_reference_json_on_generated_data(tmp_path: Path, seed: int) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 40)
    reference, columnar = _reports(
        [str(evalset), "--snapshot", str(snapshot), "--run", str(run)]
    )
    assert _shared(columnar) == _shared(reference)
    assert columnar["metrics"] == reference["metrics"]
    assert [m["name"] for m in columnar["metrics"]] == NAMES
    assert columnar["engine"] == "columnar"
    assert 0 < len(columnar["runs"][0]["questions"]) <= 40  # holdout questions left out


def test_columnar_default_measures_are_the_reference_default_set() -> None:
    reference, columnar = _reports(["--example"], metrics=[])
    assert columnar["metrics"] == reference["metrics"]
    assert len(columnar["metrics"]) == 21
    assert _shared(columnar) == _shared(reference)


def test_columnar_accepts_rank_measures_by_alias() -> None:
    reference, columnar = _reports(
        ["--example", "-k", "2"], metrics=["--metric", "recall@2", "--metric", "MAP@5"]
    )
    names = [m["name"] for m in columnar["metrics"]]
    assert names == ["recall_candidates@2", "context_precision@5"]
    assert columnar["metrics"] == reference["metrics"]
    assert _shared(columnar) == _shared(reference)


def test_columnar_json_leaves_out_the_holdout_as_the_reference_does() -> None:
    reference, columnar = _reports(["--example", "-k", "2"])
    assert _shared(columnar) == _shared(reference)
    assert [len(run["questions"]) for run in columnar["runs"]] == [15, 15]
    summary = columnar["runs"][0]["summary"]["evidence_recall"]
    assert summary == {
        "averaging": "macro",
        "denominator": 12,
        "not_applicable": 3,
        "numerator": 9.5,
        "value": 9.5 / 12,
    }


def test_both_algorithms_say_when_k_is_not_used() -> None:
    notes = [
        f"note: -k 10000 is not used for run {name!r}: every result records its context"
        for name in ("baseline", "improved")
    ]
    header = "baseline (context recorded, k not used)"
    for algorithm in ("reference", "columnar"):
        out = CliRunner().invoke(
            cli, ["evaluate", "--example", "-k", "10000", "--algorithm", algorithm]
        )
        assert out.exit_code == 0, out.output
        assert [line for line in out.stderr.splitlines() if "-k" in line] == notes
        assert header in out.stdout
    reference, columnar = _reports(["--example", "-k", "10000"])
    assert [run["k_used"] for run in columnar["runs"]] == [False, False]
    assert _shared(columnar) == _shared(reference)


def test_columnar_metric_picks_summary_and_question_keys() -> None:
    result = CliRunner().invoke(
        cli,
        ["evaluate", "--example", "--algorithm", "columnar", "--format", "json",
         "--metric", "claim_support"],
    )
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)["runs"][0]
    assert list(run["summary"]) == ["claim_support"]
    assert sorted(run["questions"][0]) == ["claim_support", "diagnosis", "id"]


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--labels", "x.json", "--allow-missing"], "--allow-missing"),
        (["--calibration", "c.json"], "--calibration"),
        (["--tag", "billing", "--id", "q*", "--versions", "v.json"], "--versions"),
        (["--html", "out.html"], "--html"),
    ],
)
def test_columnar_refuses_options_it_does_not_support(extra: list[str], named: str) -> None:
    result = CliRunner().invoke(cli, ["evaluate", "--example", "--algorithm", "columnar", *extra])
    assert result.exit_code == 2
    assert result.stderr == f"{USAGE_HEAD}Error: --algorithm columnar does not support {named}\n"


def test_columnar_needs_a_snapshot(tmp_path: Path) -> None:
    evalset, _, run = write_dataset(tmp_path, 1, 3)
    result = CliRunner().invoke(
        cli, ["evaluate", str(evalset), "--run", str(run), "--algorithm", "columnar"]
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"{USAGE_HEAD}Error: --algorithm columnar needs a native evaluation set "
        "and its --snapshot\n"
    )


def test_columnar_markdown_is_a_summary() -> None:
    result = CliRunner().invoke(
        cli, ["evaluate", "--example", "--algorithm", "columnar", "--format", "markdown"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "## ragtriage evaluation (columnar)",
        "",
        "engine: columnar, 15 questions; per-question values in --format json",
    ]
    assert "| evidence_recall | macro | 0.7917 (9.5/12) | 0.9167 (11/12) |" in lines
    assert result.stderr == (
        "note: 2 holdout question(s) left out; --include-holdout scores them (and records the "
        "look)\n"
    )


def test_judge_ray_address_needs_engine_ray(tmp_path: Path) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, 1, 3)
    result = CliRunner().invoke(
        cli,
        ["judge", str(evalset), "--snapshot", str(snapshot), "--run", str(run),
         "--judge", "lexical", "--output", str(tmp_path / "out"), "--ray-address", "auto"],
    )
    assert result.exit_code == 2
    assert result.stderr.endswith("Error: --ray-address needs --executor ray\n")


def test_judge_on_ray_needs_the_lexical_judge(tmp_path: Path) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, 1, 3)
    result = CliRunner().invoke(
        cli,
        ["judge", str(evalset), "--snapshot", str(snapshot), "--run", str(run),
         "--output", str(tmp_path / "out"), "--executor", "ray"],
    )
    assert result.exit_code == 2
    assert result.stderr.endswith("Error: --executor ray supports --judge lexical only\n")


@pytest.mark.slow
def test_judge_on_ray_writes_the_same_label_files_as_local(tmp_path: Path) -> None:
    from ragtriage.example import example_paths

    paths = example_paths()
    base = ["judge", str(paths.evalset), "--snapshot", str(paths.snapshot),
            *[arg for run in paths.runs for arg in ("--run", str(run))],
            "--judge", "lexical", "--no-progress", "--no-cache"]
    runner = CliRunner()
    local = runner.invoke(cli, [*base, "--output", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    remote = runner.invoke(cli, [*base, "--output", str(tmp_path / "ray"), "--executor", "ray"])
    assert remote.exit_code == 0, remote.output
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray").iterdir())
    assert "baseline.labels.json" in names
    for name in names:
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert remote.stdout == local.stdout.replace(str(tmp_path / "local"), str(tmp_path / "ray"))


@pytest.mark.parametrize("metric", ["ndcg", "no_such_measure", "mrr@0"])
def test_a_bad_metric_is_reported_as_the_reference_reports_it(metric: str) -> None:
    outputs = [
        CliRunner().invoke(
            cli, ["evaluate", "--example", "--algorithm", algorithm, "--metric", metric]
        )
        for algorithm in ("reference", "columnar")
    ]
    assert [out.exit_code for out in outputs] == [2, 2]
    # The reference notes the holdout it leaves out before it reads the measures.
    errors = [[ln for ln in out.stderr.splitlines() if not ln.startswith("note:")]
              for out in outputs]
    assert errors[1] == errors[0]
    assert errors[1][:2] == ["Error: 1 problem found in the input:", errors[1][1]]
    assert errors[1][1].startswith("- <command line>: metric")
