"""String IDs as 64-bit integer keys, computed in bulk from Arrow string buffers.

An ID of at most 8 UTF-8 bytes becomes its bytes, right-padded with NUL, read big-endian:
the key is exact and orders like `strcmp` (trec_eval's tie rule), so sorting keys sorts IDs.
Longer IDs are folded into a 64-bit hash of all their 8-byte words; then keys are only
candidates for equality and every match is confirmed on the strings themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._arrow import pa, pc

_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class IdKeys:
    """Keys for a column of IDs, and whether they are exact (every ID at most 8 bytes)."""

    keys: np.ndarray
    """One uint64 per ID."""
    exact: bool
    """True when equal keys mean equal IDs and key order is byte order."""


def _words(chunk: pa.Array, width: int) -> np.ndarray:
    # ascii_rpad counts bytes (utf8_rpad counts characters), which fixed widths need.
    padded = pc.ascii_rpad(chunk, width=width, padding="\x00")
    fixed = padded.cast(pa.binary(width))
    words = width // 8
    data = np.frombuffer(fixed.buffers()[1], dtype=">u8")
    start = fixed.offset * words
    return data[start : start + len(fixed) * words].reshape(-1, words).astype(np.uint64)


_HIGH_BYTES = np.array(
    [((1 << (8 * n)) - 1) << (64 - 8 * n) for n in range(9)], dtype=np.uint64
)
"""For an ID of n bytes, the mask that keeps the key's n high bytes (n = 0..8)."""


def _offsets(chunk: pa.Array) -> np.ndarray | None:
    """A string or binary chunk's value offsets (None for other layouts)."""
    if not (pa.types.is_string(chunk.type) or pa.types.is_binary(chunk.type)):
        return None
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
    return offsets[chunk.offset : chunk.offset + len(chunk) + 1]


def _short_keys(
    chunk: pa.Array, offsets: np.ndarray, lengths: np.ndarray | None = None
) -> np.ndarray:
    """Keys of IDs of at most 8 bytes, straight from the Arrow buffers: the 8 bytes from
    each ID's start, read big-endian, with the bytes past its end masked to 0 (the same
    key as padding with NUL). `lengths`: the IDs' byte lengths, when known."""
    start, stop = int(offsets[0]), int(offsets[-1])
    buffer = chunk.buffers()[2]
    if buffer is not None and buffer.size >= stop + 8:  # 8 readable bytes after every ID
        data = np.frombuffer(buffer, dtype=np.uint8)[start : stop + 8]
    else:
        data = np.zeros(stop - start + 8, dtype=np.uint8)
        if stop > start:
            data[: stop - start] = np.frombuffer(buffer, dtype=np.uint8)[start:stop]
    # Every byte position as the start of a big-endian 8-byte word (unaligned, a view).
    words = np.ndarray(shape=(data.size - 7,), dtype=">u8", buffer=data, strides=(1,))
    keys: np.ndarray = words[offsets[:-1] - start].astype(np.uint64)
    keys &= _HIGH_BYTES[np.diff(offsets) if lengths is None else lengths]
    return keys


def key_width(*columns: pa.ChunkedArray | pa.Array) -> int:
    """The padded byte width that fits every ID of these columns (a multiple of 8)."""
    longest = 0
    for column in columns:
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        for chunk in chunks:
            if not len(chunk):
                continue
            offsets = _offsets(chunk)
            if offsets is not None:
                longest = max(longest, int(np.diff(offsets).max()))
            else:
                longest = max(longest, pc.max(pc.binary_length(chunk)).as_py() or 0)
    return max(8, -(-longest // 8) * 8)


def id_keys(column: pa.ChunkedArray | pa.Array, width: int | None = None) -> IdKeys:
    """Keys of a string column (no nulls: readers refuse them first).

    Columns whose keys are compared must share one `width` (see `key_width`).
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if width is None and len(chunks) == 1 and len(chunks[0]):
        # The common case, one chunk of short IDs: their lengths measured once.
        offsets = _offsets(chunks[0])
        lengths = None if offsets is None else np.diff(offsets)
        if offsets is not None and lengths is not None and int(lengths.max()) <= 8:
            return IdKeys(_short_keys(chunks[0], offsets, lengths), True)
    width = key_width(column) if width is None else width
    out = []
    for chunk in chunks:
        if not len(chunk):
            continue
        offsets = _offsets(chunk) if width == 8 else None
        if offsets is not None:
            out.append(_short_keys(chunk, offsets))
            continue
        words = _words(chunk, width)
        key = words[:, 0].copy()
        for column_index in range(1, words.shape[1]):
            # Fold further words in with a multiply-xor mix; overflow wraps, as intended.
            key = (key * _MIX) ^ words[:, column_index]
        out.append(key)
    keys = out[0] if len(out) == 1 else np.concatenate(out) if out else np.zeros(0, np.uint64)
    return IdKeys(keys, width == 8)


def mix(keys: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Combine ID keys with small group numbers (question indexes) into one uint64 each."""
    with np.errstate(over="ignore"):
        mixed: np.ndarray = keys ^ ((groups.astype(np.uint64) + np.uint64(1)) * _MIX)
    return mixed
