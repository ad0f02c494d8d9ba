"""Judge throughput against a local OpenAI-compatible server with a fixed latency.

Starts a loopback server that answers every chat request after a fixed delay (200 ms by
default), runs the real judge client (no cache) on claims at concurrency 1, 8 and 32, and
prints calls per second next to the ideal concurrency / latency, as a share of it.

    python benchmarks/judge_throughput.py [--latency 0.2] [--concurrency 1 8 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ragtriage.judges import ClientOptions, JudgeSpec, run_llm_judge
from ragtriage.loading import load_dataset

ANSWER = json.dumps({"verdict": "supported", "supported_by": ["d1"], "reason": "stated"})


def _handler(latency: float) -> type[BaseHTTPRequestHandler]:
    body = json.dumps(
        {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": ANSWER},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 120, "completion_tokens": 20},
        }
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle's algorithm the second waits for
        # the client's delayed ACK (~40 ms), which would be measured as client overhead.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            time.sleep(latency)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def server(latency: float) -> Iterator[str]:
    """A fixed-latency chat endpoint on 127.0.0.1."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(latency))
    httpd.daemon_threads = True
    httpd.request_queue_size = 128
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def write_dataset(folder: Path, claims: int) -> tuple[Path, Path, Path]:
    """One answered question with `claims` claims and no reference facts."""
    snapshot = {
        "schema_version": 1,
        "kind": "snapshot",
        "snapshot_id": "s",
        "documents": [{"id": "d1", "text": "Refunds are paid within 5 working days."}],
    }
    evalset = {
        "schema_version": 1,
        "kind": "evalset",
        "evalset_id": "e",
        "questions": [
            {
                "id": "q1",
                "text": "How long do refunds take?",
                "answerability": "answerable",
                "required_evidence": [{"any_of": ["d1"]}],
            }
        ],
    }
    run = {
        "schema_version": 1,
        "kind": "run",
        "name": "bench",
        "results": [
            {
                "question_id": "q1",
                "candidates": [{"id": "d1"}],
                "context": [{"id": "d1"}],
                "answer": "Refunds take 5 days.",
                "outcome": "answered",
                "claims": [
                    {"id": f"c{i}", "text": f"Refund claim number {i}."} for i in range(claims)
                ],
            }
        ],
    }
    paths = (folder / "snapshot.json", folder / "evalset.json", folder / "run.json")
    for path, data in zip(paths, (snapshot, evalset, run), strict=True):
        path.write_text(json.dumps(data), encoding="utf-8")
    return paths


def measure(url: str, folder: Path, concurrency: int, calls: int) -> tuple[float, int]:
    """Seconds to judge `calls` claims at a concurrency, and the requests sent."""
    snapshot, evalset, run = write_dataset(folder, calls)
    dataset = load_dataset(evalset, snapshot=snapshot, runs=[run])
    spec = JudgeSpec(model="bench", endpoint_kind="openai-compatible", prompt_version="v1")
    options = ClientOptions(base_url=url, concurrency=concurrency, max_retries=0, timeout=30)
    start = time.perf_counter()
    result = asyncio.run(run_llm_judge(dataset, spec, options))
    elapsed = time.perf_counter() - start
    return elapsed, result.stats.requests


def main() -> None:
    """Run the benchmark and print one line per concurrency level."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="server delay per request (s)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--rounds", type=int, default=10, help="calls per concurrency slot")
    args = parser.parse_args()
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"fixed server latency {args.latency * 1000:.0f} ms; peer: the ideal concurrency/latency")
    print(
        f"load average before the run: {load} ({os.cpu_count()} CPUs; client and server share them)"
    )
    header = ("concurrency", "calls", "seconds", "calls/s", "ideal/s", "share")
    print(" ".join(f"{h:>11}" for h in header))
    with server(args.latency) as url, tempfile.TemporaryDirectory() as tmp:
        for level in args.concurrency:
            calls = max(20, args.rounds * level)
            elapsed, requests = measure(url, Path(tmp), level, calls)
            rate = requests / elapsed
            ideal = level / args.latency
            cells = (level, requests, f"{elapsed:.2f}", f"{rate:.1f}", f"{ideal:.1f}")
            print(" ".join(f"{c:>11}" for c in cells), f"{rate / ideal:>11.0%}")


if __name__ == "__main__":
    main()
