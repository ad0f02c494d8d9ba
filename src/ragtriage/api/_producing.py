"""The commands that produce runs and labels: `run`, `judge`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from ..endpoint import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_REPLY_BYTES,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT,
    MAX_REPLY_BYTES_RANGE,
    MAX_RETRIES_RANGE,
    PRICE_PER_1K_RANGE,
    RETRY_DELAY_RANGE,
    Endpoint,
)
from ..errors import (
    InputError,
    RequestError,
    choice_problems,
    counted,
    flag_problems,
    option_problem,
    range_problems,
)
from ..holdout import holdout_ids
from ..paths import PathArg, as_optional_path, as_path, as_paths, check_paths
from ..validation import JudgeName, RerankKind, RetrieverKind
from ._converting import check_some_run, run_name_problems

if TYPE_CHECKING:
    from ..executors import ExecutorName
    from ..judges import Estimate, JudgeResult, Progress, WrittenRun
    from ..retrievers import RunOutput


@dataclass(frozen=True)
class WrittenRunFile:
    """What `run_files` built and where it wrote it."""

    output: RunOutput
    """The run, the (possibly re-chunked) snapshot, index timings."""
    path: Path
    """The run file written."""
    generated: bool
    """True when answers were generated (not a retrieval-only run)."""


def run_files(
    dataset: PathArg,
    *,
    snapshot: PathArg | None,
    output: PathArg,
    retriever: RetrieverKind = "bm25",
    rerank: RerankKind | None = None,
    rerank_depth: int | None = None,
    k: int = 10,
    context_chars: int | None = None,
    candidates: int = 100,
    chunk_chars: int | None = None,
    chunk_sentences: int | None = None,
    chunked_snapshot: PathArg | None = None,
    rrf_c: int = 60,
    current_only: bool = False,
    respect_permissions: bool = False,
    no_latency: bool = False,
    no_stemming: bool = False,
    name: str | None = None,
    cache_dir: PathArg | None = None,
    no_cache: bool = False,
    progress: bool = False,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout: float = DEFAULT_TIMEOUT,
) -> WrittenRunFile:
    """`ragtriage run DATASET --snapshot S -o RUN`: retrieve (and optionally answer), write the run.

    Without `base_url` the run is retrieval-only; with it and `model`, each final context is
    sent to the endpoint and the answer and outcome are recorded.
    """
    from .._optional import require_extra
    from ..fileio import OutputError, check_output, outputs_together, refuse_inputs, same_file

    require_extra("retrieval", "ragtriage run")
    from ..importers import write_native
    from ..retrievers import (
        Chunking,
        GenerationConfig,
        RetrievalConfig,
        TokenizerSpec,
        default_cache_dir,
        run_retrieval,
    )
    from ..validation import load_checked, parse_k

    check_paths(("dataset", dataset), ("output", output), optional=(
        ("snapshot", snapshot), ("chunked_snapshot", chunked_snapshot), ("cache_dir", cache_dir),
    ))
    cutoff = parse_k(k)  # as the command line's -k, before any file is read
    endpoint = Endpoint(base_url, model, api_key_env, max_tokens, concurrency, timeout)
    if chunk_chars is not None and chunk_sentences is not None:
        raise RequestError("give --chunk-chars or --chunk-sentences, not both")
    chunking = Chunking()
    if chunk_chars is not None:
        chunking = Chunking("chars", chunk_chars)
    elif chunk_sentences is not None:
        chunking = Chunking("sentences", chunk_sentences)
    config = RetrievalConfig(
        retriever=retriever,
        k=cutoff,
        context_chars=context_chars,
        candidates=candidates,
        chunking=chunking,
        rerank=rerank,
        rerank_depth=rerank_depth,
        rrf_c=rrf_c,
        current_only=current_only,
        record_latency=not no_latency,
        respect_permissions=respect_permissions,
        tokenizer=TokenizerSpec(stemmer=None if no_stemming else "english"),
    )
    # Every value out of its command-line range at once, before any file is read.
    problems = [*endpoint.range_problems(), *config.problems()]
    problems += run_name_problems(name)
    problems += flag_problems(
        ("--current-only", current_only), ("--respect-permissions", respect_permissions),
        ("--no-latency", no_latency), ("--no-stemming", no_stemming), ("--no-cache", no_cache),
        ("--progress", progress),
    )
    if problems:
        raise InputError(problems)
    if endpoint.given and endpoint.missing():
        raise RequestError("--base-url and --model go together")
    endpoint.check_base_url()
    generation = None
    if base_url is not None and model is not None:
        generation = GenerationConfig(
            base_url, model, endpoint.api_key(),
            max_tokens=max_tokens, concurrency=concurrency, timeout=timeout,
        )
    if chunking.mode != "snapshot" and chunked_snapshot is None:
        raise RequestError(
            "--chunk-chars/--chunk-sentences need --chunked-snapshot PATH "
            "(the run's chunk IDs live there)"
        )
    for target in (output, chunked_snapshot):  # as given: a '/' that `Path` drops is seen
        if target is not None:
            check_output(target)
    path, chunked = as_path(output), as_optional_path(chunked_snapshot)
    # As the command line refuses them: writing either would replace a file read here.
    inputs = [("DATASET", dataset), *([] if snapshot is None else [("--snapshot", snapshot)])]
    refuse_inputs([] if chunked is None else [chunked], inputs)
    refuse_inputs([path], inputs)
    if chunked is not None and same_file(path, chunked):
        raise OutputError(path, "it is also this command's --chunked-snapshot")
    if not no_cache:  # the default folder ($RAGTRIAGE_CACHE_DIR ...) as --cache-dir is
        check_output(as_optional_path(cache_dir) or default_cache_dir(), folder=True)
    # Checked as `evaluate` checks them: a repeated or unknown ID is refused here, not in the run.
    loaded = load_checked(dataset, snapshot)
    run_name = name or (retriever if rerank is None else f"{retriever}+rerank-{rerank}")
    result = run_retrieval(
        loaded.snapshot, loaded.evalset, config, snapshot_file=loaded.sources[-1].path,
        name=run_name, cache_dir=cache_dir, use_cache=not no_cache, progress=progress,
        generation=generation,
    )
    with outputs_together():  # the run and the chunked snapshot: both or neither
        write_native(result.run, path)
        if chunked is not None:
            write_native(result.snapshot, chunked)
    return WrittenRunFile(result, path, generation is not None)


@dataclass(frozen=True)
class JudgeOutcome:
    """What `judge_files` did: an estimate (dry run), or labels and the files written."""

    estimate: Estimate | None
    """The dry run's calls, tokens and cost (None: not a dry run, or the lexical baseline)."""
    result: JudgeResult | None
    """The labels (None for a dry run)."""
    written: tuple[WrittenRun, ...]
    """The files written (empty for a dry run)."""
    holdout: frozenset[str] = frozenset()
    """The holdout questions, labelled but left out of the summary's counts."""


def judge_files(
    dataset: PathArg,
    *,
    snapshot: PathArg | None = None,
    runs: Iterable[PathArg] | PathArg = (),
    k: int | None = None,
    output: PathArg | None = None,
    judge: JudgeName = "llm",
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout: float = DEFAULT_TIMEOUT,
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    endpoint_kind: str = "openai-compatible",
    prompt_version: str = "v1",
    seed: int = 0,
    response_format: str = "auto",
    max_retries: int = 3,
    retry_delay: float = 0.5,
    cache: PathArg | None = None,
    no_cache: bool = False,
    price_per_1k_input: float | None = None,
    price_per_1k_output: float | None = None,
    dry_run: bool = False,
    executor: ExecutorName = "local",
    ray_address: str | None = None,
    progress: Progress | None = None,
) -> JudgeOutcome:
    """`ragtriage judge DATASET ... -o DIR`: label claims and reference facts with a judge.

    Labels go to `output/<run>.labels.json` (never replacing human labels); the cache
    defaults to `output/judge-cache.sqlite`. `response_format="auto"` picks
    `judges.default_response_format(endpoint_kind)`: constrained output (`json_schema`) for
    `llama.cpp`, `json_object` for the other kinds.
    """
    from ..executors import ExecutorName, check_ray_address
    from ..fileio import outputs_together
    from ..judges import (
        AUTO_RESPONSE_FORMAT,
        LEXICAL_SPEC,
        RESPONSE_FORMATS,
        ClientOptions,
        EndpointError,
        JudgeSpec,
        LexicalJudge,
        Prices,
        check_answered,
        check_label_files,
        check_output_names,
        default_response_format,
        estimate,
        judge_dataset_async,
        load_judgeable,
        run_llm_judge,
        write_outputs,
    )
    from ..schemas import identifier_problems
    from ..validation import SEED_RANGE, parse_k

    check_paths(("dataset", dataset), optional=(
        ("snapshot", snapshot), ("output", output), ("cache", cache),
    ))
    endpoint = Endpoint(base_url, model, api_key_env, max_tokens, concurrency, timeout)
    # Every value out of its command-line range at once, before any file is read (the
    # client checks its own options again, for callers that build one themselves); k as
    # every command's (a whole float such as 2.0 is 2).
    problems = choice_problems(
        ("--judge", judge, get_args(JudgeName)),
        ("--response-format", response_format, (AUTO_RESPONSE_FORMAT, *RESPONSE_FORMATS)),
        ("--executor", executor, get_args(ExecutorName)),
    )
    problems += endpoint.range_problems()
    if k is not None:
        try:
            k = parse_k(k)
        except InputError as refused:
            problems += refused.problems
    problems += range_problems(
        ("--seed", seed, SEED_RANGE),
        ("--max-retries", max_retries, MAX_RETRIES_RANGE),
        ("--retry-delay", retry_delay, RETRY_DELAY_RANGE),
        ("--max-reply-bytes", max_reply_bytes, MAX_REPLY_BYTES_RANGE),
        ("--price-per-1k-input", price_per_1k_input, PRICE_PER_1K_RANGE),
        ("--price-per-1k-output", price_per_1k_output, PRICE_PER_1K_RANGE),
    )
    problems += identifier_problems(("--model", model))  # the labeller's name
    problems += flag_problems(("--no-cache", no_cache), ("--dry-run", dry_run))
    if problems:
        raise InputError(problems)
    check_ray_address(executor, ray_address)
    if executor == "ray" and judge != "lexical":
        # An LLM client cannot travel to a worker; it would need a factory per endpoint.
        raise RequestError("--executor ray supports --judge lexical only")
    loaded = load_judgeable(dataset, snapshot, as_paths(runs, "runs"), k)
    check_some_run(len(loaded.runs), "judge")
    check_output_names([run.name for run in loaded.runs])  # before any judging
    prices = Prices(price_per_1k_input, price_per_1k_output)
    spec = None
    if judge == "llm":
        if endpoint.missing():
            raise _usage(
                " and ".join(endpoint.missing()),
                "a value for the llm judge (or --judge lexical)",
                "nothing",
            )
        endpoint.check_base_url()
        spec = JudgeSpec(
            model=model or "",
            endpoint_kind=endpoint_kind,
            prompt_version=prompt_version,
            temperature=0.0,
            seed=seed,
            max_tokens=max_tokens,
            response_format=(
                default_response_format(endpoint_kind)
                if response_format == AUTO_RESPONSE_FORMAT
                else response_format
            ),
        )
    out = as_optional_path(output)
    if out is None and not dry_run:
        raise _usage("--output", "a folder for the label files (or --dry-run)", "nothing")
    cache_path = as_optional_path(cache)
    if cache_path is None and out is not None:
        cache_path = out / "judge-cache.sqlite"
    if no_cache:
        cache_path = None
    if dry_run:
        found = None
        if spec is not None:
            found = estimate(loaded, spec, k=k, cache_path=cache_path, prices=prices)
        return JudgeOutcome(found, None, ())
    assert out is not None  # checked above
    check_label_files(out, [run.name for run in loaded.runs], (spec or LEXICAL_SPEC).labeller())
    api_key = endpoint.api_key()
    if executor == "ray":
        from ..executors import RayExecutor
        from ..judges import judge_on_executor

        with RayExecutor(ray_address) as ray:
            result = judge_on_executor(loaded, LexicalJudge, ray, k=k)
    elif spec is None:
        result = asyncio.run(judge_dataset_async(loaded, LexicalJudge(), k=k, progress=progress))
    else:
        options = ClientOptions(
            base_url=base_url or "",
            api_key=api_key,
            concurrency=concurrency,
            max_retries=max_retries,
            timeout=timeout,
            backoff=retry_delay,
            max_reply_bytes=max_reply_bytes,
        )
        result = asyncio.run(
            run_llm_judge(
                loaded,
                spec,
                options,
                k=k,
                cache_path=cache_path,
                prices=prices,
                progress=progress,
            )
        )
        check_answered(result, options.base_url)
    if spec is None:  # the baseline sends nothing: at the prices given it costs 0
        free = replace(result.stats, cost_usd=prices.cost(0, 0))
        result = replace(result, stats=free)
    inputs = [("DATASET", dataset), *(("--run", path) for path in as_paths(runs))]
    inputs += [] if snapshot is None else [("--snapshot", snapshot)]
    with outputs_together():
        written = write_outputs(result, out, inputs)
    if result.stats.stopped is not None:
        files = ", ".join(str(w.labels) for w in written)
        raise EndpointError(
            f"{result.stats.stopped}; the session stopped after "
            f"{counted(result.stats.answered, 'answered call')}: the labels finished so far are "
            f"in {files} (the rest are cannot_judge); fix the option and rerun, the cache keeps "
            "the finished replies"
        )
    return JudgeOutcome(None, result, written, holdout_ids(loaded.evalset))


def _usage(option: str, expected: str, found: str) -> InputError:
    return InputError([option_problem(option, expected, found)])

