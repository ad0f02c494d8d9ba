"""trec-eval's averaging rules: ragtriage's default and trec_eval's two, against pytrec_eval.

pytrec_eval returns per-query values for the queries it averages over (run and qrels both
have them, queries without a relevant document included as 0); trec_eval's mean is the
plain mean of those, and `-c` divides the same sum by the number of qrels queries.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragtriage.cli import cli
from ragtriage.columnar import AVERAGING_RULES, QuestionPolicy, evaluate_trec
from ragtriage.formats import Qrels, TrecRun, write_qrels, write_run

MEASURES = {
    "recall@10": "recall_10",
    "precision@10": "P_10",
    "ndcg@10": "ndcg_cut_10",
    "ap@100": "map_cut_100",
}


def _case(seed: int) -> tuple[Qrels, TrecRun]:
    """120 qrels queries: 20 with no relevant document, 15 absent from the run; the run has
    10 queries the qrels do not judge. Scores are distinct integers (distinct in float32)."""
    rng = random.Random(seed)
    qrels: Qrels = {}
    run: TrecRun = {}
    for q in range(120):
        docs = rng.sample(range(300), 15)
        top = 0 if q < 20 else 3
        qrels[f"q{q}"] = {f"d{d}": rng.randint(0, top) for d in docs}
        if q >= 20:  # at least one relevant document
            qrels[f"q{q}"][f"d{docs[0]}"] = 1 + rng.randint(0, 2)
    for q in [*range(0, 105), *range(200, 210)]:
        ranked = rng.sample(range(300), rng.randint(1, 40))
        run[f"q{q}"] = [(f"d{d}", float(1000 - i * 3)) for i, d in enumerate(ranked)]
    return qrels, run


def _pytrec(qrels: Qrels, run: TrecRun) -> dict[str, dict[str, float]]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    measures = {"recall.10", "P.10", "ndcg_cut.10", "map_cut.100"}
    as_dict = {q: dict(items) for q, items in run.items()}
    out: dict[str, dict[str, float]] = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(
        as_dict
    )
    top10 = {q: dict(items[:10]) for q, items in run.items()}
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    for q, values in rr.items():
        out[q]["recip_rank"] = values["recip_rank"]
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_trec_eval_averaging_reproduces_pytrec_eval(tmp_path: Path, seed: int) -> None:
    qrels, run = _case(seed)
    write_qrels(qrels, tmp_path / "q.qrels")
    write_run(run, tmp_path / "r.run")
    theirs = _pytrec(qrels, run)
    assert len(theirs) == 105  # run and qrels both: the 20 without relevant documents included
    measures = {**MEASURES, "mrr@10": "recip_rank"}
    default = evaluate_trec(
        tmp_path / "q.qrels", tmp_path / "r.run", metrics=list(measures), averaging="trec_eval"
    )
    complete = evaluate_trec(
        tmp_path / "q.qrels", tmp_path / "r.run", metrics=list(measures), averaging="trec_eval-c"
    )
    ours = evaluate_trec(
        tmp_path / "q.qrels",
        tmp_path / "r.run",
        metrics=list(measures),
        averaging="relevant",
        policy=QuestionPolicy(allow_missing=True, allow_extra=True),
    )
    assert default.missing == tuple(sorted(f"q{q}" for q in range(105, 120)))
    assert default.skipped == tuple(sorted(f"q{q}" for q in range(200, 210)))
    for label, key in measures.items():
        total = math.fsum(values[key] for values in theirs.values())
        trec = default.scores.summary[label]
        assert (trec.value, trec.numerator, trec.denominator) == (total / 105, total, 105)
        assert trec.not_applicable == 15  # the qrels questions without a ranking, left out
        minus_c = complete.scores.summary[label]
        assert (minus_c.value, minus_c.denominator, minus_c.not_applicable) == (
            total / 120,
            120,
            0,
        )
        relevant = ours.scores.summary[label]
        assert relevant.denominator == 100  # 120 qrels questions minus the 20 without any
        assert relevant.not_applicable == 20


def test_every_output_names_the_averaging_rule(tmp_path: Path) -> None:
    qrels, run = _case(3)
    write_qrels(qrels, tmp_path / "q.qrels")
    write_run(run, tmp_path / "r.run")
    runner = CliRunner()
    args = ["trec-eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), "-m", "ndcg@10"]
    table = runner.invoke(cli, [*args, "--averaging", "trec_eval-c"])
    assert table.exit_code == 0, table.output
    assert f"Averaging (trec_eval-c): {AVERAGING_RULES['trec_eval-c']}.\n" in table.output
    assert "15 qrels questions had no ranking and count 0.\n" in table.output
    plain = runner.invoke(cli, [*args, "--format", "json", "--allow-missing", "--allow-extra"])
    data = json.loads(plain.output)
    assert data["options"]["averaging"] == "relevant"
    assert data["metrics"][0]["averaging_rule"] == (
        "macro over questions with at least one relevant document; a question without one"
        " is not applicable (ragtriage)"
    )
    trec = json.loads(
        runner.invoke(cli, [*args, "--format", "json", "--averaging", "trec_eval"]).output
    )
    assert trec["options"]["averaging"] == "trec_eval"
    assert trec["summary"]["ndcg@10"]["denominator"] == 105
    assert trec["summary"]["ndcg@10"]["not_applicable"] == 15


def test_strict_default_still_refuses_missing_questions(tmp_path: Path) -> None:
    qrels, run = _case(4)
    write_qrels(qrels, tmp_path / "q.qrels")
    write_run(run, tmp_path / "r.run")
    result = CliRunner().invoke(
        cli, ["trec-eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run")]
    )
    assert result.exit_code == 2
    assert "q105" in result.output


def test_comment_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    """trec_eval 10.0 skips lines starting with `#`; so do both readers, and the report
    counts them. A comment with exactly six fields must not be read as a ranking line."""
    qrels_text = "# judged by hand\nq1 0 a 1\nq1 0 b 0\n#q2 0 a 1\nq2 0 c 2\n"
    run_text = (
        "# run: bm25 k1=0.9\n"
        "#x Q0 a 1 9.0 tag\n"
        "q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\n   # indented comment\nq2 Q0 c 1 1.0 t\n"
    )
    (tmp_path / "q.qrels").write_text(qrels_text, encoding="utf-8")
    (tmp_path / "r.run").write_text(run_text, encoding="utf-8")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "q.qrels").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n", encoding="utf-8")
    (plain / "r.run").write_text("q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq2 Q0 c 1 1.0 t\n")
    result = evaluate_trec(tmp_path / "q.qrels", tmp_path / "r.run", metrics=["ndcg@10"])
    reference = evaluate_trec(plain / "q.qrels", plain / "r.run", metrics=["ndcg@10"])
    assert result.comment_lines == (2, 3)
    assert result.scores.summary == reference.scores.summary
    assert reference.comment_lines == (0, 0)
    runner = CliRunner()
    args = ["trec-eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run")]
    table = runner.invoke(cli, args)
    assert "Comment lines skipped: 2 in the qrels, 3 in the run.\n" in table.output
    data = json.loads(runner.invoke(cli, [*args, "--format", "json"]).output)
    assert data["comment_lines"] == {"qrels": 2, "run": 3}


def test_hex_float_scores_stay_refused(tmp_path: Path) -> None:
    (tmp_path / "q.qrels").write_text("q1 0 a 1\n", encoding="utf-8")
    (tmp_path / "r.run").write_text("q1 Q0 a 1 0x1p-3 t\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["trec-eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run")]
    )
    assert result.exit_code == 2
    assert "line 1: score" in result.output
    assert "'0x1p-3'" in result.output


def test_every_averaging_rule_is_defined_in_words() -> None:
    # The command line's choices and the library's check are the Literal's; the report's
    # definition of each rule is AVERAGING_RULES'.
    from typing import get_args

    from ragtriage.columnar import AveragingRule

    assert tuple(AVERAGING_RULES) == get_args(AveragingRule)


@pytest.mark.parametrize(
    ("averaging", "missing"),
    [
        ("relevant", "1 qrels question had no ranking and was scored as empty.\n"),
        ("trec_eval", "1 qrels question had no ranking and was left out of the averages.\n"),
        ("trec_eval-c", "1 qrels question had no ranking and counts 0.\n"),
    ],
)
def test_table_notes_agree_with_one_question(
    tmp_path: Path, averaging: str, missing: str
) -> None:
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d1 1\n", encoding="utf-8")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2.0 r\nq3 Q0 d1 1 1.0 r\n", encoding="utf-8")
    args = ["trec-eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), "-m", "ndcg@10"]
    table = CliRunner().invoke(
        cli, [*args, "--allow-missing", "--allow-extra", "--averaging", averaging]
    )
    assert table.exit_code == 0, table.output
    assert missing in table.output
    assert "1 run question without judgements was skipped.\n" in table.output
