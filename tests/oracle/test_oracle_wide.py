"""The oracle and both readers on wider generated data: unicode, very long and punctuated
IDs, tied scores, k beyond every ranking, runs missing questions (`--allow-missing`); every
command on generated files (no traceback, exit 0 or 1, the same output whichever reader);
JSON reports of the same structure at 3 and 3,000 questions."""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import tempfile
import traceback
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from loader_path import READERS, invoke
from ragtriage.errors import InputError
from ragtriage.example import example_paths

from . import evaluate_files, measure_names
from .engines import (
    Files,
    compare_readers,
    compare_with_oracle,
    run_by_file_reader,
    run_by_loader,
    write_files,
)
from .strategies import DETECTORS, Generated, datasets, write
from .test_oracle_cli import differences
from .wide import ID_STYLES, drop_results, renamed, shape, tie_scores, tiled

RANK_KS = (1, 3, 12)
"""12: beyond every generated ranking (at most 5 candidates)."""
NAMES = measure_names(RANK_KS)
POLICY = str(example_paths().policy)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(), style=st.sampled_from(sorted(ID_STYLES)), data=st.data(),
       k=st.sampled_from([None, 1, 20]), jsonl=st.booleans())
def test_oracle_equals_both_readers_on_exotic_ids(
    g: Generated, style: str, data: st.DataObject, k: int | None, jsonl: bool
) -> None:
    g = renamed(g, style)
    tie_scores(g, cast(st.DrawFn, data.draw))
    opts = {"k": k, "label_policy": "human-first", "allow_unreviewed": True,
            "evidence_level": "auto"}
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), g, jsonl)
        try:
            loaded = run_by_loader(files, NAMES, opts)
        except InputError as refused:  # -k cut a context a label names: refused alike
            with pytest.raises(InputError) as caught:
                run_by_file_reader(files, NAMES, opts)
            assert caught.value.problems == refused.problems
            return
        oracle = evaluate_files(files.evalset, files.snapshot, files.runs, k=k,
                                rank_ks=RANK_KS, detectors=DETECTORS)
        assert compare_with_oracle(oracle, loaded) == []
        assert compare_readers(run_by_file_reader(files, NAMES, opts), loaded) == []


def _same_by_both_readers(args: list[str]) -> tuple[int, str]:
    """`ragtriage ARGS` by each reader: no traceback, the same exit code and output (a
    holdout result only the file reader checks may make it refuse); (exit code, stdout)."""
    outs = []
    for reader in READERS:
        result = invoke(reader, args)
        if not isinstance(result.exception, SystemExit | None):
            pytest.fail("".join(traceback.format_exception(result.exception)))
        outs.append((result.exit_code, result.stdout, result.stderr))
    if outs[0][0] != 2 and outs[1][0] == 2 and "holdout" in outs[1][2]:
        return outs[0][:2]
    assert outs[0] == outs[1]
    return outs[0][:2]


def _commands(files: Files, names: list[str], tmp: str, fmt: str) -> list[list[str]]:
    data = [str(files.evalset), "--snapshot", str(files.snapshot),
            *(a for run in files.runs for a in ("--run", str(run))),
            *(a for lab in files.labels for a in ("--labels", str(lab))),
            "--allow-unreviewed", "--ledger", f"{tmp}/ledger.jsonl"]
    gate = ["gate", *data, "--policy", POLICY, "--candidate", names[-1], "--resamples", "100"]
    out = [["evaluate", *data, "--format", fmt], ["diagnose", *data, "--format", fmt],
           [*gate, "--format", fmt], ["report", *data, "-o", f"{tmp}/page.html"]]
    if len(names) > 1:
        out += [["compare", *data, "--format", fmt, "--resamples", "100",
                 "--permutations", "100"], [*gate, "--format", fmt, "--baseline", names[0]]]
    return out


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(labels_file=True), data=st.data(), jsonl=st.booleans(),
       fmt=st.sampled_from(["json", "table", "markdown"]))
def test_every_command_by_both_readers_on_runs_missing_questions(
    g: Generated, data: st.DataObject, jsonl: bool, fmt: str
) -> None:
    """With --allow-missing each run is scored on the questions it has a result for, as the
    oracle scores that run on those questions alone."""
    drop_results(g, cast(st.DrawFn, data.draw))
    opts = {"k": None, "label_policy": "human-first", "allow_unreviewed": True,
            "evidence_level": "auto", "allow_missing": True}
    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), g, jsonl)
        loaded = run_by_loader(files, NAMES, opts)
        assert compare_readers(run_by_file_reader(files, NAMES, opts), loaded) == []
        scored = [q for q in g.evalset["questions"] if q.get("split") != "holdout"]
        for n, (run, evaluated) in enumerate(zip(g.runs, loaded.runs, strict=True)):
            answered = {res["question_id"] for res in run["results"]}
            assert evaluated.no_result == tuple(q["id"] for q in scored
                                                if q["id"] not in answered)
            if not answered or files.labels:  # the oracle attaches a labels file to all
                continue
            questions = [q for q in g.evalset["questions"] if q["id"] in answered]
            subset = write({**g.evalset, "questions": questions}, Path(tmp) / f"e{n}.json")
            oracle = evaluate_files(subset, files.snapshot, [files.runs[n]], rank_ks=RANK_KS,
                                    detectors=DETECTORS)
            one = dataclasses.replace(loaded, runs=(evaluated,))
            assert compare_with_oracle(oracle, one) == []
        names = [run["name"] for run in g.runs]
        for args in _commands(files, names, tmp, fmt):
            code, _ = _same_by_both_readers([*args, "--allow-missing"])
            assert code in (0, 1), args


def _json_reports(g: Generated, tmp: Path) -> dict[str, Any]:
    files = write_files(tmp, g, jsonl=True)
    names = [run["name"] for run in g.runs]
    out = {}
    for args in _commands(files, names, str(tmp), "json"):
        if args[0] != "report":
            code, output = _same_by_both_readers(args)
            out[" ".join(args[:1] + args[-2:])] = (code, shape(json.loads(output)))
    return out


def check_sizes(g: Generated, times: int) -> None:
    """A JSON report of two copies of `g`'s questions has the structure of its report at
    `times` copies. (Two, not one: a value that needs two questions, a confidence interval of
    a difference, is null over one paired question, as a value with an empty denominator is.)"""
    with tempfile.TemporaryDirectory() as small, tempfile.TemporaryDirectory() as big:
        assert _json_reports(tiled(g, 2), Path(small)) == _json_reports(tiled(g, times),
                                                                        Path(big))


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets())
def test_json_reports_keep_their_structure_at_any_size(g: Generated) -> None:
    check_sizes(g, 40)


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.generate])
@given(g=datasets())
def test_json_reports_keep_their_structure_at_thousands_of_questions(g: Generated) -> None:
    g.evalset["questions"] = g.evalset["questions"][:3]
    for run in g.runs:
        run["results"] = [r for r in run["results"] if r["question_id"] in ("q0", "q1", "q2")]
    check_sizes(g, 1000)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=datasets(), jsonl=st.booleans(), holdout=st.booleans(),
       only=st.sampled_from([("--tag", "a"), ("--tag", "version-conflict"), ("--split", "dev"),
                             ("--split", "regression"), ("--id", "q[02]*"), ("--id", "q1")]))
def test_question_filters_score_as_the_oracle_on_the_questions_kept(
    g: Generated, jsonl: bool, holdout: bool, only: tuple[str, str]
) -> None:
    """--tag, --split, --id (with or without the holdout): the report is the oracle's on an
    evaluation set of the questions kept, whichever reader."""
    option, value = only

    def kept(q: dict[str, Any]) -> bool:
        if option == "--tag":
            return value in q.get("tags", [])
        if option == "--split":
            return q.get("split", "dev") == value
        return fnmatch.fnmatchcase(q["id"], value)

    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), g, jsonl)
        code, output = _same_by_both_readers([
            "evaluate", str(files.evalset), "--snapshot", str(files.snapshot),
            *(a for run in files.runs for a in ("--run", str(run))), "--format", "json",
            "--allow-unreviewed", option, value, "--ledger", f"{tmp}/ledger.jsonl",
            *(["--include-holdout"] if holdout else []),
            *(a for name in NAMES for a in ("--metric", name))])
        questions = [{**q, "split": "dev"} if holdout and q.get("split") == "holdout" else q
                     for q in g.evalset["questions"] if kept(q)]
        if code == 2 or not any(q.get("split") != "holdout" for q in questions):
            return  # no question left: refused (checked alike above)
        subset = write({**g.evalset, "questions": questions}, Path(tmp) / "kept.json")
        oracle = evaluate_files(subset, files.snapshot, files.runs, rank_ks=RANK_KS,
                                detectors=DETECTORS)
        assert differences(json.loads(output), oracle, NAMES) == []
