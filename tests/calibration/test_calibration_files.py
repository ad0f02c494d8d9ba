"""`ragtriage calibrate` on label files: pairing, errors, JSON and table output."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import BinaryIO

import pytest
from click.testing import CliRunner

import ragtriage.loading._files
import ragtriage.loading._readers
from ragtriage.api import calibrate_labels
from ragtriage.calibration import calibrate_files
from ragtriage.cli.calibrate import calibrate_command
from ragtriage.columnar import evaluate
from ragtriage.errors import InputError
from ragtriage.judges import LexicalJudge, judge_dataset, write_model
from ragtriage.loading import load_dataset
from ragtriage.render import render_table
from ragtriage.schemas import (
    ClaimLabel,
    ClaimLabelEntry,
    FactLabel,
    FactLabelEntry,
    Labeller,
    LabelSet,
)


def _files(article_fixture: Path, folder: Path) -> tuple[list[Path], list[Path]]:
    """Lexical-baseline labels and the fixture's own human labels, as label files."""
    dataset = load_dataset(article_fixture)
    judged = judge_dataset(dataset, LexicalJudge())
    judge_files = [write_model(r.labels, folder / f"judge-{r.name}.json") for r in judged.runs]
    human_files = []
    for run in dataset.runs:
        labels = LabelSet(
            run=run.name,
            claim_labels=[
                ClaimLabelEntry(question_id=res.question_id, claim_id=c.id or "", label=lab)
                for res in run.results
                for c in res.claims or []
                for lab in c.labels
            ],
            fact_labels=[
                FactLabelEntry(question_id=res.question_id, label=lab)
                for res in run.results
                for lab in res.fact_labels
            ],
        )
        human_files.append(write_model(labels, folder / f"human-{run.name}.json"))
    return judge_files, human_files


def test_calibration_of_the_lexical_baseline_on_the_article_fixture(
    article_fixture: Path, tmp_path: Path
) -> None:
    judge_files, human_files = _files(article_fixture, tmp_path)
    cal = calibrate_files(judge_files, human_files)
    assert (cal.judge.name, cal.judge.prompt_version, cal.reviewers) == (
        "lexical-baseline",
        "lexical-v2",
        ("article-reviewer",),
    )
    assert cal.claims.matrix == ((7, 0, 0), (0, 1, 0), (0, 0, 0))
    assert (cal.claims.kappa, cal.claims.precision.value, cal.claims.recall.value) == (
        1.0,
        1.0,
        1.0,
    )
    # The article format has no fact text: the baseline cannot judge any fact, and says so.
    assert cal.facts.matrix == ((0, 0, 6), (0, 0, 2), (0, 0, 0))
    assert (cal.facts.judge_cannot_judge.numerator, cal.facts.judge_cannot_judge.denominator) == (
        8,
        8,
    )
    assert cal.facts.precision.value is None
    assert [(s.run, s.judge_only.numerator, s.judge_only.denominator) for s in cal.support] == [
        ("synthetic-baseline", 3, 4),
        ("synthetic-corrected", 4, 4),
    ]
    assert cal.support[0].ppi.estimate == pytest.approx(0.75)
    assert (cal.judge_only_items, cal.human_only_items) == (0, 0)


def test_cli_json_is_deterministic_and_complete(article_fixture: Path, tmp_path: Path) -> None:
    judge_files, human_files = _files(article_fixture, tmp_path)
    args = [a for f in judge_files for a in ("--judge-labels", str(f))]
    args += [a for f in human_files for a in ("--human-labels", str(f))]
    first = CliRunner().invoke(calibrate_command, [*args, "--format", "json"])
    second = CliRunner().invoke(calibrate_command, [*args, "--format", "json"])
    assert first.exit_code == 0, first.output
    assert first.output == second.output
    data = json.loads(first.output)
    assert sorted(data) == [
        "claim_support",
        "claims",
        "confidence",
        "facts",
        "human_only_items",
        "inputs",
        "judge",
        "judge_only_items",
        "kind",
        "reviewers",
        "schema_version",
    ]
    assert data["claims"]["confusion_matrix"] == {
        "columns": "judge",
        "rows": "human",
        "counts": [[7, 0, 0], [0, 1, 0], [0, 0, 0]],
    }
    assert data["claim_support"][0]["judge_only"] == {
        "denominator": 4,
        "numerator": 3,
        "value": 0.75,
        "note": "judge-labelled, uncalibrated",
    }
    table = CliRunner().invoke(calibrate_command, args)
    assert table.exit_code == 0, table.output
    assert table.output.splitlines()[0] == (
        "judge lexical-baseline (prompt lexical-v2, lexical, temperature None, seed None) "
        "against article-reviewer"
    )


def _write(path: Path, labels: LabelSet) -> Path:
    return write_model(labels, path)


def _claim(name: str, kind: str, verdict: str = "unsupported") -> ClaimLabelEntry:
    labeller = Labeller(kind=kind, name=name, prompt_version="v1" if kind == "judge" else None)  # type: ignore[arg-type]
    return ClaimLabelEntry(
        question_id="q1", claim_id="c1", label=ClaimLabel(verdict=verdict, labeller=labeller)
    )  # type: ignore[arg-type]


def test_wrong_kinds_and_several_judges_are_input_errors(tmp_path: Path) -> None:
    judges = _write(
        tmp_path / "j.json",
        LabelSet(
            run="r",
            claim_labels=[
                _claim("judge-a", "judge"),
                _claim("judge-b", "judge"),
                _claim("ana", "human"),
            ],
        ),
    )
    humans = _write(
        tmp_path / "h.json", LabelSet(run="r", claim_labels=[_claim("judge-a", "judge")])
    )
    with pytest.raises(InputError) as info:
        calibrate_files([judges], [humans])
    assert [p.message() for p in info.value.problems] == [
        f"{judges}: question 'q1': claim_labels.label.labeller.kind: expected judge labels only "
        "(this file was given as --judge-labels); found 'human'",
        f"{humans}: question 'q1': claim_labels.label.labeller.kind: expected human labels only "
        "(this file was given as --human-labels); found 'judge'",
        "<command line>: --judge-labels: expected labels of one judge (calibrate each alone); "
        "found 2 judges: judge-a (prompt v1), judge-b (prompt v1)",
        "<command line>: --human-labels: expected at least one human label; found none",
    ]


def test_two_judges_of_one_name_and_prompt_are_told_apart_by_their_spec(tmp_path: Path) -> None:
    # Judges that differ only in endpoint kind, temperature or seed are named with them;
    # before, the message named the same judge twice ("jm (prompt v1), jm (prompt v1)").
    def entry(question: str, seed: int) -> ClaimLabelEntry:
        judge = Labeller(kind="judge", name="jm", prompt_version="v1", endpoint_kind="vllm",
                         temperature=0.0, seed=seed)
        return ClaimLabelEntry(question_id=question, claim_id="c1",
                               label=ClaimLabel(verdict="unsupported", labeller=judge))

    judges = _write(tmp_path / "j.json", LabelSet(run="r", claim_labels=[
        entry("q1", 0), entry("q2", 1), _claim("judge-b", "judge")]))
    humans = _write(tmp_path / "h.json", LabelSet(run="r", claim_labels=[_claim("ana", "human")]))
    with pytest.raises(InputError) as info:
        calibrate_files([judges], [humans])
    assert [p.message() for p in info.value.problems] == [
        "<command line>: --judge-labels: expected labels of one judge (calibrate each alone); "
        "found 3 judges: jm (prompt v1, vllm, temperature 0.0, seed 0), "
        "jm (prompt v1, vllm, temperature 0.0, seed 1), judge-b (prompt v1)",
    ]


def test_a_labellers_prompt_version_is_checked_without_a_dataset(tmp_path: Path) -> None:
    # As `evaluate` refuses them (labeller_problems): a judge names its prompt version, a person
    # none; before, calibrate without DATASET took both, the human label counting as a person's.
    judge = Labeller(kind="judge", name="jm")
    mei = Labeller(kind="human", name="mei", prompt_version="v1")
    judges = _write(tmp_path / "j.json", LabelSet(run="r", claim_labels=[ClaimLabelEntry(
        question_id="q1", claim_id="c1", label=ClaimLabel(verdict="unsupported", labeller=judge),
    )]))
    humans = _write(tmp_path / "h.json", LabelSet(run="r", fact_labels=[FactLabelEntry(
        question_id="q2", label=FactLabel(fact_id="f1", verdict="covered", labeller=mei),
    )]))
    with pytest.raises(InputError) as info:
        calibrate_files([judges], [humans])
    assert [p.message() for p in info.value.problems] == [
        f"{judges}: question 'q1': claims[c1].labels.labeller.prompt_version: expected the "
        "judge's prompt version; found nothing",
        f"{humans}: question 'q2': fact_labels.labeller.prompt_version: expected none for a "
        "human labeller (a prompt version is a judge's: kind judge); found 'v1'",
    ]


def test_a_file_that_is_not_a_label_file(tmp_path: Path, article_fixture: Path) -> None:
    with pytest.raises(InputError) as info:
        calibrate_files([article_fixture], [tmp_path / "missing.json"])
    assert [p.message() for p in info.value.problems] == [
        f"{article_fixture}: kind: expected labels (a label file for --judge-labels); "
        "found 'article'",
        f"{tmp_path / 'missing.json'}: (file): expected an existing file; found no such file",
    ]


def test_evaluate_marks_judge_labelled_measures(article_fixture: Path, tmp_path: Path) -> None:
    judge_files, _ = _files(article_fixture, tmp_path)
    dataset = load_dataset(article_fixture, labels=judge_files)
    judged = evaluate(dataset, label_policy="judge", allow_unreviewed=True)
    humans = evaluate(dataset, label_policy="human")
    table = render_table(judged, width=300)
    support_row = next(line for line in table.splitlines() if "claim_support" in line)
    assert "judge-labelled, uncalibrated" in support_row
    assert "judge-labelled" not in render_table(humans)


def test_human_labels_embedded_in_a_dataset(article_fixture: Path, tmp_path: Path) -> None:
    judge_files, _ = _files(article_fixture, tmp_path)
    args = [a for f in judge_files for a in ("--judge-labels", str(f))]
    result = CliRunner().invoke(
        calibrate_command, [*args, str(article_fixture), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["reviewers"] == ["article-reviewer"]
    assert data["claims"]["items"] == 8 and data["facts"]["items"] == 8
    alone = CliRunner().invoke(calibrate_command, args)
    assert alone.exit_code == 2
    assert alone.output.endswith(
        "- <command line>: --human-labels: expected at least one human label; found none\n"
    )



def _reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The files parsed ("parse NAME") and hashed ("hash NAME") from now on."""
    reads: Counter[str] = Counter()
    read_json = ragtriage.loading._readers.read_json
    open_input = ragtriage.loading._files.open_input

    def parse(path: Path, shown: str) -> object:
        reads[f"parse {path.name}"] += 1
        return read_json(path, shown)

    def hashing(path: Path) -> BinaryIO:  # `file_sha256` opens each file it hashes with it
        reads[f"hash {path.name}"] += 1
        return open_input(path)

    monkeypatch.setattr(ragtriage.loading._readers, "read_json", parse)
    monkeypatch.setattr(ragtriage.loading._files, "open_input", hashing)
    return reads


def test_each_label_file_is_read_once(
    article_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each was parsed and hashed, then hashed again for the calibration's inputs.
    judge_files, human_files = _files(article_fixture, tmp_path)
    reads = _reads(monkeypatch)
    calibrate_files(judge_files, human_files)
    assert reads == {f"{how} {path.name}": 1 for path in [*judge_files, *human_files]
                     for how in ("parse", "hash")}


def test_each_label_file_is_read_once_with_a_dataset(
    article_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # load_dataset parsed and hashed each, then calibrate_files parsed and hashed it again,
    # and hashed it a third time for the calibration's inputs.
    judge_files, human_files = _files(article_fixture, tmp_path)
    reads = _reads(monkeypatch)
    cal = calibrate_labels(article_fixture, judge_labels=judge_files, human_labels=human_files)
    files = [article_fixture, *judge_files, *human_files]
    assert reads == {f"{how} {path.name}": 1 for path in files for how in ("parse", "hash")}
    assert [(role, source.path) for role, source in cal.inputs] == [
        *(("judge", str(path)) for path in judge_files),
        *(("human", str(path)) for path in human_files), ("human", str(article_fixture)),
    ]


def test_a_stale_label_is_left_out_as_evaluate_leaves_it_out(
    article_fixture: Path, tmp_path: Path
) -> None:
    judge_files, _ = _files(article_fixture, tmp_path)
    label = ClaimLabel(verdict="supported", supported_by=["retention-v2"],
                       labeller=Labeller(kind="human", name="cy"),
                       context_hash="sha256:" + "0" * 64)  # another context than the result's
    stale = _write(tmp_path / "stale.json", LabelSet(run="synthetic-baseline", claim_labels=[
        ClaimLabelEntry(question_id="missing-answer", claim_id="c1", label=label)
    ]))
    result = CliRunner().invoke(calibrate_command, [
        str(article_fixture), "--judge-labels", str(judge_files[0]), "--human-labels", str(stale),
        "--format", "json",
    ])
    assert (result.exit_code, result.stderr) == (
        0, "note: 1 stale label not used: made against another context than the result's now\n"
    )
    data = json.loads(result.stdout)
    assert data["reviewers"] == ["article-reviewer"]
    human = data["claim_support"][0]["human_only"]
    assert (human["estimate"], human["n_labelled"]) == (0.75, 4)
    assert data["claims"]["human_cannot_judge"]["numerator"] == 0


def test_humans_only_reads_every_human_label_of_the_run(tmp_path: Path) -> None:
    # The judge labelled q1-q3; humans labelled q1-q6 (q4-q6 unsupported).
    judge = [("q1", "supported"), ("q2", "supported"), ("q3", "unsupported")]
    human = [*judge, ("q4", "unsupported"), ("q5", "unsupported"), ("q6", "unsupported")]

    def labels(kind: str, items: list[tuple[str, str]]) -> LabelSet:
        labeller = Labeller(kind=kind, name="x", prompt_version="v1" if kind == "judge" else None)  # type: ignore[arg-type]
        return LabelSet(run="r1", claim_labels=[ClaimLabelEntry(
            question_id=q, claim_id="c1", label=ClaimLabel(
                verdict=v, supported_by=["d1"] if v == "supported" else [], labeller=labeller,
            ),  # type: ignore[arg-type]
        ) for q, v in items])

    cal = calibrate_files([_write(tmp_path / "j.json", labels("judge", judge))],
                          [_write(tmp_path / "h.json", labels("human", human))])
    humans = cal.support[0].human_only
    assert (humans.estimate, humans.n_labelled, cal.human_only_items) == (2 / 6, 6, 3)
    assert (cal.support[0].ppi.n_labelled, cal.support[0].ppi.n_unlabelled) == (3, 0)
    # Without unlabelled claims the estimate is the human mean on the judge's claims (the
    # documented population), not the humans-only column's 2/6.
    ppi = cal.support[0].ppi
    assert (ppi.estimate, ppi.low, ppi.high) == (
        2 / 3, 0.013345338486648761, 1.0)


@pytest.mark.parametrize("level", [1.0, 2, -1, 0.3, 0.0, float("nan"), True])
def test_the_api_refuses_the_confidence_the_command_line_refuses(
    level: float, tmp_path: Path
) -> None:
    with pytest.raises(InputError) as info:
        calibrate_labels(judge_labels=tmp_path / "j.json", human_labels=tmp_path / "h.json",
                         confidence=level)
    assert [p.message() for p in info.value.problems] == [
        f"<command line>: --confidence: expected a number from 0.5 to 0.999; found {level!r}"
    ]


def test_a_verdict_that_contradicts_supported_by_is_refused_as_evaluate_refuses_it(
    tmp_path: Path,
) -> None:
    judge = LabelSet(run="r", claim_labels=[_claim("judge-a", "judge")])
    ana = Labeller(kind="human", name="ana")
    human = LabelSet(run="r", claim_labels=[
        ClaimLabelEntry(question_id="q1", claim_id="c1",
                        label=ClaimLabel(verdict="supported", labeller=ana)),
        ClaimLabelEntry(question_id="q2", claim_id="c1", label=ClaimLabel(
            verdict="unsupported", supported_by=["d1", "d2"], labeller=ana)),
    ])
    files = [_write(tmp_path / "j.json", judge)], [_write(tmp_path / "h.json", human)]
    with pytest.raises(InputError) as info:
        calibrate_files(*files)
    assert [p.message() for p in info.value.problems] == [
        f"{files[1][0]}: question 'q1': claims[c1].supported_by: expected at least one "
        "supporting context ID for a supported claim; found none",
        f"{files[1][0]}: question 'q2': claims[c1].supported_by: expected no supporting IDs for "
        "a claim labelled unsupported; found d1, d2",
    ]


def test_a_long_run_name_folds_in_the_table_and_is_never_cut(
    article_fixture: Path, tmp_path: Path
) -> None:
    # the table cut a name too long for its column with an ellipsis: `run-xxxxxxxxxxxxxxxxx…`
    long = "run-" + "x" * 150 + "-end"
    judge_files, human_files = _files(article_fixture, tmp_path)
    for path in [*judge_files, *human_files]:
        path.write_text(path.read_text("utf-8").replace("synthetic-baseline", long), "utf-8")
    args = [a for f in judge_files for a in ("--judge-labels", str(f))]
    args += [a for f in human_files for a in ("--human-labels", str(f))]
    out = CliRunner().invoke(calibrate_command, args, env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    assert "…" not in out.output
    table = out.output.split("claim_support per run")[1].splitlines()
    first = "".join(line.split("│")[1].strip() for line in table if line.startswith("│"))
    assert first == long + "synthetic-corrected"


def test_a_reviewer_name_holding_a_comma_is_quoted_in_the_table(
    article_fixture: Path, tmp_path: Path
) -> None:
    # `against rev, alice` read as two reviewers, `rev` and `alice`
    judge_files, human_files = _files(article_fixture, tmp_path)
    for path in human_files:
        path.write_text(path.read_text("utf-8").replace("article-reviewer", "rev, alice"), "utf-8")
    args = [a for f in judge_files for a in ("--judge-labels", str(f))]
    args += [a for f in human_files for a in ("--human-labels", str(f))]
    out = CliRunner().invoke(calibrate_command, args, env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == (
        "judge lexical-baseline (prompt lexical-v2, lexical, temperature None, seed None) "
        "against 'rev, alice'"
    )
