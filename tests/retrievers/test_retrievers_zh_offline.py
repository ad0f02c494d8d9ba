"""The bundled Chinese example through `ragtriage run` and `evaluate`, with the network cut off.

Any socket connection to a non-loopback address, and any DNS lookup of another host, raises:
the retrievers (jieba's dictionary, the USE weights) must load from the installed packages.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ragtriage.cli import cli
from ragtriage.example.zh import zh_example_paths

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", None}


class NetworkBlocked(RuntimeError):
    """Raised instead of opening a connection off this machine."""


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Block non-loopback connections and lookups; the list records every attempt."""
    attempts: list[str] = []
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def is_local(address: Any) -> bool:
        if isinstance(address, (str, bytes)):  # AF_UNIX path
            return True
        host = address[0]
        return host in LOCAL_HOSTS or str(host).startswith("127.")

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if not is_local(address):
            attempts.append(repr(address))
            raise NetworkBlocked(f"network access attempted: {address!r}")
        real_connect(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in LOCAL_HOSTS and not str(host).startswith("127."):
            attempts.append(repr(host))
            raise NetworkBlocked(f"DNS lookup attempted: {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    return attempts


def _summary(report: dict[str, Any], run: str) -> dict[str, Any]:
    runs = report["runs"]
    entry = runs[run] if isinstance(runs, dict) else next(r for r in runs if r["name"] == run)
    summary: dict[str, Any] = entry["summary"]
    return summary


def test_the_guard_refuses_before_any_packet_is_sent(offline: list[str]) -> None:
    # A closed socket: were the guard missing, connect would fail locally (bad file
    # descriptor) without sending anything, and this test would fail on the wrong error.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.close()
    with pytest.raises(NetworkBlocked):
        sock.connect(("192.0.2.1", 80))
    assert offline == ["('192.0.2.1', 80)"]


def test_chinese_example_runs_and_evaluates_offline(offline: list[str], tmp_path: Path) -> None:
    paths = zh_example_paths()
    runner = CliRunner()
    cache = tmp_path / "cache"
    outputs = []
    for retriever, extra in (("bm25", []), ("hybrid", []), ("bm25", ["--chunk-sentences", "1"])):
        out = tmp_path / f"{retriever}{'-chunked' if extra else ''}.jsonl"
        chunked = ["--chunked-snapshot", str(tmp_path / "chunked.json")] if extra else []
        result = runner.invoke(
            cli,
            [
                "run",
                "--snapshot",
                str(paths.snapshot),
                str(paths.evalset),
                "--retriever",
                retriever,
                "-k",
                "1",
                "--cache-dir",
                str(cache),
                "--no-progress",
                "--output",
                str(out),
                *extra,
                *chunked,
            ],
        )
        assert result.exit_code == 0, result.output
        outputs.append(out)
    assert sorted(p.name.split("-")[0] for p in cache.iterdir()) == ["bm25", "bm25", "dense"]
    report_result = runner.invoke(
        cli,
        [
            "evaluate",
            str(paths.evalset),
            "--snapshot",
            str(paths.snapshot),
            "--run",
            str(outputs[0]),
            "--run",
            str(outputs[1]),
            "--format",
            "json",
        ],
    )
    assert report_result.exit_code == 0, report_result.output
    report = json.loads(report_result.stdout)
    bm25, hybrid = _summary(report, "bm25"), _summary(report, "hybrid")
    assert {
        key: bm25["evidence_recall"][key]
        for key in ("value", "numerator", "denominator", "not_applicable")
    } == {"value": 6.5 / 9, "numerator": 6.5, "denominator": 9, "not_applicable": 2}
    assert hybrid["evidence_recall"]["value"] == 7.5 / 9
    for layer in (
        "fact_coverage",
        "claim_support",
        "citation_validity",
        "correct_refusal",
        "false_refusal",
    ):
        assert bm25[layer]["value"] is None and bm25[layer]["denominator"] == 0, layer
    chunked_result = runner.invoke(
        cli,
        [
            "evaluate",
            str(paths.evalset),
            "--snapshot",
            str(tmp_path / "chunked.json"),
            "--run",
            str(outputs[2]),
            "--format",
            "json",
        ],
    )
    assert chunked_result.exit_code == 0, chunked_result.output
    chunked = _summary(json.loads(chunked_result.stdout), "bm25")
    assert (chunked["evidence_recall"]["value"], chunked["evidence_recall"]["denominator"]) == (
        6.5 / 9,
        9,
    )
    assert offline == []
