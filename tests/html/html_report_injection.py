"""Hostile text planted in a copy of the bundled example, for the HTML report's safety tests."""

from __future__ import annotations

import json
from pathlib import Path

from ragtriage.example import example_paths

SCRIPT = '<script>window.__pwned=1;document.title="pwned"</script>'
"""Planted in a document, a context item, an answer, a claim and a question."""
IMG = "<img src=x onerror=\"window.__pwned=2;document.title='pwned'\">"
"""An attribute-based injection planted beside it."""
DOC_ID = "webhooks<script>window.__pwned=5</script>"
"""A document ID carrying markup (replaces `webhooks` everywhere)."""
QUESTION_ID = "sso<img src=x onerror=window.__pwned=6>"
"""A question ID carrying markup (replaces `sso` everywhere)."""
TAG = "<b onmouseover=window.__pwned=7>tag</b>"
"""A tag carrying markup, added to `exact-code`."""


def _replace_ids(text: str) -> str:
    return text.replace('"webhooks"', json.dumps(DOC_ID)).replace('"sso"', json.dumps(QUESTION_ID))


def write_injected(root: Path) -> tuple[Path, Path, tuple[Path, ...]]:
    """Copy the example to `root` with markup planted in text and IDs; return its paths."""
    paths = example_paths()
    (root / "runs").mkdir(parents=True)
    snapshot = json.loads(_replace_ids(paths.snapshot.read_text(encoding="utf-8")))
    for doc in snapshot["documents"]:
        if doc["id"] == DOC_ID:
            doc["text"] += " " + SCRIPT + IMG
    evalset = json.loads(_replace_ids(paths.evalset.read_text(encoding="utf-8")))
    for question in evalset["questions"]:
        if question["id"] == "exact-code":
            question["text"] += " " + SCRIPT
            question["tags"].append(TAG)
    runs = []
    for run_path in paths.runs:
        run = json.loads(_replace_ids(run_path.read_text(encoding="utf-8")))
        for result in run["results"]:
            for item in result.get("context") or []:
                if item["id"] == DOC_ID and item.get("text"):
                    item["text"] += " " + SCRIPT + IMG
            if result["question_id"] == "exact-code":
                result["answer"] += " " + SCRIPT + IMG
                result["claims"][0]["text"] += " " + IMG
        out = root / "runs" / run_path.name
        out.write_text(json.dumps(run, ensure_ascii=False), encoding="utf-8")
        runs.append(out)
    snap_path, eval_path = root / "snapshot.json", root / "evalset.json"
    snap_path.write_text(json.dumps(snapshot, ensure_ascii=False), encoding="utf-8")
    eval_path.write_text(json.dumps(evalset, ensure_ascii=False), encoding="utf-8")
    return eval_path, snap_path, tuple(runs)
