"""BM25 over the units with bm25s; Chinese split by jieba, English stemmed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .._optional import require_extra
from ._index_cache import IndexCache, cache_key
from ._scored import Scored, top
from ._tokenize import Tokenizer, TokenizerSpec

K1 = 1.5
"""BM25 term-frequency saturation (bm25s's default)."""
B = 0.75
"""BM25 length normalisation (bm25s's default)."""
INDEX_FORMAT = "4"
"""How units become the index; changed when that changes the scores, so that an index cached
before is not reused (2: a unit without terms has length 0, not 1; 3: text read in NFKC form;
4: Chinese characters beyond the basic plane are Chinese)."""


def bm25s_version() -> str:
    """The installed bm25s version (recorded in provenance and the cache key)."""
    from importlib.metadata import version

    return version("bm25s")


@dataclass(frozen=True)
class LexicalIndex:
    """A BM25 index over units, with the tokenizer its queries must use."""

    retriever: Any
    """The bm25s retriever."""
    tokenizer: Tokenizer
    """The tokenizer the corpus was indexed with."""
    order_key: npt.NDArray[np.int64]
    """Rank of each unit's ID in sorted order (breaks score ties)."""
    from_cache: bool
    """True when the index was loaded from the cache rather than built."""

    def search(
        self, query: str, depth: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> list[Scored]:
        """The best `depth` allowed units; units without a matching term are left out."""
        tokens = self.tokenizer.tokens(query)
        if not tokens:
            return []
        scores = np.asarray(self.retriever.get_scores(tokens), dtype=np.float32)
        return top(scores, self.order_key, depth, positive_only=True, allowed=allowed)


def lexical_settings(spec: TokenizerSpec) -> dict[str, str]:
    """Everything besides the units that changes the index (the cache key's settings)."""
    return {
        "tokenizer": spec.describe(),
        "bm25s": bm25s_version(),
        "k1": str(K1),
        "b": str(B),
        "format": INDEX_FORMAT,
        **spec.libraries(),
    }


def build_lexical(
    texts: Sequence[str],
    order_key: npt.NDArray[np.int64],
    units_digest: str,
    spec: TokenizerSpec,
    cache: IndexCache,
    advance: Callable[[], None] | None = None,
) -> LexicalIndex:
    """Load the index for these units from the cache, or tokenize, build and store it."""
    require_extra("retrieval", "lexical retrieval")
    import bm25s

    tokenizer = Tokenizer(spec)
    key = cache_key("bm25", units_digest, lexical_settings(spec))
    loaded = cache.load(key, lambda folder: bm25s.BM25.load(str(folder / "bm25"), mmap=True))
    if loaded is not None:
        return LexicalIndex(loaded, tokenizer, order_key, True)
    corpus = tokenizer.many(texts, advance)
    retriever = bm25s.BM25(k1=K1, b=B)
    # A unit without terms is indexed as bm25s indexes it, with length 0, so that it does not
    # change the average length. bm25s cannot index a corpus without a single term (average
    # length 0); no query term can match such a corpus, so each unit gets a term no query has.
    retriever.index(corpus if any(corpus) else [[""]] * len(corpus), show_progress=False)

    def fill(directory: Path) -> None:
        retriever.save(str(directory / "bm25"))

    cache.store(key, fill)
    return LexicalIndex(retriever, tokenizer, order_key, False)
