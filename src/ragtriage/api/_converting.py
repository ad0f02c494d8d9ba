"""The commands that convert files: `import ...`, `export trec`, `review export|import`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import (
    InputError,
    Problem,
    ProblemCollector,
    RequestError,
    check_callback,
    choice_problems,
    counted,
    flag_problems,
    found_text,
    id_list,
    option_problem,
    problems_of,
)
from ..holdout import DEFAULT_WARN_AFTER
from ..paths import PathArg, as_optional_path, as_path, as_paths, check_paths

if TYPE_CHECKING:
    from ..importers import QuestionQrels, RecordFormat, ResultRanking
    from ..request import Notify
    from ..schemas import EvalSet, Run, Snapshot


@dataclass(frozen=True)
class WrittenNative:
    """The native files an import wrote into its output folder."""

    folder: Path
    """The output folder."""
    documents: int
    """Documents in `snapshot.json`."""
    questions: int
    """Questions in `evalset.json`."""
    runs: tuple[str, ...]
    """The run files written (`NAME.jsonl`), in order."""
    ignored_fields: tuple[str, ...] = ()
    """Fields of the source records that held a value ragtriage does not use, each once."""
    notes: tuple[str, ...] = ()
    """What the user should know of what was (not) written."""

    def summary(self) -> str:
        """One line: what was written where."""
        names = ", ".join(self.runs)
        runs = f" and {counted(len(self.runs), 'run')} ({names})" if self.runs else ""
        written = f"{counted(self.documents, 'document')}, {counted(self.questions, 'question')}"
        return f"wrote {written}{runs} to {self.folder}"


def write_imported(
    output: PathArg,
    snapshot: Snapshot,
    evalset: EvalSet,
    runs: Iterable[Run] = (),
    inputs: Iterable[tuple[str, PathArg]] = (),
) -> WrittenNative:
    """Write `snapshot.json`, `evalset.json` and one `NAME.jsonl` per run into `output`;
    nothing when one of them is a file of `inputs` (the option naming each and its path)."""
    from ..fileio import outputs_together, refuse_inputs
    from ..importers import write_native

    folder = as_path(output)
    files: dict[Path, Snapshot | EvalSet | Run] = {
        folder / "snapshot.json": snapshot,
        folder / "evalset.json": evalset,
        **{folder / f"{run.name}.jsonl": run for run in runs},
    }
    refuse_inputs(files, inputs)
    with outputs_together():
        for path, model in files.items():
            write_native(model, path)
    names = tuple(path.name for path in list(files)[2:])
    return WrittenNative(folder, len(snapshot.documents), len(evalset.questions), names)


def check_some_run(runs: int, purpose: str) -> None:
    """`InputError` when no run was loaded (`loading.no_run_problems`)."""
    from ..loading import no_run_problems

    if problems := no_run_problems(runs, purpose):
        raise InputError(problems)


def run_name_problems(name: str | None) -> list[Problem]:
    """The problems of a `--name` the run will be named (None: the command's default name):
    an empty one names no run, one with a control character is no `Identifier`."""
    from ..schemas import identifier_problems

    if name == "":
        return [option_problem("--name", "a run name", "nothing")]
    return identifier_problems(("--name", name))


def _dataset_id_problems(dataset_id: str) -> list[Problem]:
    """The ID the imported snapshot and evaluation set get: non-empty and without control
    characters, as every native ID."""
    from ..schemas import identifier_problems

    if dataset_id:
        return identifier_problems(("--dataset-id", dataset_id))
    return [option_problem("--dataset-id", "a non-empty ID", repr(dataset_id))]


def import_tau2_files(directory: PathArg, *, output: PathArg) -> WrittenNative:
    """`ragtriage import tau2 DIRECTORY -o OUT`: tau2-bench banking data as native files."""
    from ..importers import import_tau2

    check_paths(("directory", directory), ("output", output))
    data = import_tau2(directory)
    return replace(write_imported(output, data.snapshot, data.evalset), notes=data.notes)


def import_records_files(
    file: PathArg,
    fmt: RecordFormat,
    *,
    output: PathArg,
    name: str = "imported",
    dataset_id: str | None = None,
) -> WrittenNative:
    """`ragtriage import ragas|seed|deepeval FILE -o OUT`: other tools' records as native files."""
    from ..importers import DIALECTS, import_records
    from ..paths import SAFE_FILE_STEM, is_safe_file_stem

    check_paths(("file", file), ("output", output))
    problems = choice_problems(("fmt", fmt, tuple(DIALECTS)))
    problems += [] if dataset_id is None else _dataset_id_problems(dataset_id)
    if not is_safe_file_stem(name):  # the run is written to OUT/NAME.jsonl, as it is named
        problems.append(option_problem("--name", SAFE_FILE_STEM, repr(name)))
    if problems:
        raise InputError(problems)
    data = import_records(file, fmt, name=name, dataset_id=dataset_id)
    runs = () if data.run is None else (data.run,)
    written = write_imported(output, data.snapshot, data.evalset, runs, [("FILE", file)])
    notes = () if data.run is not None else (  # a Ragas testset, DeepEval goldens
        "no record retrieved a context or has a response "
        f"({DIALECTS[fmt].response}): no run written",
    )
    return replace(written, ignored_fields=tuple(data.ignored_fields), notes=notes)


def import_trec_files(
    *,
    qrels: PathArg,
    trec_runs: Iterable[PathArg] | PathArg = (),
    snapshot: PathArg | None = None,
    dataset_id: str = "trec",
    allow_extra: bool = False,
    output: PathArg,
) -> WrittenNative:
    """`ragtriage import trec --qrels Q [--trec-run R] -o OUT`: TREC files as native files.

    `snapshot` is the native snapshot the IDs refer to (default: a text-less one).
    `allow_extra`: a run's questions the qrels do not judge are left out of it, each run's
    named in a note (else they are refused).
    """
    from ..importers import import_trec
    from ..schemas import IDENTIFIER_EXPECTED, plain_ids

    check_paths(("qrels", qrels), ("output", output), optional=[("snapshot", snapshot)])
    problems = _dataset_id_problems(dataset_id) + flag_problems(("--allow-extra", allow_extra))
    problems += [  # each run is named by its file's stem
        Problem(str(path), None, "run name", IDENTIFIER_EXPECTED, found_text(path.stem))
        for path in as_paths(trec_runs, "trec_runs")
        if not plain_ids((path.stem,))
    ]
    if problems:
        raise InputError(problems)
    snap = None if snapshot is None else read_kinds(snapshot=snapshot)[0]
    data = import_trec(
        qrels, as_paths(trec_runs), snapshot=snap, dataset_id=dataset_id, allow_extra=allow_extra
    )
    inputs = [("--qrels", qrels), *(("--trec-run", path) for path in as_paths(trec_runs))]
    inputs += [] if snapshot is None else [("--snapshot", snapshot)]
    notes = tuple(
        f"run {name}: {counted(len(ids), 'question')} the qrels do not judge left out "
        f"({id_list(ids)})"
        for name, ids in data.extra
    )
    written = write_imported(output, data.snapshot, data.evalset, data.runs, inputs)
    return replace(written, notes=notes)


@dataclass(frozen=True)
class ImportedTraceRun:
    """What `import openinference` wrote, and what it could not match."""

    output: Path
    """The run file written."""
    results: int
    """Results in it (one per matched trace)."""
    unmatched_traces: tuple[tuple[str, str], ...]
    """(trace ID, reason) for every trace that answers no question."""
    unmatched_questions: tuple[str, ...]
    """Questions of the evaluation set that no trace answered."""

    def summary(self) -> list[str]:
        """Lines for the terminal: what was written, then every unmatched trace and question."""
        lines = [f"wrote {counted(self.results, 'result')} to {self.output}"]
        lines += [f"unmatched trace {trace}: {reason}" for trace, reason in self.unmatched_traces]
        lines += [f"unmatched question {q}: no trace answered it" for q in self.unmatched_questions]
        return lines


def import_openinference_files(
    dataset: PathArg,
    traces: PathArg,
    *,
    output: PathArg,
    name: str = "imported",
    match_attribute: str | None = None,
    id_key: str | None = None,
    refusal_pattern: str | None = None,
) -> ImportedTraceRun:
    """`ragtriage import openinference DATASET TRACES -o RUN`: traces as a run of DATASET."""
    from ..fileio import check_output, refuse_inputs
    from ..importers import import_openinference, write_native
    from ..recording import refusal_regex

    check_paths(("dataset", dataset), ("traces", traces), ("output", output))
    check_output(output)  # as given, as the command line checks it: before the work
    problems = run_name_problems(name)
    for option, key in (("--match-attribute", match_attribute), ("--id-key", id_key)):
        if key == "" or not isinstance(key, str | None):  # no key has an empty name
            found = "nothing" if key == "" else found_text(key)
            problems.append(option_problem(option, "a non-empty key", found))
    problems += problems_of(refusal_regex, refusal_pattern)
    if problems:
        raise InputError(problems)
    refuse_inputs([output], [("DATASET", dataset), ("TRACES", traces)])
    evalset = read_kinds(evalset=dataset)[1]
    assert evalset is not None  # read_kinds raised otherwise
    data = import_openinference(
        as_path(traces),
        evalset,
        name=name,
        id_attribute=match_attribute,
        id_key=id_key,
        refusal_pattern=refusal_pattern,
    )
    if not data.run.results:
        # a run of no question: the wrong evaluation set, attribute or file, never a result
        how = f"--match-attribute {match_attribute}" if match_attribute else "its root input text"
        expected = f"a trace matching a question of {dataset} (by {how})"
        raise InputError(
            [
                Problem(str(traces), None, f"trace {m.trace_id}", expected, m.reason)
                for m in data.unmatched_traces
            ]
            or [Problem(str(traces), None, "(traces)", expected, "no trace")]
        )
    out = as_path(output)
    write_native(data.run, out)
    unmatched = tuple((m.trace_id, m.reason) for m in data.unmatched_traces)
    return ImportedTraceRun(out, len(data.run.results), unmatched, tuple(data.unmatched_questions))


def export_trec_files(
    dataset: PathArg | None = None,
    *,
    runs: Iterable[PathArg] | PathArg = (),
    qrels_out: PathArg | None = None,
    run_out: PathArg | None = None,
    run_tag: str | None = None,
    include_holdout: bool = False,
    who: str | None = None,
    holdout_warn_after: int = DEFAULT_WARN_AFTER,
    ledger: PathArg | None = None,
    notify: Notify | None = None,
) -> None:
    """`ragtriage export trec [DATASET] [--run R]`: qrels from DATASET and/or a TREC run; notes
    name what is left out: questions without required evidence (qrels), and DATASET's holdout
    (both files) unless `include_holdout`, whose look is recorded before anything is written."""
    from ..fileio import check_output, outputs_together, refuse_overwrites
    from ..holdout import BESIDE_THE_SET, Notice, ledger_path
    from ..importers import export_trec
    from ..request import Request, log_notice

    check_paths(optional=[("dataset", dataset), ("qrels_out", qrels_out), ("run_out", run_out)])
    check_callback(notify, "notify")
    run_files = as_paths(runs, "runs")
    if len(run_files) > 1:
        raise RequestError("give one --run (each TREC run file holds one run)")
    run_file = run_files[0] if run_files else None
    _check_trec_outputs(dataset, qrels_out, run_file, run_out)
    for target in (qrels_out, run_out):  # as given, as the command line checks them
        if target is not None:
            check_output(target)
    request = Request.build(dataset, runs=run_files, include_holdout=include_holdout, who=who,
                            holdout_warn_after=holdout_warn_after, ledger=ledger)
    request.holdout.check(dataset)
    inputs = [("DATASET", request.dataset), ("--run", run_file)]
    request.holdout.refuse_ledger_as_input(inputs)
    # The ledger, which a look is added to, is no output either.
    beside = None if dataset is None else ledger_path(dataset)
    refuse_overwrites(
        [("--qrels-out", qrels_out), ("--run-out", run_out)],
        [*inputs, ("--ledger", ledger) if ledger is not None else (BESIDE_THE_SET, beside)],
    )
    with request.holdout.checking_ledger(request.dataset):  # its problems with the input's
        questions, results, name = _trec_rows(dataset, run_file)
    held = {qid for holdout, (qid, _) in questions or () if holdout}
    if held and not include_holdout:
        questions = [row for row in questions or () if not row[0]]
        results = None if results is None else [row for row in results if row[0] not in held]
    tell = notify or log_notice
    with outputs_together():  # the qrels and the run: both or neither
        left = export_trec(
            None if questions is None else [qrels for _, qrels in questions],
            results,
            qrels_path=as_optional_path(qrels_out),
            run_path=as_optional_path(run_out),
            tag=run_tag,
            run_name=name,
            evalset_file=str(dataset),
            run_file=str(run_file),
            before_writing=lambda: [tell(n) for n in request.holdout_notices(
                len(held), "export trec", [name] if results is not None else [], "writes"
            )],
        )
    if left:
        shown = ", ".join(left[:5]) + (f" and {len(left) - 5} more" if len(left) > 5 else "")
        tell(Notice("note", (
            f"{qrels_out} leaves out {counted(len(left), 'question')} without required evidence "
            f"({shown}); `ragtriage trec-eval` scores a run that ranks them with --allow-extra"
        )))


def _trec_rows(
    dataset: PathArg | None, run: Path | None
) -> tuple[list[tuple[bool, QuestionQrels]] | None, list[ResultRanking] | None, str]:
    """What `export trec` writes of DATASET (each question's qrels, and whether it is a
    holdout question) and of the run (each result's ranking, and the run's name), read a line
    at a time (`loading.read_kept`); every problem of both files at once."""
    from ..holdout import HOLDOUT
    from ..importers import question_qrels, result_ranking
    from ..loading import read_kept

    collector = ProblemCollector()
    questions = read_kept(
        dataset, "evalset", lambda q: (q.split == HOLDOUT, question_qrels(q)), collector
    ) if dataset is not None else None
    results = read_kept(run, "run", result_ranking, collector) if run is not None else None
    collector.raise_if_any()
    return (
        questions[1] if questions else None,
        results[1] if results else None,
        results[0].name if results else "",
    )


def _check_trec_outputs(
    dataset: PathArg | None, qrels_out: PathArg | None, run: Path | None, run_out: PathArg | None
) -> None:
    """Refuse an output without its input, --run without --run-out, and nothing to write.
    DATASET needs no --qrels-out: it says which questions are holdout (left out of the run)."""
    wrong = []
    if qrels_out is not None and dataset is None:
        wrong.append("--qrels-out needs DATASET (the qrels are its required evidence)")
    if (run is None) != (run_out is None):
        wrong.append("--run needs --run-out" if run_out is None else "--run-out needs --run")
    if not wrong and qrels_out is None and run_out is None:
        found = "DATASET alone writes nothing" if dataset is not None else "nothing to write"
        wrong.append(f"{found}: give DATASET with --qrels-out and/or --run with --run-out")
    if wrong:
        raise RequestError("; ".join(wrong))


def read_kinds(
    *, snapshot: PathArg | None = None, evalset: PathArg | None = None
) -> tuple[Snapshot | None, EvalSet | None]:
    """Read the files given, each of the kind expected; every wrong kind is named at once."""
    from ..loading import Wanted, read_file
    from ..schemas import EvalSet, Snapshot

    collector = ProblemCollector()
    found: list[object] = []
    for path, kind, model in ((snapshot, "snapshot", Snapshot), (evalset, "evalset", EvalSet)):
        if path is None:
            found.append(None)
            continue
        loaded = read_file(as_path(path), collector, wanted=Wanted((kind,), kind))
        found.append(loaded.content if isinstance(loaded.content, model) else None)
    collector.raise_if_any()
    snap, ev = found
    assert snap is None or isinstance(snap, Snapshot)
    assert ev is None or isinstance(ev, EvalSet)
    return snap, ev
