"""Semantic checks across files: IDs, answerability, outcomes, labels and the context.

Every check adds to one list, so the user sees every problem at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial

from ..errors import InputError, Problem, counted
from ..loading import Dataset, SnapshotIndex
from ..paths import PathArg
from ..schemas import (
    CONTEXT_HASH,
    CONTEXT_HASH_EXPECTED,
    NON_ANSWERS,
    ClaimLabel,
    FactLabel,
    Labeller,
    LabelPolicy,
    QuestionResult,
    Run,
    claim_ids,
    counted_labels,
)
from ._checker import _SNAPSHOT_IDS, Checker, check_known_questions, check_repeats, dupes, repeats
from ._inputs import check_evalset, check_snapshot


def ranking_problems(
    res: QuestionResult, index: SnapshotIndex | None = None
) -> list[tuple[str, str, str]]:
    """`(field, expected, found)` for each ID a result's candidates, reranked list or context
    holds more than once, and each reranked ID that was not among the candidates; with the
    snapshot's `index`, also each ID it does not know (then not also as not a candidate).

    One rule for `evaluate` and the recorder (which has no snapshot), so that what the recorder
    writes is what `evaluate` accepts.
    """
    out: list[tuple[str, str, str]] = []
    candidates = {i.id for i in res.candidates}
    for field, items in (
        ("candidates", res.candidates), ("reranked", res.reranked), ("context", res.context)
    ):
        if items is None:
            continue
        ids = [i.id for i in items]
        out += [(field, *repeat) for repeat in repeats(ids)]
        known = dict.fromkeys(ids)
        if index is not None:
            out += [(field, _SNAPSHOT_IDS, index.unknown(i)) for i in known if not index.known(i)]
        if field == "reranked":
            out += [
                (field, "IDs that were among the candidates", repr(item))
                for item in known
                if item not in candidates and (index is None or index.known(item))
            ]
    return out


def support_problems(lab: ClaimLabel) -> list[tuple[str, str]]:
    """(expected, found) when a claim label's `supported_by` contradicts its verdict: a
    supported claim names at least one supporting ID, any other verdict names none (the
    field is `claims[ID].supported_by`; `evaluate` and `calibrate` both refuse it)."""
    if lab.verdict == "supported" and not lab.supported_by:
        return [("at least one supporting context ID for a supported claim", "none")]
    if lab.verdict != "supported" and lab.supported_by:
        expected = f"no supporting IDs for a claim labelled {lab.verdict}"
        return [(expected, ", ".join(lab.supported_by))]
    return []


def non_answer_problems(res: QuestionResult, outcome: str | None) -> list[tuple[str, str, str]]:
    """`(field, expected, found)` for what `res` carries that only an answer may (claims,
    covered reference facts) when its outcome is `outcome`; none when that is answered.

    One rule for `evaluate` and the judge (which keeps an answer as answered rather than
    write a refusal that carries them)."""
    if outcome not in NON_ANSWERS:
        return []
    out: list[tuple[str, str, str]] = []
    if res.claims:
        expected = f"no claims in a result whose outcome is {outcome}"
        out.append(("claims", expected, counted(len(res.claims), "claim")))
    if covered := _covered(res):
        expected = f"no covered reference facts when the outcome is {outcome}"
        out.append(("fact_labels", expected, _fact_list(fact for _, fact in covered)))
    return out


def _covered(res: QuestionResult) -> list[tuple[int, str]]:
    """(position among the result's fact labels, fact ID) of each `covered` label."""
    return [(at, lab.fact_id) for at, lab in enumerate(res.fact_labels) if lab.verdict == "covered"]


def _fact_list(facts: Iterable[str]) -> str:
    return ", ".join(sorted(set(facts)))


def _kind(label: ClaimLabel | FactLabel) -> str:
    return label.labeller.kind


def _check_hash(c: Checker, file: str, qid: str, field: str, lab: ClaimLabel | FactLabel) -> None:
    """A label's context hash, when recorded, must be of its form (`CONTEXT_HASH`)."""
    if lab.context_hash is not None and not CONTEXT_HASH.fullmatch(lab.context_hash):
        c.add(file, qid, f"{field}.context_hash", CONTEXT_HASH_EXPECTED, repr(lab.context_hash))


def labeller_problems(by: Labeller) -> list[tuple[str, str]]:
    """`(expected, found)` of a labeller's `prompt_version`: a judge names its prompt version,
    a person none (a judge's label marked `human` would count as a person's)."""
    if by.kind == "judge" and not by.prompt_version:
        return [("the judge's prompt version", "nothing")]
    if by.kind == "human" and by.prompt_version is not None:
        expected = "none for a human labeller (a prompt version is a judge's: kind judge)"
        return [(expected, repr(by.prompt_version))]
    return []


def _check_prompt(c: Checker, file: str, qid: str | None, field: str, by: Labeller) -> None:
    """`labeller_problems` of the labeller at `field`."""
    for expected, found in labeller_problems(by):
        c.add(file, qid, f"{field}.prompt_version", expected, found)


def _check_default_labellers(c: Checker) -> None:
    """A label file's default `labeller` that no label took is checked as a label's labeller
    is (one that labels took is reported at each of them)."""
    for file, label_set in c.ds.label_sets:
        taken = {e.label.labeller for e in label_set.claim_labels}
        taken |= {e.label.labeller for e in label_set.fact_labels}
        if (by := label_set.labeller) and by not in taken:
            _check_prompt(c, file, None, "labeller", by)


def _check_result(
    c: Checker,
    file: str,
    run_name: str,
    res: QuestionResult,
    k: int | None,
    index: SnapshotIndex,
    fact_ids: set[str] | None,
    allow_unreviewed: bool,
    policy: LabelPolicy,
) -> None:
    """A result's problems; `fact_ids`: its question's reference facts (None: no one question,
    for a result of an unknown or repeated question ID: its fact labels' facts go unchecked)."""
    qid = res.question_id
    add = partial(c.add, file, qid)  # a problem of this result's own file (not a label file)
    for field, expected, found in ranking_problems(res, index):
        add(field, expected, found)
    context = res.final_context(k)
    in_context = set(context)
    if res.outcome is None and res.answer is not None:
        expected = "answered, refused, clarified or escalated for a result with an answer"
        add("outcome", expected, "nothing")
    # An answer of no text is refused with or without an outcome (the judge detects a
    # missing outcome, and would take such an answer's claims from no text).
    if res.answer is not None and not res.answer.strip():
        add("answer", "non-empty answer text", "an empty answer")
    elif res.outcome is not None and res.answer is None:
        add("answer", "non-empty answer text", "nothing")
    claims = res.claims or []
    for field, expected, found in non_answer_problems(res, res.outcome):
        if field != "fact_labels":
            add(field, expected, found)
            continue
        # Covered facts: named in each file holding such a label (a label file's, or the run's).
        by_file: dict[str, list[str]] = {}
        for at, fact in _covered(res):
            by_file.setdefault(c.ds.label_file((run_name, qid, None, at)), []).append(fact)
        for where, facts in by_file.items():
            c.add(where, qid, field, expected, _fact_list(facts))
    if res.outcome is None and res.answer is None and claims:
        # Claims belong to an answer; without one they would be scored while the result is
        # diagnosed as having no answer at all. (An answer without its outcome is refused
        # above: the judge can detect the outcome of such a result.)
        expected = "no claims in a result without an answer (outcome and answer are null)"
        add("claims", expected, counted(len(claims), "claim"))
    if res.outcome == "answered" and not claims and not allow_unreviewed:
        expected = "at least one reviewed claim for an answered question (or --allow-unreviewed)"
        add("claims", expected, "no claims" if res.claims is not None else "claims not extracted")
    names = claim_ids(cl.id for cl in claims)
    c.repeated(file, qid, "claims.id", "unique claim IDs within the answer", names)
    for cid, claim in zip(names, claims, strict=True):
        fresh = counted_labels(claim.labels, policy, _kind)
        if not fresh and res.outcome == "answered" and not allow_unreviewed:
            expected = f"a review label ({policy}) for every claim (or --allow-unreviewed)"
            add(f"claims[{cid}].labels", expected, _uncounted(len(claim.labels), policy))
        for at, lab in enumerate(claim.labels):
            where = c.ds.label_file((run_name, qid, cid, at))  # its label file, if any
            support = f"claims[{cid}].supported_by"
            for expected, found in support_problems(lab):
                c.add(where, qid, support, expected, found)
            _check_hash(c, where, qid, f"claims[{cid}].labels", lab)
            _check_prompt(c, where, qid, f"claims[{cid}].labels.labeller", lab.labeller)
            for item in lab.supported_by:
                if item not in in_context:
                    shown = "final" if res.context is not None or k is None else f"top-{k}"
                    expected = f"IDs in the {shown} context ({', '.join(context) or 'empty'})"
                    c.add(where, qid, support, expected, repr(item))
    for at, flab in enumerate(res.fact_labels):
        where = c.ds.label_file((run_name, qid, None, at))
        _check_hash(c, where, qid, "fact_labels", flab)
        if fact_ids is not None and flab.fact_id not in fact_ids:
            expected = f"a reference fact of the question ({', '.join(sorted(fact_ids)) or 'none'})"
            c.add(where, qid, "fact_labels.fact_id", expected, repr(flab.fact_id))
        _check_prompt(c, where, qid, "fact_labels.labeller", flab.labeller)
    if res.outcome == "answered" and not allow_unreviewed and fact_ids is not None:
        labelled = {
            fact
            for fact in fact_ids
            if counted_labels([f for f in res.fact_labels if f.fact_id == fact], policy, _kind)
        }
        for fact in sorted(fact_ids - labelled):
            expected = f"a coverage label for reference fact {fact!r} (or --allow-unreviewed)"
            labels = sum(f.fact_id == fact for f in res.fact_labels)
            add("fact_labels", expected, _uncounted(labels, policy))


def _uncounted(labels: int, policy: LabelPolicy) -> str:
    """What a claim or fact without a counted label has: none, or labels of the kind `policy`
    leaves out (`human-first` counts any)."""
    return f"only {'judge' if policy == 'human' else 'human'} labels" if labels else "no label"


def _check_run(
    c: Checker,
    run: Run,
    k: int | None,
    index: SnapshotIndex,
    allow_unreviewed: bool,
    policy: LabelPolicy,
    allow_missing: bool,
    repeated: set[str],
) -> None:
    file = c.ds.run_file(run.name)
    c.run_prefix = f"runs[{run.name}]." if c.ds.article else ""
    questions = {q.id: q for q in c.ds.evalset.questions}
    counts = Counter(res.question_id for res in run.results)
    check_repeats(c.add, file, counts.elements(), results=True)
    check_known_questions(c.add, file, questions.keys(), counts)
    for qid in questions:
        if qid not in counts and not allow_missing:
            expected = f"a result for every question (run {run.name!r}; or --allow-missing)"
            c.add(file, qid, "results", expected, "no result")
    needs_k = any(res.context is None and (res.candidates or res.reranked) for res in run.results)
    if needs_k and k is None:
        c.add(
            file, None, "provenance.k",
            "a cut-off for the final context (give -k, or record the context or provenance.k)",
            "none",
        )
    before = len(c.problems)
    for res in run.results:
        question = questions.get(res.question_id)
        # No one question (none, or two of the ID): no facts to check its fact labels against.
        one = question is not None and res.question_id not in repeated
        facts = {f.id for f in question.reference_facts} if question and one else None
        _check_result(c, file, run.name, res, k, index, facts, allow_unreviewed, policy)
    _forgotten_labels(c, run, file, before)
    c.run_prefix = ""


def _forgotten_labels(c: Checker, run: Run, file: str, before: int) -> None:
    """One problem instead of one per claim and fact when the run carries no label at all.

    Labels usually live in a labels file; a run without a single label most likely means
    that file was not given.
    """
    if any(res.fact_labels or any(cl.labels for cl in res.claims or ()) for res in run.results):
        return
    unlabelled = [
        p
        for p in c.problems[before:]
        if p.found == "no label" and p.field.endswith(("labels", "fact_labels"))
    ]
    if not unlabelled:
        return
    c.problems[before:] = [p for p in c.problems[before:] if p not in unlabelled]
    c.add(
        file,
        None,
        "labels",
        "a review label for every claim and reference fact of an answer (in the run or a "
        "--labels FILE; or --allow-unreviewed)",
        f"no labels for run {run.name!r} ({len(unlabelled)} claims and reference facts "
        "without one): did you forget --labels FILE?",
    )


def check_dataset(
    ds: Dataset,
    ks: Mapping[str, int | None],
    *,
    allow_unreviewed: bool = False,
    label_policy: LabelPolicy = "human-first",
    allow_missing: bool = False,
) -> list[Problem]:
    """Every semantic problem of a dataset, given each run's cut-off; the labels its label
    files address to no run, question or claim (`Dataset.unattached`) before the runs'.

    `allow_missing` accepts runs without a result for some questions (they are listed as
    no result by `evaluate`, never scored).
    """
    index = SnapshotIndex.build(ds.snapshot)
    c = Checker(ds)
    check_snapshot(c, index)
    check_evalset(c, index)
    c.problems.extend(ds.unattached)
    _check_default_labellers(c)
    # Which of two questions of one ID a result answers is ambiguous: its checks against the
    # question's facts wait until the duplicate is fixed; the others do not depend on it.
    repeated = set(dupes(q.id for q in ds.evalset.questions))
    for run in ds.runs:
        _check_run(
            c, run, ks.get(run.name), index, allow_unreviewed, label_policy, allow_missing,
            repeated,
        )
    return c.problems


def load_checked(
    dataset: PathArg,
    snapshot: PathArg | None = None,
    runs: Sequence[PathArg] = (),
    labels: Sequence[PathArg] = (),
    *,
    problems: Callable[[Dataset], list[Problem]] | None = None,
) -> Dataset:
    """The files as `loading.load_dataset` reads them, refused with every problem that
    `problems` finds in them (default: `evaluate`'s with any label accepted), those of both
    steps at once where the files let the second run (see `load_dataset`'s `check`); a
    question without a result has no labels to read, and is accepted."""
    from ..loading import load_dataset  # as the package names it when called

    def accepted(read: Dataset) -> list[Problem]:
        return check_dataset(read, read.cutoffs(), allow_unreviewed=True, allow_missing=True)

    find = problems or accepted
    loaded = load_dataset(dataset, snapshot=snapshot, runs=runs, labels=labels, check=find)
    if found := find(loaded):
        raise InputError(found)
    return loaded
