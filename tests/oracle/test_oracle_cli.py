"""`ragtriage evaluate --format json` reports the oracle's per-question values, aggregates and
diagnosis, its files read by the file reader (`evaluate_native`) or by the loader."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from loader_path import loader_path
from ragtriage.cli.main import cli

from . import evaluate_files, measure_names
from .aggregate import Aggregate
from .engines import FLOAT_SUMMED, macro_numerator, write_files
from .evaluate import OracleEvaluation
from .strategies import DETECTORS, Generated, datasets

RANK_KS = (1, 3)
NAMES = measure_names(RANK_KS)


def number(name: str, got: Any, want: Any) -> bool:
    """A JSON number (or boolean) equal to the oracle's (float-summed measures: 1e-12)."""
    if got is None or want is None:
        return got is None and want is None
    if name.split("@")[0] in FLOAT_SUMMED:
        return math.isclose(float(got), float(want), rel_tol=1e-12, abs_tol=1e-15)
    return bool(float(got) == float(want))


def summary_differs(name: str, got: dict[str, Any], want: Aggregate, macro: float) -> bool:
    numerator = macro if want.averaging == "macro" else want.numerator
    value = None if not want.denominator else float(numerator) / float(want.denominator)
    return not (
        got["averaging"] == want.averaging
        and got["not_applicable"] == want.not_applicable
        and got.get("cannot_judge") == want.cannot_judge
        and number(name, got["denominator"], want.denominator)
        and number(name, got["numerator"], numerator)
        and number(name, got["value"], value)
    )


def differences(report: dict[str, Any], oracle: OracleEvaluation, names: list[str]) -> list[str]:
    out = []
    for run, orun in zip(report["runs"], oracle.runs, strict=True):
        assert [q["id"] for q in run["questions"]] == [q.question_id for q in orun.questions]
        for q, oq in zip(run["questions"], orun.questions, strict=True):
            for name in names:
                score = oq.scores[name]
                if not number(name, q[name], None if score is None else score.value):
                    out.append(f"{run['name']}/{q['id']} {name}: {q[name]} != {score}")
            diagnosis = (q["diagnosis"]["primary"], tuple(q["diagnosis"]["secondary"]))
            if diagnosis != (oq.primary, oq.secondary):
                out.append(f"{run['name']}/{q['id']} diagnosis: {diagnosis}")
        for name in names:
            macro = macro_numerator([oq.scores[name] for oq in orun.questions])
            if summary_differs(name, run["summary"][name], orun.summary[name], macro):
                out.append(f"{run['name']} summary {name}: {run['summary'][name]}")
    return out


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(), jsonl=st.booleans())
def test_evaluate_json_by_both_readers_reports_the_oracle(g: Generated, jsonl: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), g, jsonl)
        args = ["evaluate", str(files.evalset), "--snapshot", str(files.snapshot),
                *(a for run in files.runs for a in ("--run", str(run))), "--format", "json"]
        oracle = evaluate_files(files.evalset, files.snapshot, files.runs, rank_ks=RANK_KS,
                                detectors=DETECTORS)
        runner = CliRunner()
        with loader_path():
            loaded = runner.invoke(cli, [*args, *(a for n in NAMES for a in ("--metric", n))])
        assert loaded.exit_code == 0, loaded.output
        assert differences(json.loads(loaded.stdout), oracle, NAMES) == []
        read = runner.invoke(cli, [*args, *(a for n in NAMES for a in ("--metric", n))])
        if read.exit_code == 2:  # a holdout result it checks: test_oracle_disagreements
            assert any(q.get("split") == "holdout" for q in g.evalset["questions"])
            return
        assert read.exit_code == 0, read.output
        # The same report, byte for byte.
        assert read.stdout == loaded.stdout


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(), jsonl=st.booleans(), fmt=st.sampled_from(["json", "markdown", "table"]))
def test_both_readers_give_the_same_report(g: Generated, jsonl: bool, fmt: str) -> None:
    """Default measures, every format: the report on the files read by the file reader is the
    one on the files read by the loader."""
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), g, jsonl)
        args = ["evaluate", str(files.evalset), "--snapshot", str(files.snapshot),
                *(a for run in files.runs for a in ("--run", str(run))), "--format", fmt]
        runner = CliRunner()
        with loader_path():
            loaded = runner.invoke(cli, args)
        assert loaded.exit_code == 0, loaded.output
        read = runner.invoke(cli, args)
        if read.exit_code == 2:  # a holdout result it checks: test_oracle_disagreements
            assert any(q.get("split") == "holdout" for q in g.evalset["questions"])
            return
        assert read.exit_code == 0, read.output
        assert read.stdout == loaded.stdout
