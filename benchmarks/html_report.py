"""HTML report at scale: build the report of a generated 10,000-question run, open it and filter.

Generates a snapshot, an evaluation set and one or two runs (20 candidates, 10 reranked,
context = top 5, three labelled claims and two reference facts per question), evaluates and
diagnoses them, renders the HTML report, then opens it in headless Chromium from a file://
URL and times (a) opening until the table is filled (the charts are inline SVG, drawn when
the page is built) and (b) filtering the table by a stage. Prints the file size beside the
JSON report of the same evaluation (`evaluate --format json`), the reference for "compact".

    python benchmarks/html_report.py --questions 10000 [--runs 2]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out" / "html_report"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TAGS = ("exact-identifier", "multi-fact", "version-conflict", "no-answer", "cross-lingual", "数字")
SPLITS = ("dev", "dev", "dev", "regression")
HUMAN = {"kind": "human", "name": "bench-reviewer"}


def generate(questions: int, runs: int, root: Path, seed: int = 7) -> tuple[Path, Path, list[Path]]:
    """Write snapshot, evaluation set and runs; failures of every stage occur at random."""
    rng = random.Random(seed)
    ndocs = max(2000, questions // 5)
    docs = [
        {
            "id": f"d{i}",
            "text": f"Document {i} says fact {i} holds; see section {i % 97}. 文档 {i}。",
            "title": f"Doc {i}",
            "status": "superseded" if i % 50 == 0 else "current",
        }
        for i in range(ndocs)
    ]
    root.mkdir(parents=True, exist_ok=True)
    snapshot = root / "snapshot.json"
    snapshot.write_text(
        json.dumps(
            {"schema_version": 1, "kind": "snapshot", "snapshot_id": "bench", "documents": docs}
        ),
        encoding="utf-8",
    )
    qs = []
    for n in range(questions):
        required = rng.sample(range(ndocs), 2)
        qs.append(
            {
                "id": f"q{n:05d}",
                "text": f"How does setting {n} interact with option {n % 13} under load? 问题 {n}",
                "answerability": "answerable",
                "required_evidence": [{"any_of": [f"d{r}"]} for r in required],
                "reference_facts": [
                    {"id": f"f{j}", "text": f"fact {r} holds", "evidence": [f"d{r}"]}
                    for j, r in enumerate(required)
                ],
                "tags": rng.sample(TAGS, rng.randint(0, 2)),
                "split": rng.choice(SPLITS),
            }
        )
    evalset = root / "evalset.json"
    evalset.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "kind": "evalset",
                "evalset_id": "bench",
                "snapshot_id": "bench",
                "questions": qs,
            }
        ),
        encoding="utf-8",
    )
    paths = []
    for r in range(runs):
        results = [_result(q, ndocs, rng) for q in qs]
        run = {
            "schema_version": 1,
            "kind": "run",
            "name": f"run{r}",
            "provenance": {"k": 5, "seed": r},
            "results": results,
        }
        path = root / f"run{r}.json"
        path.write_text(json.dumps(run), encoding="utf-8")
        paths.append(path)
    return evalset, snapshot, paths


def _result(q: dict[str, Any], ndocs: int, rng: random.Random) -> dict[str, Any]:
    required = [g["any_of"][0] for g in q["required_evidence"]]
    others = [f"d{i}" for i in rng.sample(range(ndocs), 20)]
    pool = [d for d in others if d not in required][:18]
    # Each required document is missing, low in the candidates, or near the top.
    for doc in required:
        roll = rng.random()
        if roll < 0.1:
            continue
        pool.insert(rng.randint(8, 17) if roll < 0.25 else rng.randint(0, 4), doc)
    candidates = pool[:20]
    reranked = candidates[:10]
    context = reranked[:5]
    claims = []
    for c in range(3):
        source = rng.choice(context)
        supported = rng.random() < 0.85
        claims.append(
            {
                "id": f"c{c + 1}",
                "text": f"Claim {c + 1}: {source} states that the setting is safe.",
                "citations": [source],
                "labels": [
                    {
                        "verdict": "supported" if supported else "unsupported",
                        "supported_by": [source] if supported else [],
                        "labeller": HUMAN,
                    }
                ],
            }
        )
    facts = [
        {
            "fact_id": f["id"],
            "verdict": "covered" if rng.random() < 0.8 else "not_covered",
            "labeller": HUMAN,
        }
        for f in q["reference_facts"]
    ]
    return {
        "question_id": q["id"],
        "candidates": [{"id": d} for d in candidates],
        "reranked": [{"id": d} for d in reranked],
        "answer": " ".join(c["text"] for c in claims),
        "outcome": "answered",
        "claims": claims,
        "fact_labels": facts,
    }


def main() -> None:
    """Generate, build, open, filter; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from ragtriage.api import report_page
    from ragtriage.columnar import load_and_evaluate
    from ragtriage.render import dumps, evaluation_json

    root = OUT / f"q{args.questions}-r{args.runs}"
    t0 = time.perf_counter()
    evalset, snapshot, runs = generate(args.questions, args.runs, root)
    t1 = time.perf_counter()
    evaluation = load_and_evaluate(evalset, snapshot=snapshot, runs=runs)
    diagnoses = evaluation.diagnoses
    t2 = time.perf_counter()
    page = report_page(evaluation)
    t3 = time.perf_counter()
    html_path = root / "report.html"
    html_path.write_text(page, encoding="utf-8")
    json_size = len(dumps(evaluation_json(evaluation)).encode("utf-8"))
    html_size = html_path.stat().st_size
    chart_size = sum(len(m.encode("utf-8")) for m in re.findall(r"<svg.*?</svg>", page, re.S))
    print(f"questions {args.questions}, runs {args.runs}")
    print(
        f"generate {t1 - t0:.1f} s, evaluate (diagnosis included) {t2 - t1:.1f} s, "
        f"render HTML {t3 - t2:.2f} s (charts included)"
    )
    print(
        f"HTML report {html_size / 1e6:.2f} MB (SVG charts {chart_size / 1e3:.1f} kB); "
        f"JSON report of the same evaluation {json_size / 1e6:.2f} MB"
    )

    stage = diagnoses[0].questions[0].primary
    expected = sum(q.primary == stage for q in diagnoses[0].questions)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for attempt in ("cold", "warm"):
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            start = time.perf_counter()
            tab.goto(html_path.as_uri())
            tab.wait_for_selector("body[data-ready]")
            ready = time.perf_counter()
            tab.wait_for_selector("#chart-funnel svg rect.bar")
            tab.wait_for_selector("#chart-stages svg rect.bar")
            drawn = time.perf_counter()
            tab.select_option("#f-stage", stage)
            tab.wait_for_function(
                "n => document.getElementById('q-count').textContent.startsWith(n + ' of ')",
                arg=expected,
            )
            filtered = time.perf_counter()
            tab.fill("#f-text", "q0999")
            tab.wait_for_function(
                "() => document.getElementById('q-count').textContent.indexOf(' of ') > 0"
            )
            text = time.perf_counter()
            rows = tab.eval_on_selector_all("#q-body tr", "r => r.length")
            print(
                f"{attempt}: table ready {ready - start:.2f} s, "
                f"charts drawn {drawn - start:.2f} s, "
                f"filter by stage {stage!r} ({expected} questions) {filtered - drawn:.3f} s, "
                f"text filter {text - filtered:.3f} s ({rows} rows shown); "
                f"open + filter {filtered - start:.2f} s (target < 2 s)"
            )
            tab.close()
        browser.close()


if __name__ == "__main__":
    main()
