"""Chunking: spans tile the document, IDs carry the span, text equals the document over it."""

from __future__ import annotations

import pytest

from ragtriage.errors import InputError
from ragtriage.retrievers import Chunking, chunk_id, make_chunks, make_units
from ragtriage.schemas import Chunk, Document, Snapshot

TEXT_EN = "Refunds need an order number. They are paid within five days. Ask support for help."
TEXT_ZH = "退款需要订单号。五个工作日内退回！还有问题吗？请联系客服"


def _snapshot(*docs: Document, chunks: tuple[Chunk, ...] = ()) -> Snapshot:
    return Snapshot(snapshot_id="s", documents=list(docs), chunks=list(chunks))


def test_char_chunks_cut_after_a_break_and_tile_the_document() -> None:
    snap = _snapshot(Document(id="d", text=TEXT_EN))
    chunks = make_chunks(snap, Chunking("chars", 40))
    assert [(c.start, c.end) for c in chunks] == [(0, 30), (30, 62), (62, 83)]
    assert [c.id for c in chunks] == ["d#0-30", "d#30-62", "d#62-83"]
    assert "".join(c.text or "" for c in chunks) == TEXT_EN
    assert all(c.text == TEXT_EN[c.start : c.end] for c in chunks)


def test_sentence_chunks_use_chinese_rules_for_chinese_text() -> None:
    snap = _snapshot(Document(id="z", text=TEXT_ZH))
    chunks = make_chunks(snap, Chunking("sentences", 2))
    assert [c.text for c in chunks] == [
        "退款需要订单号。五个工作日内退回！",
        "还有问题吗？请联系客服",
    ]
    assert [(c.start, c.end) for c in chunks] == [(0, 17), (17, 28)]


def test_sentence_chunks_of_english_text_keep_the_whitespace_inside_a_chunk() -> None:
    snap = _snapshot(Document(id="d", text=TEXT_EN))
    chunks = make_chunks(snap, Chunking("sentences", 1))
    assert [c.text for c in chunks] == [
        "Refunds need an order number. ",
        "They are paid within five days. ",
        "Ask support for help.",
    ]


def test_units_are_whole_documents_by_default_and_skip_empty_documents() -> None:
    snap = _snapshot(Document(id="a", text="alpha", title="T"), Document(id="b", text=""))
    units = make_units(snap, Chunking())
    assert [(u.id, u.document_id, u.start, u.end) for u in units] == [("a", "a", 0, 5)]
    assert units[0].index_text == "T\nalpha"
    assert units[0].text == "alpha"


def test_units_use_the_snapshots_own_chunks_when_present() -> None:
    doc = Document(id="a", text="alpha beta")
    snap = _snapshot(doc, chunks=(Chunk(id="a-1", document_id="a", start=6, end=10),))
    units = make_units(snap, Chunking())
    assert [(u.id, u.text) for u in units] == [("a-1", "beta")]


def test_a_document_without_chunks_is_one_whole_unit_beside_the_snapshots_chunks() -> None:
    # Before: a snapshot with chunks indexed only its chunks, so 'b' could never be retrieved
    snap = _snapshot(
        Document(id="a", text="alpha beta"),
        Document(id="b", text="gamma"),
        chunks=(Chunk(id="a-1", document_id="a", start=6, end=10),),
    )
    units = make_units(snap, Chunking())
    assert [(u.id, u.document_id, u.start, u.end, u.text) for u in units] == [
        ("a-1", "a", 6, 10, "beta"),
        ("b", "b", 0, 5, "gamma"),
    ]


@pytest.mark.parametrize("chunking", [Chunking(), Chunking("chars", 40), Chunking("sentences", 1)])
def test_a_titled_document_without_text_is_indexed_by_its_title(chunking: Chunking) -> None:
    # Before: skipped, though the title is indexed with every unit; with neither text nor a
    # title there is nothing to index
    snap = _snapshot(
        Document(id="a", text="alpha."),
        Document(id="c", title="Durian", text=""),
        Document(id="e", text=""),
    )
    units = make_units(snap, chunking)
    assert [(u.document_id, u.start, u.end, u.index_text) for u in units] == [
        ("a", 0, 6, "alpha."),
        ("c", 0, 0, "Durian\n"),
    ]
    assert units[1].id == "c" and units[1].text == ""


def test_chunk_id_names_document_and_span() -> None:
    assert chunk_id("doc_7", 3, 9) == "doc_7#3-9"


def test_a_chunk_size_out_of_range_is_a_command_line_problem() -> None:
    with pytest.raises(InputError) as info:
        make_chunks(_snapshot(Document(id="a", text="x")), Chunking("chars", 0))
    assert str(info.value) == (
        "1 problem found in the input:\n"
        "- <command line>: --chunk-chars: expected an integer from 1 to 1000000; found 0"
    )


def test_a_chunking_mode_outside_its_choices_is_refused_not_read_as_sentences() -> None:
    with pytest.raises(InputError) as info:
        make_chunks(_snapshot(Document(id="a", text="x")), Chunking("words", 2))  # type: ignore[arg-type]
    assert str(info.value) == (
        "1 problem found in the input:\n"
        "- <command line>: chunking mode: expected one of snapshot, chars, sentences; "
        "found 'words'"
    )


def test_char_chunks_do_not_cut_inside_a_number() -> None:
    # Before: the point of 1.5 and the comma of 1,000 were read as a sentence end and a comma
    # between words: ["费用按照1.", "5倍计算，共计1,", "000元，另付2,", "500元。"] and
    # ["ab 3.", "5 cd 4.", "5 ef 5.", "5 gh"]
    text = "费用按照1.5倍计算，共计1,000元，另付2,500元。"
    chunks = make_chunks(_snapshot(Document(id="z", text=text)), Chunking("chars", 10))
    assert [c.text for c in chunks] == ["费用按照1.5倍计算", "，共计1,000元，", "另付2,500元。"]
    english = _snapshot(Document(id="e", text="ab 3.5 cd 4.5 ef 5.5 gh"))
    chunks = make_chunks(english, Chunking("chars", 8))
    assert [c.text for c in chunks] == ["ab 3.5 ", "cd 4.5 ", "ef 5.5 ", "gh"]
