"""Regenerate tests/data/phoenix/: the test chain's spans as a real Phoenix server returns them.

Not run by the test suite (Phoenix is a ~900 MB install with a server). To regenerate:

    python -m venv /tmp/phx && /tmp/phx/bin/pip install arize-phoenix \
        opentelemetry-exporter-otlp-proto-http langchain-core openinference-instrumentation-langchain numpy
    PHOENIX_WORKING_DIR=/tmp/phx-work PHOENIX_HOST=127.0.0.1 PHOENIX_PORT=16006 \
        PHOENIX_GRPC_PORT=16007 /tmp/phx/bin/python -m phoenix.server.main serve &
    PYTHONPATH=src:tests/recording /tmp/phx/bin/python tests/recording/make_phoenix_fixture.py
    kill %1

It sends the spans over OTLP/HTTP, then saves `GET /v1/projects/default/spans` (Phoenix's own
span shape) and `GET /v1/projects/default/spans/otlpv1` (its OTLP-shaped one).
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from pathlib import Path

import recording_chain as rc

BASE = "http://127.0.0.1:16006"
OUT = Path(__file__).resolve().parents[1] / "data" / "phoenix"


def main() -> None:
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(f"{BASE}/v1/traces")))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    rc.run_chain()
    instrumentor.uninstrument()
    provider.shutdown()
    time.sleep(3)  # Phoenix inserts spans in the background
    OUT.mkdir(parents=True, exist_ok=True)
    for route, name in (("spans", "spans.json"), ("spans/otlpv1", "spans.otlpv1.json")):
        with urllib.request.urlopen(f"{BASE}/v1/projects/default/{route}?limit=1000") as response:
            data = json.load(response)
        if len(data["data"]) != 36:
            sys.exit(f"expected 36 spans from {route}, got {len(data['data'])}")
        (OUT / name).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
