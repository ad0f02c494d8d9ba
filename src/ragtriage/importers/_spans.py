"""Reading exported spans: OTLP JSON (lines), the SDK console exporter's JSON, Phoenix's REST spans.

Every shape becomes one `Span` with flat attribute keys (`retrieval.documents.0.document.id`),
IDs as lower-case hex and times in nanoseconds, read with the standard library's JSON parser.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import InputError, ProblemCollector
from ..fileio import parse_json_values, read_text, refuse_blank

_HEX = re.compile(r"^(?:[0-9a-fA-F]{16}|[0-9a-fA-F]{32})$")


@dataclass(frozen=True)
class Span:
    """One span, whatever file it came from."""

    trace_id: str
    """Trace ID, lower-case hex."""
    span_id: str
    """Span ID, lower-case hex."""
    parent_id: str | None
    """Parent span ID, None for a root span."""
    name: str
    """Span name."""
    kind: str | None
    """OpenInference span kind (`CHAIN`, `RETRIEVER`, `RERANKER`, `LLM` ...), upper case."""
    start_ns: int | None
    """Start time, nanoseconds since the epoch."""
    end_ns: int | None
    """End time, nanoseconds since the epoch."""
    attributes: dict[str, Any]
    """Attributes with flat dotted keys."""
    where: str
    """Where the span is in the file (for messages)."""


def hex_id(value: Any) -> str | None:
    """A trace or span ID as lower-case hex: hex (OTLP JSON, with or without 0x) or base64
    (protobuf's generic JSON mapping)."""
    if not isinstance(value, str) or not value:
        return None
    text = value.removeprefix("0x")
    if _HEX.match(text):
        return text.lower()
    try:
        # The whole value: base64 of random bytes may itself begin with "0x".
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.hex() if len(raw) in (8, 16) else None


def _any_value(value: Any) -> Any:
    """An OTLP `AnyValue` (camelCase or snake_case keys) as a Python value."""
    if not isinstance(value, dict):
        return None
    # Phoenix's OTLP-shaped spans list every value kind with null for the unused ones.
    present = [(k, v) for k, v in value.items() if v is not None]
    if not present:
        return None
    key, inner = present[0]
    kind = key.replace("_", "").lower()
    try:
        if kind == "intvalue":
            return int(inner)
        if kind == "doublevalue":
            return float(inner)
    except (TypeError, ValueError):
        return inner
    if kind == "arrayvalue":
        return [_any_value(v) for v in (inner or {}).get("values", [])]
    if kind == "kvlistvalue":
        return {
            kv.get("key"): _any_value(kv.get("value")) for kv in (inner or {}).get("values", [])
        }
    return inner


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    # Phoenix returns nested attributes flattened already; a nested mapping from another
    # exporter is flattened the same way so one lookup serves every source.
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, out)
    else:
        out[prefix] = value


def _iso_ns(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return int(moment.timestamp() * 1_000_000) * 1000


def _get(data: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in data:
            return data[key]
    return None


def _otlp_span(
    data: dict[str, Any], where: str, collector: ProblemCollector, label: str
) -> Span | None:
    attrs: dict[str, Any] = {}
    for kv in data.get("attributes") or []:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            attrs[kv["key"]] = _any_value(kv.get("value"))
    return _span(
        label,
        where,
        collector,
        trace=_get(data, "traceId", "trace_id"),
        span=_get(data, "spanId", "span_id"),
        parent=_get(data, "parentSpanId", "parent_span_id"),
        name=data.get("name"),
        attrs=attrs,
        start=_get(data, "startTimeUnixNano", "start_time_unix_nano"),
        end=_get(data, "endTimeUnixNano", "end_time_unix_nano"),
    )


def _context_span(
    data: dict[str, Any], where: str, collector: ProblemCollector, label: str
) -> Span | None:
    """The console exporter's `span.to_json()` or a Phoenix REST span."""
    attrs: dict[str, Any] = {}
    _flatten("", data.get("attributes") or {}, attrs)
    if isinstance(data.get("span_kind"), str):
        # Phoenix moves openinference.span.kind out of the attributes.
        attrs.setdefault("openinference.span.kind", data["span_kind"])
    context = data.get("context") or {}
    return _span(
        label,
        where,
        collector,
        trace=context.get("trace_id"),
        span=context.get("span_id"),
        parent=data.get("parent_id"),
        name=data.get("name"),
        attrs=attrs,
        start=_iso_ns(data.get("start_time")),
        end=_iso_ns(data.get("end_time")),
    )


def _span(
    label: str,
    where: str,
    collector: ProblemCollector,
    *,
    trace: Any,
    span: Any,
    parent: Any,
    name: Any,
    attrs: dict[str, Any],
    start: Any,
    end: Any,
) -> Span | None:
    trace_id, span_id = hex_id(trace), hex_id(span)
    if trace_id is None or span_id is None:
        expected = "a span with a trace ID and a span ID (hex or base64)"
        collector.add(label, None, where, expected, f"trace ID {trace!r}, span ID {span!r}")
        return None
    kind = attrs.get("openinference.span.kind")
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=hex_id(parent),
        name=name if isinstance(name, str) else "",
        kind=kind.upper() if isinstance(kind, str) else None,
        start_ns=int(start) if isinstance(start, (int, str)) and str(start).isdigit() else None,
        end_ns=int(end) if isinstance(end, (int, str)) and str(end).isdigit() else None,
        attributes=attrs,
        where=where,
    )


def _spans_of(
    value: Any, where: str, collector: ProblemCollector, label: str
) -> Iterator[Span | None]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _spans_of(item, f"{where}[{index}]", collector, label)
        return
    if not isinstance(value, dict):
        collector.add(
            label, None, where, "a span, a list of spans or an OTLP export", repr(value)[:60]
        )
        return
    resource_spans = _get(value, "resourceSpans", "resource_spans")
    if isinstance(resource_spans, list):
        for r, resource in enumerate(resource_spans):
            scopes = (
                _get(resource, "scopeSpans", "scope_spans") if isinstance(resource, dict) else None
            )
            for s, scope in enumerate(scopes or []):
                for n, span in enumerate(
                    scope.get("spans") or [] if isinstance(scope, dict) else []
                ):
                    at = f"{where}: resourceSpans[{r}].scopeSpans[{s}].spans[{n}]"
                    yield _otlp_span(span, at, collector, label) if isinstance(span, dict) else None
        return
    if isinstance(value.get("data"), list):  # a Phoenix REST page
        yield from _spans_of(value["data"], f"{where}: data", collector, label)
        return
    if isinstance(value.get("context"), dict):
        yield _context_span(value, where, collector, label)
        return
    if _get(value, "traceId", "trace_id") is not None:
        yield _otlp_span(value, where, collector, label)
        return
    expected = (
        "resourceSpans (OTLP JSON), a span with context (console exporter, Phoenix) "
        "or traceId/spanId (an OTLP span)"
    )
    collector.add(label, None, where, expected, "keys " + ", ".join(sorted(map(str, value))[:8]))


def read_spans(path: Path, collector: ProblemCollector) -> list[Span]:
    """Every span in the file: JSON values one after another (JSON lines, or the console
    exporter's indented objects), each an OTLP export, a span, a list or a Phoenix page."""
    label = str(path)
    spans: list[Span] = []
    try:
        text = read_text(path, label)
        refuse_blank(text, label, "at least one span")
        # Every value that does not parse is collected; the others are read on.
        for line, value in parse_json_values(text, label, collector):
            spans += [
                s for s in _spans_of(value, f"line {line}", collector, label) if s is not None
            ]
    except InputError as exc:
        collector.extend(exc.problems)
        return []
    if not spans and not collector.problems:
        collector.add(label, None, "(file)", "at least one span", "none")
    return spans
