"""Retrieval units: whole documents, the snapshot's own chunks, or chunks cut here with spans.

Every unit records the document it came from and its character span in that document's text,
so a run over re-chunked text still maps back to the same evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from .._optional import require_extra
from ..errors import InputError, Problem, choice_problems, range_problems
from ..loading import SnapshotIndex
from ..schemas import Chunk, Snapshot
from ..validation import CHUNK_CHARS_RANGE, CHUNK_SENTENCES_RANGE, snapshot_problems
from ._tokenize import CHINESE_CHARACTERS

ChunkMode = Literal["snapshot", "chars", "sentences"]

# Sentence ends (with the spaces after them) are preferred cut points; other spaces and
# commas come next; a window with neither is cut hard. An ASCII mark ends a sentence or a
# word only before a space: the point of 1.5 or the comma of 1,000 is inside a number.
_SENTENCE_END = re.compile(r"(?:[。！？；]+|[.!?;]+(?=\s))\s*")
_SOFT_BREAK = re.compile(r"[\s，、]+|,+(?=\s)\s*")
_CJK = re.compile(f"[{CHINESE_CHARACTERS}]")


@dataclass(frozen=True)
class Unit:
    """One retrievable piece of text and where it lies in its document."""

    id: str
    """The ID written to the run (a document ID, or a chunk ID)."""
    document_id: str
    """The document it belongs to."""
    start: int
    """First character in the document text."""
    end: int
    """One past the last character."""
    text: str
    """The text sent to the model when this unit is in the context."""
    title: str | None
    """The document's title, indexed with the text but not sent as part of it."""

    @property
    def index_text(self) -> str:
        """What the retrievers see: title (when present) and text."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Chunking:
    """How documents are cut into units."""

    mode: ChunkMode = "snapshot"
    """`snapshot`: the snapshot's chunks if it has any, else whole documents; `chars`: windows
    of at most `size` characters; `sentences`: groups of `size` sentences."""
    size: int = 0
    """Characters per chunk (`chars`) or sentences per chunk (`sentences`)."""

    def problems(self) -> list[Problem]:
        """A mode that is none of `ChunkMode`, or the size outside its command-line range
        (`--chunk-chars`, `--chunk-sentences`)."""
        if problems := choice_problems(("chunking mode", self.mode, get_args(ChunkMode))):
            return problems
        if self.mode == "snapshot":
            return []
        bound = CHUNK_CHARS_RANGE if self.mode == "chars" else CHUNK_SENTENCES_RANGE
        return range_problems((f"--chunk-{self.mode}", self.size, bound))

    def describe(self) -> str:
        """A short label for provenance (`snapshot`, `chars:800`, `sentences:3`)."""
        return self.mode if self.mode == "snapshot" else f"{self.mode}:{self.size}"


def _last_break(pattern: re.Pattern[str], text: str, low: int, high: int) -> int:
    """The end (at most `high`) of the last match of `pattern` starting in [low, high), or 0;
    the character after the window is searched too, for what follows a mark there."""
    ends = [min(m.end(), high) for m in pattern.finditer(text, low, high + 1) if m.start() < high]
    return max(ends, default=0)


def _char_spans(text: str, size: int) -> list[tuple[int, int]]:
    """Windows of at most `size` characters, ending after a break character when one is near."""
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            # Cut after a sentence end in the window's second half, else after a space or comma
            # there, so words and sentences are not split when that costs at most half a window.
            low = start + size // 2
            cut = _last_break(_SENTENCE_END, text, low, end) or _last_break(
                _SOFT_BREAK, text, low, end
            )
            end = cut if cut > start else end
        spans.append((start, end))
        start = end
    return spans


def _sentence_spans(text: str, size: int) -> list[tuple[int, int]]:
    """Groups of `size` consecutive sentences (pysbd; Chinese rules when the text has CJK)."""
    require_extra("retrieval", "sentence units")
    import pysbd

    language = "zh" if _CJK.search(text) else "en"
    segmenter = pysbd.Segmenter(language=language, clean=False, char_span=True)
    bounds = [(span.start, span.end) for span in segmenter.segment(text)]
    # pysbd spans can leave gaps (whitespace) between sentences; close them so the chunks
    # tile the document and every character belongs to exactly one chunk.
    starts = [0] + [b[0] for b in bounds[1:]]
    ends = [s for s in starts[1:]] + [len(text)]
    sentences = [(s, e) for s, e in zip(starts, ends, strict=True) if e > s]
    return [
        (sentences[i][0], sentences[min(i + size, len(sentences)) - 1][1])
        for i in range(0, len(sentences), size)
    ]


def chunk_id(document_id: str, start: int, end: int) -> str:
    """The ID of a chunk cut here: the document ID and the span, so it is stable and readable."""
    return f"{document_id}#{start}-{end}"


def make_chunks(snapshot: Snapshot, chunking: Chunking) -> tuple[Chunk, ...]:
    """Chunks (with spans and text) for `chars` or `sentences` chunking; none for `snapshot`."""
    if chunking.mode == "snapshot":
        return ()
    problems = chunking.problems()
    if problems:
        raise InputError(problems)
    spans = _char_spans if chunking.mode == "chars" else _sentence_spans
    chunks: list[Chunk] = []
    for doc in snapshot.documents:
        if not doc.text:
            continue
        chunks.extend(
            Chunk(id=chunk_id(doc.id, s, e), document_id=doc.id, start=s, end=e, text=doc.text[s:e])
            for s, e in spans(doc.text, chunking.size)
        )
    return tuple(chunks)


def with_chunks(
    snapshot: Snapshot, chunks: tuple[Chunk, ...], chunking: Chunking, snapshot_file: str
) -> Snapshot:
    """The snapshot plus the chunks `make_chunks` cut (one it already holds, same document and
    span, is not added twice), checked as the loader checks a snapshot: a cut chunk's ID that
    is a document's ID or another chunk's is refused, naming `snapshot_file`."""
    own = {ch.id: (ch.document_id, ch.start, ch.end) for ch in snapshot.chunks}
    added = [ch for ch in chunks if own.get(ch.id) != (ch.document_id, ch.start, ch.end)]
    if not added:
        return snapshot
    out = snapshot.model_copy(update={"chunks": [*snapshot.chunks, *added]})
    how = (
        f"(--chunk-{chunking.mode} {chunking.size} names each chunk it cuts DOCUMENT#START-END: "
        "give the snapshot's document or chunk another ID)"
    )
    problems = [
        Problem(snapshot_file, None, field, expected, f"{found} {how}")
        for field, expected, found in snapshot_problems(out, SnapshotIndex.build(out))
    ]
    if problems:
        raise InputError(problems)
    return out


def make_units(
    snapshot: Snapshot, chunking: Chunking, cut: tuple[Chunk, ...] | None = None
) -> tuple[Unit, ...]:
    """The retrieval units of a snapshot under a chunking: its chunks, and each document that
    has none as one whole unit (a document without text is indexed by its title; one with
    neither is left out: `unindexed`).

    `cut` passes in what `make_chunks` already cut for this chunking, so it is not cut twice.
    """
    titles = {doc.id: doc.title for doc in snapshot.documents}
    texts = {doc.id: doc.text for doc in snapshot.documents}
    if chunking.mode == "snapshot":
        chunks = tuple(snapshot.chunks)
    else:
        chunks = cut if cut is not None else make_chunks(snapshot, chunking)
    chunked = {ch.document_id for ch in chunks}
    units = [
        Unit(
            id=ch.id,
            document_id=ch.document_id,
            start=ch.start,
            end=ch.end,
            text=texts.get(ch.document_id, "")[ch.start : ch.end],
            title=titles.get(ch.document_id),
        )
        for ch in chunks
        if ch.end > ch.start
    ]
    units.extend(
        Unit(doc.id, doc.id, 0, len(doc.text), doc.text, doc.title)
        for doc in snapshot.documents
        if doc.id not in chunked and (doc.text or doc.title)
    )
    return tuple(units)


def unindexed(snapshot: Snapshot) -> tuple[str, ...]:
    """The documents `make_units` leaves out under every chunking: neither text nor title."""
    return tuple(doc.id for doc in snapshot.documents if not doc.text and not doc.title)
