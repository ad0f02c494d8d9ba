"""The pipeline end to end on a small snapshot: stages recorded, provenance, cache on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtriage import run_files
from ragtriage.errors import InputError
from ragtriage.retrievers import RETRIEVAL_ONLY_NOTE, Chunking, RetrievalConfig, run_retrieval
from ragtriage.schemas import (
    Chunk,
    ContextItem,
    Document,
    EvalSet,
    EvidenceGroup,
    Question,
    Snapshot,
)

SNAPSHOT = Snapshot(
    snapshot_id="mini",
    documents=[
        Document(
            id="refunds",
            title="Refunds",
            text="A refund needs the order number. Refunds are paid in five days.",
        ),
        Document(
            id="cards",
            title="Cards",
            text="A lost card is blocked at once. A new card arrives in a week.",
        ),
        Document(
            id="loans", title="Loans", text="Loan interest is fixed for the first year of the loan."
        ),
        Document(id="empty", text=""),
    ],
)
EVALSET = EvalSet(
    evalset_id="mini-q",
    snapshot_id="mini",
    questions=[
        Question(
            id="q1",
            text="how is a refund paid?",
            answerability="answerable",
            required_evidence=[EvidenceGroup(any_of=["refunds"])],
        ),
        Question(
            id="q2",
            text="I lost my card",
            answerability="answerable",
            required_evidence=[EvidenceGroup(any_of=["cards"])],
        ),
    ],
)


def test_bm25_run_records_candidates_context_latency_and_provenance(tmp_path: Path) -> None:
    out = run_retrieval(SNAPSHOT, EVALSET, RetrievalConfig(k=1), name="bm25", cache_dir=tmp_path)
    run = out.run
    assert out.units == 3
    assert [r.question_id for r in run.results] == ["q1", "q2"]
    first = run.results[0]
    assert [c.id for c in first.candidates] == ["refunds"]  # no other unit shares a term
    assert first.candidates[0].score is not None and first.candidates[0].score > 0
    assert first.reranked is None
    assert [(c.id, c.text) for c in first.context or []] == [
        ("refunds", SNAPSHOT.documents[0].text)
    ]
    assert (first.answer, first.outcome, first.claims) == (None, None, None)
    assert sorted(first.stage_latency_ms) == ["context", "retrieval"]
    prov = run.provenance
    assert (prov.snapshot_id, prov.evalset_id, prov.k, prov.notes) == (
        "mini",
        "mini-q",
        1,
        RETRIEVAL_ONLY_NOTE,
    )
    assert prov.retriever is not None and prov.retriever.name == "bm25s"
    assert prov.retriever.settings["tokenizer"] == "stemmer=english,stopwords=en,chinese=none"
    assert prov.retriever.settings["chunking"] == "snapshot"


def test_index_is_cached_under_the_given_directory_only(tmp_path: Path) -> None:
    first = run_retrieval(SNAPSHOT, EVALSET, RetrievalConfig(), name="a", cache_dir=tmp_path)
    second = run_retrieval(SNAPSHOT, EVALSET, RetrievalConfig(), name="a", cache_dir=tmp_path)
    assert (first.index_from_cache, second.index_from_cache) == (False, True)
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == ["bm25"]
    strip = {"latency_ms", "stage_latency_ms"}
    assert [r.model_dump(exclude=strip) for r in first.run.results] == [
        r.model_dump(exclude=strip) for r in second.run.results
    ]
    changed = SNAPSHOT.model_copy(update={"documents": SNAPSHOT.documents[:2]})
    assert not run_retrieval(
        changed, EVALSET, RetrievalConfig(), name="a", cache_dir=tmp_path
    ).index_from_cache


def test_an_index_another_process_stores_first_is_kept_without_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two `run`s building one index at once: the other finishes between this one's look for
    # the index and its rename. Before, the rename onto the other's folder raised OSError.
    from ragtriage.retrievers._index_cache import IndexCache

    target = tmp_path / "bm25-key"
    real_exists = Path.exists

    def fill(folder: Path) -> None:
        (folder / "index").write_text("mine", encoding="utf-8")
        target.mkdir()  # the other process's index, renamed into place meanwhile
        (target / "index").write_text("theirs", encoding="utf-8")
        (target / "complete").write_text("ok\n", encoding="utf-8")
        # ... after this process looked for it
        monkeypatch.setattr(Path, "exists", lambda p: p != target and real_exists(p))

    assert IndexCache(tmp_path).store("bm25-key", fill) == target
    assert (target / "index").read_text(encoding="utf-8") == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["bm25-key"]  # no temporary folder left


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    run_retrieval(
        SNAPSHOT, EVALSET, RetrievalConfig(), name="a", cache_dir=tmp_path, use_cache=False
    )
    assert list(tmp_path.iterdir()) == []


def test_chunked_run_returns_a_snapshot_holding_its_chunks(tmp_path: Path) -> None:
    config = RetrievalConfig(k=2, chunking=Chunking("sentences", 1))
    out = run_retrieval(SNAPSHOT, EVALSET, config, name="c", cache_dir=tmp_path)
    assert [c.id for c in out.snapshot.chunks][:2] == ["refunds#0-33", "refunds#33-63"]
    assert out.run.results[0].candidates[0].id == "refunds#33-63"
    assert out.units == 5  # two sentences each for refunds and cards, one for loans


def test_dense_hybrid_and_rerank_stages(tmp_path: Path) -> None:
    dense = run_retrieval(
        SNAPSHOT, EVALSET, RetrievalConfig(retriever="dense", k=1), name="d", cache_dir=tmp_path
    )
    assert [r.candidates[0].id for r in dense.run.results] == ["refunds", "cards"]
    assert len(dense.run.results[0].candidates) == 3  # dense ranks every unit
    hybrid = run_retrieval(
        SNAPSHOT, EVALSET, RetrievalConfig(retriever="hybrid", k=1), name="h", cache_dir=tmp_path
    )
    top = hybrid.run.results[0].candidates[0]
    assert top.id == "refunds" and top.score == pytest.approx(2 / 61, abs=1e-6)
    reranked = run_retrieval(
        SNAPSHOT, EVALSET, RetrievalConfig(k=1, rerank="dense"), name="r", cache_dir=tmp_path
    )
    result = reranked.run.results[1]
    assert result.reranked is not None and [i.id for i in result.reranked] == ["cards"]
    assert sorted(result.stage_latency_ms) == ["context", "rerank", "retrieval"]
    assert reranked.run.provenance.reranker is not None
    assert reranked.run.provenance.reranker.settings == {"kind": "dense", "depth": 100}


def test_conflicting_options_are_reported_together() -> None:
    config = RetrievalConfig(k=20, candidates=5, context_chars=0)
    with pytest.raises(InputError) as info:
        run_retrieval(SNAPSHOT, EVALSET, config, name="x", use_cache=False)
    assert str(info.value) == (
        "2 problems found in the input:\n"
        "- <command line>: --candidates: expected at least k (20); found 5\n"
        "- <command line>: --context-chars: expected an integer from 1 to 10000000; found 0"
    )


@pytest.mark.parametrize("k", [0, 10_001, True, 2.5, "x"])
def test_k_goes_through_the_one_cut_off_parser(tmp_path: Path, k: object) -> None:
    # the Python call as the command line: the same range and message, before any file is read
    config = RetrievalConfig(k=k)  # type: ignore[arg-type]  # a caller's wrong type
    with pytest.raises(InputError) as info:
        run_retrieval(SNAPSHOT, EVALSET, config, name="x", use_cache=False)
    message = (
        "1 problem found in the input:\n"
        f"- <command line>: -k: expected an integer from 1 to 10000; found {k!r}"
    )
    assert str(info.value) == message
    with pytest.raises(InputError) as info:
        run_files(tmp_path / "none.json", snapshot=tmp_path / "none.json", output=tmp_path / "r.json", k=k)  # type: ignore[arg-type]  # noqa: E501
    assert str(info.value) == message


def test_filters_drop_stale_and_unreadable_documents_before_ranking(tmp_path: Path) -> None:
    snapshot = Snapshot(
        snapshot_id="f",
        documents=[
            Document(id="old", text="refund rules: ten days", status="superseded"),
            Document(id="new", text="refund rules: five days", supersedes=["old"]),
            Document(id="hr", text="refund rules for staff salaries", access_groups=["hr"]),
        ],
    )
    evalset = EvalSet(
        evalset_id="fq",
        questions=[
            Question(
                id="a",
                text="refund rules",
                answerability="answerable",
                required_evidence=[EvidenceGroup(any_of=["new"])],
                user_groups=["eng"],
            ),
            Question(
                id="b",
                text="refund rules",
                answerability="answerable",
                required_evidence=[EvidenceGroup(any_of=["new"])],
            ),
        ],
    )
    plain = run_retrieval(snapshot, evalset, RetrievalConfig(), name="p", cache_dir=tmp_path)
    assert sorted(c.id for c in plain.run.results[0].candidates) == ["hr", "new", "old"]
    config = RetrievalConfig(current_only=True, respect_permissions=True)
    out = run_retrieval(snapshot, evalset, config, name="f", cache_dir=tmp_path)
    assert [c.id for c in out.run.results[0].candidates] == ["new"]
    # no user_groups on question b: only the status filter applies
    assert sorted(c.id for c in out.run.results[1].candidates) == ["hr", "new"]
    assert out.run.provenance.filters == {
        "access_groups": "question.user_groups",
        "status": "current",
    }
    assert out.index_from_cache  # filters do not change the index


def test_a_unit_without_index_terms_does_not_lengthen_the_average(tmp_path: Path) -> None:
    # "the of and" has no term once stopwords go: bm25s indexes it with length 0, so the
    # average length is 11/3 and the short document A ranks first (as plain bm25s ranks it)
    import bm25s

    snapshot = Snapshot(
        snapshot_id="flip",
        documents=[
            Document(id="A", text="zebra"),
            Document(id="B", text="zebra zebra zebra zebra zebra lion tiger bear wolf fox"),
            Document(id="C", text="the of and"),
        ],
    )
    evalset = EvalSet(
        evalset_id="flip-q",
        questions=[
            Question(
                id="q1",
                text="zebra",
                answerability="answerable",
                required_evidence=[EvidenceGroup(any_of=["A"])],
            )
        ],
    )
    out = run_retrieval(snapshot, evalset, RetrievalConfig(k=1), name="b", cache_dir=tmp_path)
    found = [(c.id, c.score) for c in out.run.results[0].candidates]
    assert found == [("A", 0.279462), ("B", 0.278333)]
    plain = bm25s.BM25(k1=1.5, b=0.75)
    corpus = [["zebra"], ["zebra"] * 5 + ["lion", "tiger", "bear", "wolf", "fox"], []]
    plain.index(corpus, show_progress=False)
    assert [round(float(s), 6) for s in plain.get_scores(["zebra"])] == [0.279462, 0.278333, 0.0]
    cached = run_retrieval(snapshot, evalset, RetrievalConfig(k=1), name="b", cache_dir=tmp_path)
    assert cached.index_from_cache
    assert [(c.id, c.score) for c in cached.run.results[0].candidates] == found


def test_units_without_a_single_index_term_match_nothing(tmp_path: Path) -> None:
    snapshot = Snapshot(
        snapshot_id="stop", documents=[Document(id="A", text="the of"), Document(id="B", text="a")]
    )
    out = run_retrieval(snapshot, EVALSET, RetrievalConfig(k=1), name="s", cache_dir=tmp_path)
    assert [(r.candidates, r.context) for r in out.run.results] == [([], []), ([], [])]


def _evalset(evalset_id: str, *asked: tuple[str, str, str]) -> EvalSet:
    """An evaluation set of answerable questions (ID, text, the one document answering it)."""
    return EvalSet(evalset_id=evalset_id, questions=[
        Question(
            id=qid,
            text=text,
            answerability="answerable",
            required_evidence=[EvidenceGroup(any_of=[doc])],
        )
        for qid, text, doc in asked
    ])


def test_every_document_with_something_to_index_can_be_retrieved(tmp_path: Path) -> None:
    # Before: 'b' (no chunks, in a snapshot with chunks) and 'c' (a title, no text) were
    # never indexed, and nothing said so
    snapshot = Snapshot(
        snapshot_id="s6",
        documents=[
            Document(id="a", text="apple pie. banana split."),
            Document(id="b", text="cherry tart and apple"),
            Document(id="c", title="Durian", text=""),
            Document(id="e", text=""),
        ],
        chunks=[
            Chunk(id="a1", document_id="a", start=0, end=11),
            Chunk(id="a2", document_id="a", start=11, end=24),
        ],
    )
    evalset = _evalset("e6", ("q1", "cherry tart", "b"), ("q2", "durian", "c"))
    out = run_retrieval(snapshot, evalset, RetrievalConfig(k=1), name="b", cache_dir=tmp_path)
    assert (out.units, out.unindexed) == (4, ("e",))
    assert [[c.id for c in r.candidates] for r in out.run.results] == [["b"], ["c"]]
    assert [r.context for r in out.run.results][1] == [ContextItem(id="c", text="")]


def test_the_tokenizers_libraries_are_in_the_cache_key_and_the_provenance(
    tmp_path: Path,
) -> None:
    # Before: only bm25s's version; a new PyStemmer or jieba reused an index built by the old
    from importlib.metadata import version

    from ragtriage.retrievers import TokenizerSpec
    from ragtriage.retrievers._lexical import lexical_settings

    stem, jieba = {"pystemmer": version("PyStemmer")}, {"jieba": version("jieba")}
    plain = {"tokenizer": "stemmer=none,stopwords=en,chinese=none", "bm25s": version("bm25s")}
    plain |= {"k1": "1.5", "b": "0.75", "format": "4"}
    assert lexical_settings(TokenizerSpec(stemmer=None, chinese=False)) == plain
    spec = TokenizerSpec(stemmer="english", chinese=True)
    assert lexical_settings(spec) == {
        **plain, "tokenizer": spec.describe(), **stem, **jieba
    }
    out = run_retrieval(SNAPSHOT, EVALSET, RetrievalConfig(), name="b", cache_dir=tmp_path)
    assert out.run.provenance.retriever is not None
    assert out.run.provenance.retriever.settings["pystemmer"] == stem["pystemmer"]
    assert "jieba" not in out.run.provenance.retriever.settings  # no Chinese text: not used
    hybrid = RetrievalConfig(retriever="hybrid", tokenizer=TokenizerSpec(stemmer=None))
    out = run_retrieval(SNAPSHOT, EVALSET, hybrid, name="h", cache_dir=tmp_path)
    assert out.run.provenance.retriever is not None
    assert "pystemmer" not in out.run.provenance.retriever.settings


def test_a_bm25_reranker_records_its_tokenizer_and_libraries(tmp_path: Path) -> None:
    # Before: {"kind": "bm25", "depth": 100}; PyStemmer's version and the tokenization were
    # recorded for a bm25 first stage only, so a dense run reranked by BM25 named neither.
    from importlib.metadata import version

    config = RetrievalConfig(retriever="dense", k=1, rerank="bm25", rerank_depth=2)
    out = run_retrieval(SNAPSHOT, EVALSET, config, name="r", cache_dir=tmp_path)
    reranker = out.run.provenance.reranker
    assert reranker is not None
    assert (reranker.name, reranker.version) == ("bm25s", version("bm25s"))
    assert reranker.settings == {
        "kind": "bm25",
        "depth": 2,
        "tokenizer": "stemmer=english,stopwords=en,chinese=none",
        "k1": 1.5,
        "b": 0.75,
        "pystemmer": version("PyStemmer"),
    }


def test_full_width_and_decomposed_words_retrieve_their_ordinary_forms(tmp_path: Path) -> None:
    # Before: the question "VPN 密码" matched the full-width "ＶＰＮ" of neither document and
    # found both by "密码" alone, the shorter e-mail one first; "café" found nothing, as the
    # document's decomposed "Cafe\u0301" was indexed as "cafe"
    snapshot = Snapshot(
        snapshot_id="nfkc",
        documents=[
            Document(id="vpn", text="ＶＰＮ客户端的登录密码至少１２位。"),
            Document(id="mail", text="邮箱密码至少8位。"),
            Document(id="cafe", text="Cafe\u0301 opens at nine."),
        ],
    )
    evalset = _evalset("nfkc-q", ("q1", "VPN 密码", "vpn"), ("q2", "café", "cafe"))
    out = run_retrieval(snapshot, evalset, RetrievalConfig(k=1), name="b", cache_dir=tmp_path)
    found = [[(c.id, c.score) for c in r.candidates] for r in out.run.results]
    # BM25 (Lucene idf, k1 1.5, b 0.75) by hand over the terms [vpn 客户端 的 登录 密码 至少 12
    # 位], [邮箱 密码 至少 位], [café open nine]: before, [("mail", 0.206595), ("vpn", 0.148033)]
    # and []
    assert found == [[("vpn", 0.456955), ("mail", 0.206595)], [("cafe", 0.478453)]]


def test_a_damaged_index_in_the_cache_is_an_error_naming_its_folder(tmp_path: Path) -> None:
    # Before: an orjson.JSONDecodeError traceback from bm25s (a cached index whose files a
    # cleaner or a full disk emptied after it was finished).
    run_retrieval(SNAPSHOT, EVALSET, RetrievalConfig(), name="a", cache_dir=tmp_path)
    (folder,) = tmp_path.glob("bm25-*")
    (folder / "bm25" / "params.index.json").write_text("", encoding="utf-8")
    with pytest.raises(InputError) as info:
        run_retrieval(SNAPSHOT, EVALSET, RetrievalConfig(), name="a", cache_dir=tmp_path)
    assert str(info.value).splitlines() == [
        "1 problem found in the input:",
        f"- {folder}: (file): expected a complete index (delete the folder to rebuild it, or "
        "use --no-cache); found JSONDecodeError",
    ]
