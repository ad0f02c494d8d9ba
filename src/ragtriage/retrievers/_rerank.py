"""The optional reranking stage: rescore the head of the candidate list with a second model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..validation import RerankKind
from ._dense import DenseIndex
from ._lexical import LexicalIndex
from ._scored import Scored, best_first


def rerank(
    query: str,
    candidates: Sequence[Scored],
    kind: RerankKind,
    depth: int,
    order_key: npt.NDArray[np.int64],
    dense: DenseIndex | None,
    lexical: LexicalIndex | None,
) -> list[Scored]:
    """Reorder the first `depth` candidates by the reranker's score; the rest keep their order.

    `dense` scores by embedding cosine, `bm25` by the lexical score. Ties (as recorded) keep
    ID order.
    """
    head, tail = list(candidates[:depth]), list(candidates[depth:])
    units = [item.unit for item in head]
    if kind == "dense":
        assert dense is not None  # the pipeline builds the index the reranker needs
        scores = dense.similarity(query, units)
    else:
        assert lexical is not None
        tokens = lexical.tokenizer.tokens(query)
        all_scores = (
            np.asarray(lexical.retriever.get_scores(tokens), dtype=np.float64) if tokens else None
        )
        scores = [float(all_scores[u]) if all_scores is not None else 0.0 for u in units]
    rescored = best_first(
        (Scored(unit, score) for unit, score in zip(units, scores, strict=True)), order_key
    )
    # Items beyond the reranked head keep their first-stage scores, which are on another scale;
    # they are appended in their original order, below every reranked item.
    return rescored + tail
