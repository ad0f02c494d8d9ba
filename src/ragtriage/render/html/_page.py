"""Assemble the self-contained HTML report: template, inlined script, data and SVG charts."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

import jinja2
from markupsafe import Markup, escape

from ..._collector import no_cycle_collection
from ..._console import visible
from ..._version import __version__
from ...compare import Comparison, check_made_from
from ...diagnosis import diagnosis_next_actions, stage_order
from ...evaluation import Evaluation
from ...schemas import Question
from .._boundaries import evaluation_boundary_lines
from .._table import TABLE_MEASURES
from .._text import fmt_value, report_notes
from ._assets import asset
from ._charts import funnel, funnel_svg, stages_svg
from ._payload import FLAG_NAMES, document_entries, question_entry, run_results
from ._summary import comparison_view, layers, run_infos


def json_for_script(data: Any) -> str:
    """Deterministic compact JSON that is safe inside a <script> element.

    `<`, `>` and `&` become `\\u003c`, `\\u003e` and `\\u0026`: the text then cannot end
    the element (`</script>`) or open a comment, and `JSON.parse` restores them.
    """
    text = json.dumps(
        data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_TICKS = re.compile("`+")


def inline_code(text: str) -> Markup:
    """A line of Markdown with `code` spans as HTML: escaped text (control and format
    characters as their escapes, `visible`), spans as `<code>`, read as a viewer reads what
    `md_code` writes (a span closes at a run of as many backticks as opened it; one space of
    padding at both ends is dropped), so a name holding backticks is shown whole.

    A backtick run that nothing closes is shown as it is, escaped.
    """
    text = visible(text)
    parts, start, at = [], 0, 0
    while (opening := _TICKS.search(text, at)) is not None:
        fence = re.compile(f"(?<!`){opening.group()}(?!`)")
        closing = fence.search(text, opening.end())
        if closing is None:
            at = opening.end()
            continue
        code = text[opening.end() : closing.start()]
        if code.startswith(" ") and code.endswith(" ") and code.strip(" "):
            code = code[1:-1]
        parts += [escape(text[start : opening.start()]), Markup("<code>{}</code>").format(code)]
        start = at = closing.end()
    return Markup("").join([*parts, escape(text[start:])])


def markdown_bullets(lines: Sequence[str]) -> list[tuple[Markup, list[Markup]]]:
    """Markdown bullet lines (`- item`, indented `  - sub-item`) as items with sub-items.

    Only an item's code spans are read: a sub-item lists IDs as they are (`x`y`z`)."""
    items: list[tuple[Markup, list[Markup]]] = []
    for line in lines:
        nested = line.startswith(" ") and bool(items)
        text = line.strip().removeprefix("- ")
        if nested:
            items[-1][1].append(escape(visible(text)))
        else:
            items.append((inline_code(text), []))
    return items


def _script_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _changes(evaluation: Evaluation, comparison: Comparison | None) -> list[list[Any]]:
    if comparison is None:
        return []
    run_index = {run.name: i for i, run in enumerate(evaluation.runs)}
    moved = ("improved", "regressed")
    return [
        [
            run_index.get(pair.candidate.runs[0], 0),
            pair.candidate.label,
            q.question_id,
            q.status,
            q.base_stage,
            q.candidate_stage,
            [
                [m.metric, fmt_value(m.base), fmt_value(m.candidate), m.status]
                for m in q.metrics
                if m.status in moved
            ],
        ]
        for pair in comparison.pairs
        for q in pair.questions
        if q.status != "unchanged"
    ]


def report_questions(evaluation: Evaluation) -> list[Question]:
    """The report's questions, in evaluation-set order: every one some run was evaluated on,
    with or without a result (a run without one shows it as no result)."""
    wanted = {qid for run in evaluation.runs for qid in run.no_result}
    wanted.update(r.question_id for run in evaluation.runs for r in run.questions)
    return [q for q in evaluation.questions if q.id in wanted]


_JSON_CONTROL = re.compile(r"\\(?:u00[01]|[bfrt])")
"""A control character but the line end as `json.dumps` writes it (`\\u001b`, `\\t`)."""


def _has_invisible(data: Any) -> bool:
    # Writing and searching the JSON text once is quicker than visiting every string (about
    # 0.3 s against 0.6 s for 10,000 questions), and few reports hold such a character.
    text = json.dumps(data, ensure_ascii=False)
    return visible(text) != text or _JSON_CONTROL.search(text) is not None


def _visible_strings(value: Any) -> Any:
    """`value` with every string in it (keys too) as `visible` writes it."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, list):
        return [_visible_strings(v) for v in value]
    if isinstance(value, dict):
        return {visible(k): _visible_strings(v) for k, v in value.items()}
    return value


def report_data(evaluation: Evaluation, comparison: Comparison | None = None) -> dict[str, Any]:
    """The JSON document the page script reads (see `_payload` for its keys).

    Every string is as `visible` writes it: a control or format character from the files
    read (an escape sequence, U+202E reversing the text after it, a zero-width space) is
    shown as its escape (`\\x1b`, `\\u202e`), as the terminal and Markdown show it.
    """
    diagnoses = evaluation.diagnoses
    table = [m for m in evaluation.measures if m.name in TABLE_MEASURES]
    all_views = [v for run in evaluation.runs for v in run.views]
    questions = report_questions(evaluation)
    ids = [q.id for q in questions]
    data = {
        "tool": __version__,
        "runs": [{"name": r.name, "k": r.k} for r in evaluation.runs],
        "stages": list(diagnoses[0].stages) if diagnoses else list(stage_order()),
        "flags": [list(pair) for pair in FLAG_NAMES],
        "measures": [[m.name, m.spec.direction, m.spec.kind] for m in table],
        "questions": [question_entry(q) for q in questions],
        "results": [run_results(run, table, ids) for run in evaluation.runs],
        "docs": document_entries(all_views),
        "changes": _changes(evaluation, comparison),
    }
    if not _has_invisible(data):
        return data
    shown: dict[str, Any] = _visible_strings(data)
    return shown


def _environment() -> jinja2.Environment:
    # autoescape=True: every value the template prints is HTML-escaped unless it is Markup.
    # finalize: a text it prints shows its control and format characters escaped (`visible`);
    # Markup (the script, the styles, the charts, the data) is the page's own.
    return jinja2.Environment(
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        finalize=_finalize,
    )


def _finalize(value: Any) -> Any:
    return visible(value) if isinstance(value, str) and not isinstance(value, Markup) else value


def render_html(
    evaluation: Evaluation,
    *,
    comparison: Comparison | None = None,
    title: str = "ragtriage report",
) -> str:
    """The whole report as one HTML document (no network access needed to view it).

    Shows each run's diagnosis as the evaluation carries it, and `comparison` when given
    (`ragtriage.api.report_page` compares two or more runs first). Same inputs, same bytes.
    A comparison not made from `evaluation` (other files, runs or questions) is refused with
    a `RequestError` (`ragtriage.compare.check_made_from`): the page would mix the two.
    """
    if comparison is not None:
        check_made_from(comparison, evaluation)
    # The payload is a few million small lists and dicts without cycles.
    with no_cycle_collection():
        return _render(evaluation, comparison, title)


def _render(evaluation: Evaluation, comparison: Comparison | None, title: str) -> str:
    diags = evaluation.diagnoses
    data = report_data(evaluation, comparison)
    script = asset("report.js")
    csp = (
        "default-src 'none'; "
        f"script-src {_script_hash(script)}; "
        "style-src 'unsafe-inline'; img-src data:; font-src data:; "
        "connect-src 'none'; base-uri 'none'; form-action 'none'"
    )
    template = _environment().from_string(asset("report.html.j2"))
    return template.render(
        title=title,
        csp=csp,
        css=Markup(asset("report.css")),
        script=Markup(script),
        data_json=Markup(json_for_script(data)),
        funnel_chart=funnel_svg([step for run in evaluation.runs for step in funnel(run)]),
        stages_chart=stages_svg(diags, data["stages"]),
        tool_version=evaluation.tool_version,
        evalset_id=evaluation.evalset_id or "-",
        snapshot_id=evaluation.snapshot_id or "-",
        question_count=len(data["questions"]),
        label_policy=evaluation.label_policy,
        allow_unreviewed=evaluation.allow_unreviewed,
        sources=evaluation.sources,
        runs=run_infos(evaluation),
        layers=layers(evaluation),
        calibration_notes=report_notes(evaluation),
        comparison=comparison_view(comparison),
        next_actions=diagnosis_next_actions(diags),
        boundary_lines=markdown_bullets(evaluation_boundary_lines(evaluation)),
    )
