"""The snapshot for the columnar reader: read by the loader (it is small next to the
runs), with a versions file applied, its IDs as integer codes, and per-item text flags."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import numpy as np

from ..detectors import item_text
from ..errors import InputError, ProblemCollector
from ..executors import CAN_FORK, alongside
from ..loading import Dataset, SnapshotIndex, SourceFile, read_file
from ..schemas import EvalSet, Snapshot
from ..validation import check_dataset
from ..versions import load_versions
from ._native_read import WHOLE, Codes
from ._native_stages import distinct_codes
from ._trec import _Fallback

T = TypeVar("T")

_MASK_BITS = 62
"""Access groups one int64 word of a mask holds (more groups: more words)."""


def snapshot_codes(snapshot: Snapshot) -> Codes:
    """The snapshot's IDs as integer codes (documents first) and what each code's document
    is: stale, readable by which access groups, of which version."""
    ids = [d.id for d in snapshot.documents] + [c.id for c in snapshot.chunks]
    code: dict[str, int] = {}
    for item in ids:
        if item not in code:
            code[_copy(item)] = len(code)
    n_docs = len({d.id for d in snapshot.documents})
    document_of = np.arange(len(code), dtype=np.int64)
    stale = np.zeros(len(code), dtype=bool)
    names = sorted({g for d in snapshot.documents for g in d.access_groups or ()})
    bits = {g: (n // _MASK_BITS, 1 << (n % _MASK_BITS)) for n, g in enumerate(names)}
    access = np.zeros((len(code), max(1, -(-len(names) // _MASK_BITS))), dtype=np.int64)
    restricted = np.zeros(len(code), dtype=bool)
    versions: dict[str, int] = {}
    doc_version = np.full(len(code), -1, dtype=np.int64)
    start = np.full(len(code), -1, dtype=np.int64)
    end = np.full(len(code), WHOLE, dtype=np.int64)
    for doc in snapshot.documents:  # duplicate IDs send the input to the loader
        stale[code[doc.id]] = doc.status != "current"
        if doc.version is not None:
            doc_version[code[doc.id]] = versions.setdefault(doc.version, len(versions))
        if doc.access_groups is not None:
            restricted[code[doc.id]] = True
            for group in set(doc.access_groups):
                word, bit = bits[group]
                access[code[doc.id], word] |= bit
    for chunk in snapshot.chunks:  # a chunk has its document's marks
        at, of = code[chunk.id], code[chunk.document_id]
        document_of[at], start[at], end[at] = of, chunk.start, chunk.end
        for column in (stale, access, restricted, doc_version):
            column[at] = column[of]
    return Codes(
        code, n_docs, document_of, stale, access, restricted, doc_version, versions, bits,
        start, end,
    )


def _copy(text: str) -> str:
    """A new string equal to `text`. The code table's keys, made one after another, lie
    together in memory, where the models' IDs lie each beside its own record: a run's
    millions of look-ups then read a few MB, not the whole snapshot (parsing 100,000 bench
    results and looking up their 30 IDs each among 100,000 documents: 1.00-1.15 s; with the
    models' own strings as keys, 1.23-1.36 s)."""
    return str(text.encode("utf-8", "surrogatepass"), "utf-8", "surrogatepass")


def load_snapshot(
    path: Path, versions: Path | None
) -> tuple[Snapshot, SourceFile, tuple[SourceFile, ...]]:
    """The snapshot (with the versions file applied, as `load_and_evaluate` applies it), its
    source and the versions file's source, if any."""
    loaded = read_file(path, ProblemCollector())
    if not isinstance(loaded.content, Snapshot):
        raise _Fallback("snapshot")
    empty = Dataset(loaded.content, EvalSet(evalset_id="x", questions=[]), (), (loaded.source,))
    if versions is not None:
        try:
            empty = load_versions(empty, versions)
        except InputError as exc:  # reported after the other files' problems, as the loader
            raise _Fallback("versions") from exc
    if check_dataset(empty, {}):
        raise _Fallback("snapshot rules")
    return empty.snapshot, loaded.source, empty.sources[1:]


class SnapshotScan(Generic[T]):
    """What a detector finds in snapshot items' texts (`finds`: a flag, or the findings' labels),
    scanned once per item (many items: split among forked workers). Called with snapshot
    codes: whether it found something in each one's text."""

    def __init__(
        self, codes: Codes, index: SnapshotIndex, finds: Callable[[str], T], workers: int = 1
    ) -> None:
        self._ids = list(codes.code)
        self._index = index
        self._known = np.full(len(self._ids), -1, dtype=np.int8)
        """Per code: whether its text's finding is truthy (1 or 0) once scanned, -1 before."""
        self._found: list[T | None] = [None] * len(self._ids)
        """Per code: its text's finding once scanned."""
        self._finds = finds
        self._workers = workers if CAN_FORK else 1

    def scan(self, items: np.ndarray) -> None:
        """Scan the texts of the codes `items` not scanned yet."""
        scan_together(items, [self])

    def _store(self, codes: list[int], found: list[T]) -> None:
        self._known[codes] = [bool(value) for value in found]
        stored = self._found
        for code, value in zip(codes, found, strict=True):
            stored[code] = value

    def __call__(self, items: np.ndarray) -> np.ndarray:
        self.scan(items)
        out: np.ndarray = self._known[items] == 1
        return out

    def found(self, items: np.ndarray) -> list[T]:
        """The finding of each code of `items` (scanned first where not yet)."""
        self.scan(items)
        stored = self._found
        return [cast(T, stored[code]) for code in items.tolist()]


def scan_together(items: np.ndarray, scans: Sequence[SnapshotScan[Any]]) -> None:
    """Scan the texts of the codes `items` that any of `scans` (scans of one snapshot, with
    one number of workers) has not scanned yet, for every one of them in one pass: each text
    is read once, and many texts are split among one set of forked workers."""
    first = scans[0]
    # The codes asked for and not scanned yet by some scan, ascending.
    asked = distinct_codes(items, first._known.size)
    new = asked[np.any([scan._known[asked] < 0 for scan in scans], axis=0)].tolist()
    ids, index = first._ids, first._index
    finds = [scan._finds for scan in scans]

    def scan(part: Sequence[int]) -> list[list[Any]]:
        texts = [item_text(ids[code], index) or "" for code in part]
        return [list(map(find, texts)) for find in finds]

    # The work of each text: its characters and a fixed cost per text.
    work = np.array(
        [len(item_text(ids[i], index) or "") + _TEXT_WORK for i in new], dtype=np.int64
    )
    total = int(work.sum())
    shares = min(total // _SCAN_SHARE, len(new))
    if shares > 1:
        # A text goes to the share its work starts in; this process takes shares from the
        # front while forked workers take them from the back (`alongside`).
        starts = np.cumsum(work) - work
        bounds = [total * n // shares for n in range(1, shares)]
        cuts = np.unique([0, *np.searchsorted(starts, bounds).tolist(), len(new)]).tolist()
        parts = alongside(scan, [(new[a:b],) for a, b in pairwise(cuts)], first._workers)
        found = [[value for part in parts for value in part[n]] for n in range(len(scans))]
    else:
        found = scan(new)
    for one, values in zip(scans, found, strict=True):
        one._store(new, values)


_SCAN_SHARE = 400_000
"""Scanning worth a share of its own (about a tenth of a second; a forked worker starts in
10 to 30 ms), in characters of text, each text counting `_TEXT_WORK` more: the injection
scan takes up to 0.25 µs a character and about 15 µs more a text (one CPU,
`detect_injection` on 50- and 1,000-character texts: 26 and 188 µs English, 34 and 258 µs
Chinese, measured before the rules a text cannot match were left unasked); the
sensitive-content scan, counted alike, takes less (9 and 28 µs English, 17 and 155 µs
Chinese). Scanned together (`scan_together`), a share holds the work of both."""

_TEXT_WORK = 60
"""A text's fixed cost, in characters."""
