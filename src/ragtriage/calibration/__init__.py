"""Calibration of a judge against human labels: agreement, Cohen's kappa, confusion matrix,
precision/recall of "supported", cannot-judge shares, and prediction-powered estimates."""

from ._agreement import (
    CLAIM_CATEGORIES,
    FACT_CATEGORIES,
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
    labels_in_runs,
    read_label_sets,
)
from ._ppi import MeanEstimate, classical_mean, ppi_mean
from ._report import UNCALIBRATED, calibration_json, judge_labelled_measures, render_calibration

__all__ = [
    "CLAIM_CATEGORIES",
    "FACT_CATEGORIES",
    "PREDICTION",
    "UNCALIBRATED",
    "Agreement",
    "Calibration",
    "MeanEstimate",
    "Ratio",
    "SupportEstimate",
    "agreement",
    "calibrate",
    "calibrate_files",
    "calibration_json",
    "classical_mean",
    "cohen_kappa",
    "confusion_matrix",
    "judge_labelled_measures",
    "labels_in_runs",
    "ppi_mean",
    "read_label_sets",
    "render_calibration",
]
