"""Where run batches come from: a TREC text run (pyarrow's streaming CSV reader, hashing
the bytes as they are read) or a Parquet run, read ahead in a second thread.

Every batch is checked here (fields, scores, IDs); a batch that fails a check raises
`_Fallback`, and the caller reads the files again line by line to name every problem.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from queue import Empty, Full, Queue
from typing import TYPE_CHECKING, cast

import numpy as np

from .._optional import extra_module
from ..errors import InputError, ProblemCollector
from ..fileio import open_input
from ._arrow import pa, pc, pcsv
from ._trec import (
    _BLOCK_BYTES,
    _ODD_SPACE,
    _check_fields,
    _checked_size,
    _Fallback,
    _numbers,
    _strings_clean,
    csv_options,
    reader_pool,
)

if TYPE_CHECKING:
    import pyarrow.parquet as pq

    from ._arrow import Batch
else:  # imported at first use: the default install has no pyarrow
    pq = extra_module("pyarrow.parquet", "parquet", "reading a Parquet run")

_HASH_BYTES = 1 << 20


@dataclass
class Layout:
    """What a run file's bytes are made of, counted as they are hashed."""

    blanks: int = 0
    """Bytes up to and including the blank (0x20): field separators, line ends, others."""
    breaks: int = 0
    """Line breaks (0x0A)."""
    fields: int = 0
    """Runs of other bytes (what `str.split()` would give, for ASCII text)."""
    top: int = 0
    """The largest byte (0x80 and above: not ASCII)."""
    last: int = 0x0A
    """The last byte (a line break when the file ends with one, or is empty)."""

    def plain(self, rows: int) -> bool:
        """Whether `rows` lines of 6 fields each, split on single blanks, are exactly the
        file: ASCII, nothing up to the blank but one blank between fields and one line break
        after each line (the last may lack it), and no empty field. Then every field the line
        reader would see is the field pyarrow parsed, and Q0, rank and tag need no reading:
        each is a non-empty run of printable ASCII."""
        lines = rows if self.last == 0x0A else rows - 1
        return (
            self.top < 0x80
            and self.breaks == lines
            and self.blanks == 5 * rows + lines
            and self.fields == 6 * rows
        )


class FileDigest:
    """SHA-256 of a file, computed in a second thread from one reused buffer (hashlib
    releases the GIL), so hashing overlaps the parse instead of following it. With `text`,
    lone carriage returns are counted (`lone_returns`); with `layout`, the bytes too
    (`Layout`). `threaded=False`: read at once, in the calling thread (a small file)."""

    def __init__(
        self, path: Path, layout: bool = False, text: bool = True, threaded: bool = True
    ) -> None:
        self._path = path
        self._digest = hashlib.sha256()
        self.layout = Layout() if layout else None
        self._text = text or layout
        self.lone_returns = 0
        """`\\r` bytes not followed by `\\n`: the line reader does not end a line there,
        pyarrow does, so a text file with any is left to the line reader."""
        self._failed: BaseException | None = None
        self._stop = threading.Event()
        self._worker = threading.Thread(target=self._run, name="ragtriage-sha256", daemon=True)
        if threaded:
            self._worker.start()
        else:
            self._run()

    def _run(self) -> None:
        buffer = bytearray(_HASH_BYTES)
        view = memoryview(buffer)
        # Reused for every block: a fresh megabyte per test would be a fresh page fault.
        scratch = (np.empty(_HASH_BYTES, bool), np.empty(_HASH_BYTES, bool))
        pending = False
        try:
            with open_input(self._path) as opened:
                handle = cast(io.BufferedReader, opened)  # what open_input opens
                while not self._stop.is_set() and (size := handle.readinto(buffer)):
                    self._digest.update(view[:size])
                    block = np.frombuffer(buffer, np.uint8, size)
                    if self._text and (pending or buffer.find(b"\r", 0, size) >= 0):
                        pending = self._returns(block, pending, scratch[0])
                    if self.layout is not None:
                        _count(self.layout, block, scratch)
        except (OSError, InputError) as exc:
            self._failed = exc
        self.lone_returns += pending  # a carriage return ends the file

    def _returns(self, block: np.ndarray, pending: bool, flags: np.ndarray) -> bool:
        """Count the block's lone `\\r` bytes; whether it ends with one (decided by the
        next block's first byte)."""
        self.lone_returns += pending and int(block[0]) != 0x0A
        returns = np.equal(block, 0x0D, out=flags[: block.size])
        if not returns.any():
            return False
        at = np.flatnonzero(returns)
        inside = at[at < block.size - 1]
        self.lone_returns += int(np.count_nonzero(block[inside + 1] != 0x0A))
        return bool(at[-1] == block.size - 1)

    def hexdigest(self) -> str:
        """The digest, once the whole file is read; `_Fallback` when it could not be."""
        self._join()
        if self._failed is not None or self._stop.is_set():
            raise _Fallback("the file could not be hashed")
        return self._digest.hexdigest()

    def close(self) -> None:
        """Stop reading (the result is not wanted) and wait for the thread."""
        self._stop.set()
        self._join()

    def _join(self) -> None:
        if self._worker.is_alive():
            self._worker.join()


def _count(layout: Layout, block: np.ndarray, scratch: tuple[np.ndarray, np.ndarray]) -> None:
    """Add one block of the file to `layout` (a field may go on into the next block);
    `scratch`: two boolean buffers of at least the block's size, written into."""
    size = block.size
    blank = np.less_equal(block, 0x20, out=scratch[0][:size])
    layout.blanks += int(np.count_nonzero(blank))
    layout.breaks += int(np.count_nonzero(np.equal(block, 0x0A, out=scratch[1][:size])))
    # A field starts where a blank byte (or the file's start) is followed by another byte.
    starts = np.greater(blank[:-1], blank[1:], out=scratch[1][: size - 1])
    layout.fields += int(np.count_nonzero(starts))
    layout.fields += int(layout.last <= 0x20 and not blank[0])
    layout.top = max(layout.top, int(block.max()))
    layout.last = int(block[-1])


def lean_layout(path: Path) -> bool:
    """Whether the run's first block looks plain (ASCII, fields split by single blanks,
    lines ended by line breaks alone): then Q0, rank and tag are not read, and `Layout`
    confirms the guess for the whole file once it is hashed."""
    try:
        with open_input(path) as handle:
            head = handle.read(_BLOCK_BYTES)
    except (OSError, InputError):
        return False
    return bool(head.strip()) and head.isascii() and b"\t" not in head and b"\r" not in head


def _batches(path: Path, lean: bool = False) -> Iterator[Batch]:
    try:
        if _checked_size(path) == 0:
            return
        with pa.OSFile(str(path), memory_pool=reader_pool()) as handle:
            yield from _parsed(path, handle, lean)
    # UnicodeError: also a path pyarrow cannot encode (bytes that are not UTF-8).
    except (pa.ArrowInvalid, OSError, UnicodeError, InputError) as exc:
        raise _Fallback(str(exc)) from exc


def _parsed(
    path: Path, source: pa.NativeFile, lean: bool
) -> Iterator[Batch]:
    """Parsed, checked batches. The question ID column is checked per run of equal IDs by
    the consumer (`_stream`); Q0, rank and tag are read as bytes (no text is made of them)
    and must be printable ASCII: other bytes send the file to the line reader. `lean`:
    they are not read at all (the file's `Layout` must then prove them plain)."""
    types = {"qid": pa.string(), "q0": pa.binary(), "docid": pa.string(), "rank": pa.binary(),
             "score": pa.float64(), "tag": pa.binary()}
    parsed = ("qid", "docid", "score") if lean else None
    reader = pcsv.open_csv(source, **csv_options(path, types, parsed))
    for batch in reader:
        if not lean:  # else the file's `Layout` proves the document IDs plain too
            _check_fields(pa.chunked_array([batch["docid"]]))
        for name in () if lean else ("q0", "rank", "tag"):
            if not _printable_ascii(batch[name]):
                raise _Fallback("blank fields, whitespace or other than printable ASCII")
        score = batch["score"]
        values = _numbers(score)
        if score.null_count or not np.isfinite(values).all():
            raise _Fallback("bad scores")
        yield batch["qid"], batch["docid"], values


def _printable_ascii(chunk: pa.Array) -> bool:
    """No null, no empty value, and only ASCII bytes above the blank (a binary column)."""
    if not _strings_clean(pa.chunked_array([chunk])):
        return False
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
    start, stop = int(offsets[chunk.offset]), int(offsets[chunk.offset + len(chunk)])
    if start == stop:
        return True
    text = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[start:stop]
    return int(text.min()) > 0x20 and int(text.max()) < 0x80


def _parquet_batches(path: Path) -> Iterator[Batch]:
    """Batches of a Parquet run (columns qid, docid, score), checked like text batches."""
    from ..formats.trec_records import parquet_columns

    try:
        _checked_size(path)
        parquet = pq.ParquetFile(path)
        if not parquet.metadata.num_rows:
            raise _Fallback("no rows")
        columns = parquet_columns(parquet.schema_arrow, True, str(path), ProblemCollector())
        if columns is None:
            raise _Fallback("columns")
        for batch in parquet.iter_batches(batch_size=1 << 20, columns=columns):
            qid = batch.column(0).cast(pa.string())
            docs = batch.column(1).cast(pa.string())
            for column in (qid, docs):
                if not _strings_clean(pa.chunked_array([column])):
                    raise _Fallback("empty IDs")
                if pc.any(pc.match_substring_regex(column, _ODD_SPACE)).as_py():
                    raise _Fallback("whitespace in IDs")
            score = batch.column(2).cast(pa.float64())
            values = _numbers(score)
            if score.null_count or not np.isfinite(values).all():
                raise _Fallback("bad scores")
            yield qid, docs, values
    except (pa.ArrowInvalid, OSError, UnicodeError, InputError) as exc:
        raise _Fallback(str(exc)) from exc


def import_readers(parquet: bool) -> None:
    """Import the pyarrow modules the readers use, on the calling thread.

    The run is parsed in a second thread while the qrels are read in this one: two threads
    importing pyarrow for the first time at once can find it partly initialised
    (`cannot import name 'BuildInfo' from partially initialized module 'pyarrow.lib'`).
    """
    for used in (pa.Table, pc.sum, pcsv.read_csv, *((pq.ParquetFile,) if parquet else ())):
        del used


class _Prefetch:
    """Iterates in a second thread, started at once, so the run is parsed while the qrels
    are read and while earlier batches are checked (pyarrow and numpy release the GIL)."""

    def __init__(self, items: Iterator[Batch], ahead: int = 8) -> None:
        self._queue: Queue[tuple[str, object]] = Queue(maxsize=ahead)
        self._stop = threading.Event()
        self._items = items
        self._worker = threading.Thread(target=self._produce, name="ragtriage-csv", daemon=True)
        self._worker.start()

    def _produce(self) -> None:
        try:
            for item in self._items:
                if not self._put(("item", item)):
                    return
            self._put(("end", None))
        except BaseException as exc:  # handed to the consumer, raised there
            self._put(("error", exc))
        finally:
            close = getattr(self._items, "close", None)
            if close is not None:  # a generator stopped early: release its open file now
                close()

    def _put(self, entry: tuple[str, object]) -> bool:
        while not self._stop.is_set():
            with contextlib.suppress(Full):
                self._queue.put(entry, timeout=0.1)
                return True
        return False

    def __iter__(self) -> Iterator[Batch]:
        try:
            while True:
                kind, payload = self._queue.get()
                if kind == "end":
                    return
                if kind == "error":
                    raise payload  # type: ignore[misc]
                yield payload  # type: ignore[misc]
        finally:
            self.close()

    def close(self) -> None:
        """Stop the producer and wait for it."""
        self._stop.set()
        while self._worker.is_alive():
            with contextlib.suppress(Empty):
                self._queue.get(timeout=0.1)
