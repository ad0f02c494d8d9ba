"""Real retrievers that produce runs: bm25s, dense (USE multilingual), hybrid RRF, reranking.

`run_retrieval` takes a snapshot and an evaluation set and returns a retrieval-only run with
every stage recorded (candidates with scores, the reranked list, the final context with the
text sent, per-stage latency) and full provenance; with a `GenerationConfig` it also asks an
OpenAI-compatible endpoint for each answer (claims are left to a judge or reviewers).
"""

from ..validation import RerankKind, RetrieverKind
from ._budget import fit_context
from ._fusion import RRF_C, reciprocal_rank_fusion
from ._generate import (
    GENERATION_PROMPT_VERSION,
    REFUSAL_MARKER,
    GenerationConfig,
)
from ._index_cache import default_cache_dir
from ._retrieval_pipeline import (
    RETRIEVAL_ONLY_NOTE,
    RetrievalConfig,
    RunOutput,
    run_retrieval,
)
from ._scored import Scored
from ._tokenize import Tokenizer, TokenizerSpec
from ._units import Chunking, ChunkMode, Unit, chunk_id, make_chunks, make_units

__all__ = [
    "GENERATION_PROMPT_VERSION",
    "REFUSAL_MARKER",
    "RETRIEVAL_ONLY_NOTE",
    "RRF_C",
    "ChunkMode",
    "Chunking",
    "GenerationConfig",
    "RerankKind",
    "RetrievalConfig",
    "RetrieverKind",
    "RunOutput",
    "Scored",
    "Tokenizer",
    "TokenizerSpec",
    "Unit",
    "chunk_id",
    "default_cache_dir",
    "fit_context",
    "make_chunks",
    "make_units",
    "reciprocal_rank_fusion",
    "run_retrieval",
]
