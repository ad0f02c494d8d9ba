"""TREC qrels and runs <-> native files, on top of `formats.trec_files` (the one parser)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from sys import intern

from ..errors import InputError, Problem, ProblemCollector, found_text, option_problem
from ..formats.trec_files import (
    TrecRun,
    first_line_problem,
    nothing_to_read,
    parse_qrels,
    parse_run,
    qrels_to_evalset,
    ranking_key,
    read_through,
    run_to_native,
    snapshot_for,
    write_qrels,
    write_run,
)
from ..formats.trec_records import FIRST_TOKEN, TOKEN, is_token
from ..paths import PathArg, as_optional_path, as_path, as_paths
from ..schemas import (
    IDENTIFIER_EXPECTED,
    EvalSet,
    Provenance,
    Question,
    QuestionResult,
    Run,
    Snapshot,
    plain_ids,
)
from ..validation import check_known_questions, check_repeats


@dataclass(frozen=True)
class ImportedTrec:
    """Native files made from TREC qrels and runs."""

    snapshot: Snapshot
    """The given snapshot, or a text-less one holding every document ID mentioned."""
    evalset: EvalSet
    """One question per qrels topic; each relevant document is one evidence group."""
    runs: tuple[Run, ...]
    """One retrieval-only run per run file, named by the file's stem."""
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Each run (by name) that ranks questions the qrels do not judge, with those questions:
    left out of it (`allow_extra`)."""


QuestionQrels = tuple[str, dict[str, int]]
"""A question's ID and its qrels: each required document's grade (`question_qrels`)."""
ResultRanking = tuple[str, list[tuple[str, float]]]
"""A result's question ID and its final ranking with scores (`result_ranking`)."""


def import_trec(
    qrels: PathArg,
    runs: Sequence[PathArg] = (),
    *,
    snapshot: Snapshot | None = None,
    dataset_id: str = "trec",
    allow_extra: bool = False,
) -> ImportedTrec:
    """Read qrels and runs; raise `InputError` with every problem of every file.

    A run question the qrels do not judge is a problem (the evaluation set holds the qrels'
    questions only), or with `allow_extra` left out of its run (as `trec-eval --allow-extra`
    leaves it unscored), and listed in `extra`."""
    qrels = as_path(qrels)
    runs = as_paths(runs)
    collector = ProblemCollector()
    comments: list[int] = []
    before = len(collector.problems)
    judged_ids: set[str] = set()  # every qrels line's question, valid or not
    judged = parse_qrels(qrels, collector, seen=judged_ids, comments=comments)
    if not judged and len(collector.problems) == before:
        empty = first_line_problem(qrels, "qrels")  # read again: blank lines, or no byte
        collector.extend([empty or nothing_to_read(str(qrels), "qrels", len(comments))])
    known = judged_ids if read_through(collector.problems) else set()  # else: unknown
    parsed: list[tuple[Path, TrecRun]] = []
    extra: list[tuple[str, tuple[str, ...]]] = []
    for path in runs:
        comments, before = [], len(collector.problems)
        ranked = parse_run(path, collector, None, comments)
        if not ranked and len(collector.problems) == before:
            empty = first_line_problem(path, "run")
            collector.extend([empty or nothing_to_read(str(path), "run", len(comments))])
        unjudged = sorted(set(ranked) - known) if known else []
        if unjudged and allow_extra:
            extra.append((path.stem, tuple(unjudged)))
            ranked = {qid: items for qid, items in ranked.items() if qid in known}
        for qid in () if allow_extra else unjudged:
            # the evaluation set holds the qrels' questions only: `evaluate` would refuse it
            expected = (
                "a question the qrels judge (the evaluation set holds only those; "
                "--allow-extra leaves the others out)"
            )
            collector.add(str(path), qid, "question ID", expected, "not in the qrels")
        parsed.append((path, ranked))
    # the documents each file names, per question: the qrels first, then each run
    named = [(qrels, {qid: set(docs) for qid, docs in judged.items()})]
    for path, ranked in parsed:
        named.append((path, {qid: {d for d, _ in items} for qid, items in ranked.items()}))
    for path, docs_of in named:
        collector.extend(_held_ids(path, docs_of))
    collector.raise_if_any()
    merged: TrecRun = {}
    for _, ranked in parsed:
        for qid, items in ranked.items():
            merged.setdefault(qid, []).extend(items)
    snap = snapshot if snapshot is not None else snapshot_for(judged, merged, dataset_id)
    if snapshot is not None:
        known = {doc.id for doc in snapshot.documents} | {ch.id for ch in snapshot.chunks}
        problems = [
            Problem(str(path), qid, "document ID", "an ID of the given snapshot", repr(docid))
            for path, docs_of in named
            for qid, docs in sorted(docs_of.items())
            for docid in sorted(docs - known)
        ]
        if problems:
            raise InputError(problems)
    evalset = qrels_to_evalset(judged, dataset_id, snap.snapshot_id)
    names = [path.stem for path in runs]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        expected = "run files with distinct names"
        raise InputError(
            [option_problem("--trec-run", expected, f"{name!r} more than once") for name in clashes]
        )
    native = tuple(
        Run(
            name=path.stem,
            provenance=Provenance(
                snapshot_id=snap.snapshot_id,
                evalset_id=dataset_id,
                notes=f"imported from TREC run {path.name}",
            ),
            results=run_to_native(ranked, name=path.stem).results,
        )
        for path, ranked in parsed
    )
    return ImportedTrec(snap, evalset, native, tuple(extra))


def _held_ids(path: Path, named: Mapping[str, set[str]]) -> list[Problem]:
    """The question and document IDs of a TREC file that native files cannot hold (a control
    character: `schemas.Identifier`), each distinct one once."""
    problems = []
    for qid, documents in sorted(named.items()):
        if not plain_ids((qid,)):
            problems.append(
                Problem(str(path), qid, "question ID", IDENTIFIER_EXPECTED, found_text(qid))
            )
        problems.extend(
            Problem(str(path), qid, "document ID", IDENTIFIER_EXPECTED, found_text(document))
            for document in sorted(documents)
            if not plain_ids((document,))
        )
    return problems


def export_trec(
    questions: Sequence[QuestionQrels] | None,
    results: Sequence[ResultRanking] | None,
    *,
    qrels_path: PathArg | None,
    run_path: PathArg | None,
    tag: str | None = None,
    run_name: str = "ragtriage",
    evalset_file: str = "evalset",
    run_file: str = "run",
    before_writing: Callable[[], object] = lambda: None,
) -> tuple[str, ...]:
    """Write TREC qrels (from an evaluation set's `questions`, `question_qrels` of each) and/or
    a TREC run (from a native run's `results`, `result_ranking` of each, tagged `tag` or
    `run_name`); return the IDs of the questions the qrels leave out (without required
    evidence: qrels list only relevant documents).

    Raises `InputError`, before writing anything, for every ID a TREC file cannot hold
    (`is_token`), naming `evalset_file` or `run_file`, and for a `tag` it cannot hold;
    `before_writing` is called once they are checked (a look at the holdout is recorded).
    """
    qrels_path = as_optional_path(qrels_path)
    run_path = as_optional_path(run_path)
    qrels = _merged(questions) if questions is not None and qrels_path is not None else None
    ranked = dict(results) if results is not None and run_path is not None else None
    collector = ProblemCollector()
    # A TREC file holds one entry per question: a repeated one would be merged silently.
    if questions is not None and qrels is not None:
        check_repeats(collector.add, evalset_file, (qid for qid, _ in questions), False)
    if results is not None and ranked is not None:
        check_repeats(collector.add, run_file, (qid for qid, _ in results), True)
    for qid, judged in (qrels or {}).items():
        _check_ids(collector, evalset_file, qid, "id", "required_evidence", judged)
    for qid, ranking in (ranked or {}).items():
        _check_ids(collector, run_file, qid, "question_id", "ranking", [d for d, _ in ranking])
    if questions is not None and ranked is not None:
        # A result of no question of the set would be written as a line of no qrels question.
        known = {qid for qid, _ in questions}
        check_known_questions(collector.add, run_file, known, ranked.keys())
    if tag is not None and not is_token(tag):
        collector.extend([option_problem("--run-tag", TOKEN, repr(tag))])
    collector.raise_if_any()
    before_writing()
    if qrels is not None and qrels_path is not None:
        write_qrels(qrels, qrels_path)
    if ranked is not None and run_path is not None:
        tag = tag or "".join(ch if not ch.isspace() else "_" for ch in run_name)
        write_run(ranked, run_path, tag=tag)
    if qrels is None or questions is None:
        return ()
    return tuple(qid for qid, _ in questions if qid not in qrels)


def _merged(questions: Sequence[QuestionQrels]) -> dict[str, dict[str, int]]:
    """The qrels of the questions with required evidence, a repeated question's merged (each
    document's highest grade)."""
    qrels: dict[str, dict[str, int]] = {}
    for qid, judged in questions:
        for item, grade in judged.items():
            merged = qrels.setdefault(qid, {})
            merged[item] = max(merged.get(item, 0), grade)
    return qrels


def question_qrels(question: Question) -> QuestionQrels:
    """A question's qrels: every alternative of a group gets the group's grade (the highest,
    in several groups); none without required evidence.

    TREC qrels cannot say "any one of these": a group of alternatives becomes several
    relevant documents, so recall computed from the exported qrels can differ from ours for
    questions with groups of more than one alternative.
    """
    judged: dict[str, int] = {}
    for group in question.required_evidence:
        for item in group.any_of:
            judged[item] = max(judged.get(item, 0), group.grade)
    return question.id, judged


def evalset_to_qrels(evalset: EvalSet) -> dict[str, dict[str, int]]:
    """The qrels of every question with required evidence (`question_qrels`)."""
    return _merged(list(map(question_qrels, evalset.questions)))


def result_ranking(result: QuestionResult) -> ResultRanking:
    """The final ranking of a result (reranked if present, else candidates) with scores.

    A ranking with an item without a score, or whose scores would rank it otherwise under
    trec_eval's rule (equal scores go by document ID; a score above an earlier one's), gets
    scores that keep the recorded order (`count - position`) for every item, so that
    trec_eval ranks what `evaluate` scored, and recorded and synthetic scores never mix.
    """
    ranking = result.ranking
    scored = [(intern(item.id), float(item.score or 0.0)) for item in ranking]
    kept = all(item.score is not None for item in ranking) and scored == sorted(
        scored, key=ranking_key, reverse=True
    )
    return result.question_id, scored if kept else [
        (item_id, float(len(ranking) - n)) for n, (item_id, _) in enumerate(scored)
    ]


def run_to_trec(run: Run) -> dict[str, list[tuple[str, float]]]:
    """The final ranking of each result of a run with scores (`result_ranking`)."""
    return dict(map(result_ranking, run.results))


def _check_ids(
    collector: ProblemCollector,
    file: str,
    qid: str,
    id_field: str,
    field: str,
    documents: Sequence[str] | dict[str, int],
) -> None:
    """One question's IDs as a TREC file would hold them."""
    if not is_token(qid, first=True):
        collector.add(file, qid, id_field, FIRST_TOKEN, repr(qid))
    for document in documents:
        if not is_token(document):
            collector.add(file, qid, field, TOKEN, repr(document))
