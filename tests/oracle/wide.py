"""Wider generated data on top of `strategies.datasets`: every ID renamed to unicode, very
long or punctuation-laden forms, candidate scores tied, runs missing a subset of the
questions, and structure-keeping copies of a dataset at any size."""

from __future__ import annotations

import copy
import re
from typing import Any

from hypothesis import strategies as st

from .strategies import CROWDED_CHUNK_IDS, DOC_IDS, RUN_K, Generated
from .views import Snapshot, context_hash

ID_STYLES = {
    "unicode": lambda old: f"文書·é\u0301{old}🙂\u200d",
    "long": lambda old: f"{old}-" + "x" * 2000,
    "punctuation": lambda old: f"{old} '\"<&>|,:#*?[1]",
}
"""How `renamed` spells an ID: each keeps the old one inside, so IDs stay unique."""
RENAMED = [
    *DOC_IDS, *CROWDED_CHUNK_IDS, *(f"q{n}" for n in range(6)), *(f"f{n}" for n in range(3)),
    *(f"k{n}" for n in range(3)), "unknown-id", "a", "b", "staff", "board", "other", "bo",
    "tester", "judge-model", "base", "cand",
]
"""Every ID the strategies write (documents, chunks, questions, facts, claims, the invalid
citation, tags, groups, labellers, runs); `version-conflict` keeps its meaning."""


def _context(result: dict[str, Any]) -> tuple[str, ...]:
    if result.get("context") is not None:
        return tuple(item["id"] for item in result["context"])
    ranking = result.get("reranked")
    return tuple(item["id"] for item in (result["candidates"] if ranking is None else ranking))


def _rename(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {key: _rename(v, names) for key, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


def renamed(g: Generated, style: str) -> Generated:
    """`g` with every ID spelt in `style` (`ID_STYLES`); a label stamped with its result's
    context hash is stamped again with the renamed context's."""
    # `write_files` names a run's file after the run: a long run name is too long a file name.
    names = {old: ID_STYLES[style](old) for old in RENAMED
             if style != "long" or old not in ("base", "cand")}
    snapshot = _rename(g.snapshot, names)
    before, after = Snapshot(g.snapshot), Snapshot(snapshot)
    stamps = {}
    for run in g.runs:
        for res in run["results"]:
            context = _context(res)[: None if res.get("context") is not None else RUN_K]
            new = _rename(res, names)
            stamps[context_hash(res, context, before, RUN_K)] = context_hash(
                new, tuple(names.get(i, i) for i in context), after, RUN_K)
    out = Generated(snapshot, _rename(g.evalset, names), [_rename(r, names) for r in g.runs],
                    _rename(g.labels, names), [_rename(r, names) for r in g.runs_apart])
    for run in [*out.runs, *out.runs_apart]:
        for res in run["results"]:
            labels = [lab for c in res.get("claims") or [] for lab in c["labels"]]
            for label in [*labels, *res.get("fact_labels", [])]:
                if label.get("context_hash") in stamps:
                    label["context_hash"] = stamps[label["context_hash"]]
    return out


def tie_scores(g: Generated, draw: st.DrawFn) -> None:
    """Candidate scores tied (all equal, or in pairs), in place: the order given ranks."""
    pairs = draw(st.booleans())
    for run in g.runs:
        for res in run["results"]:
            for n, candidate in enumerate(res["candidates"]):
                candidate["score"] = float(n // 2) if pairs else 1.0


def drop_results(g: Generated, draw: st.DrawFn) -> None:
    """Each run keeps the results of a drawn subset of the questions (in place; its copy
    beside a labels file, and the file's labels, too)."""
    ids = [q["id"] for q in g.evalset["questions"]]
    for n, run in enumerate(g.runs):
        keep = draw(st.sets(st.sampled_from(ids)))
        for kept in [run, *g.runs_apart[n:n + 1]]:
            kept["results"] = [res for res in kept["results"] if res["question_id"] in keep]
        for labels in (lab for lab in g.labels if lab["run"] == run["name"]):
            for key in ("claim_labels", "fact_labels"):
                labels[key] = [e for e in labels[key] if e["question_id"] in keep]


def tiled(g: Generated, times: int) -> Generated:
    """`g` with its questions and results copied `times` times (`q0-0`, `q1-0`, ...,
    `q0-1`, ...): the same kinds of question at any size."""
    out = copy.deepcopy(g)
    out.evalset["questions"] = [{**copy.deepcopy(q), "id": f"{q['id']}-{n}"}
                                for n in range(times) for q in g.evalset["questions"]]
    for run, base in zip(out.runs, g.runs, strict=True):
        run["results"] = [{**copy.deepcopy(r), "question_id": f"{r['question_id']}-{n}"}
                          for n in range(times) for r in base["results"]]
    return out


_TILED_ID = re.compile(r"q[0-9]+-[0-9]+")


def shape(value: Any) -> Any:
    """A JSON value's structure: objects' keys (a tiled question ID as `<question>`),
    lists' element shapes as a set, scalars' JSON types."""
    if isinstance(value, dict):
        return ("object", frozenset(
            ("<question>" if _TILED_ID.fullmatch(k) else k, shape(v)) for k, v in value.items()
        ))
    if isinstance(value, list):
        return ("array", frozenset(shape(v) for v in value))
    if value is None or isinstance(value, bool | str):
        return type(value).__name__
    return "number"
