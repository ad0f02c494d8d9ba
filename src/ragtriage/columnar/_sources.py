"""Where run batches come from: a TREC text run (pyarrow's streaming CSV reader, hashing
the bytes as they are read) or a Parquet run, read ahead in a second thread.

Every batch is checked here (fields, scores, IDs); a batch that fails a check raises
`_Fallback`, and the caller reads the files again line by line to name every problem.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path
from queue import Empty, Full, Queue
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from .._optional import extra_module
from ..errors import InputError, ProblemCollector
from ..fileio import open_input
from ._trec import (
    _ODD_SPACE,
    _checked_size,
    _delimiter,
    _Fallback,
    _numbers,
    _plain_fields,
    _strings_clean,
)

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    _Batch = tuple[pa.Array, pa.Array, np.ndarray]
else:  # imported at first use: the default install has no pyarrow
    pa = extra_module("pyarrow", "trec", "the fast TREC reader")
    pc = extra_module("pyarrow.compute", "trec", "the fast TREC reader")
    pcsv = extra_module("pyarrow.csv", "trec", "the fast TREC reader")
    pq = extra_module("pyarrow.parquet", "parquet", "reading a Parquet run")

_RUN_NAMES = ("qid", "q0", "docid", "rank", "score", "tag")
_BLOCK_BYTES = 8 << 20  # small blocks stream faster (measured: 8 MB beats 32 MB)


class _HashingReader:
    """A binary file that hashes what is read through it (one pass for parse and hash)."""

    def __init__(self, handle: BinaryIO, digest: hashlib._Hash) -> None:
        self._handle = handle
        self._digest = digest
        self.closed = False

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size)
        self._digest.update(data)
        return data

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


def _batches(path: Path, digest: hashlib._Hash) -> Iterator[tuple[pa.Array, pa.Array, np.ndarray]]:
    try:
        if _checked_size(path) == 0:
            return
        with open_input(path) as handle:
            yield from _parsed(path, _HashingReader(handle, digest))
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError, InputError) as exc:
        raise _Fallback(str(exc)) from exc


def _parsed(path: Path, source: _HashingReader) -> Iterator[tuple[pa.Array, pa.Array, np.ndarray]]:
    reader = pcsv.open_csv(
        source,
        read_options=pcsv.ReadOptions(column_names=list(_RUN_NAMES), block_size=_BLOCK_BYTES),
        parse_options=pcsv.ParseOptions(
            delimiter=_delimiter(path), quote_char=False, escape_char=False, double_quote=False
        ),
        convert_options=pcsv.ConvertOptions(
            column_types={name: pa.string() for name in _RUN_NAMES} | {"score": pa.float64()},
            strings_can_be_null=False,
            null_values=[],
        ),
    )
    for batch in reader:
        for name in ("qid", "q0", "docid", "rank", "tag"):
            column = pa.chunked_array([batch[name]])
            if not (_strings_clean(column) and _plain_fields(column)):
                raise _Fallback("blank fields, or whitespace the line reader splits on")
        if pc.any(pc.starts_with(batch["qid"], "#")).as_py():
            raise _Fallback("comment lines")  # the line reader skips and counts them
        score = batch["score"]
        values = _numbers(score)
        if score.null_count or not np.isfinite(values).all():
            raise _Fallback("bad scores")
        yield batch["qid"], batch["docid"], values


def _parquet_batches(path: Path, digest: hashlib._Hash) -> Iterator[_Batch]:
    """Batches of a Parquet run (columns qid, docid, score), checked like text batches."""
    from ..formats.trec_parquet import PARQUET_COLUMNS, schema_problems

    try:
        with open_input(path) as handle:
            for block in iter(lambda: handle.read(1 << 24), b""):
                digest.update(block)
        parquet = pq.ParquetFile(path)
        if not schema_problems(parquet.schema_arrow, str(path), ProblemCollector()):
            raise _Fallback("columns")
        for batch in parquet.iter_batches(batch_size=1 << 20, columns=list(PARQUET_COLUMNS)):
            qid = batch["qid"].cast(pa.string())
            docs = batch["docid"].cast(pa.string())
            for column in (qid, docs):
                if not _strings_clean(pa.chunked_array([column])):
                    raise _Fallback("empty IDs")
                if pc.any(pc.match_substring_regex(column, _ODD_SPACE)).as_py():
                    raise _Fallback("whitespace in IDs")
            score = batch["score"].cast(pa.float64())
            values = _numbers(score)
            if score.null_count or not np.isfinite(values).all():
                raise _Fallback("bad scores")
            yield qid, docs, values
    except (pa.ArrowInvalid, OSError, InputError) as exc:
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

    def __init__(self, items: Iterator[_Batch], ahead: int = 8) -> None:
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
            try:
                self._queue.put(entry, timeout=0.1)
                return True
            except Full:
                continue
        return False

    def __iter__(self) -> Iterator[_Batch]:
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
