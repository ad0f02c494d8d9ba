"""The recorder's overhead: Q questions of 20 scored candidates and 5 context passages each.

Times three ways of writing the same run to a JSONL file, each question built from the same
in-memory data (IDs, scores, passage texts of about 400 characters, a 60-word answer, token
counts, cost):

- `by hand`: `json.dumps` of a dict per question, written to a buffered file (no validation,
  no flush per question): the floor;
- `recorder, flush`: `Recorder(durability="flush")` with `with recorder.question(...)`: every
  question validated against the run schema and written with one `os.write` (survives a
  killed process);
- `recorder, fsync`: the same with `fsync` after each question (survives a power cut), on
  `--fsync-questions` questions (fsync costs what the disk costs).

Prints the time per question, the overhead over `by hand`, and the file sizes, and checks
that the recorder's file loads and holds every question.

    python benchmarks/recorder_overhead.py --questions 100000 --fsync-questions 10000
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from ragtriage.errors import ProblemCollector
from ragtriage.loading import read_file
from ragtriage.recording import Recorder
from ragtriage.schemas import Run

CANDIDATES = 20
CONTEXT = 5
WORDS = ("the", "service", "keeps", "logs", "for", "seven", "days", "unless", "an", "admin")


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def make_questions(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """The per-question data a service would hand the recorder."""
    rng = random.Random(seed)
    passages = [_text(rng, 60) for _ in range(1000)]
    out = []
    for q in range(n):
        # distinct within a question: a ranking holds each ID once (the recorder refuses a repeat)
        ids = [f"doc-{n:05d}" for n in rng.sample(range(100_000), CANDIDATES)]
        scores = sorted((rng.random() * 20 for _ in range(CANDIDATES)), reverse=True)
        out.append(
            {
                "question_id": f"q{q:06d}",
                "candidates": list(zip(ids, scores, strict=True)),
                "context": [(i, passages[rng.randrange(1000)]) for i in ids[:CONTEXT]],
                "answer": _text(rng, 60),
                "tokens": (rng.randrange(500, 3000), rng.randrange(20, 200)),
                "cost": rng.random() / 1000,
                "latency": rng.random() * 2000,
            }
        )
    return out


def by_hand(path: Path, questions: list[dict[str, Any]]) -> None:
    """The same records written with json.dumps and no checks."""
    with path.open("w", encoding="utf-8") as out:
        header = {"schema_version": 1, "kind": "run", "name": "bench", "provenance": {"k": 5}}
        out.write(json.dumps(header) + "\n")
        for q in questions:
            record = {
                "question_id": q["question_id"],
                "candidates": [{"id": i, "score": s} for i, s in q["candidates"]],
                "context": [{"id": i, "text": t} for i, t in q["context"]],
                "answer": q["answer"],
                "outcome": "answered",
                "latency_ms": q["latency"],
                "cost_usd": q["cost"],
                "usage": {"prompt_tokens": q["tokens"][0], "completion_tokens": q["tokens"][1]},
            }
            out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")


def recorded(path: Path, questions: list[dict[str, Any]], durability: str) -> None:
    """The same records through the recorder."""
    with Recorder(path, "bench", k=5, durability=durability) as recorder:  # type: ignore[arg-type]
        for q in questions:
            with recorder.question(q["question_id"]) as rec:
                rec.candidates(q["candidates"])
                rec.context(q["context"])
                rec.answer(q["answer"])
                rec.usage(*q["tokens"])
                rec.cost(q["cost"])
                rec.latency(q["latency"])


def _time(func: Any, *args: Any) -> float:
    start = time.perf_counter()
    func(*args)
    return time.perf_counter() - start


def main() -> None:
    """Run the three writers and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--fsync-questions", type=int, default=10_000)
    parser.add_argument(
        "--dir", type=Path, default=None, help="Where to write (default: a temp dir)."
    )
    args = parser.parse_args()
    questions = make_questions(args.questions)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp)
        rows = []
        hand = _time(by_hand, folder / "hand.jsonl", questions)
        rows.append(("by hand (json.dumps)", args.questions, hand, folder / "hand.jsonl"))
        flush = _time(recorded, folder / "flush.jsonl", questions, "flush")
        rows.append(("recorder, flush", args.questions, flush, folder / "flush.jsonl"))
        subset = questions[: args.fsync_questions]
        fsync = _time(recorded, folder / "fsync.jsonl", subset, "fsync")
        rows.append(("recorder, fsync", len(subset), fsync, folder / "fsync.jsonl"))
        floor = hand / args.questions
        print(f"{CANDIDATES} candidates and {CONTEXT} context passages per question\n")
        head = ("questions", "total s", "us/question", "x by hand", "MB", "bytes/q")
        print(f"{'writer':24} " + " ".join(f"{h:>11}" for h in head))
        for name, n, seconds, path in rows:
            size = path.stat().st_size
            per = seconds / n
            print(
                f"{name:24} {n:>11} {seconds:>11.2f} {per * 1e6:>11.1f} {per / floor:>11.2f} "
                f"{size / 1e6:>11.1f} {size / n:>11.0f}"
            )
        collector = ProblemCollector()
        loaded = read_file(folder / "flush.jsonl", collector)
        assert not collector.problems and isinstance(loaded.content, Run)
        assert len(loaded.content.results) == args.questions
        print(f"\nthe recorder's file loads: {len(loaded.content.results)} questions, no problems")


if __name__ == "__main__":
    main()
