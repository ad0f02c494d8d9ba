"""TREC scoring speed: ragtriage against pytrec_eval (trec_eval's C code) and ranx.

For each question count Q, writes a TREC qrels and run file (Q questions x 100 ranked
documents, 1-5 relevant documents each with grades 1-3, tie-free scores), then runs each
tool in its own subprocess, file in -> per-question metrics out, measuring wall time and
the child's peak RSS (`os.wait4`). ragtriage is the command itself, end to end:
`ragtriage trec-eval QRELS RUN --per-question --format json --output FILE` (its report is
read back for the comparison after the timing). Measures: recall@10, P@10, MRR@10, nDCG@10, AP@100.
pytrec_eval's `recip_rank` ignores cut-offs, so its run is cut to the top 10 for MRR.
Finally checks that every tool gives the same per-question values and prints the ratios.

    python benchmarks/trec_speed.py --questions 10000 100000 1000000 --peers-up-to 100000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

MEASURES = ("recall@10", "precision@10", "mrr@10", "ndcg@10", "ap@100")
TOOLS = ("ragtriage", "pytrec_eval", "ranx")
DEPTH = 100


def generate(questions: int, run_path: Path, qrels_path: Path, seed: int = 0) -> None:
    """Write a synthetic TREC run and qrels (distinct documents per question, no ties)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    rng = np.random.default_rng(seed)
    span = DEPTH + DEPTH // 2  # relevant documents may sit beyond the retrieved 100
    ndocs = max(10 * questions, 10 * span)
    options = pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    run_schema = pa.schema(
        [
            ("q", pa.string()),
            ("z", pa.string()),
            ("d", pa.string()),
            ("r", pa.int32()),
            ("s", pa.float64()),
            ("t", pa.string()),
        ]
    )
    qrels_schema = pa.schema(
        [("q", pa.string()), ("z", pa.string()), ("d", pa.string()), ("g", pa.int32())]
    )
    with (
        pcsv.CSVWriter(str(run_path), run_schema, write_options=options) as run_out,
        pcsv.CSVWriter(str(qrels_path), qrels_schema, write_options=options) as qrels_out,
    ):
        for start in range(0, questions, 20_000):
            n = min(20_000, questions - start)
            base = rng.integers(0, ndocs, size=(n, 1))
            stride = rng.integers(1, ndocs // span, size=(n, 1))
            docs = (base + np.arange(span) * stride) % ndocs  # distinct within a question
            qids = np.char.add("q", np.arange(start, start + n).astype(str))
            ranks = np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), n)
            scores = np.round((1000.0 - ranks) + rng.random(n * DEPTH) * 0.5, 4)
            run_out.write(
                pa.table(
                    [
                        pa.array(np.repeat(qids, DEPTH)),
                        pa.array(np.full(n * DEPTH, "Q0")),
                        pa.array(np.char.add("d", docs[:, :DEPTH].ravel().astype(str))),
                        pa.array(ranks),
                        pa.array(scores),
                        pa.array(np.full(n * DEPTH, "bench")),
                    ],
                    schema=run_schema,
                )
            )
            n_rel = rng.integers(1, 6, size=n)
            positions = np.argsort(rng.random((n, span)), axis=1)[:, :5]
            chosen = np.arange(5) < n_rel[:, None]
            rows = np.nonzero(chosen)[0]
            qrels_out.write(
                pa.table(
                    [
                        pa.array(qids[rows]),
                        pa.array(np.full(rows.size, "0")),
                        pa.array(np.char.add("d", docs[rows, positions[chosen]].astype(str))),
                        pa.array(rng.integers(1, 4, size=rows.size).astype(np.int32)),
                    ],
                    schema=qrels_schema,
                )
            )


def _save(out: Path, ids: list[str], columns: dict[str, list[float]]) -> None:
    order = np.argsort(np.array(ids))
    np.savez(out, ids=np.array(ids)[order], **{k: np.array(v)[order] for k, v in columns.items()})


def ragtriage_command(qrels: Path, run: Path, report: Path) -> list[str]:
    """The command line the ragtriage timing runs (the report holds every value)."""
    metrics = [arg for m in MEASURES for arg in ("-m", m)]
    return [
        *(sys.executable, "-m", "ragtriage", "trec-eval", str(qrels), str(run)),
        *(*metrics, "--per-question", "--format", "json", "--output", str(report)),
    ]


def report_values(report: Path, out: Path) -> None:
    """ragtriage's per-question values, read back from its JSON report (untimed)."""
    questions = json.loads(report.read_text(encoding="utf-8"))["questions"]
    ids = [q["id"] for q in questions]
    _save(out, ids, {m: [np.nan if q[m] is None else q[m] for q in questions] for m in MEASURES})


def worker_pytrec_eval(qrels: Path, run: Path, out: Path) -> None:
    """pytrec_eval with its own file parsers; MRR on the run cut to the top 10."""
    import pytrec_eval

    with qrels.open() as handle:
        judged = pytrec_eval.parse_qrel(handle)
    with run.open() as handle:
        ranked = pytrec_eval.parse_run(handle)
    names = {"recall.10", "P.10", "ndcg_cut.10", "map_cut.100"}
    main = pytrec_eval.RelevanceEvaluator(judged, names).evaluate(ranked)
    top10 = {
        q: dict(sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:10])
        for q, docs in ranked.items()
    }
    rr = pytrec_eval.RelevanceEvaluator(judged, {"recip_rank"}).evaluate(top10)
    ids = sorted(main)
    keys = {
        "recall@10": "recall_10",
        "precision@10": "P_10",
        "ndcg@10": "ndcg_cut_10",
        "ap@100": "map_cut_100",
    }
    columns = {m: [main[q][k] for q in ids] for m, k in keys.items()}
    columns["mrr@10"] = [rr[q]["recip_rank"] for q in ids]
    _save(out, ids, columns)


def worker_ranx(qrels: Path, run: Path, out: Path) -> None:
    """ranx reading TREC files with its own loaders."""
    from ranx import Qrels, Run, evaluate

    judged = Qrels.from_file(str(qrels), kind="trec")
    ranked = Run.from_file(str(run), kind="trec")
    names = {
        "recall@10": "recall@10",
        "precision@10": "precision@10",
        "mrr@10": "mrr@10",
        "ndcg@10": "ndcg@10",
        "ap@100": "map@100",
    }
    evaluate(judged, ranked, list(names.values()), return_mean=True)
    ids = list(ranked.keys())
    columns = {m: [ranked.scores[k][q] for q in ids] for m, k in names.items()}
    _save(out, ids, columns)


WORKERS = {"pytrec_eval": worker_pytrec_eval, "ranx": worker_ranx}


def run_tool(tool: str, qrels: Path, run: Path, out: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (GB) of one tool in a fresh subprocess."""
    report = out.with_suffix(".json")
    if tool == "ragtriage":
        command = ragtriage_command(qrels, run, report)
    else:
        command = [sys.executable, __file__, "--worker", tool, str(qrels), str(run), str(out)]
    # A child's ru_maxrss counts the memory of the process it was forked from: fork the
    # tool from a small launcher, not from this process (which holds the generated data).
    launched = subprocess.run(
        [sys.executable, "-c", _LAUNCH, *command], capture_output=True, text=True, check=False
    )
    sys.stderr.write(launched.stderr)
    wall_text, status, maxrss, cpu = launched.stdout.split()
    if status != "0":
        raise SystemExit(f"{tool} failed with status {status}")
    if tool == "ragtriage":
        report_values(report, out)
    print(f"  ({tool}: {float(cpu):.2f} s CPU, user + system)", flush=True)
    return float(wall_text), int(maxrss) / 1024 / 1024  # ru_maxrss is in KiB on Linux


_LAUNCH = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, status, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
"""


def agree(outputs: dict[str, Path]) -> str:
    """Largest per-question difference between tools, per measure (exact match count too)."""
    loaded = {tool: np.load(path) for tool, path in outputs.items()}
    base = loaded["ragtriage"]
    notes = []
    for tool, other in loaded.items():
        if tool == "ragtriage":
            continue
        if not np.array_equal(base["ids"], other["ids"]):
            notes.append(f"{tool}: different question sets")
            continue
        worst = max(float(np.max(np.abs(base[m] - other[m]))) for m in MEASURES)
        exact = sum(int(np.sum(base[m] == other[m])) for m in MEASURES)
        total = len(MEASURES) * base["ids"].size
        notes.append(f"{tool}: max |diff| {worst:.3g}, {exact}/{total} values bit-identical")
    return "; ".join(notes)


def main() -> None:
    """Generate, time, compare, print."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument(
        "--peers-up-to",
        type=int,
        default=100_000,
        help="Run the peers only up to this many questions (1M needs > 12 GB for them).",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="Run each tool this many times; report the best."
    )
    parser.add_argument(
        "--tools",
        nargs="+",
        choices=TOOLS,
        default=list(TOOLS),
        help="Tools to run (ragtriage always runs).",
    )
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/ragtriage-trec-bench"))
    parser.add_argument(
        "--worker", nargs=4, metavar=("TOOL", "QRELS", "RUN", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.worker:
        tool, qrels, run, out = args.worker
        WORKERS[tool](Path(qrels), Path(run), Path(out))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    small_q, small_r = args.workdir / "warm.qrels", args.workdir / "warm.run"
    generate(200, small_r, small_q)
    chosen = ("ragtriage", *(t for t in TOOLS if t in args.tools and t != "ragtriage"))
    for tool in chosen:  # warm imports and ranx's numba cache, untimed
        run_tool(tool, small_q, small_r, args.workdir / f"warm-{tool}.npz")
    rows = []
    for questions in args.questions:
        qrels, run = args.workdir / f"q{questions}.qrels", args.workdir / f"q{questions}.run"
        if not run.exists():
            started = time.perf_counter()
            generate(questions, run, qrels)
            print(
                f"generated {questions} questions in {time.perf_counter() - started:.1f} s",
                flush=True,
            )
        with run.open("rb") as handle:  # same page-cache state for every tool
            while handle.read(1 << 24):
                pass
        tools = chosen if questions <= args.peers_up_to else ("ragtriage",)
        outputs, timings = {}, {}
        for tool in tools:
            outputs[tool] = args.workdir / f"q{questions}-{tool}.npz"
            repeat = args.repeat if questions <= args.peers_up_to else 1  # the big case once
            tries = [run_tool(tool, qrels, run, outputs[tool]) for _ in range(repeat)]
            # Best wall time of the tries (the machine is shared), largest peak memory.
            timings[tool] = (min(t[0] for t in tries), max(t[1] for t in tries))
            print(
                f"  {questions:>9} {tool:<12} {timings[tool][0]:8.2f} s {timings[tool][1]:6.2f} GB",
                flush=True,
            )
        rows.append((questions, timings, agree(outputs) if len(outputs) > 1 else "ragtriage only"))
    print(
        "\nquestions  tool          wall s   peak GB"
        "   speed-up (tool s / ours)   memory (ours / tool)"
    )
    for questions, timings, agreement in rows:
        ours_s, ours_gb = timings["ragtriage"]
        for tool, (wall, peak) in timings.items():
            ratio = (
                "" if tool == "ragtriage" else f"{wall / ours_s:14.1f}x   {ours_gb / peak:12.2f}x"
            )
            print(f"{questions:>9}  {tool:<12} {wall:7.2f}  {peak:8.2f}   {ratio}")
        print(f"           agreement: {agreement}")
    print(
        json.dumps(
            {
                str(q): {
                    t: {"wall_s": round(w, 3), "peak_gb": round(p, 3)} for t, (w, p) in tm.items()
                }
                for q, tm, _ in rows
            },
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    main()
