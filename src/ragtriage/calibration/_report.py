"""Calibration as JSON and as text."""

from __future__ import annotations

import io
from typing import Any

from .._console import text_console, text_table
from ..errors import id_list
from ..metrics import value_text
from ._agreement import Agreement, Ratio
from ._calibrate import Calibration, spec_text
from ._label_sources import UNCALIBRATED
from ._ppi import MeanEstimate
from ._record import CalibrationRecord


def _ratio(r: Ratio) -> dict[str, Any]:
    return {"value": r.value, "numerator": r.numerator, "denominator": r.denominator}


def _mean(m: MeanEstimate) -> dict[str, Any]:
    return {
        "estimate": m.estimate,
        "ci_low": m.low,
        "ci_high": m.high,
        "confidence": m.confidence,
        "n_labelled": m.n_labelled,
        "n_unlabelled": m.n_unlabelled,
    }


def _agreement(a: Agreement) -> dict[str, Any]:
    return {
        "items": a.items,
        "categories": list(a.categories),
        "confusion_matrix": {
            "rows": "human",
            "columns": "judge",
            "counts": [list(row) for row in a.matrix],
        },
        "agreement": _ratio(a.agreement),
        "cohen_kappa": a.kappa,
        "precision": _ratio(a.precision),
        "recall": _ratio(a.recall),
        "judge_cannot_judge": _ratio(a.judge_cannot_judge),
        "human_cannot_judge": _ratio(a.human_cannot_judge),
    }


def calibration_json(cal: Calibration) -> dict[str, Any]:
    """The calibration record as plain data (sorted keys when dumped; no timestamps)."""
    return {
        "schema_version": 1,
        "kind": "calibration",
        "judge": cal.judge.model_dump(mode="json", exclude_none=True),
        "reviewers": list(cal.reviewers),
        "claims": _agreement(cal.claims),
        "facts": _agreement(cal.facts),
        "judge_only_items": cal.judge_only_items,
        "human_only_items": cal.human_only_items,
        "confidence": cal.confidence,
        "claim_support": [
            {
                "run": s.run,
                "judge_only": {**_ratio(s.judge_only), "note": UNCALIBRATED},
                "human_only": _mean(s.human_only),
                "ppi": _mean(s.ppi),
            }
            for s in cal.support
        ],
        "inputs": [
            {"role": role, "path": f.path, "kind": f.kind, "sha256": f.sha256}
            for role, f in cal.inputs
        ],
    }


def calibration_record(cal: Calibration) -> CalibrationRecord:
    """The calibration as the record `evaluate(..., calibrations=...)` accepts."""
    return CalibrationRecord.model_validate(calibration_json(cal))


def _fmt_ratio(r: Ratio) -> str:
    return f"{value_text(r.value)} ({r.numerator}/{r.denominator})"


def _fmt_mean(m: MeanEstimate) -> str:
    if m.estimate is None:
        return f"n/a (labelled {m.n_labelled}, unlabelled {m.n_unlabelled})"
    if m.low is None or m.high is None:
        return f"{m.estimate:.3f} (too few items for an interval)"
    counts = f"labelled {m.n_labelled}, unlabelled {m.n_unlabelled}"
    return f"{m.estimate:.3f} [{m.low:.3f}, {m.high:.3f}] ({counts})"


def render_calibration(cal: Calibration, width: int = 120) -> str:
    """The calibration as terminal tables."""
    buffer = io.StringIO()
    console = text_console(buffer, width)
    console.print(f"judge {spec_text(cal.judge)} against {id_list(cal.reviewers)}")
    c, f = cal.claims, cal.facts
    figures = [
        ("paired items", str(c.items), str(f.items)),
        ("agreement", _fmt_ratio(c.agreement), _fmt_ratio(f.agreement)),
        ("Cohen's kappa", value_text(c.kappa), value_text(f.kappa)),
        ("precision of supported / covered", _fmt_ratio(c.precision), _fmt_ratio(f.precision)),
        ("recall of supported / covered", _fmt_ratio(c.recall), _fmt_ratio(f.recall)),
        ("judge cannot judge", _fmt_ratio(c.judge_cannot_judge), _fmt_ratio(f.judge_cannot_judge)),
        ("humans cannot judge", _fmt_ratio(c.human_cannot_judge), _fmt_ratio(f.human_cannot_judge)),
    ]
    header = ["figure", "claims", "reference facts"]
    console.print(text_table("agreement on items both labelled", header, figures))
    for agree in (c, f):
        title = f"{agree.kind}s: rows human, columns judge"
        header = ["human \\ judge", *agree.categories]
        rows = [
            [cat, *(str(v) for v in row)]
            for cat, row in zip(agree.categories, agree.matrix, strict=True)
        ]
        console.print(text_table(title, header, rows))
    title = f"claim_support per run ({cal.confidence * 100:g}% intervals)"
    judge_only = f"judge only ({UNCALIBRATED})"
    header = ["run", judge_only, "humans only", "prediction-powered (calibrated)"]
    rows = [
        [s.run, _fmt_ratio(s.judge_only), _fmt_mean(s.human_only), _fmt_mean(s.ppi)]
        for s in cal.support
    ]
    console.print(text_table(title, header, rows))
    console.print(
        f"items only the judge labelled: {cal.judge_only_items}; "
        f"items only humans labelled: {cal.human_only_items}"
    )
    return buffer.getvalue()
