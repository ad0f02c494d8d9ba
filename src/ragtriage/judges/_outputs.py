"""Writing a judge session's outputs and describing them in a few lines of text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, ProblemCollector, counted, option_problem
from ..paths import PathArg, as_path
from ..schemas import Labeller, LabelSet
from ._label_files import safe_name, write_model
from ._runner import JudgeResult
from ._session import Estimate


@dataclass(frozen=True)
class WrittenRun:
    """The files written for one run."""

    run: str
    """Run name."""
    labels: Path
    """The label file (kind `labels`)."""
    run_file: Path | None
    """The run file with extracted claims/outcomes, when the judge wrote any."""


def check_output_names(runs: Sequence[str]) -> None:
    """`InputError` when two runs' names give one file name (`safe_name`: `a/b` and `a_b`):
    the second run's labels would replace the first's. Checked before any judging."""
    first: dict[str, str] = {}
    problems = []
    for run in runs:
        stem = safe_name(run)
        if stem in first and first[stem] != run:
            expected = "runs whose names give distinct label files"
            found = f"{first[stem]!r} and {run!r}, both {stem}.labels.json"
            problems.append(option_problem("--run", expected, found))
        first.setdefault(stem, run)
    if problems:
        raise InputError(problems)


def _who(labeller: Labeller) -> tuple[str, str, str]:
    return labeller.kind, labeller.name, labeller.prompt_version or ""


def check_label_files(out_dir: PathArg, runs: Sequence[str], labeller: Labeller) -> None:
    """`InputError` when `out_dir` holds a `<run>.labels.json` that writing would lose: not a
    labels file of that run, or one with labels by another labeller than the judge's own (a
    person's review imported there, another judge or prompt version). Checked before judging."""
    from ..loading import read_file

    collector = ProblemCollector()
    for run in runs:
        path = as_path(out_dir) / f"{safe_name(run)}.labels.json"
        if not path.exists():
            continue
        found = read_file(path, collector, label=str(path)).content
        if not isinstance(found, LabelSet) or found.run != run:
            if found is not None:
                what = f"run {found.run!r}" if isinstance(found, LabelSet) else "another kind"
                expected = f"a labels file of run {run!r}"
                collector.add(str(path), None, "run", expected, f"a file of {what}")
            continue
        made = [e.label.labeller for e in found.claim_labels]
        made += [e.label.labeller for e in found.fact_labels]
        others = sorted({_who(who) for who in made} - {_who(labeller)})
        if others:
            names = ", ".join(
                f"{kind} {name!r}" + (f" (prompt {prompt})" if prompt else "")
                for kind, name, prompt in others
            )
            expected = (
                f"labels by this judge only ({labeller.name}, prompt {labeller.prompt_version}), "
                "which it replaces, or another --output folder"
            )
            collector.add(str(path), None, "labeller", expected, f"labels by {names}")
    collector.raise_if_any()


def write_outputs(
    result: JudgeResult, out_dir: PathArg, inputs: Sequence[tuple[str, PathArg]] = ()
) -> tuple[WrittenRun, ...]:
    """`<run>.labels.json` per run, plus `<run>.run.json` when claims or outcomes were added;
    nothing when one of them is a file of `inputs` (the option naming each and its path)."""
    from ..fileio import refuse_inputs

    check_output_names([judged.name for judged in result.runs])
    out_dir = as_path(out_dir)
    stems = [safe_name(judged.name) for judged in result.runs]
    targets = [out_dir / f"{stem}.labels.json" for stem in stems]
    targets += [
        out_dir / f"{stem}.run.json"
        for stem, judged in zip(stems, result.runs, strict=True)
        if judged.run is not None
    ]
    refuse_inputs(targets, inputs)
    written = []
    for stem, judged in zip(stems, result.runs, strict=True):
        labels = write_model(judged.labels, out_dir / f"{stem}.labels.json")
        run_file = None
        if judged.run is not None:
            run_file = write_model(judged.run, out_dir / f"{stem}.run.json")
        written.append(WrittenRun(judged.name, labels, run_file))
    return tuple(written)


def _counts(verdicts: Sequence[tuple[str, str]], held: Collection[str]) -> str:
    counts = Counter(verdict for qid, verdict in verdicts if qid not in held)
    return ", ".join(f"{counts[key]} {key}" for key in sorted(counts)) or "none"


def summary_lines(
    result: JudgeResult, written: tuple[WrittenRun, ...] = (), holdout: Collection[str] = ()
) -> list[str]:
    """What was judged, with what, what it cost, and every item that is not a label; the
    verdicts of `holdout` questions are written but not counted (a count is a score)."""
    spec = result.spec
    lines = [
        f"judge: {spec.model} ({spec.endpoint_kind}, prompt {spec.prompt_version}, "
        f"temperature {spec.temperature}, seed {spec.seed}) - judge-labelled, uncalibrated "
        "until `ragtriage calibrate` has compared it with human labels"
    ]
    files = {w.run: w for w in written}
    for judged in result.runs:
        claims = [(e.question_id, e.label.verdict) for e in judged.labels.claim_labels]
        facts = [(e.question_id, e.label.verdict) for e in judged.labels.fact_labels]
        held = {qid for qid, _ in claims + facts if qid in holdout}
        left = f" ({counted(len(held), 'holdout question')} not counted)" if held else ""
        lines.append(
            f"run {judged.name}: claims: {_counts(claims, held)}; "
            f"reference facts: {_counts(facts, held)}{left}"
        )
        if judged.name in files:
            w = files[judged.name]
            lines.append(f"  labels: {w.labels}")
            if w.run_file is not None:
                lines.append(f"  run with extracted claims/outcomes: {w.run_file}")
        for note in judged.notes:
            done = "failed" if note.failed else "note"
            lines.append(f"  {note.question_id}: {note.task} {done}: {note.reason}")
    s = result.stats
    cost = "no price given" if s.cost_usd is None else f"${s.cost_usd:.6f}"
    missing = f"{s.unreported} {'reply' if s.unreported == 1 else 'replies'} without token counts"
    if s.unreported:
        cost = f"not known ({missing})"
    lines.append(
        f"calls: {s.calls} ({', '.join(f'{k} {v}' for k, v in s.by_task.items()) or 'none'}); "
        f"HTTP requests: {s.requests} ({s.retries} retries); cache hits: {s.cache_hits}; "
        f"failed calls: {s.failures}"
    )
    lines.append(
        f"tokens: {s.prompt_tokens} in, {s.completion_tokens} out (cache hits not counted"
        f"{f'; {missing}' if s.unreported else ''}); "
        f"cost: {cost}"
    )
    return lines


def estimate_lines(est: Estimate) -> list[str]:
    """The dry-run estimate as text."""
    total = sum(est.calls.values())
    by_task = ", ".join(f"{k} {v}" for k, v in est.calls.items()) or "none"
    cost = "no price given" if est.cost_usd_max is None else f"at most ${est.cost_usd_max:.6f}"
    lines = [
        f"dry run: {total} calls ({by_task}); {est.cached_calls} answered by the cache",
        f"tokens (estimated): about {est.input_tokens} in, at most {est.output_tokens_max} out; "
        f"cost: {cost}",
    ]
    if est.estimated_claims:
        lines.append(
            f"support calls include {est.estimated_claims} claims guessed by sentence splitting "
            "(answers not yet extracted; extraction decides the real number)"
        )
    return lines
