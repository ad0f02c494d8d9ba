"""One set of metric names: canonical names and aliases, read from the registry by
`evaluate --metric`, gate policies and `trec-eval -m` alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import ragtriage
from ragtriage.cli import cli
from ragtriage.columnar import DEFAULT_TREC_MEASURES, parse_rank_measures
from ragtriage.errors import InputError
from ragtriage.example import example_paths
from ragtriage.metrics import (
    REGISTRY,
    MetricSpec,
    parse_measure,
    rank_measure_names,
    rank_specs,
    register,
)

RANK_NAMES = {
    "recall_candidates": ("recall", ("recall",)),
    "precision": ("precision", ("P",)),
    "hit_rate": ("hit_rate", ("success",)),
    "mrr": ("mrr", ("rr", "recip_rank")),
    "ndcg": ("ndcg", ()),
    "context_precision": ("ap", ("ap", "map")),
}
"""Per metric with a rank form: the name trec-eval reports it under, and its aliases."""


def test_the_rank_measures_are_these_registry_entries() -> None:
    assert {s.name: (s.rank.name if s.rank else None, s.aliases) for s in rank_specs()} == (
        RANK_NAMES
    )
    assert REGISTRY["recall_reranked"].rank is None


@pytest.mark.parametrize("name", sorted(RANK_NAMES))
def test_every_name_and_alias_parses_to_the_canonical_measure(name: str) -> None:
    spelled = [name, *RANK_NAMES[name][1]]
    for text in spelled + [n.upper() for n in spelled]:
        assert parse_measure(f"{text}@7").name == f"{name}@7"
        assert parse_measure(f"{text}@7", rank=True).name == f"{name}@7"
        (measure,) = parse_rank_measures([f"{text}@7"])
        assert (measure.label, measure.reference) == (f"{RANK_NAMES[name][0]}@7", name)


def test_trec_eval_refuses_a_registry_metric_without_a_rank_form() -> None:
    with pytest.raises(InputError) as exc:
        parse_rank_measures(["recall_reranked@5", "evidence_recall@5", "ndcg"])
    assert [p.message() for p in exc.value.problems] == [
        "<command line>: metric: expected one of recall@k, precision@k, hit_rate@k, mrr@k, "
        "ndcg@k, ap@k; found 'recall_reranked@5'",
        "<command line>: metric: expected one of recall@k, precision@k, hit_rate@k, mrr@k, "
        "ndcg@k, ap@k; found 'evidence_recall@5'",
        "<command line>: metric ndcg cut-off: expected @k, k an integer from 1 to 10000; "
        "found 'ndcg'",
    ]


def test_a_name_taken_twice_is_refused() -> None:
    taken = REGISTRY["ndcg"]
    for name, aliases in (("ndcg", ()), ("new_measure", ("MAP",)), ("new_measure", ("x", "x"))):
        with pytest.raises(ValueError, match="registered twice"):
            register(MetricSpec(**{**vars(taken), "name": name, "aliases": aliases}))
    assert "new_measure" not in REGISTRY


def test_trec_eval_help_lists_the_registry_names() -> None:
    assert rank_measure_names() == (
        "recall@k (recall_candidates@k), precision@k (P@k), hit_rate@k (success@k), "
        "mrr@k (rr@k, recip_rank@k), ndcg@k, ap@k (context_precision@k, map@k)"
    )
    result = CliRunner().invoke(cli, ["trec-eval", "--help"], terminal_width=1000)
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert f"Measure with cut-off: {rank_measure_names()}; repeatable" in text
    assert f"Default: {' '.join(DEFAULT_TREC_MEASURES)}." in text


def test_evaluate_and_gate_take_the_aliases(tmp_path: Path) -> None:
    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    canonical = run("evaluate", "--example", "--metric", "context_precision@3", "--format", "json")
    alias = run("evaluate", "--example", "--metric", "MAP@3", "--format", "json")
    assert alias == canonical
    assert '"context_precision@3"' in canonical
    policy = tmp_path / "policy.toml"
    policy.write_text('[[threshold]]\nmetric = "recall@5"\nmin = 0.1\n', encoding="utf-8")
    out = run("gate", "--example", "--candidate", "improved", "--policy", str(policy))
    assert "│ PASS    │ recall_candidates@5 >= 0.1 │ 1.000 (12/12, macro) │" in out


def test_a_single_metric_name_as_a_str_is_one_name() -> None:
    # evaluate(dataset, metrics="evidence_recall") read the name's characters as names and
    # refused the first, 'e'.
    paths = example_paths()
    dataset = ragtriage.load_dataset(paths.evalset, snapshot=paths.snapshot, runs=paths.runs)
    evaluation = ragtriage.evaluate(dataset, metrics="evidence_recall")  # type: ignore[arg-type]
    assert [m.name for m in evaluation.measures] == ["evidence_recall"]
