"""TREC files scored as arrays (`load_trec`, `score_arrays`) give exactly the numbers of the
engine's `evaluate` on the same data as a `Dataset` of models (and pytrec_eval's)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ragtriage.columnar import (
    QuestionPolicy,
    arrays_from_dicts,
    evaluate,
    load_trec,
    parse_rank_measures,
    score_arrays,
)
from ragtriage.executors import LocalExecutor
from ragtriage.formats import (
    Qrels,
    TrecRun,
    qrels_to_evalset,
    ranking_key,
    run_to_native,
    snapshot_for,
    write_qrels,
    write_run,
)
from ragtriage.loading import Dataset, SourceFile
from ragtriage.schemas import QuestionResult

KS = (1, 3, 10)
NAMES = ("recall", "precision", "hit_rate", "mrr", "ndcg", "ap")
MEASURES = parse_rank_measures(f"{name}@{k}" for name in NAMES for k in KS)

# IDs up to 12 bytes exercise both exact 8-byte keys and hashed longer keys; 'é' checks
# that ties break on UTF-8 bytes.
ids = st.text(alphabet="abXY09_-é", min_size=1, max_size=12)
doc_pool = st.lists(ids, min_size=1, max_size=25, unique=True)


@st.composite
def trec_case(draw: st.DrawFn) -> tuple[Qrels, TrecRun]:
    docs = draw(doc_pool)
    questions = draw(st.lists(ids, min_size=1, max_size=6, unique=True))
    qrels: Qrels = {}
    run: TrecRun = {}
    for qid in questions:
        in_qrels = draw(st.booleans()) or qid == questions[0]
        if in_qrels:
            judged = draw(st.lists(st.sampled_from(docs), max_size=8, unique=True))
            # a question with only 0 grades has no relevant document: not applicable
            qrels[qid] = {d: draw(st.integers(0, 3)) for d in judged} or {docs[0]: 0}
        if draw(st.booleans()) or not in_qrels:
            ranked = draw(st.lists(st.sampled_from(docs), max_size=15, unique=True))
            # few distinct scores, so ties are common and the tie rule matters
            if ranked:  # a file cannot hold an empty ranking: the question is just absent
                run[qid] = [(d, float(draw(st.integers(0, 4)))) for d in ranked]
    return qrels, run


def dataset_scores(qrels: Qrels, run: TrecRun) -> dict[str, dict[str, float | None]]:
    """Per measure label, per question: `evaluate`'s values on the data as a native `Dataset`
    (each rank measure by its registry name, `m.reference`)."""
    judged_run = {q: sorted(v, key=ranking_key, reverse=True) for q, v in run.items() if q in qrels}
    native = run_to_native(judged_run, "r")
    empty = [QuestionResult(question_id=q) for q in sorted(qrels) if q not in judged_run]
    native = native.model_copy(update={"results": [*native.results, *empty]})
    dataset = Dataset(
        snapshot=snapshot_for(qrels, run),
        evalset=qrels_to_evalset(qrels),
        runs=(native,),
        sources=(SourceFile("<memory>", "evalset", ""),),
    )
    out: dict[str, dict[str, float | None]] = {}
    for k in KS:
        names = [f"{m.reference}@{k}" for m in MEASURES if m.k == k]
        result = evaluate(dataset, k=k, metrics=names).runs[0]
        for m in MEASURES:
            if m.k != k:
                continue
            ref = f"{m.reference}@{k}"
            out[m.label] = {
                rec.question_id: (None if rec.scores[ref] is None else rec.scores[ref].value)  # type: ignore[union-attr]
                for rec in result.questions
            }
            out[m.label + ":summary"] = {"value": result.summary[ref].value}
    return out


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=trec_case())
def test_trec_arrays_equal_evaluate_on_the_dataset(
    case: tuple[Qrels, TrecRun], tmp_path: Path
) -> None:
    qrels, run = case
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    loaded = load_trec(
        tmp_path / "q.txt",
        tmp_path / "r.txt",
        depth=max(KS),
        policy=QuestionPolicy(allow_missing=True, allow_extra=True),
    )
    scores = score_arrays(loaded.arrays, MEASURES)
    expected = dataset_scores(qrels, run)
    for m in MEASURES:
        got = dict(zip(scores.question_ids, scores.per_question[m.label].values(), strict=True))
        assert got == expected[m.label], m.label
        assert scores.summary[m.label].value == expected[m.label + ":summary"]["value"], m.label
    assert loaded.missing == tuple(sorted(q for q in qrels if q not in run))
    assert loaded.skipped == tuple(sorted(q for q in run if q not in qrels))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=trec_case())
def test_file_reader_equals_dict_builder(case: tuple[Qrels, TrecRun], tmp_path: Path) -> None:
    qrels, run = case
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    policy = QuestionPolicy(allow_missing=True, allow_extra=True)
    loaded = load_trec(tmp_path / "q.txt", tmp_path / "r.txt", depth=10, policy=policy).arrays
    built = arrays_from_dicts(qrels, run, 10)
    assert loaded.question_ids == built.question_ids
    for field in ("grades", "lengths", "n_relevant", "ideal"):
        assert (getattr(loaded, field) == getattr(built, field)).all(), field


class ThreeShards(LocalExecutor):
    """Local, but cut into three shards, as a cluster would."""

    def shard_count(self, items: int) -> int:
        return 3


def _random_case(seed: int, questions: int) -> tuple[Qrels, TrecRun]:
    rng = random.Random(seed)
    qrels: Qrels = {}
    run: TrecRun = {}
    for q in range(questions):
        qid = f"q{q}"
        docs = rng.sample(range(1000), 30)
        qrels[qid] = {f"d{d}": rng.randint(1, 3) for d in docs[:4]}
        run[qid] = [(f"d{d}", rng.random()) for d in docs[1:25]]
    return qrels, run


def test_sharding_does_not_change_a_bit() -> None:
    qrels, run = _random_case(3, 50)
    arrays = arrays_from_dicts(qrels, run, 10)
    one = score_arrays(arrays, MEASURES, LocalExecutor())
    three = score_arrays(arrays, MEASURES, ThreeShards())
    for m in MEASURES:
        assert one.summary[m.label] == three.summary[m.label]
        assert one.per_question[m.label].values() == three.per_question[m.label].values()


def test_agrees_with_pytrec_eval_bit_for_bit(tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_case(7, 200)
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    measures = parse_rank_measures(["recall@10", "precision@10", "ndcg@10", "ap@20", "mrr@10"])
    loaded = load_trec(tmp_path / "q.txt", tmp_path / "r.txt", depth=20)
    assert loaded.fast_path
    scores = score_arrays(loaded.arrays, measures)
    as_dict = {q: dict(items) for q, items in run.items()}
    top10 = {q: dict(sorted(items, key=ranking_key, reverse=True)[:10]) for q, items in run.items()}
    names = {"recall_10", "P_10", "ndcg_cut_10", "map_cut_20"}
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"recall.10", "P.10", "ndcg_cut.10", "map_cut.20"}
    ).evaluate(as_dict)
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
    pairs = dict(
        zip(
            ("recall@10", "precision@10", "ndcg@10", "ap@20"),
            sorted(names, key=["recall_10", "P_10", "ndcg_cut_10", "map_cut_20"].index),
            strict=True,
        )
    )
    for label, key in pairs.items():
        ours = dict(zip(scores.question_ids, scores.per_question[label].values(), strict=True))
        assert ours == {q: theirs[q][key] for q in theirs}, label
    ours_rr = dict(zip(scores.question_ids, scores.per_question["mrr@10"].values(), strict=True))
    assert ours_rr == {q: rr[q]["recip_rank"] for q in rr}


def test_hand_computed_values(tmp_path: Path) -> None:
    # relevant: a (grade 2), c (grade 1), z (grade 1, never retrieved); ranking: a, b, c
    qrels: Qrels = {"q1": {"a": 2, "c": 1, "z": 1, "b": 0}, "q2": {"x": 0}}
    run: TrecRun = {"q1": [("a", 3.0), ("b", 2.0), ("c", 1.0)], "q2": [("x", 1.0)]}
    arrays = arrays_from_dicts(qrels, run, 3)
    got = score_arrays(
        arrays,
        parse_rank_measures(["recall@3", "precision@3", "mrr@3", "ap@3", "ndcg@3", "hit_rate@1"]),
    )
    values = {label: pq.values() for label, pq in got.per_question.items()}
    assert values["recall@3"] == [2 / 3, None]
    assert values["precision@3"] == [2 / 3, None]
    assert values["mrr@3"] == [1.0, None]
    assert values["ap@3"] == [(1 / 1 + 2 / 3) / 3, None]
    dcg = 2 / math.log2(2) + 1 / math.log2(4)
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert values["ndcg@3"] == [dcg / ideal, None]
    assert values["hit_rate@1"] == [1.0, None]
    summary = got.summary["recall@3"]
    assert (summary.value, summary.numerator, summary.denominator, summary.not_applicable) == (
        2 / 3,
        2 / 3,
        1,
        1,
    )


@pytest.mark.parametrize("block_bytes", [64, 200, 1 << 20])
def test_batch_boundaries_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_bytes: int
) -> None:
    import ragtriage.columnar._sources as sources

    qrels, run = _random_case(5, 30)
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    monkeypatch.setattr(sources, "_BLOCK_BYTES", block_bytes)
    loaded = load_trec(tmp_path / "q.txt", tmp_path / "r.txt", depth=10)
    assert loaded.fast_path
    built = arrays_from_dicts(qrels, run, 10)
    assert (loaded.arrays.grades == built.grades).all()
    assert (loaded.arrays.lengths == built.lengths).all()


def test_qrels_lines_in_any_order_stay_on_the_fast_path(tmp_path: Path) -> None:
    # The qrels reader groups runs of equal question IDs; a question's judgements may be
    # scattered over the file (only the run's lines must be contiguous).
    qrels, run = _random_case(11, 6)
    lines = [f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()]
    random.Random(2).shuffle(lines)
    (tmp_path / "q.txt").write_text("".join(lines), encoding="utf-8")
    write_run(run, tmp_path / "r.txt")
    loaded = load_trec(tmp_path / "q.txt", tmp_path / "r.txt", depth=10)
    assert loaded.fast_path
    built = arrays_from_dicts(qrels, run, 10)
    assert loaded.arrays.question_ids == built.question_ids == tuple(sorted(qrels))
    assert loaded.arrays.grades.tolist() == built.grades.tolist()
    assert loaded.arrays.ideal.tolist() == built.ideal.tolist()
    assert loaded.arrays.n_relevant.tolist() == [4] * 6


def test_interleaved_questions_use_the_line_reader_with_the_same_result(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq2 0 b 1\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text(
        "q1 Q0 a 1 2 t\nq2 Q0 b 1 2 t\nq1 Q0 c 2 1 t\n", encoding="utf-8"
    )
    loaded = load_trec(tmp_path / "q.txt", tmp_path / "r.txt", depth=3)
    assert not loaded.fast_path
    assert loaded.arrays.grades.tolist() == [[1, 0], [1, 0]]
    assert loaded.arrays.lengths.tolist() == [2, 1]


def test_tie_rule_is_trec_evals(tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(5)
    qrels: Qrels = {
        f"q{q}": {f"d{d}": rng.randint(0, 3) for d in rng.sample(range(60), 10)}
        for q in range(300)
    }
    # four distinct scores for 30 documents: nearly every rank is a tie
    run: TrecRun = {
        f"q{q}": [(f"d{d}", float(rng.randint(0, 3))) for d in rng.sample(range(60), 30)]
        for q in range(300)
    }
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    loaded = load_trec(tmp_path / "q.txt", tmp_path / "r.txt", depth=30)
    assert loaded.fast_path
    ours = score_arrays(loaded.arrays, parse_rank_measures(["precision@5", "ndcg@5", "ap@30"]))
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "ndcg_cut.5", "map_cut.30"}).evaluate(
        {q: dict(items) for q, items in run.items()}
    )
    compared = 0
    for label, key in (("precision@5", "P_5"), ("ndcg@5", "ndcg_cut_5"), ("ap@30", "map_cut_30")):
        values = dict(zip(ours.question_ids, ours.per_question[label].values(), strict=True))
        for qid, value in values.items():
            if value is not None:  # trec_eval scores a question without relevant documents 0
                assert value == theirs[qid][key], (label, qid)
                compared += 1
    assert compared > 800
