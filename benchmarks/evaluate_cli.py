"""The default command at scale: `ragtriage evaluate --format json` against parsing the files.

Issue 12's yardstick. Writes a native dataset of Q questions with `native_scale.generate`
(snapshot, evaluation set, one run; 20 candidates per question, claims and labels inline),
then times, each in its own child process (wall time; peak RSS from `os.wait4`):

- `json-parse`: Python's `json` module parsing the same three files, nothing else (the
  floor any reader of these files pays);
- `evaluate`: `ragtriage evaluate EVALSET --snapshot ... --run ... --format json --output F`,
  the plain command a user types (four layers + diagnosis, the columnar engine).

It prints each figure (wall and CPU seconds, CPU counting the command's worker processes)
and the ratio of every command to `json-parse`, in wall time and in CPU time (on a machine
shared with other work, or reading files not yet in the page cache, the wall ratio mostly
measures the neighbours and the disk). The issue's targets: evaluate at most 4x
json-parse and at most 1 GB at 100,000 questions; under 60 s and 4 GB at 1,000,000.

    python benchmarks/evaluate_cli.py --questions 100000
    python benchmarks/evaluate_cli.py --questions 1000000 --data /tmp/bench

`--data DIR` keeps the generated files in DIR/Q/ and reuses them in a later run (generation
streams, 50,000 questions at a time). Two variants time the rows the rank measures' greedy
walk and the span comparison serve: `--shared-units` gives every question with evidence a
second group (grade 2) naming its first group's first document, so one document satisfies
two groups; `--evidence-level span` passes that option to `evaluate`. `--distinct-texts` gives
every answer and claim its own text (the generated run repeats one answer, so the per-text
scans, such as the sensitive-content scan of answers, are paid once): a ~170-character answer
and a ~70-character claim, as a real run has. `--passage-chars N` lengthens every snapshot
passage to about N characters (the generated ones have ~50; a real passage has hundreds),
so the per-passage scans (the injection rules) cost what they cost on real documents.
`--spaced` writes every line of the three files as Python's `json.dumps` writes it (a space
after each comma and colon), as a script that writes its own files does; the generated
lines are orjson's, without spaces.

    python benchmarks/evaluate_cli.py --questions 20000 --shared-units
    python benchmarks/evaluate_cli.py --questions 100000 --distinct-texts
    python benchmarks/evaluate_cli.py --questions 100000 --distinct-texts --passage-chars 1000
    python benchmarks/evaluate_cli.py --questions 20000 --evidence-level span
    python benchmarks/evaluate_cli.py --questions 100000 --spaced

`--repeat N` times both commands N times, one after the other in turn, and reports the median
of each (with the range of the wall times): on a machine shared with other work one run of a
few seconds moves by a tenth from one minute to the next.

    python benchmarks/evaluate_cli.py --questions 100000 --data /tmp/bench --repeat 5
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

_HERE = Path(__file__).resolve().parent


def _generate(directory: Path, questions: int) -> tuple[Path, Path, Path]:
    spec = importlib.util.spec_from_file_location("native_scale", _HERE / "native_scale.py")
    assert spec is not None and spec.loader is not None  # a file next to this one
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    evalset, snapshot, run = module.generate(directory, questions)
    return evalset, snapshot, run


def _shared_units(evalset: Path) -> Path:
    """The evaluation set with a second group on each question's first required document
    (written beside it as evalset-shared.jsonl)."""
    import orjson

    out = evalset.with_name("evalset-shared.jsonl")
    with evalset.open("rb") as source, out.open("wb") as sink:
        sink.write(source.readline().rstrip(b"\n"))
        for line in source:
            question = orjson.loads(line)
            groups = question.get("required_evidence")
            if groups:
                groups.append({"any_of": groups[0]["any_of"][:1], "grade": 2})
            sink.write(b"\n" + orjson.dumps(question))
    return out


def _distinct_texts(run: Path) -> Path:
    """The run with an answer and claim texts of its own for each question (written beside it
    as run-distinct.jsonl)."""
    import orjson

    out = run.with_name("run-distinct.jsonl")
    with run.open("rb") as source, out.open("wb") as sink:
        sink.write(source.readline().rstrip(b"\n"))
        for n, line in enumerate(source):
            result = orjson.loads(line)
            case, rule = n % 97, n % 13
            result["answer"] = (
                f"For question {n}, the policy for case {case} is rule {rule}; this follows from"
                " the documents retrieved for it, which state the rule and its exceptions in"
                f" detail (reference {n * 7919 % 100003})."
            )
            for claim in result.get("claims") or []:
                claim["text"] = f"The policy for case {case} is rule {rule} ({claim['text']}, {n})."
            sink.write(b"\n" + orjson.dumps(result))
    return out


_FILLER = (
    "Requests are handled in the order received, and each one is logged with the date, the"
    " account and the outcome. Where a rule changes, the previous version stays valid for"
    " thirty days. Exceptions need the approval of a team lead and a written reason."
)


def _long_passages(snapshot: Path, chars: int) -> Path:
    """The snapshot with every passage lengthened to about `chars` characters by sentences
    of its own (written beside it as snapshot-CHARS.jsonl)."""
    import orjson

    out = snapshot.with_name(f"snapshot-{chars}.jsonl")
    filler = _FILLER.split()
    with snapshot.open("rb") as source, out.open("wb") as sink:
        sink.write(source.readline().rstrip(b"\n"))
        for n, line in enumerate(source):
            doc = orjson.loads(line)
            words, at = [doc["text"]], n
            while sum(map(len, words)) + len(words) < chars:
                at = at * 1103515245 + 12345 & 0x7FFFFFFF  # a fixed walk through the filler
                words.append(filler[at % len(filler)])
            doc["text"] = " ".join(words)
            sink.write(b"\n" + orjson.dumps(doc))
    return out


def _json_parse(paths: list[str]) -> None:
    """Child: parse every line of every file with the standard library's json module."""
    import json

    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                json.loads(line)


def _spaced(path: Path) -> Path:
    """The file with each line as Python's `json.dumps` writes it (written beside it as
    NAME-spaced.jsonl)."""
    import json

    out = path.with_name(f"{path.stem}-spaced.jsonl")
    with path.open(encoding="utf-8") as source, out.open("w", encoding="utf-8") as sink:
        for line in source:
            sink.write(json.dumps(json.loads(line), ensure_ascii=False) + "\n")
    return out


def timed(command: list[str]) -> tuple[float, float, float]:
    """Run a command as a child process: (wall seconds, CPU seconds, peak RSS in GB)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed with status {status}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss * 1024 / 1024**3  # ru_maxrss: KiB on Linux


def main() -> None:
    """Generate, time, print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, nargs="+", default=[10_000])
    parser.add_argument("--data", type=Path, default=None,
                        help="keep the generated files in DATA/Q/ and reuse them")
    parser.add_argument("--shared-units", action="store_true",
                        help="one document in two groups of every question with evidence")
    parser.add_argument("--distinct-texts", action="store_true",
                        help="an answer and claim texts of its own for every question")
    parser.add_argument("--passage-chars", type=int, default=None, metavar="N",
                        help="lengthen every snapshot passage to about N characters")
    parser.add_argument("--spaced", action="store_true",
                        help="every line as Python's json.dumps writes it")
    parser.add_argument("--evidence-level", choices=["auto", "document", "chunk", "span"],
                        default="auto", help="the evaluate command's --evidence-level")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="time both commands N times, alternating, and report medians")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    script = shutil.which("ragtriage", path=str(Path(sys.executable).parent)) or "ragtriage"
    ragtriage = [script]
    table = []
    for questions in args.questions:
        if args.data is None:
            directory = Path(tempfile.mkdtemp(prefix="ragtriage-evaluate-"))
        else:
            directory = args.data / str(questions)
            directory.mkdir(parents=True, exist_ok=True)
        out = str(directory / "report.json")
        try:
            names = [directory / f"{n}.jsonl" for n in ("evalset", "snapshot", "run")]
            if args.data is not None and all(p.exists() for p in names):
                evalset, snapshot, run = names
            else:
                evalset, snapshot, run = _generate(directory, questions)
            if args.shared_units:
                evalset = _shared_units(evalset)
            if args.distinct_texts:
                run = _distinct_texts(run)
            if args.passage_chars:
                snapshot = _long_passages(snapshot, args.passage_chars)
            if args.spaced:
                evalset, snapshot, run = map(_spaced, (evalset, snapshot, run))
            size = sum(p.stat().st_size for p in (evalset, snapshot, run)) / 1e6
            print(f"{questions:>9,} questions, {size:,.0f} MB of JSONL", flush=True)
            dataset = [str(evalset), "--snapshot", str(snapshot), "--run", str(run)]
            commands = {
                "json-parse": [sys.executable, __file__, "--parse",
                               str(evalset), str(snapshot), str(run)],
                "evaluate": [*ragtriage, "evaluate", *dataset, "--format", "json", "--output", out,
                             "--evidence-level", args.evidence_level],
            }
            figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
            for round_ in range(1, args.repeat + 1):
                floor = cpu_floor = None
                for name, command in commands.items():
                    wall, cpu, rss = timed(command)
                    floor, cpu_floor = floor or wall, cpu_floor or cpu
                    figures[name].append((wall, cpu, rss))
                    shown = f"{name} ({round_} of {args.repeat})" if args.repeat > 1 else name
                    print(f"  {shown:<32} {wall:8.2f} s {cpu:8.2f} s CPU {rss:6.2f} GB"
                          f"  {wall / floor:5.1f}x parse ({cpu / cpu_floor:.1f}x in CPU)",
                          flush=True)
            floor, cpu_floor = (median(f[at] for f in figures["json-parse"]) for at in (0, 1))
            for name, runs in figures.items():
                walls = [wall for wall, _, _ in runs]
                wall, cpu = median(walls), median(cpu for _, cpu, _ in runs)
                spread = f"{min(walls):.2f}-{max(walls):.2f}"
                table.append((questions, name, wall, spread, cpu, max(r[2] for r in runs),
                              wall / floor, cpu / cpu_floor))
        finally:
            if args.data is None:
                shutil.rmtree(directory, ignore_errors=True)
            else:
                Path(out).unlink(missing_ok=True)
    if args.repeat > 1:
        print(f"\nMedians of {args.repeat} rounds (wall range: the fastest and slowest round; "
              "peak RSS: the largest); the ratios are of the medians.")
    print("\n| questions | command | wall s | wall range | CPU s | peak RSS GB | x json-parse "
          "| x in CPU |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for questions, name, wall, spread, cpu, rss, ratio, cpu_ratio in table:
        print(f"| {questions:,} | {name} | {wall:.2f} | {spread} | {cpu:.2f} | {rss:.2f} "
              f"| {ratio:.2f} | {cpu_ratio:.2f} |")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--parse":
        _json_parse(sys.argv[2:])
    else:
        main()
