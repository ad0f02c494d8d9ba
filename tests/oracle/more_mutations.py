"""More corruptions of one field (or two) of a valid generated dataset, each making it
invalid: wrong types and containers, bad dates, spans, enums and numbers, duplicates, IDs
nothing knows, and two problems at once (both must be named)."""

from __future__ import annotations

from hypothesis import assume, strategies as st

from .mutations import Mutation, _answered, _labels, _pick, _results
from .strategies import Generated


def wrong_types(g: Generated, draw: st.DrawFn) -> None:
    """A string where a list is expected, a number where a string is, a bool as a score."""
    where = draw(st.sampled_from(["reranked", "citations", "access_groups", "user_groups",
                                  "context_text", "score"]))
    if where == "reranked":
        _pick(draw, _results(g))["reranked"] = "d0"
    elif where == "citations":
        _pick(draw, [c for r in _answered(g) for c in r["claims"]])["citations"] = "d0"
    elif where == "access_groups":
        _pick(draw, g.snapshot["documents"])["access_groups"] = "staff"
    elif where == "user_groups":
        _pick(draw, g.evalset["questions"])["user_groups"] = "staff"
    elif where == "context_text":
        _pick(draw, [r for r in _results(g) if r.get("context")])["context"][0]["text"] = 7
    else:
        _pick(draw, [r for r in _results(g) if r["candidates"]])["candidates"][0]["score"] = True


def bad_values(g: Generated, draw: st.DrawFn) -> None:
    """An enum, date, k, span or usage outside its values."""
    where = draw(st.sampled_from(["labeller", "fact_verdict", "date", "effective_date", "k",
                                  "start", "empty_span", "usage", "hash"]))
    if where == "labeller":
        _pick(draw, _labels(g))["labeller"] = {"kind": "robot", "name": "r"}
    elif where == "fact_verdict":
        _pick(draw, [r for r in _results(g) if r.get("fact_labels")])["fact_labels"][0][
            "verdict"] = "maybe"
    elif where == "date":
        _pick(draw, g.evalset["questions"])["applies_to"] = {
            "date": draw(st.sampled_from(["2026-13-01", "2026-02-30", "yesterday"]))}
    elif where == "effective_date":
        _pick(draw, g.snapshot["documents"])["effective_date"] = "2026-02-30"
    elif where == "k":
        _pick(draw, g.runs)["provenance"]["k"] = -3
    elif where in ("start", "empty_span"):
        chunk = _pick(draw, g.snapshot["chunks"])
        chunk.pop("text", None)
        chunk["start"] = -1 if where == "start" else chunk["end"]
    elif where == "usage":
        _pick(draw, _results(g))["usage"] = {"prompt_tokens": draw(st.sampled_from([-1, "3"]))}
    else:
        _pick(draw, _labels(g))["context_hash"] = "sha256:" + "A" * 64


def duplicates(g: Generated, draw: st.DrawFn) -> None:
    """One ID twice: claims of a result, chunks, an evidence group's alternatives, a
    context, a reranked list, or two runs' names."""
    where = draw(st.sampled_from(["claim", "chunk", "any_of", "context", "reranked", "run"]))
    if where == "claim":
        claims = _pick(draw, [r for r in _answered(g) if len(r["claims"]) >= 2])["claims"]
        claims[0]["id"] = claims[1]["id"] = "same"
    elif where == "chunk":
        g.snapshot["chunks"].append(dict(_pick(draw, g.snapshot["chunks"])))
    elif where == "any_of":
        q = _pick(draw, [q for q in g.evalset["questions"] if q.get("required_evidence")])
        q["required_evidence"][0]["any_of"] *= 2
    elif where in ("context", "reranked"):
        res = _pick(draw, [r for r in _results(g) if r.get(where)])
        res[where].append(dict(res[where][0]))
    else:
        assume(len(g.runs) == 2)
        g.runs[1]["name"] = g.runs[0]["name"]


def unknown_ids(g: Generated, draw: st.DrawFn) -> None:
    """An ID nothing knows: a fact's evidence, a chunk's document, a supporting item, a
    result's question; or a chunk sharing a document's ID."""
    where = draw(st.sampled_from(["fact", "chunk", "support", "question", "chunk_id"]))
    if where == "fact":
        q = _pick(draw, [q for q in g.evalset["questions"] if q.get("reference_facts")])
        q["reference_facts"][0]["evidence"] = ["d-nowhere"]
    elif where == "chunk":
        _pick(draw, g.snapshot["chunks"])["document_id"] = "d-nowhere"
    elif where == "support":
        label = _pick(draw, [lab for lab in _labels(g) if lab["verdict"] == "supported"])
        label["supported_by"] = ["zz-unknown"]
    elif where == "question":
        run = _pick(draw, g.runs)
        run["results"].append({**run["results"][0], "question_id": "q-extra"})
    else:
        _pick(draw, g.snapshot["chunks"])["id"] = g.snapshot["documents"][0]["id"]


def inconsistent(g: Generated, draw: st.DrawFn) -> None:
    """Fields that contradict each other: an outcome without an answer, an answer without an
    outcome, an unsupported label naming support, a cycle of supersedes."""
    where = draw(st.sampled_from(["outcome", "answer", "support", "cycle"]))
    if where == "outcome":
        _pick(draw, [r for r in _results(g) if r.get("outcome")])["answer"] = None
    elif where == "answer":
        _pick(draw, [r for r in _results(g) if not r.get("outcome")])["answer"] = "x"
    elif where == "support":
        label = _pick(draw, [lab for lab in _labels(g) if lab["verdict"] == "unsupported"])
        label["supported_by"] = ["d0"]
    else:
        docs = g.snapshot["documents"]
        docs[0]["supersedes"], docs[1]["supersedes"] = [docs[1]["id"]], [docs[0]["id"]]


def two_problems(g: Generated, draw: st.DrawFn) -> None:
    """Two problems in two files: a question's text a number, a latency below 0."""
    _pick(draw, g.evalset["questions"])["text"] = 3
    _pick(draw, _results(g))["latency_ms"] = -5


MORE_MUTATIONS: tuple[Mutation, ...] = (
    wrong_types, bad_values, duplicates, unknown_ids, inconsistent, two_problems,
)
