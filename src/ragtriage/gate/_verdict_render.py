"""Renderings of a gate result: JSON, terminal table, PR-ready Markdown and JUnit XML."""

from __future__ import annotations

import dataclasses
import io
import math
import re
import xml.etree.ElementTree as ET
from typing import Any

from .._console import escaped, text_console, text_table, visible
from .._markdown import md_code, md_lines, md_table, md_text
from ..errors import counted, id_list
from ..evaluation import NO_RESULT, selected_by
from ..loading import report_head
from ._verdict import GateResult

_MARK = {"pass": "PASS", "fail": "FAIL", "skipped": "SKIP"}


def gate_json(result: GateResult) -> dict[str, Any]:
    """The gate result as plain data (dump with `render.dumps` for stable text)."""
    return {
        **report_head(result.tool_version, result.sources),
        "kind": "gate",
        "policy": {
            "name": result.policy_name,
            "path": result.policy_path,
            "sha256": result.policy_sha256,
        },
        "run": result.run,
        "baseline": result.baseline,
        "questions": result.questions,
        "selection": result.selection,
        "no_result": list(result.no_result),
        "passed": result.passed,
        "counts": {v: result.count(v) for v in ("pass", "fail", "skipped")},
        "rules": [
            # Each rule's fields under their own names.
            {
                **dataclasses.asdict(r),
                "observed": _json_number(r.observed),
                "questions": list(r.questions),
            }
            for r in result.rules
        ],
    }


def _json_number(value: float | None) -> float | None:
    """JSON has no NaN or infinity: such a value is written as null (the gate fails it closed
    and says why in `observed_text`)."""
    return value if value is None or math.isfinite(value) else None


def _headline(result: GateResult) -> str:
    verdict = "PASSED" if result.passed else "FAILED"
    against = f" against baseline {result.baseline}" if result.baseline else ""
    return (
        f"gate {verdict}: run {result.run}{against}, policy {result.policy_name!r} "
        f"(sha256 {result.policy_sha256}); {result.count('pass')} passed, "
        f"{result.count('fail')} failed, {result.count('skipped')} skipped, "
        f"{counted(result.questions, 'question')}{selected_by(result.selection)}"
        f"{_no_result(result)}"
    )


def _no_result(result: GateResult) -> str:
    """` (not gated, no result: q3, q4)` when the run has no result for some questions."""
    if not result.no_result:
        return ""
    return f" (not gated, {NO_RESULT}: {id_list(result.no_result)})"


def _rows(result: GateResult) -> list[list[str]]:
    return [[_MARK[r.verdict], r.name, r.observed_text, r.limit, r.detail] for r in result.rules]


_HEADER = ["verdict", "rule", "observed", "limit", "detail"]


def render_gate_table(result: GateResult, width: int = 140) -> str:
    """The terminal report: headline, then one row per rule (failures keep policy order)."""
    buffer = io.StringIO()
    console = text_console(buffer, width)
    console.print(_headline(result))
    console.print(text_table(None, _HEADER, _rows(result)))
    return buffer.getvalue()


def render_gate_markdown(result: GateResult) -> str:
    """A pull-request comment: verdict, failed rules first, then the full rule table."""
    icon = "✅" if result.passed else "❌"
    lines = [f"## {icon} ragtriage gate: {'passed' if result.passed else 'failed'}", ""]
    against = f" against {md_code(result.baseline)}" if result.baseline else ""
    lines += [
        f"Run {md_code(result.run)}{against}, {counted(result.questions, 'question')}"
        f"{md_text(selected_by(result.selection) + _no_result(result))}; "
        f"policy **{md_text(result.policy_name)}** "
        f"({md_code(result.policy_path)}, sha256 `{result.policy_sha256}`).",
        "",
    ]
    failed = [r for r in result.rules if r.verdict == "fail"]
    if failed:
        lines += ["Failed rules:", ""]
        lines += [f"- **{md_text(r.name)}**: {md_text(r.detail)}" for r in failed]
        lines.append("")

    lines += md_table(_HEADER, _rows(result))
    return md_lines(lines) + "\n"


_NOT_XML = re.compile("[\ufffe\uffff]")
"""Characters XML 1.0 cannot hold, even escaped, that `visible` leaves as they are."""


def _xml(text: str) -> str:
    # As the table and the Markdown show it: a control or format character (U+202E, NEL) as
    # its escape, which also keeps every character XML cannot hold out of the file.
    return escaped(visible(text), _NOT_XML)


def render_junit(result: GateResult) -> str:
    """JUnit XML: one test case per rule, so CI shows each rule; no timestamps (reproducible).

    A control or format character (and any other XML cannot hold) is written as its escape,
    `\\x01`, `\\u202e`, as the table and the Markdown write it.
    """
    counts = {  # the same on the suites and the one suite, which alone may say `skipped`
        "tests": str(len(result.rules)),
        "failures": str(result.count("fail")),
        "errors": "0",
    }
    suites = ET.Element("testsuites", {"name": "ragtriage gate", **counts})
    name = _xml(f"ragtriage gate: {result.policy_name} on {result.run}")
    skipped = str(result.count("skipped"))
    suite = ET.SubElement(suites, "testsuite", {"name": name, **counts, "skipped": skipped})
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("policy", result.policy_path),
        ("policy_sha256", result.policy_sha256),
        ("run", result.run),
        ("baseline", result.baseline or ""),
        ("questions", str(result.questions)),
        ("selection", result.selection),
        ("no_result", id_list(result.no_result)),
    ):
        ET.SubElement(props, "property", name=key, value=_xml(value))
    for r in result.rules:
        case = ET.SubElement(
            suite, "testcase", classname=f"ragtriage.gate.{r.kind}", name=_xml(r.name)
        )
        if r.verdict == "fail":
            failure = ET.SubElement(case, "failure", message=_xml(r.detail), type=r.kind)
            failure.text = _xml(f"observed: {r.observed_text}\nlimit: {r.limit}\n{r.detail}")
        elif r.verdict == "skipped":
            ET.SubElement(case, "skipped", message=_xml(r.detail))
        out = ET.SubElement(case, "system-out")
        out.text = _xml(f"observed: {r.observed_text}; limit: {r.limit}")
    ET.indent(suites)
    body = ET.tostring(suites, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
