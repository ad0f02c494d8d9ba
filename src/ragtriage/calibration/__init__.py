"""Calibration of a judge against human labels: agreement, Cohen's kappa, confusion matrix,
precision/recall of "supported", cannot-judge shares, and prediction-powered estimates."""

from ._agreement import (
    CLAIM_CATEGORIES,
    Agreement,
    Ratio,
    agreement,
    cohen_kappa,
    confusion_matrix,
)
from ._calibrate import (
    PREDICTION,
    Calibration,
    SupportEstimate,
    calibrate,
    calibrate_files,
)
from ._label_sources import (
    CalibrationMatch,
    LabelSources,
    calibration_notes,
    judge_key,
    label_sources,
    measure_kinds,
)
from ._ppi import MeanEstimate, classical_mean, ppi_mean
from ._record import CalibrationRecord, read_calibrations
from ._report import (
    calibration_json,
    calibration_record,
    render_calibration,
)

__all__ = [
    "CLAIM_CATEGORIES",
    "PREDICTION",
    "Agreement",
    "Calibration",
    "CalibrationMatch",
    "CalibrationRecord",
    "LabelSources",
    "MeanEstimate",
    "Ratio",
    "SupportEstimate",
    "agreement",
    "calibrate",
    "calibrate_files",
    "calibration_json",
    "calibration_notes",
    "calibration_record",
    "classical_mean",
    "cohen_kappa",
    "confusion_matrix",
    "judge_key",
    "label_sources",
    "measure_kinds",
    "ppi_mean",
    "read_calibrations",
    "render_calibration",
]
