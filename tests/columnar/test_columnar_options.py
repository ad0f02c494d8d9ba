"""`evaluate` with the request's question selection and holdout policy: the files read by the
file reader (`evaluate_native`) give the same questions, scores, notes and ledger entries as
the files read by the loader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from native_layers_data import write_dataset

from loader_path import READERS, invoke
from ragtriage.columnar import _native_eval, evaluate
from ragtriage.columnar._trec import _Fallback
from ragtriage.errors import InputError
from ragtriage.loading import load_dataset
from ragtriage.metrics import measures
from ragtriage.render import dumps, evaluation_json


def _both(args: list[str], fmt: str = "json") -> list[tuple[str, str]]:
    """The report and stderr of each reader, the loader first."""
    out = []
    for reader in READERS:
        result = invoke(reader, ["evaluate", *args, "--format", fmt]
        )
        assert result.exit_code == 0, result.output
        out.append((result.stdout, result.stderr))
    return out


def _ids(report: str) -> list[list[str]]:
    return [[q["id"] for q in run["questions"]] for run in json.loads(report)["runs"]]


@pytest.mark.parametrize(
    ("selection", "ids", "held"),
    [
        (["--tag", "multi-fact"], ["two-facts", "dead-letter", "key-rotation", "regions", "purge"],
         ""),
        (["--split", "regression"], ["stale-retention", "log-extension", "purge"], ""),
        (["--id", "re*", "--id", "?so"], ["regions", "refund"], "1 holdout question"),  # sso
        (["--tag", "exact-identifier", "--split", "dev"], ["exact-code", "key-rotation",
                                                           "message-size"], ""),
        (["--split", "holdout"], [], "2 holdout questions"),
    ],
)
def test_file_reader_scores_the_selected_questions(
    selection: list[str], ids: list[str], held: str
) -> None:
    (loaded, loaded_err), (read, read_err) = _both(["--example", *selection])
    assert _ids(read) == [ids, ids]
    assert read == loaded
    # The note counts the holdout questions the filters keep (none: no note).
    assert read_err == loaded_err == (
        held and f"note: {held} left out; --include-holdout scores them (and records the look)\n"
    )


@pytest.mark.parametrize("fmt", ["json", "markdown", "table"])
@pytest.mark.parametrize("stage", ["retrieval_miss", "unsupported_claim", "ok"])
def test_file_reader_stage_selection_is_the_loader_selection(stage: str, fmt: str) -> None:
    (loaded, _), (read, _) = _both(["--example", "--stage", stage], fmt)
    assert read == loaded
    if fmt != "json":
        return
    runs = json.loads(read)["runs"]
    chosen = _ids(read)[0]
    assert chosen  # every stage asked for fails (or passes) somewhere in the example
    for question in chosen:
        assert any(
            stage in (q["diagnosis"]["primary"], *q["diagnosis"]["secondary"])
            for run in runs for q in run["questions"] if q["id"] == question
        )


@pytest.mark.parametrize("seed", [5, 6])
def test_file_reader_selection_on_generated_data(tmp_path: Path, seed: int) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 30)
    base = [str(evalset), "--snapshot", str(snapshot), "--run", str(run)]
    for selection in (["--tag", "a", "--split", "dev"], ["--stage", "ranking_loss",
                                                          "--stage", "permission_leak"]):
        (loaded, loaded_err), (read, read_err) = _both([*base, *selection])
        assert read == loaded
        assert read_err == loaded_err


def _entries(ledger: Path) -> list[dict[str, Any]]:
    lines = ledger.read_text(encoding="utf-8").splitlines()
    return [{k: v for k, v in json.loads(line).items() if k != "time"} for line in lines]


def test_file_reader_includes_the_holdout_and_records_the_look(tmp_path: Path) -> None:
    ledgers = [tmp_path / f"{reader}.jsonl" for reader in READERS]
    reports = []
    for reader, ledger in zip(READERS, ledgers, strict=True):
        for _ in range(4):  # the fourth look is one more than the default warn-after of 3
            result = invoke(reader, ["evaluate", "--example", "--format", "json",
                                        "--include-holdout", "--who", "alice", "--ledger",
                                        str(ledger)])
            assert result.exit_code == 0, result.output
        assert result.stderr == (
            "warning: the holdout of ragtriage:example/data/evalset.json has been looked at 4 "
            "times (more than 3); every look tunes against it, so its scores are drifting towards "
            f"optimistic (ledger: {ledger})\n"
        )
        reports.append(result.stdout)
    assert reports[1] == reports[0]
    assert len(_ids(reports[1])[0]) == 17
    entries = _entries(ledgers[1])
    assert entries == _entries(ledgers[0])
    assert entries[0] == {
        "command": "evaluate",
        "dataset_sha256": entries[0]["dataset_sha256"],
        "evalset": "ragtriage:example/data/evalset.json",
        "holdout_questions": 2,
        "runs": ["baseline", "improved"],
        "user": "alice",
    }
    assert len(entries) == 4


def _move_labels(run: Path, out: Path) -> list[Path]:
    """Move every other claim and fact label of a run into two label files (the run keeps the
    rest); return the label files."""
    lines = run.read_text(encoding="utf-8").splitlines()
    header, results = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    files: list[dict[str, Any]] = [
        {"schema_version": 1, "kind": "labels", "run": header["name"], "claim_labels": [],
         "fact_labels": []} for _ in range(2)
    ]
    moved = 0
    for res in results:
        for n, claim in enumerate(res.get("claims") or [], start=1):
            kept = []
            for label in claim.get("labels", []):
                moved += 1
                if moved % 2:
                    kept.append(label)
                    continue
                files[moved % 4 // 2]["claim_labels"].append(
                    {"question_id": res["question_id"], "claim_id": claim.get("id", f"c{n}"),
                     "label": label}
                )
            claim["labels"] = kept
        facts = res.get("fact_labels", [])
        res["fact_labels"] = facts[::2]
        files[1]["fact_labels"].extend(
            {"question_id": res["question_id"], "label": label} for label in facts[1::2]
        )
    run.write_text("\n".join(json.dumps(x) for x in [header, *results]), "utf-8")
    paths = [out / "a.labels.json", out / "b.labels.json"]
    for path, data in zip(paths, files, strict=True):
        path.write_text(json.dumps(data), "utf-8")
    assert files[0]["claim_labels"] and files[1]["fact_labels"]
    return paths


@pytest.mark.parametrize(("seed", "policy"), [(7, "human-first"), (8, "judge"), (9, "human")])
def test_file_reader_reads_label_files_as_the_loader_does(
    tmp_path: Path, seed: int, policy: str
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 30, exotic=seed != 9)
    base = [str(evalset), "--snapshot", str(snapshot), "--run", str(run),
            "--label-policy", policy, "--allow-unreviewed"]
    (inline, _), _ = _both(base)
    labels = _move_labels(run, tmp_path)
    (loaded, loaded_err), (read, read_err) = _both(
        [*base, *(arg for path in labels for arg in ("--labels", str(path)))]
    )
    assert read == loaded
    assert read_err == loaded_err
    # The same scores and diagnoses as with the labels inline (the inputs differ: files read).
    assert json.loads(read)["runs"] == json.loads(inline)["runs"]
    # The file reader itself (no fallback to the loader) gives that result.
    options: dict[str, Any] = {"label_policy": policy, "allow_unreviewed": True}
    got = _native_eval._on_files(
        evalset, snapshot, [run], measures(None), labels=labels, label_policy=policy,
        allow_unreviewed=True, workers=1,
    )
    want = evaluate(load_dataset(evalset, snapshot=snapshot, runs=[run], labels=labels),
                    **options)
    assert dumps(evaluation_json(got)) == dumps(evaluation_json(want))
    assert [s.path for s in got.sources][-2:] == [str(path) for path in labels]


def test_file_reader_refuses_a_run_labelling_an_item_twice_but_takes_a_label_given_again(
    tmp_path: Path,
) -> None:
    # Every label of the run given again in a label file: the file reader itself takes it
    # (no fallback), as the loader does. One label of the run's own written twice in it: the
    # file reader falls back, and the loader names it for both readers.
    evalset, snapshot, run = write_dataset(tmp_path, 7, 30)
    lines = run.read_text(encoding="utf-8").splitlines()
    name, results = json.loads(lines[0])["name"], [json.loads(line) for line in lines[1:]]
    claims = [(res["question_id"], claim.get("id", f"c{n}"), label)
              for res in results for n, claim in enumerate(res.get("claims") or [], start=1)
              for label in claim["labels"]]
    labels = _labels_file(tmp_path / "again.labels.json", run=name, claim_labels=[
        {"question_id": qid, "claim_id": cid, "label": label} for qid, cid, label in claims
    ], fact_labels=[{"question_id": res["question_id"], "label": label}
                    for res in results for label in res.get("fact_labels", [])])
    options: dict[str, Any] = {"labels": [labels], "allow_unreviewed": True}
    got = _native_eval._on_files(evalset, snapshot, [run], measures(None), workers=1, **options)
    want = evaluate(load_dataset(evalset, snapshot=snapshot, runs=[run], labels=[labels]),
                    allow_unreviewed=True)
    assert dumps(evaluation_json(got)) == dumps(evaluation_json(want))

    def twice(header: dict[str, Any], results: list[dict[str, Any]]) -> None:
        res = next(r for r in results if r.get("claims"))
        res["claims"][0]["labels"].append(res["claims"][0]["labels"][0])

    _rewrite_run(run, twice)
    with pytest.raises(_Fallback, match="a claim labelled twice by one labeller"):
        _native_eval._on_files(evalset, snapshot, [run], measures(None), workers=1, **options)
    refused = [invoke(reader, ["evaluate", str(evalset), "--snapshot", str(snapshot), "--run",
                               str(run), "--allow-unreviewed"]) for reader in READERS]
    assert [out.exit_code for out in refused] == [2, 2]
    assert refused[1].stderr == refused[0].stderr
    assert refused[1].stderr.splitlines() == [
        "Error: 1 problem found in the input:",
        f"- {run}: question 'q8': claims[k0].labels: expected one label by each labeller for a "
        "claim; found labelled more than once by bo",
    ]


def _labels_file(path: Path, **fields: Any) -> Path:
    path.write_text(json.dumps({"schema_version": 1, "kind": "labels", **fields}), "utf-8")
    return path


@pytest.mark.parametrize(
    "fields",
    [
        {"run": "nope"},
        {"run": "baseline", "claim_labels": [
            {"question_id": "exact-code", "claim_id": "c99",
             "label": {"verdict": "supported", "labeller": {"kind": "human", "name": "ann"}}}]},
        {"run": "baseline", "fact_labels": [
            {"question_id": "no-such", "label": {
                "fact_id": "f1", "verdict": "covered", "labeller": {"kind": "human", "name": "a"}}}
        ]},
        {"run": "baseline", "fact_labels": [{"question_id": "exact-code", "label": {
            "fact_id": "f1", "verdict": "maybe", "labeller": {"kind": "human", "name": "a"}}}]},
    ],
)
def test_a_bad_label_file_is_reported_as_the_loader_reports_it(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    path = _labels_file(tmp_path / "bad.labels.json", **fields)
    outputs = [
        invoke(reader, ["evaluate", "--example", "--labels", str(path)]
        )
        for reader in READERS
    ]
    assert [out.exit_code for out in outputs] == [2, 2]
    assert outputs[1].stderr == outputs[0].stderr
    assert outputs[1].stderr.startswith("Error: 1 problem found in the input:\n")
    assert str(path) in outputs[1].stderr


def _rewrite_run(run: Path, change: Any) -> None:
    """Rewrite a JSONL run: `change(header, results)` edits them in place."""
    lines = run.read_text(encoding="utf-8").splitlines()
    header, results = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    change(header, results)
    run.write_text("\n".join(json.dumps(x) for x in [header, *results]), "utf-8")


@pytest.mark.parametrize("fmt", ["json", "markdown", "table"])
@pytest.mark.parametrize("seed", [10, 11])
def test_file_reader_lists_missing_results_as_the_loader_does(
    tmp_path: Path, seed: int, fmt: str
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 20)
    _rewrite_run(run, lambda header, results: results.__delitem__(slice(0, 7)))
    base = [str(evalset), "--snapshot", str(snapshot), "--run", str(run)]
    (loaded, loaded_err), (read, read_err) = _both([*base, "--allow-missing"], fmt)
    assert read == loaded
    assert read_err == loaded_err
    if fmt == "json":
        [found] = json.loads(read)["runs"]
        assert 0 < len(found["no_result"]) <= 7  # the holdout ones are left out
        assert not {q["id"] for q in found["questions"]} & set(found["no_result"])
    refused = [
        invoke(reader, ["evaluate", *base])
        for reader in READERS
    ]
    assert [r.exit_code for r in refused] == [2, 2]
    assert refused[1].stderr == refused[0].stderr


@pytest.mark.parametrize("seed", [12, 13])
def test_file_reader_self_labelling_as_the_loader(tmp_path: Path, seed: int) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 20)

    def judged_by_generator(header: dict[str, Any], results: list[dict[str, Any]]) -> None:
        header["provenance"]["generator"] = {"name": "judge-x"}

    _rewrite_run(run, judged_by_generator)
    base = [str(evalset), "--snapshot", str(snapshot), "--run", str(run)]
    refused = [
        invoke(reader, ["evaluate", *base])
        for reader in READERS
    ]
    assert [r.exit_code for r in refused] == [2, 2]
    assert refused[1].stderr == refused[0].stderr
    assert "claims.labels.labeller.name" in refused[1].stderr
    (loaded, loaded_err), (read, read_err) = _both([*base, "--accept-self-labelling"])
    assert read == loaded
    assert read_err == loaded_err
    [found] = json.loads(read)["runs"]
    assert found["summary"]["claim_support"]["self_labelled"] is True
    assert found["boundaries"]["self_labelled_metrics"]


def test_file_reader_calibration_as_the_loader(tmp_path: Path) -> None:
    from ragtriage.cli.calibrate import calibrate_command
    from ragtriage.example import example_paths
    from ragtriage.judges import LexicalJudge, judge_dataset, write_model

    paths = example_paths()
    dataset = load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    judged = judge_dataset(dataset, LexicalJudge())
    files = [write_model(r.labels, tmp_path / f"judge-{r.name}.json") for r in judged.runs]
    record = tmp_path / "calibration.json"
    made = CliRunner().invoke(
        calibrate_command,
        [*(a for f in files for a in ("--judge-labels", str(f))), str(paths.evalset),
         "--snapshot", str(paths.snapshot), *(a for r in paths.runs for a in ("--run", str(r))),
         "--record", str(record)],
    )
    assert made.exit_code == 0, made.output
    labels = [a for f in files for a in ("--labels", str(f))]
    for fmt in ("json", "markdown"):
        (loaded, _), (read, _) = _both(
            ["--example", *labels, "--label-policy", "judge", "--calibration", str(record)], fmt
        )
        assert read == loaded
        assert "judge-labelled, calibrated" in read


@pytest.mark.parametrize(
    "extra", [[], ["--tag", "multi-fact"], ["--include-holdout", "--ledger", "LEDGER"]]
)
def test_file_reader_html_page_is_the_loader_page(tmp_path: Path, extra: list[str]) -> None:
    extra = [str(tmp_path / "ledger.jsonl") if a == "LEDGER" else a for a in extra]
    pages = []
    for reader in READERS:
        page = tmp_path / f"{reader}.html"
        result = invoke(reader, ["evaluate", "--example", *extra, "--html", str(page),
                  "--output", str(tmp_path / f"{reader}.txt")]
        )
        assert result.exit_code == 0, result.output
        pages.append(page.read_bytes())
    assert pages[1] == pages[0]
    assert b"lumenq-support-v1" in pages[1]


@pytest.mark.parametrize(("seed", "jsonl"), [(10, True), (11, False), (12, True), (13, False)])
def test_the_file_reader_itself_takes_missing_results_and_self_labelling(
    tmp_path: Path, seed: int, jsonl: bool
) -> None:
    evalset, snapshot, run = write_dataset(tmp_path, seed, 20, jsonl=jsonl)
    data = json.loads(run.read_text("utf-8")) if not jsonl else None
    if data is not None:  # a JSON run: the same edits as `_rewrite_run`
        data["provenance"]["generator"] = {"name": "judge-x"}
        del data["results"][:7]
        run.write_text(json.dumps(data), "utf-8")
    else:
        def edit(header: dict[str, Any], results: list[dict[str, Any]]) -> None:
            header["provenance"]["generator"] = {"name": "judge-x"}
            del results[:7]

        _rewrite_run(run, edit)
    options: dict[str, Any] = {"accept_self_labelling": True, "allow_missing": True}
    got = _native_eval._on_files(  # no fallback to the loader here
        evalset, snapshot, [run], measures(None), workers=1, **options
    )
    want = evaluate(load_dataset(evalset, snapshot=snapshot, runs=[run]), **options)
    assert dumps(evaluation_json(got)) == dumps(evaluation_json(want))
    assert len(got.runs[0].no_result) == 7


def test_a_versions_file_closing_a_loop_with_the_snapshot_is_refused_by_both_readers(
    tmp_path: Path,
) -> None:
    # the example's snapshot says retention-v2 replaces retention-v1; the file says the reverse
    versions = tmp_path / "versions.json"
    versions.write_text(json.dumps({"retention-v1": {"supersedes": ["retention-v2"]}}), "utf-8")
    refused = [
        invoke(reader, ["evaluate", "--example", "--versions", str(versions)])
        for reader in READERS
    ]
    assert [r.exit_code for r in refused] == [2, 2]
    assert refused[0].stderr == refused[1].stderr == (
        "Error: 1 problem found in the input:\n"
        f"- {versions}: retention-v1.supersedes: expected no loop of supersession (a document "
        "cannot replace one that replaces it); found retention-v1 -> retention-v2 -> "
        "retention-v1\n"
    )


VERSIONS = {"log-export": {"version": "v3", "supersedes": ["key-rotation"]},
            "regions": {"status": "withdrawn"}}


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_file_reader_applies_a_versions_file_as_the_loader(tmp_path: Path, fmt: str) -> None:
    versions = tmp_path / "versions.json"
    versions.write_text(json.dumps(VERSIONS), "utf-8")
    (loaded, loaded_err), (read, read_err) = _both(
        ["--example", "--versions", str(versions)], fmt
    )
    assert read == loaded
    assert read_err == loaded_err
    (plain, _), _ = _both(["--example"], fmt)
    assert read != plain  # the file changes what is stale
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"no-such-doc": {"version": "v1"}}), "utf-8")
    refused = [
        invoke(reader, ["evaluate", "--example", "--versions", str(bad)]
        )
        for reader in READERS
    ]
    assert [r.exit_code for r in refused] == [2, 2]
    assert refused[1].stderr == refused[0].stderr
    assert f"- {bad}: no-such-doc: expected a document ID of the snapshot" in refused[1].stderr


def test_every_option_at_once(tmp_path: Path) -> None:
    """The dataset options of `evaluate` together (`--versions`, `--calibration`: tested on
    the example above): the same report from both readers."""
    evalset, snapshot, run = write_dataset(tmp_path, 14, 30)

    def edit(header: dict[str, Any], results: list[dict[str, Any]]) -> None:
        header["provenance"]["generator"] = {"name": "judge-x"}
        del results[:3]

    _rewrite_run(run, edit)
    labels = _move_labels(run, tmp_path)
    args = [str(evalset), "--snapshot", str(snapshot), "--run", str(run),
            *(a for path in labels for a in ("--labels", str(path))),
            "--label-policy", "judge", "--allow-unreviewed", "--allow-missing",
            "--accept-self-labelling", "--evidence-level", "chunk", "--tag", "a", "--tag", "b",
            "--split", "dev", "--split", "holdout", "--include-holdout", "--who", "w",
            "--ledger", str(tmp_path / "ledger.jsonl"), "--metric", "claim_support",
            "--metric", "ndcg@3"]
    (loaded, loaded_err), (read, read_err) = _both(args)
    assert read == loaded
    assert read_err == loaded_err
    assert _ids(read)[0]
    assert len(_entries(tmp_path / "ledger.jsonl")) == 2


def test_file_reader_html_page_with_missing_results(tmp_path: Path) -> None:
    """Two runs, the second without two results: the page (and its comparison) is the same."""
    from ragtriage.example import example_paths

    paths = example_paths()
    runs = []
    for n, source in enumerate(paths.runs):  # JSON documents
        data = json.loads(source.read_text("utf-8"))
        if n == 1:
            del data["results"][:2]
        run = tmp_path / source.name
        run.write_text(json.dumps(data), "utf-8")
        runs.append(run)
    base = [str(paths.evalset), "--snapshot", str(paths.snapshot),
            *(a for run in runs for a in ("--run", str(run))), "--allow-missing"]
    pages = []
    for reader in READERS:
        page = tmp_path / f"{reader}.html"
        result = invoke(reader, ["evaluate", *base, "--html", str(page),
                  "--output", str(tmp_path / f"{reader}.txt")]
        )
        assert result.exit_code == 0, result.output
        pages.append(page.read_bytes())
    assert pages[1] == pages[0]
    assert b"no result" in pages[1]


def _self_made_only_in_the_holdout(tmp_path: Path) -> list[str]:
    """A generated set whose generator's judge labels are all on holdout questions."""
    evalset, snapshot, run = write_dataset(tmp_path, 25, 12)
    questions = [json.loads(line) for line in evalset.read_text("utf-8").splitlines()[1:]]
    holdout = {q["id"] for q in questions if q.get("split") == "holdout"}

    def edit(header: dict[str, Any], results: list[dict[str, Any]]) -> None:
        header["provenance"]["generator"] = {"name": "judge-x"}
        for res in results:
            if res["question_id"] in holdout:
                continue
            # Ann's, one label of each claim and fact: a person labels an item once.
            for claim in res.get("claims") or []:
                del claim.get("labels", [])[1:]
            firsts: dict[str, Any] = {}
            for fact in res.get("fact_labels", []):
                firsts.setdefault(fact["fact_id"], fact)
            res["fact_labels"] = list(firsts.values())
            labels = [lab for c in res.get("claims") or [] for lab in c.get("labels", [])]
            for label in [*labels, *res["fact_labels"]]:
                label["labeller"] = {"kind": "human", "name": "ann"}

    _rewrite_run(run, edit)
    return [str(evalset), "--snapshot", str(snapshot), "--run", str(run),
            "--accept-self-labelling"]


@pytest.mark.parametrize("include", [False, True])
def test_self_labelling_in_the_holdout_counts_only_when_it_is_scored(
    tmp_path: Path, include: bool
) -> None:
    base = _self_made_only_in_the_holdout(tmp_path)
    extra = ["--include-holdout", "--ledger", str(tmp_path / "l.jsonl")] if include else []
    (loaded, _), (read, _) = _both([*base, *extra])
    assert read == loaded
    found = json.loads(read)["runs"][0]["boundaries"]["self_labelled_metrics"]
    assert found == (["fact_coverage", "claim_support"] if include else [])


@pytest.mark.parametrize("fallback", [False, True])
def test_evaluate_native_reads_self_labelling_from_the_input_filter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fallback: bool
) -> None:
    """`input_filter` (the holdout left out) on the file reader and on its fallback to the
    loader, which checks the whole input first (`load_and_evaluate`)."""
    from ragtriage.columnar import _trec, evaluate_native

    if fallback:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise _trec._Fallback("test")

        monkeypatch.setattr(_native_eval, "_on_files", refuse)
    base = _self_made_only_in_the_holdout(tmp_path)
    evalset, snapshot, run = Path(base[0]), Path(base[2]), Path(base[4])
    kept = evaluate_native(
        evalset, snapshot, [run], accept_self_labelling=True,
        input_filter=lambda q: q.split != "holdout", question_filter=lambda q: q.split != "holdout",
    )
    assert kept.runs[0].self_labelled == ()
    whole = evaluate_native(evalset, snapshot, [run], accept_self_labelling=True)
    assert whole.runs[0].self_labelled == ("fact_coverage", "claim_support")
    with pytest.raises(InputError) as caught:  # the whole input is checked either way
        evaluate_native(evalset, snapshot, [run], input_filter=lambda q: q.split != "holdout")
    fields = {problem.field for problem in caught.value.problems}
    assert fields == {"claims.labels.labeller.name"}  # one problem per question


def test_a_document_the_snapshot_supersedes_is_stale_as_when_a_versions_file_says_so(
    tmp_path: Path,
) -> None:
    # b2 replaces b1 and b1 states no status: superseded, whether the snapshot or a
    # versions file says b2 replaces it (docs/diagnosis.md); a1 states `current`: kept
    docs = [{"id": "a1", "text": "Retention is 30 days.", "status": "current"},
            {"id": "a2", "text": "Retention is 7 days.", "supersedes": ["a1"]},
            {"id": "b1", "text": "Export as CSV."}, {"id": "b2", "text": "Export as JSON."}]
    evalset = {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "questions": [
        {"id": q, "text": "?", "answerability": "answerable",
         "required_evidence": [{"any_of": [q[1] + "2"]}]} for q in ("qa", "qb")]}
    run = {"schema_version": 1, "kind": "run", "name": "r", "results": [
        {"question_id": q, "candidates": [{"id": q[1] + "1"}], "context": [{"id": q[1] + "1"}]}
        for q in ("qa", "qb")]}
    files = {}
    for name, doc_list in (("in_snapshot", [*docs[:3], {**docs[3], "supersedes": ["b1"]}]),
                           ("plain", docs)):
        snapshot = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s",
                    "documents": doc_list}
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(snapshot), "utf-8")
    (tmp_path / "e.json").write_text(json.dumps(evalset), "utf-8")
    (tmp_path / "r.json").write_text(json.dumps(run), "utf-8")
    versions = tmp_path / "v.json"
    versions.write_text(json.dumps({"b2": {"supersedes": ["b1"]}}), "utf-8")
    args = [str(tmp_path / "e.json"), "--run", str(tmp_path / "r.json")]
    reports = [
        _both([*args, "--snapshot", str(files["in_snapshot"])]),
        _both([*args, "--snapshot", str(files["plain"]), "--versions", str(versions)]),
    ]
    for (loaded, _), (read, _) in reports:
        assert read == loaded
        questions = json.loads(read)["runs"][0]["questions"]
        assert [q["stale_in_context"] for q in questions] == [False, True]
        summary = json.loads(read)["runs"][0]["summary"]["stale_in_candidates"]
        assert (summary["numerator"], summary["denominator"]) == (1, 2)


def test_a_versions_file_that_moves_a_supersession_frees_the_document_it_left(
    tmp_path: Path,
) -> None:
    # the snapshot's a2 replaces a1, whose status is unstated; the versions file says a2
    # replaces b1 instead: nothing replaces a1 any more, so it is current (docs/diagnosis.md)
    docs = [{"id": "a1", "text": "Retention is 30 days."},
            {"id": "a2", "text": "Retention is 7 days.", "supersedes": ["a1"]},
            {"id": "b1", "text": "Export as CSV."}]
    snapshot = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "s", "documents": docs}
    evalset = {"schema_version": 1, "kind": "evalset", "evalset_id": "e", "questions": [
        {"id": q, "text": "?", "answerability": "answerable",
         "required_evidence": [{"any_of": ["a2"]}]} for q in ("qa", "qb")]}
    run = {"schema_version": 1, "kind": "run", "name": "r", "results": [
        {"question_id": q, "candidates": [{"id": q[1] + "1"}], "context": [{"id": q[1] + "1"}]}
        for q in ("qa", "qb")]}
    for name, content in (("s", snapshot), ("e", evalset), ("r", run),
                          ("v", {"a2": {"supersedes": ["b1"]}})):
        (tmp_path / f"{name}.json").write_text(json.dumps(content), "utf-8")
    args = [str(tmp_path / "e.json"), "--snapshot", str(tmp_path / "s.json"), "--run",
            str(tmp_path / "r.json"), "--versions", str(tmp_path / "v.json")]
    (loaded, _), (read, _) = _both(args)
    assert read == loaded
    questions = json.loads(read)["runs"][0]["questions"]
    assert [q["stale_in_context"] for q in questions] == [False, True]
    assert [q["details"].get("stale_context") for q in questions] == [None, ["b1"]]
