"""Test helpers for the judge: a small bilingual dataset and a fault-injecting chat server."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from judge_tasks import task_of

DOCS = [
    {"id": "refund-v2", "text": "Refunds are paid within 5 working days after approval."},
    {"id": "cards-v1", "text": "A lost card can be blocked in the app at any time."},
    {"id": "limit-zh", "text": "每日转账限额为五万元，超过限额需要到柜台办理。"},
]


def claim(text: str, cid: str | None = None, cites: Sequence[str] = ()) -> dict[str, Any]:
    """A claim record without labels."""
    out: dict[str, Any] = {"text": text, "citations": list(cites)}
    if cid is not None:
        out["id"] = cid
    return out


ZH_CLAIMS = (claim("每日转账限额为五万元", "z1"),)
"""q2's claims by default."""


def write_dataset(
    folder: Path,
    claims_q1: Sequence[dict[str, Any]] | None,
    claims_q2: Sequence[dict[str, Any]] | None = ZH_CLAIMS,
    outcome_q3: str | None = "refused",
) -> tuple[Path, Path, Path]:
    """Snapshot, evaluation set and one run (`base`) as files; returns their paths (q2 has one
    claim unless told otherwise: an answered result with `claims: []` gets its claims
    extracted)."""
    snapshot = {"schema_version": 1, "kind": "snapshot", "snapshot_id": "bank", "documents": DOCS}
    questions = [
        {
            "id": "q1",
            "text": "How long do refunds take?",
            "answerability": "answerable",
            "required_evidence": [{"any_of": ["refund-v2"]}],
            "reference_facts": [
                {"id": "f1", "text": "Refunds are paid within 5 working days."},
                {"id": "f2", "text": "Refunds need approval first."},
            ],
        },
        {
            "id": "q2",
            "text": "每日转账限额是多少？",
            "answerability": "answerable",
            "required_evidence": [{"any_of": ["limit-zh"]}],
            "reference_facts": [{"id": "f1", "text": "每日转账限额为五万元"}],
        },
        {"id": "q3", "text": "What is the CEO's phone number?", "answerability": "unanswerable"},
    ]
    evalset = {
        "schema_version": 1,
        "kind": "evalset",
        "evalset_id": "bank-qa",
        "questions": questions,
    }
    results = [
        {
            "question_id": "q1",
            "candidates": [{"id": "refund-v2"}, {"id": "cards-v1"}],
            "context": [{"id": "refund-v2"}, {"id": "cards-v1"}],
            "answer": "Refunds are paid within 5 working days. [refund-v2] Approval comes first.",
            "outcome": "answered",
            "claims": None if claims_q1 is None else list(claims_q1),
        },
        {
            "question_id": "q2",
            "candidates": [{"id": "limit-zh"}],
            "context": [{"id": "limit-zh"}],
            "answer": "每日转账限额为五万元。[limit-zh]",
            "outcome": "answered",
            "claims": None if claims_q2 is None else list(claims_q2),
        },
        {
            "question_id": "q3",
            "candidates": [{"id": "cards-v1"}],
            "context": [{"id": "cards-v1"}],
            "answer": "I don't know; the documents do not say.",
            "outcome": outcome_q3,
            "claims": [] if outcome_q3 is not None else None,
        },
    ]
    run = {"schema_version": 1, "kind": "run", "name": "base", "results": results}
    paths = (folder / "snapshot.json", folder / "evalset.json", folder / "run.json")
    for path, data in zip(paths, (snapshot, evalset, run), strict=True):
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return paths


_FAULT = re.compile(r"fault=([a-z0-9-]+)")


def good_answer(task: str, user: str) -> str:
    """A well-formed judge answer for a task (supported by the first passage for support)."""
    if task == "outcome":
        return json.dumps({"outcome": "answered", "reason": "it answers"})
    if task == "claims":
        return json.dumps(
            {
                "claims": [
                    {"text": "Refunds are paid within 5 working days.", "citations": ["refund-v2"]},
                    {"text": "Approval comes first.", "citations": []},
                ]
            }
        )
    if task == "support":
        first = re.search(r"^\[([^\]]+)\]", user, re.MULTILINE)
        ids = [first.group(1)] if first else []
        return json.dumps({"verdict": "supported", "supported_by": ids, "reason": "stated"})
    return json.dumps({"verdict": "covered", "reason": "stated"})


@dataclass
class FakeServer:
    """An OpenAI-compatible chat endpoint on loopback that injects faults named in the request.

    A user message containing `fault=NAME` gets: `429-once`, `500-once`, `timeout-once`
    (sleeps past the client's timeout once), `cut-once` (a truncated HTTP body once),
    `500-always`, `body-always` (a 200 whose body is not JSON), `prose` (content that is not
    JSON), `echo` (the user message back, not JSON), `truncated` (cut-off JSON with
    finish_reason `length`), `status-401`.
    """

    delay: float = 0.0
    sleep_timeout: float = 1.0
    requests: int = 0
    seen: dict[str, int] = field(default_factory=dict)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def respond(self, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            self.requests += 1
            self.bodies.append(body)
            user = body["messages"][1]["content"]
            key = user
            self.seen[key] = self.seen.get(key, 0) + 1
            attempt = self.seen[key]
        task = task_of(body["messages"][0]["content"])
        match = _FAULT.search(user)
        fault = match.group(1) if match else "none"
        if self.delay:
            time.sleep(self.delay)
        if fault == "429-once" and attempt == 1:
            return 429, {"Retry-After": "0"}, b'{"error": "slow down"}'
        if fault == "500-once" and attempt == 1:
            return 500, {}, b'{"error": "boom"}'
        if fault == "timeout-once" and attempt == 1:
            time.sleep(self.sleep_timeout)
        if fault == "cut-once" and attempt == 1:
            return -1, {}, b'{"choices": [{"mess'
        if fault == "500-always":
            return 500, {}, b'{"error": "down"}'
        if fault == "status-401":
            return 401, {}, b'{"error": "bad key"}'
        if fault == "body-always":
            return 200, {}, b"<html>gateway</html>"
        finish = "stop"
        content = good_answer(task, user)
        if fault == "prose":
            content = "The claim is supported, I think."
        elif fault == "echo":
            content = user
        elif fault == "truncated":
            content, finish = content[: len(content) // 2], "length"
        envelope = {
            "id": "x",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }
        return 200, {}, json.dumps(envelope).encode()


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            server.auth.append(self.headers.get("Authorization", ""))
            status, headers, payload = server.respond(body)
            try:
                if status == -1:  # announce more bytes than sent, then hang up
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload) + 100))
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    return Handler


@contextmanager
def serve(server: FakeServer) -> Iterator[FakeServer]:
    """Run the fake server on 127.0.0.1 (a free port) for the duration of the block."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
