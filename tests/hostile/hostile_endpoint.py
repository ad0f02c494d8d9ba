"""A hostile OpenAI-compatible endpoint on loopback, and a small dataset for the judge.

The server answers each request from a script: a function of the judge task and the user
message that returns what to send back, raw, so that a test can send what no well-behaved
server would (a body 100,000 levels deep, bytes trickled one at a time, no Content-Length).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from judge_tasks import task_of


@dataclass(frozen=True)
class Send:
    """What the server sends for one request."""

    body: bytes
    """The response body."""
    status: int = 200
    """HTTP status."""
    trickle: float = 0.0
    """Seconds between single bytes of the body (0: all at once)."""
    length: bool = True
    """Send a Content-Length header (else the body ends when the connection closes)."""
    headers: tuple[tuple[str, str], ...] = ()
    """More headers."""


def envelope(content: str, finish: str = "stop", usage: Any = None) -> bytes:
    """A chat completion body carrying `content`."""
    body: dict[str, Any] = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": finish}],
        "usage": usage if usage is not None else {"prompt_tokens": 10, "completion_tokens": 5},
    }
    return json.dumps(body).encode()


def good(task: str) -> str:
    """A valid answer for a task (support: supported by `refund`)."""
    return {
        "outcome": json.dumps({"outcome": "answered", "reason": "it answers"}),
        "claims": json.dumps({"claims": [{"text": "Refunds take 5 days.", "citations": []}]}),
        "support": json.dumps(
            {"verdict": "supported", "supported_by": ["refund"], "reason": "stated"}
        ),
        "coverage": json.dumps({"verdict": "covered", "reason": "stated"}),
    }.get(task, "{}")


Script = Callable[[str, str, int], Send]
"""(task, user message, request number from 1) -> what to send."""


@dataclass
class Endpoint:
    """The running server: its URL and what it saw."""

    script: Script
    url: str = ""
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(endpoint: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            with endpoint.lock:
                endpoint.requests += 1
                number = endpoint.requests
            messages = body["messages"]
            send = endpoint.script(task_of(messages[0]["content"]), messages[-1]["content"], number)
            try:
                self.send_response(send.status)
                self.send_header("Content-Type", "application/json")
                for name, value in send.headers:
                    self.send_header(name, value)
                if send.length:
                    self.send_header("Content-Length", str(len(send.body)))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                if send.trickle:
                    for byte in send.body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(send.trickle)
                else:
                    self.wfile.write(send.body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler


class _QuietServer(ThreadingHTTPServer):
    """Prints nothing when a client hangs up early (the client under test does so on purpose,
    and the command's captured stderr must hold only what the command wrote)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


@contextmanager
def serve(script: Script) -> Iterator[Endpoint]:
    """Run the scripted server on 127.0.0.1 for the duration of the block."""
    endpoint = Endpoint(script)
    httpd = _QuietServer(("127.0.0.1", 0), _handler(endpoint))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    endpoint.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield endpoint
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_dataset(
    folder: Path,
    claims: list[str] | None,
    outcome: str | None = "answered",
) -> list[str]:
    """Snapshot, evaluation set and run `base` (q1 as given, with two facts; q2 answered with
    one claim and one fact); returns the DATASET arguments of the CLI."""
    snapshot = {
        "schema_version": 1,
        "kind": "snapshot",
        "snapshot_id": "s",
        "documents": [
            {"id": "refund", "text": "Refunds are paid within 5 working days after approval."}
        ],
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
                "required_evidence": [{"any_of": ["refund"]}],
                "reference_facts": [
                    {"id": "f1", "text": "Refunds are paid within 5 working days."},
                    {"id": "f2", "text": "Refunds need approval."},
                ],
            },
            {
                "id": "q2",
                "text": "Are refunds paid?",
                "answerability": "answerable",
                "required_evidence": [{"any_of": ["refund"]}],
                "reference_facts": [{"id": "f1", "text": "Refunds are paid."}],
            },
        ],
    }
    result: dict[str, Any] = {
        "question_id": "q1",
        "candidates": [{"id": "refund"}],
        "context": [{"id": "refund"}],
        "answer": "Refunds take 5 days. They need approval.",
        "outcome": outcome,
        "claims": None
        if claims is None
        else [{"id": f"c{n}", "text": t} for n, t in enumerate(claims, start=1)],
    }
    # q2 is always judgeable: a session is never all failures because of q1 alone.
    steady = {
        "question_id": "q2",
        "candidates": [{"id": "refund"}],
        "context": [{"id": "refund"}],
        "answer": "Yes, refunds are paid.",
        "outcome": "answered",
        "claims": [{"id": "c1", "text": "Refunds are paid."}],
    }
    run = {"schema_version": 1, "kind": "run", "name": "base", "results": [result, steady]}
    for name, data in (("snapshot", snapshot), ("evalset", evalset), ("run", run)):
        (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return [
        str(folder / "evalset.json"),
        "--snapshot",
        str(folder / "snapshot.json"),
        "--run",
        str(folder / "run.json"),
    ]
