"""The recorder: what it writes loads, streams, survives SIGKILL, resumes, and is thread/async safe."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from ragtriage.errors import InputError, ProblemCollector, RequestError
from ragtriage.fileio import OutputError
from ragtriage.loading import read_file
from ragtriage.recording import (
    Component,
    Recorder,
    RecordingError,
    TraceDocument,
    TraceRecord,
    capture_environment,
    git_commit,
    result_from_trace,
    write_snapshot,
)
from ragtriage.schemas import QuestionResult, Run, Snapshot

ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path) -> Run:
    collector = ProblemCollector()
    loaded = read_file(path, collector)
    assert collector.problems == ()
    assert isinstance(loaded.content, Run)
    return loaded.content


def _recorder(path: Path, **kwargs: object) -> Recorder:
    return Recorder(path, "baseline", capture=False, durability="flush", **kwargs)  # type: ignore[arg-type]


def test_every_stage_is_written_and_loads(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with (
        Recorder(
            path,
            "baseline",
            snapshot_id="docs-1",
            evalset_id="set-1",
            retriever=Component(name="bm25", version="0.3"),
            reranker="cross-encoder",
            generator=Component(name="gpt-x", version="2026-01", settings={"temperature": 0.0}),
            prompt_version="answer-v2",
            k=2,
            filters={"status": "current"},
            packages=["pydantic"],
            repo=ROOT,
        ) as recorder,
        recorder.question("q1") as q,
    ):
        q.candidates([("a", 2.5), ("b", 1.0), "c"])
        q.reranked([{"id": "b", "score": 0.9}, {"id": "a", "score": 0.2}])
        q.context([("b", "B text"), ("a", "A text")])
        q.answer("B says so. [b]")
        q.claim("B says so.", ["b"])
        q.usage(100, 7)
        q.usage(20, 3)
        q.cost(0.001)
        q.latency(12.5)
        q.stage_latency("retrieval", 4.0)
    run = _load(path)
    prov = run.provenance
    assert (prov.snapshot_id, prov.evalset_id, prov.k, prov.prompt_version) == (
        "docs-1",
        "set-1",
        2,
        "answer-v2",
    )
    assert prov.retriever == Component(name="bm25", version="0.3")
    assert prov.reranker == Component(name="cross-encoder")
    assert prov.filters == {"status": "current"}
    env = prov.environment
    assert env["ragtriage"] == __import__("ragtriage").__version__
    assert env["package:pydantic"] == __import__("pydantic").VERSION
    assert (
        env["git_commit"]
        == subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    (result,) = run.results
    assert [(c.id, c.score) for c in result.candidates] == [("a", 2.5), ("b", 1.0), ("c", None)]
    assert [c.id for c in result.reranked or []] == ["b", "a"]
    assert [(c.id, c.text) for c in result.context or []] == [("b", "B text"), ("a", "A text")]
    assert (result.answer, result.outcome, result.latency_ms) == (
        "B says so. [b]",
        "answered",
        12.5,
    )
    assert [(c.text, c.citations) for c in result.claims or []] == [("B says so.", ["b"])]
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (120, 10)
    assert (result.cost_usd, result.stage_latency_ms) == (0.001, {"retrieval": 4.0})


def test_lines_are_sorted_json_one_per_question(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder, recorder.question("q1") as q:
        q.candidates(["a"])
        q.answer("no", "refused")
        q.latency(1.0)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == (
        '{"kind": "run", "name": "baseline", "provenance": {"environment": {}, "evalset_id": null, '
        '"filters": {}, "generator": null, "k": null, "notes": null, "prompt_version": null, '
        '"reranker": null, "retriever": null, "seed": null, "snapshot_id": null}, "schema_version": 1}'
    )
    assert json.loads(lines[1])["question_id"] == "q1"
    assert len(lines) == 2


def test_a_stage_set_twice_is_refused(tmp_path: Path) -> None:
    with _recorder(tmp_path / "run.jsonl") as recorder:
        with pytest.raises(RecordingError) as err, recorder.question("q1") as q:
            q.candidates(["a"])
            q.candidates(["b"])
        assert str(err.value) == (
            "question 'q1': candidates was already recorded; each stage is recorded once per question"
        )
        assert recorder.recorded == frozenset()


def test_an_invalid_result_lists_every_field(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:
        with pytest.raises(InputError) as err, recorder.question("q1") as q:
            q.candidates([("", 1.0)])
            q.answer("x", "maybe")  # type: ignore[arg-type]
        assert err.value.render() == (
            "2 problems found in the input:\n"
            f"- {path}: question 'q1': candidates.0.id: expected String should have at least 1 character; found ''\n"
            f"- {path}: question 'q1': outcome: expected 'answered', 'refused', 'clarified' or 'escalated'; found 'maybe'"
        )


def test_a_score_or_time_no_file_can_hold_and_a_malformed_entry_are_refused(
    tmp_path: Path,
) -> None:
    # NaN and infinity were written as `NaN`/`Infinity`, which no run loader reads; a text
    # score was turned into a number (or a ValueError), a pair too short or too long was an
    # IndexError or cut short, None an AttributeError
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:
        with pytest.raises(InputError) as err, recorder.question("q1") as q:
            q.candidates([("a", float("nan")), ("b", "0.5"), ("c",), None])  # type: ignore[list-item]
            q.reranked([("a", float("inf")), ("b", 1.0, 2)])  # type: ignore[list-item]
            q.context([("a",)])  # type: ignore[list-item]
            q.stage_latency("retrieval", float("nan"))
        assert err.value.render().splitlines() == [
            "8 problems found in the input:",
            f"- {path}: question 'q1': candidates.0.score: expected a finite number; found nan",
            f"- {path}: question 'q1': candidates.1.score: expected a valid number; found '0.5'",
            f"- {path}: question 'q1': candidates.2: expected a valid dictionary or instance of "
            "RankedItem; found ('c',)",
            f"- {path}: question 'q1': candidates.3: expected a valid dictionary or instance of "
            "RankedItem; found None",
            f"- {path}: question 'q1': reranked.0.score: expected a finite number; found inf",
            f"- {path}: question 'q1': reranked.1: expected a valid dictionary or instance of "
            "RankedItem; found ('b', 1.0, 2)",
            f"- {path}: question 'q1': context.0: expected a valid dictionary or instance of "
            "ContextItem; found ('a',)",
            f"- {path}: question 'q1': stage_latency_ms.retrieval: expected a finite number; "
            "found nan",
        ]
    assert path.read_text(encoding="utf-8").count("\n") == 1  # the header only


def test_what_evaluate_or_a_file_would_refuse_is_refused_when_the_question_ends(
    tmp_path: Path,
) -> None:
    # an ID twice in a ranking or the context, and a reranked list without candidates, were
    # written, and `evaluate` then refused the run; token counts as text raised a TypeError, an
    # answer with a lone surrogate a UnicodeEncodeError while writing
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:
        with pytest.raises(InputError) as err, recorder.question("q1") as q:
            q.candidates([("d1", 0.9), ("d1", 0.5), ("d2", 0.1)])
            q.reranked(["d3", "d2", "d3"])
            q.context([("d1", "t"), ("d1", "t2")])
            q.answer("a\udcff")
            q.usage("a", 2)  # type: ignore[arg-type]
            q.usage(1, 2)
            q.cost("0.1")  # type: ignore[arg-type]
        assert err.value.render().splitlines() == [
            "7 problems found in the input:",
            f"- {path}: question 'q1': usage.prompt_tokens: expected a valid integer; found 'a'",
            f"- {path}: question 'q1': cost_usd: expected a number; found '0.1'",
            f"- {path}: question 'q1': candidates: expected each ID at most once; found 'd1' more than once",
            f"- {path}: question 'q1': reranked: expected each ID at most once; found 'd3' more than once",
            f"- {path}: question 'q1': reranked: expected IDs that were among the candidates; found 'd3'",
            f"- {path}: question 'q1': context: expected each ID at most once; found 'd1' more than once",
            f"- {path}: question 'q1': answer: expected text UTF-8 can encode; found a lone "
            "surrogate \\udcff in 'a\\udcff'",
        ]
        with pytest.raises(InputError) as err, recorder.question("q2") as q:
            q.reranked([("d1", 0.9)])
        assert err.value.render() == (
            "1 problem found in the input:\n"
            f"- {path}: question 'q2': reranked: expected IDs that were among the candidates; "
            "found 'd1'"
        )
        with pytest.raises(InputError) as err, recorder.question("q4") as q:
            q.answer("b\ud800")  # alone: found as the line is encoded
        assert err.value.render() == (
            "1 problem found in the input:\n"
            f"- {path}: question 'q4': answer: expected text UTF-8 can encode; found a lone "
            "surrogate \\ud800 in 'b\\ud800'"
        )
        with recorder.question("q3") as q:  # the calls that were refused above, made right
            q.candidates(["d1", "d2"])
            q.reranked(["d2"])
            q.context([("d2", "t")])
            q.answer("a")
            q.usage(1, 2)
            q.usage(3, 4)
            q.cost(0.5)
    assert recorder.recorded == frozenset({"q3"})
    (result,) = _load(path).results
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (4, 6)
    assert result.cost_usd == 0.5


def test_a_text_given_for_a_list_is_refused_not_split_into_characters(tmp_path: Path) -> None:
    # q.candidates("doc12") recorded the candidates d, o, c, 1, 2, and q.claim(text, "d1")
    # the citations d and 1
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:

        @recorder.rerank()
        def rerank(hits: list[str]) -> str:
            return hits[0]

        with pytest.raises(InputError) as err, recorder.question("q1") as q:
            q.candidates("doc12")  # type: ignore[arg-type]
            rerank(["d1"])
            q.context([("d1", "t")])
            q.answer("a")
            q.claim("c", "d1")
    expected = "a list (IDs, (id, score) pairs or mappings), not one text"
    assert err.value.render().splitlines() == [
        "3 problems found in the input:",
        f"- {path}: question 'q1': candidates: expected {expected}; found 'doc12'",
        f"- {path}: question 'q1': reranked: expected {expected}; found 'd1'",
        f"- {path}: question 'q1': claims.0.citations: expected a list of IDs, not one text; "
        "found 'd1'",
    ]
    assert recorder.recorded == frozenset()


def test_a_traced_reranking_of_documents_no_retriever_returned_is_refused() -> None:
    # a reranker span without a retriever span was written as reranked IDs with no
    # candidates, and `evaluate` then refused the run
    trace = TraceRecord(
        trace_id="t1",
        question="x",
        rerankings=((TraceDocument(0, "d1", 0.9, "text"), TraceDocument(1, "d2", 0.5, "b")),),
        final_output="a",
    )
    with pytest.raises(InputError) as err:
        result_from_trace(trace, "q1", file="spans.jsonl")
    assert err.value.render().splitlines() == [
        "2 problems found in the input:",
        "- spans.jsonl: question 'q1': trace t1: reranked: expected IDs that were among the "
        "candidates; found 'd1'",
        "- spans.jsonl: question 'q1': trace t1: reranked: expected IDs that were among the "
        "candidates; found 'd2'",
    ]


def test_resume_skips_recorded_questions_and_refuses_a_second_result(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with _recorder(path, k=3) as recorder:
        for qid in ("q1", "q2"):
            with recorder.question(qid) as q:
                q.candidates([qid])
    with _recorder(path, k=3) as again:
        assert again.recorded == frozenset({"q1", "q2"})
        assert again.pending(["q1", "q2", "q3"]) == ["q3"]
        with pytest.raises(RecordingError) as err, again.question("q2"):
            pass
        assert str(err.value) == (
            f"{path}: question 'q2' is already recorded; use pending() to skip recorded questions"
        )
        with again.question("q3") as q:
            q.candidates(["q3"])
    assert [r.question_id for r in _load(path).results] == ["q1", "q2", "q3"]


def test_resume_ends_a_last_line_written_without_its_newline(tmp_path: Path) -> None:
    # a run whose last line has no newline (as many tools write JSONL) got the next result
    # on that same line, and the run no longer loaded
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder, recorder.question("q1") as q:
        q.candidates(["d1"])
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    with _recorder(path) as again, again.question("q2") as q:
        q.candidates(["d2"])
    assert [r.question_id for r in _load(path).results] == ["q1", "q2"]
    assert path.read_bytes().count(b"\n") == 3


def test_resume_refuses_a_different_header(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _recorder(path, k=3).close()
    with pytest.raises(InputError) as err:
        Recorder(path, "other", capture=False, k=5)
    hint = "(this recorder's header; record into a new file to change the run's conditions)"
    assert err.value.render() == (
        "2 problems found in the input:\n"
        f'- {path}: line 1: name: expected "other" {hint}; found "baseline"\n'
        f"- {path}: line 1: provenance.k: expected 5 {hint}; found 3"
    )


def test_an_exception_leaves_the_question_unrecorded(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:
        with pytest.raises(ZeroDivisionError), recorder.question("q1") as q:
            q.candidates(["a"])
            _ = 1 / 0
        assert recorder.pending(["q1"]) == ["q1"]
    assert _load(path).results == []


CHILD = """
import sys, time
from ragtriage.recording import Recorder
recorder = Recorder(sys.argv[1], "killed", capture=False)
for n in range(3):
    with recorder.question(f"q{n}") as q:
        q.candidates([f"doc{n}"])
        q.answer(f"answer {n}")
print("ready", flush=True)
with recorder.question("q3") as q:
    q.candidates(["doc3"])
    time.sleep(60)
"""


def test_a_killed_process_leaves_a_valid_run_that_resumes(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        with pytest.raises(InputError) as err:  # the child still writes it
            Recorder(path, "killed", capture=False)
        assert [p.message() for p in err.value.problems] == [TWO_WRITERS.format(path)]
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    run = _load(path)
    assert [(r.question_id, r.answer) for r in run.results] == [
        ("q0", "answer 0"),
        ("q1", "answer 1"),
        ("q2", "answer 2"),
    ]
    with Recorder(path, "killed", capture=False) as again:
        assert again.pending(["q0", "q1", "q2", "q3"]) == ["q3"]


TWO_WRITERS = (
    "{}: (file): expected a run no other Recorder writes (threads and tasks share one); found"
    " another Recorder has it open, in this process or another"
)


def test_a_second_recorder_on_an_open_run_is_refused(tmp_path: Path) -> None:
    # Each would record q1 once, and the run would hold it twice (which no loader reads).
    path = tmp_path / "run.jsonl"
    with _recorder(path) as first:
        with pytest.raises(InputError) as err:
            _recorder(path)
        assert [p.message() for p in err.value.problems] == [TWO_WRITERS.format(path)]
        with first.question("q1") as q:
            q.candidates(["d1"])
    with _recorder(path) as again:  # closed: resumed
        assert again.recorded == frozenset({"q1"})
    assert [r.question_id for r in _load(path).results] == ["q1"]


def test_a_second_recorder_reading_a_line_the_first_is_writing_says_the_run_is_open(
    tmp_path: Path,
) -> None:
    # Before, the second Recorder read the run before asking for its lock, met the line the
    # first was writing half-way and refused the run as broken JSON.
    import fcntl

    path = tmp_path / "run.jsonl"
    with _recorder(path) as first, first.question("q1") as q:
        q.candidates(["d1"])
    line = path.read_bytes().splitlines(keepends=True)[1]
    path.write_bytes(path.read_bytes()[: -len(line) // 2])  # the first, half-way through q1
    with path.open("ab") as writing:
        fcntl.flock(writing, fcntl.LOCK_EX)
        with pytest.raises(InputError) as err:
            _recorder(path)
    assert [p.message() for p in err.value.problems] == [TWO_WRITERS.format(path)]


def test_threads_record_every_question_once(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:

        @recorder.retrieve()
        def retrieve(text: str) -> list[tuple[str, float]]:
            return [(f"{text}-a", 1.0), (f"{text}-b", 0.5)]

        @recorder.generate()
        def generate(text: str) -> str:
            return f"answer to {text}"

        @recorder.per_question("question_id")
        def pipeline(question_id: str) -> str:
            retrieve(question_id)
            return generate(question_id)

        def work(start: int) -> None:
            for n in range(start, 200, 8):
                pipeline(f"q{n:03d}")

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    results = _load(path).results
    assert sorted(r.question_id for r in results) == [f"q{n:03d}" for n in range(200)]
    for r in results:
        assert [c.id for c in r.candidates] == [f"{r.question_id}-a", f"{r.question_id}-b"]
        assert r.answer == f"answer to {r.question_id}"
        assert sorted(r.stage_latency_ms) == ["generation", "retrieval"]


def test_asyncio_tasks_keep_their_own_question(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:

        @recorder.retrieve()
        async def retrieve(text: str) -> list[str]:
            await asyncio.sleep(0.001 * (hash(text) % 5))
            return [f"{text}-doc"]

        @recorder.select_context(to_item=lambda doc: (doc, f"text of {doc}"))
        async def select(docs: list[str]) -> list[str]:
            await asyncio.sleep(0)
            return docs

        @recorder.generate(outcome=lambda text: "refused" if text.endswith("7") else "answered")
        async def generate(text: str) -> str:
            await asyncio.sleep(0.001)
            return f"answer {text}"

        @recorder.per_question("qid")
        async def pipeline(qid: str) -> str:
            docs = await retrieve(qid)
            await select(docs)
            return await generate(qid)

        async def main() -> None:
            await asyncio.gather(*(pipeline(f"q{n}") for n in range(50)))

        asyncio.run(main())
    results = {r.question_id: r for r in _load(path).results}
    assert sorted(results) == sorted(f"q{n}" for n in range(50))
    for qid, r in results.items():
        assert [c.id for c in r.candidates] == [f"{qid}-doc"]
        assert [(c.id, c.text) for c in r.context or []] == [(f"{qid}-doc", f"text of {qid}-doc")]
        assert (r.answer, r.outcome) == (
            f"answer {qid}",
            "refused" if qid.endswith("7") else "answered",
        )


def test_a_wrapped_generator_s_items_reach_the_caller_and_the_run(tmp_path: Path) -> None:
    # a generator is read once: the recorder reads it and hands the same items on
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:

        @recorder.retrieve()
        def retrieve(text: str) -> Iterator[tuple[str, float]]:
            yield from ((f"{text}-a", 0.9), (f"{text}-b", 0.5))

        @recorder.select_context(to_item=lambda doc: (doc, f"text of {doc}"))
        async def select(docs: list[str]) -> AsyncIterator[str]:
            for doc in docs:
                yield doc

        async def pipeline() -> tuple[list[tuple[str, float]], list[str]]:
            with recorder.question("q1"):
                hits = list(retrieve("q1"))
                return hits, [doc async for doc in select([doc for doc, _ in hits])]

        assert asyncio.run(pipeline()) == (
            [("q1-a", 0.9), ("q1-b", 0.5)],
            ["q1-a", "q1-b"],
        )
    (result,) = _load(path).results
    assert [(c.id, c.score) for c in result.candidates] == [("q1-a", 0.9), ("q1-b", 0.5)]
    assert [(c.id, c.text) for c in result.context or []] == [
        ("q1-a", "text of q1-a"),
        ("q1-b", "text of q1-b"),
    ]
    assert sorted(result.stage_latency_ms) == ["context", "retrieval"]


def test_a_question_id_that_is_no_id_is_refused_before_the_work(tmp_path: Path) -> None:
    # per_question recorded a call with question_id=None as question 'None'
    path = tmp_path / "run.jsonl"
    calls: list[object] = []
    with _recorder(path) as recorder:

        @recorder.per_question("qid")
        def answer(qid: object) -> None:
            calls.append(qid)

        for wrong, found in (
            (None, "a valid string; found null"),
            ("", "a non-empty string; found an empty string"),
        ):
            with pytest.raises(InputError) as err:
                answer(wrong)
            assert err.value.render() == (
                f"1 problem found in the input:\n- {path}: question_id: expected {found}"
            )
        with pytest.raises(InputError), recorder.question(None):  # type: ignore[arg-type]
            calls.append("block")
        answer(7)  # a number names the question as its text, as the LangChain handler reads it
    assert calls == [7]
    assert [r.question_id for r in _load(path).results] == ["7"]


def test_a_wrapped_function_outside_a_question_is_refused(tmp_path: Path) -> None:
    with _recorder(tmp_path / "run.jsonl") as recorder:

        @recorder.retrieve()
        def retrieve(text: str) -> list[str]:
            return [text]

        with pytest.raises(RecordingError) as err:
            retrieve("x")
    assert str(err.value) == (
        "no question is being recorded here: call the wrapped function inside "
        "`with recorder.question(ID):` (or a function wrapped with recorder.per_question)"
    )


def test_git_commit_is_read_from_a_worktree_without_git(tmp_path: Path) -> None:
    # A worktree's .git is a file pointing at its git directory; HEAD names a branch whose
    # ref lives in the common directory's packed-refs.
    common = tmp_path / "repo.git"
    gitdir = common / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    sha = "0123456789abcdef0123456789abcdef01234567"
    (common / "packed-refs").write_text(f"# pack-refs with: peeled\n{sha} refs/heads/feature\n")
    (gitdir / "HEAD").write_text("ref: refs/heads/feature\n")
    (gitdir / "commondir").write_text("../..\n")
    work = tmp_path / "wt" / "sub"
    work.mkdir(parents=True)
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {gitdir}\n")
    assert git_commit(work) == sha
    assert capture_environment(["no-such-package-xyz"], work) == {
        "ragtriage": __import__("ragtriage").__version__,
        "python": __import__("platform").python_version(),
        "package:no-such-package-xyz": "not installed",
        "git_commit": sha,
    }


def test_snapshot_writer_round_trips_and_reports_every_problem(tmp_path: Path) -> None:
    docs = [
        {"id": "v1", "text": "Old.", "version": "v1", "status": "superseded"},
        {
            "id": "v2",
            "text": "New.",
            "version": "v2",
            "supersedes": ["v1"],
            "access_groups": ["staff"],
        },
    ]
    for name in ("snap.jsonl", "snap.json"):
        assert write_snapshot(tmp_path / name, "kb-1", docs, metadata={"source": "wiki"}) == 2
        collector = ProblemCollector()
        loaded = read_file(tmp_path / name, collector)
        assert collector.problems == ()
        assert isinstance(loaded.content, Snapshot)
        assert loaded.content.snapshot_id == "kb-1"
        assert [(d.id, d.status, d.access_groups) for d in loaded.content.documents] == [
            ("v1", "superseded", None),
            ("v2", "current", ["staff"]),
        ]
    bad = tmp_path / "bad.jsonl"
    with pytest.raises(InputError) as err:
        write_snapshot(
            bad,
            "kb-1",
            [
                {"id": "a", "text": 3},
                {"id": "b", "text": "x"},
                {"id": "c", "text": "y", "status": "old"},
                {"id": "b", "text": "z"},
            ],
        )
    assert err.value.render() == (
        "3 problems found in the input:\n"
        f"- {bad}: document 'a': text: expected a valid string; found 3\n"
        f"- {bad}: document 'c': status: expected 'current', 'superseded' or 'withdrawn'; found 'old'\n"
        f"- {bad}: document 'b': id: expected a unique ID; found a repeat"
    )
    assert not bad.exists()


def test_snapshot_writer_leaves_an_unstated_status_to_the_loader_and_words_problems_as_it(
    tmp_path: Path,
) -> None:
    # a superseded document whose status was not given was written as "current", so the
    # loader's rule (superseded when another document supersedes it) never applied and its
    # stale counts came out 0; problems were worded as pydantic's ("expected Field required")
    docs = [
        {"id": "a", "text": "x", "version": "v1"},
        {"id": "b", "text": "y", "supersedes": ["a"]},
        {"id": "c", "text": "z", "status": "current", "supersedes": ["d"]},
        {"id": "d", "text": "w", "status": "current"},
    ]
    for name in ("snap.jsonl", "snap.json"):
        path = tmp_path / name
        write_snapshot(path, "kb-1", docs)
        text = path.read_text()
        written = (
            [json.loads(line) for line in text.splitlines()[1:]]
            if name.endswith(".jsonl")
            else json.loads(text)["documents"]
        )
        assert [d.get("status") for d in written] == [None, None, "current", "current"]
        collector = ProblemCollector()
        loaded = read_file(path, collector)
        assert collector.problems == ()
        assert isinstance(loaded.content, Snapshot)
        assert [(d.id, d.status) for d in loaded.content.documents] == [
            ("a", "superseded"),
            ("b", "current"),
            ("c", "current"),
            ("d", "current"),
        ]
    bad = tmp_path / "bad.json"
    with pytest.raises(InputError) as err:
        write_snapshot(bad, "kb-1", [{"id": "c"}, {"text": "t"}])
    assert err.value.render().splitlines() == [
        "2 problems found in the input:",
        f"- {bad}: document 'c': text: expected a value (required field); found nothing",
        f"- {bad}: documents[1].id: expected a value (required field); found nothing",
    ]


def _snapshot_refused(
    tmp_path: Path, docs: list[dict[str, Any]]
) -> list[tuple[Path, list[str]]]:
    """Per snapshot file form (JSONL, JSON): its path and the lines of `write_snapshot`'s
    refusal of `docs`, which leaves no file."""
    out = []
    for name in ("snap.jsonl", "snap.json"):
        path = tmp_path / name
        with pytest.raises(InputError) as err:
            write_snapshot(path, "kb-1", docs)
        assert not path.exists()
        out.append((path, err.value.render().splitlines()))
    return out


def test_snapshot_writer_refuses_what_the_loader_refuses_across_documents(
    tmp_path: Path,
) -> None:
    # a `supersedes` naming an unknown document or the document itself, and a loop of
    # supersession, were written, and the loader then refused the snapshot
    docs = [
        {"id": "d1", "text": "t", "supersedes": ["zz"]},
        {"id": "d2", "text": "t", "supersedes": ["d2"]},
        {"id": "d3", "text": "t", "supersedes": ["d4"]},
        {"id": "d4", "text": "t", "supersedes": ["d3"]},
        {"id": "d5", "text": 5},
    ]
    for path, lines in _snapshot_refused(tmp_path, docs):
        assert lines == [
            "4 problems found in the input:",
            f"- {path}: document 'd5': text: expected a valid string; found 5",
            f"- {path}: documents[id=d1].supersedes: expected IDs of other documents in the "
            "snapshot; found 'zz'",
            f"- {path}: documents[id=d2].supersedes: expected IDs of other documents in the "
            "snapshot; found 'd2'",
            f"- {path}: documents[id=d4].supersedes: expected no loop of supersession (a "
            "document cannot replace one that replaces it); found d4 -> d3 -> d4",
        ]


def test_snapshot_writer_names_a_text_no_file_can_hold_with_the_other_problems(
    tmp_path: Path,
) -> None:
    # was an OutputError naming neither document nor field, raised at the first such text,
    # before the other problems were found
    docs = [
        {"id": "d1", "text": "x\udcff", "title": "t\ud800"},
        {"id": "d1", "text": "t"},
        {"id": "d2", "text": 5},
    ]
    for path, lines in _snapshot_refused(tmp_path, docs):
        assert lines == [
            "4 problems found in the input:",
            f"- {path}: document 'd1': text: expected text UTF-8 can encode; found a lone "
            "surrogate \\udcff in 'x\\udcff'",
            f"- {path}: document 'd1': title: expected text UTF-8 can encode; found a lone "
            "surrogate \\ud800 in 't\\ud800'",
            f"- {path}: document 'd1': id: expected a unique ID; found a repeat",
            f"- {path}: document 'd2': text: expected a valid string; found 5",
        ]


def test_a_run_that_is_not_jsonl_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        Recorder(tmp_path / "run.json", "baseline")
    assert str(err.value) == (
        f"1 problem found in the input:\n- {tmp_path / 'run.json'}: (file): expected a .jsonl path; found '.json'"
    )
    assert not (tmp_path / "run.json").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"name": None}, "name: expected a valid string; found null"),
        ({"name": ""}, "name: expected a non-empty string; found an empty string"),
        ({"name": "r", "k": "3"}, "k: expected an integer from 1 to 10000; found '3'"),
        ({"name": "r", "filters": [1]}, "filters: expected a valid dictionary; found [1]"),
    ],
    ids=["name None", "empty name", "k as text", "filters a list"],
)
def test_wrong_header_arguments_are_named_as_fields(
    arguments: dict[str, object], message: str, tmp_path: Path
) -> None:
    # Was a pydantic ValidationError (or a TypeError for filters) from deep inside.
    path = tmp_path / "run.jsonl"
    with pytest.raises(InputError) as raised:
        Recorder(path, capture=False, **arguments)  # type: ignore[arg-type]
    assert str(raised.value) == f"1 problem found in the input:\n- {path}: {message}"
    assert not path.exists()


def test_a_durability_that_is_neither_fsync_nor_flush_is_refused_with_the_header(
    tmp_path: Path,
) -> None:
    # durability="fsnyc" was taken as "flush": no line reached the disk before returning
    path = tmp_path / "run.jsonl"
    with pytest.raises(InputError) as raised:
        Recorder(path, None, capture=False, durability="fsnyc")  # type: ignore[arg-type]
    assert str(raised.value).splitlines() == [
        "2 problems found in the input:",
        f"- {path}: name: expected a valid string; found null",
        f"- {path}: durability: expected 'fsync' or 'flush'; found 'fsnyc'",
    ]
    assert not path.exists()


def test_capture_takes_a_bool_and_packages_one_name_as_a_str(tmp_path: Path) -> None:
    # capture="no" captured the environment; packages="numpy" recorded package:n,
    # package:u, ... (one per character), all "not installed".
    path = tmp_path / "run.jsonl"
    with pytest.raises(InputError) as raised:
        Recorder(path, "r", capture="no", durability="fsnyc")  # type: ignore[arg-type]
    assert str(raised.value).splitlines() == [
        "2 problems found in the input:",
        f"- {path}: durability: expected 'fsync' or 'flush'; found 'fsnyc'",
        f"- {path}: capture: expected one of True, False; found 'no'",
    ]
    assert not path.exists()
    recorder = Recorder(path, "r", packages="no-such-package-here")
    assert {k: v for k, v in recorder.header.provenance.environment.items() if "package" in k} == {
        "package:no-such-package-here": "not installed"
    }
    recorder.close()
    with pytest.raises(RequestError) as refused:
        Recorder(tmp_path / "other.jsonl", "r", packages=5)  # type: ignore[arg-type]
    assert str(refused.value) == "packages: expected a str or an iterable of str; found int 5"


def test_a_path_that_is_no_path_or_below_a_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RequestError) as raised:
        Recorder(None, "r", capture=False)  # type: ignore[arg-type]
    assert str(raised.value) == "path: expected a path (a str or os.PathLike); found None"
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    with pytest.raises(OutputError) as refused:
        Recorder(afile / "run.jsonl", "r", capture=False)
    assert str(refused.value) == (
        f"cannot write {afile}: it exists and is not a folder. Nothing was written."
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="/proc is not writable for others: refused first")
def test_a_run_that_cannot_be_created_is_refused_as_every_output() -> None:
    # Before: a FileNotFoundError (a PermissionError for a read-only run or folder) escaped
    # the recorder, where every other output says `cannot write PATH: ...`.
    with pytest.raises(OutputError) as refused:
        Recorder("/proc/run.jsonl", "r", capture=False)
    assert str(refused.value) == (
        "cannot write /proc/run.jsonl: a file cannot be created in the folder '/proc'. "
        "Nothing was written."
    )


def test_record_takes_only_a_question_result(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "run.jsonl", "r", capture=False)
    with pytest.raises(RecordingError) as raised:
        recorder.record({"question_id": "q1"})  # type: ignore[arg-type]
    assert str(raised.value) == (
        f"{tmp_path / 'run.jsonl'}: record() takes a QuestionResult (ragtriage.schemas); "
        "found dict"
    )
    recorder.close()


def test_record_refuses_what_evaluate_would_refuse(tmp_path: Path) -> None:
    # record() wrote a result with an ID twice and a reranked ID no candidate has, and
    # `evaluate` then refused the run
    path = tmp_path / "run.jsonl"
    with _recorder(path) as recorder:
        bad = QuestionResult.model_validate(
            {
                "question_id": "q1",
                "candidates": [{"id": "d1"}, {"id": "d1"}],
                "reranked": [{"id": "d2"}],
                "answer": "a\udcff",
                "outcome": "answered",
            }
        )
        with pytest.raises(InputError) as err:
            recorder.record(bad)
        assert err.value.render().splitlines() == [
            "3 problems found in the input:",
            f"- {path}: question 'q1': candidates: expected each ID at most once; found 'd1' more than once",
            f"- {path}: question 'q1': reranked: expected IDs that were among the candidates; found 'd2'",
            f"- {path}: question 'q1': answer: expected text UTF-8 can encode; found a lone "
            "surrogate \\udcff in 'a\\udcff'",
        ]
        recorder.record(QuestionResult.model_validate({"question_id": "q2"}))
    assert [r.question_id for r in _load(path).results] == ["q2"]
