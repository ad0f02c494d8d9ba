"""Assemble a dataset (snapshot, evaluation set, runs with their labels) from files."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from .._collector import no_cycle_collection
from ..errors import (
    InputError,
    Problem,
    ProblemCollector,
    RequestError,
    Suggestions,
    option_problem,
)
from ..paths import PathArg, as_optional_path, as_path, as_paths
from ..schemas import ArticleDataset, EvalSet, LabelSet, Run, Snapshot, claim_ids, plain_ids
from ._article_convert import ARTICLE_DEFAULT_K, convert_article
from ._files import SourceFile
from ._readers import LoadedFile, Wanted, read_file


@dataclass(frozen=True)
class Dataset:
    """Everything one evaluation reads, schema-valid (semantic checks come in `validate`)."""

    snapshot: Snapshot
    """The knowledge snapshot."""
    evalset: EvalSet
    """The evaluation set."""
    runs: tuple[Run, ...]
    """The runs, with labels from label files attached."""
    sources: tuple[SourceFile, ...]
    """The files read, with their hashes: one at least, the evaluation set's (or article
    file's) first."""
    default_k: int | None = None
    """A cut-off implied by the format (the article scorer's 2), if any."""
    article: bool = False
    """True when the dataset came from an article-format file."""

    run_files: dict[str, str] | None = None
    """For each run name, the file it came from."""

    label_files: Mapping[LabelPlace, str] = field(default_factory=dict)
    """For each label attached from a label file, that file (see `label_file`)."""

    unattached: tuple[Problem, ...] = ()
    """Labels naming a run, question, claim or fact the runs lack (of label files, and an
    article file's covered facts): not attached, each a problem `validation.check_dataset`
    reports with the others of the dataset."""

    label_sets: tuple[tuple[str, LabelSet], ...] = ()
    """The label files as read, (file, label set) in the order given (`calibrate` tells the
    judge's from the humans' by it)."""

    def __post_init__(self) -> None:
        if not self.sources:  # `run_file` and every message about the dataset name the first
            raise RequestError(
                "sources: expected the files read, the evaluation set's first (its path names "
                "the dataset in messages: SourceFile('<memory>', 'evalset', '') for one made in "
                "memory); found none"
            )

    def cutoffs(self, k: int | None = None) -> dict[str, int | None]:
        """Each run's cut-off by name: `k` when given, else the run's own (its provenance's
        `k`), else the one the format implies."""
        return {run.name: k or run.provenance.k or self.default_k for run in self.runs}

    def run_file(self, run_name: str) -> str:
        """The file a run came from (for error messages)."""
        return (self.run_files or {}).get(run_name, self.sources[0].path)

    def label_file(self, place: LabelPlace) -> str:
        """The file a label came from (for error messages): its label file when it was
        attached from one, else its run's file."""
        return self.label_files.get(place) or self.run_file(place[0])


LabelPlace = tuple[str, str, str | None, int]
"""Where a label sits in a run: run name, question ID, claim ID (None for a fact label) and its
position among that claim's labels (or the result's fact labels)."""


def _attach_labels(
    runs: list[Run],
    label_sets: list[tuple[str, LabelSet]],
    collector: ProblemCollector,
    origins: dict[LabelPlace, str],
) -> list[Run]:
    """The runs with the labels of `label_sets` appended to their claims and results;
    `origins` receives the place of each label attached, with its file."""
    by_name = {run.name: run for run in runs}
    for path, labels in label_sets:
        if labels.run not in by_name:
            expected = f"the name of a loaded run ({', '.join(sorted(by_name)) or 'none'})"
            collector.add(path, None, "run", expected, repr(labels.run))
            continue
        run = by_name[labels.run]
        results = {res.question_id: res for res in run.results}
        answered = Suggestions(results.keys())
        by_run = f"a question answered by run {run.name!r}"
        claim_updates: dict[str, dict[str, list]] = {}  # type: ignore[type-arg]
        fact_updates: dict[str, list] = {}  # type: ignore[type-arg]
        for entry in labels.claim_labels:
            result = results.get(entry.question_id)
            if result is None:
                found = "no such result" + answered(entry.question_id)
                collector.add(path, entry.question_id, "claim_labels.question_id", by_run, found)
                continue
            ids = claim_ids(c.id for c in result.claims or [])
            if entry.claim_id not in ids:
                expected = f"a claim of the answer ({', '.join(ids) or 'none'})"
                found = repr(entry.claim_id)
                collector.add(path, entry.question_id, "claim_labels.claim_id", expected, found)
                continue
            claim_updates.setdefault(entry.question_id, {}).setdefault(entry.claim_id, []).append(
                (path, entry.label)
            )
        for fentry in labels.fact_labels:
            if fentry.question_id not in results:
                found = "no such result" + answered(fentry.question_id)
                collector.add(path, fentry.question_id, "fact_labels.question_id", by_run, found)
                continue
            fact_updates.setdefault(fentry.question_id, []).append((path, fentry.label))
        new_results = []
        for res in run.results:
            claims_add = claim_updates.get(res.question_id, {})
            facts_add = fact_updates.get(res.question_id, [])
            if not claims_add and not facts_add:
                new_results.append(res)
                continue
            claims = []
            given = res.claims or []
            for name, c in zip(claim_ids(c.id for c in given), given, strict=True):
                added = claims_add.get(name, [])
                for at, (path, _) in enumerate(added, start=len(c.labels)):
                    origins[run.name, res.question_id, name, at] = path
                claims.append(c.model_copy(update={"labels": [*c.labels, *(a[1] for a in added)]}))
            for at, (path, _) in enumerate(facts_add, start=len(res.fact_labels)):
                origins[run.name, res.question_id, None, at] = path
            new_results.append(
                res.model_copy(
                    update={
                        "claims": claims if res.claims is not None else None,
                        "fact_labels": [*res.fact_labels, *(a[1] for a in facts_add)],
                    }
                )
            )
        by_name[run.name] = run.model_copy(update={"results": new_results})
    return [by_name[run.name] for run in runs]


@no_cycle_collection()  # a model per record, none in a cycle (100,000 results: 32 s to 14 s)
def load_dataset(
    dataset: PathArg,
    *,
    snapshot: PathArg | None = None,
    runs: Sequence[PathArg] = (),
    labels: Sequence[PathArg] = (),
    check: Callable[[Dataset], Sequence[Problem]] | None = None,
) -> Dataset:
    """Read the files of one evaluation; raise `InputError` with every schema problem.

    A label of a label file that names a run, question or claim the runs lack is not attached:
    its problem is the dataset's `unattached`, reported by `validation.check_dataset` with
    every other problem of the dataset (a fact label's unknown fact, ...).

    `check`: the checks the caller runs on the dataset next (`validation.check_dataset` with
    its options), returning their problems. When every schema problem is in the record of a
    question with a valid ID (a question, a result, a label), it is run over the rest of the
    files (`LoadedFile.rest`), so that one error lists the other questions' problems too:
    those that name a question with no schema problem, and those that name no question and
    are in no file of questions (the snapshot's, a versions file's). Otherwise (a header, a
    document, an unreadable line or ID) it is not run, and those problems come once the files
    are read.
    """
    dataset = as_path(dataset, "dataset")
    snapshot = as_optional_path(snapshot, "snapshot")
    runs = as_paths(runs, "runs")
    labels = as_paths(labels, "labels")
    collector = ProblemCollector()
    main = read_file(
        dataset,
        collector,
        wanted=Wanted(("evalset", "article"), "an evaluation set or an article-format file"),
    )
    sources = [main.source]
    main_content = _readable(main)
    snap: Snapshot | None = None
    evalset: EvalSet | None = None
    loaded_runs: list[Run] = []
    run_files: dict[str, str] = {}
    default_k: int | None = None
    is_article = isinstance(main_content, ArticleDataset)
    unattached = ProblemCollector()
    if isinstance(main_content, ArticleDataset):
        snap, evalset, embedded = convert_article(
            main_content, main.source.sha256, main.source.path, unattached
        )
        loaded_runs.extend(embedded)
        run_files.update({r.name: main.source.path for r in embedded})
        default_k = ARTICLE_DEFAULT_K
    elif isinstance(main_content, EvalSet):
        evalset = main_content
    if snapshot is not None:
        snap_file = read_file(snapshot, collector, wanted=Wanted(("snapshot",), "snapshot"))
        sources.append(snap_file.source)
        if isinstance(snap_content := _readable(snap_file), Snapshot):
            if snap is not None:
                expected = (
                    "no snapshot option for an article-format file (its corpus is the snapshot)"
                )
                collector.add(str(snapshot), None, "--snapshot", expected, "a snapshot file")
            snap = snap_content
    elif isinstance(main_content, EvalSet):
        expected = "a snapshot file for a native evaluation set"
        collector.extend([option_problem("--snapshot", expected, "none given")])
    read_runs: list[tuple[str, str]] = []
    for path in runs:
        run_file = read_file(path, collector, wanted=Wanted(("run",), "run"))
        sources.append(run_file.source)
        if isinstance(run := _readable(run_file), Run):
            read_runs.append((str(path), run.name))
            loaded_runs.append(run)
    # The same file read twice too (--example reads its own).
    collector.extend(reused_run_names(read_runs, run_files))
    run_files.update((name, path) for path, name in read_runs)
    label_sets: list[tuple[str, LabelSet]] = []
    for path in labels:
        label_file = read_file(path, collector, wanted=Wanted(("labels",), "labels"))
        sources.append(label_file.source)
        if isinstance(label_set := _readable(label_file), LabelSet):
            label_sets.append((str(path), label_set))
    seen_names: set[str] = set()
    for run in loaded_runs:
        if run.name in seen_names and is_article:
            expected = "a run name not used by another run"
            collector.add(main.source.path, None, "runs.name", expected, repr(run.name))
        seen_names.add(run.name)
    schema = collector.problems
    checkable = snap is not None and evalset is not None and check is not None
    if schema and not (checkable and _each_names_a_question(schema)):
        collector.raise_if_any()
    assert snap is not None and evalset is not None  # guaranteed by the checks above
    origins: dict[LabelPlace, str] = {}
    attached = _attach_labels(loaded_runs, label_sets, unattached, origins)
    loaded = Dataset(
        snap, evalset, tuple(attached), tuple(sources), default_k, is_article, run_files, origins,
        unattached.problems, tuple(label_sets),
    )
    if schema and check is not None:
        raise InputError([*schema, *_beyond(loaded, check, schema)])
    return loaded


def reused_run_names(
    runs: Sequence[tuple[str, str]], earlier: Mapping[str, str] | None = None
) -> list[Problem]:
    """A problem for each run, given as (file, name) in order, whose name a run before it has
    (of `runs`, or of `earlier`: name to file): a run is known by its name alone."""
    files = dict(earlier or {})
    problems = []
    expected = "a run name not used by another run"
    for path, name in runs:
        if name in files:
            found = f"{name!r}, as the run of {files[name]}"
            problems.append(Problem(path, None, "name", expected, found))
        files[name] = path
    return problems


def no_run_problems(runs: int, purpose: str) -> list[Problem]:
    """A problem when no run was loaded (no --run file, none in DATASET), for a call that
    would otherwise do nothing and say nothing (`purpose`: what it does with runs)."""
    if runs:
        return []
    expected = f"at least one run to {purpose} (a --run file, or runs in DATASET)"
    return [option_problem("--run", expected, "none")]


def _readable(loaded: LoadedFile) -> object:
    """A file's content, or what passed of it (`LoadedFile.rest`)."""
    return loaded.rest if loaded.content is None else loaded.content


def _each_names_a_question(problems: Sequence[Problem]) -> bool:
    """Whether each problem is in the record of a question named by a valid ID (an ID that is
    itself refused may be a question's the other files name otherwise)."""
    named = [p.question_id for p in problems if p.record == "question"]
    return len(named) == len(problems) and all(named) and plain_ids(map(str, named))


def _beyond(
    partial: Dataset, check: Callable[[Dataset], Sequence[Problem]], schema: Sequence[Problem]
) -> list[Problem]:
    """The problems `check` finds in what passed of files with `schema` problems, each of
    which names a question: those that name another question, and those that name none and
    are not of a file of questions (an evaluation set, a run, labels: a problem of a whole
    run counts questions not all read) or are of an article-format file's corpus (its
    snapshot); the others come once the schema problems are mended."""
    questions = {p.question_id for p in schema}
    files = {source.path for source in partial.sources if source.kind != "snapshot"}
    return [
        p
        for p in check(partial)
        if (
            p.question_id not in questions
            if p.question_id
            else p.file not in files or (partial.article and p.field.startswith("corpus["))
        )
    ]
