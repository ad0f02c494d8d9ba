"""Review sheets for people: export claims and reference facts, import filled sheets as labels."""

from ._export import ReviewSheet, Skipped, build_sheet, export_sheet
from ._import import ImportedLabels, Unfilled, import_sheet
from ._merge import Merged, merge_into_file
from ._sheet import (
    CLAIM_VERDICTS,
    COLUMNS,
    FACT_VERDICTS,
    SheetRow,
    read_sheet,
    write_sheet,
)
from ._sheet_limits import SHEET_LIMITS, SheetLimits

__all__ = [
    "CLAIM_VERDICTS",
    "COLUMNS",
    "FACT_VERDICTS",
    "SHEET_LIMITS",
    "ImportedLabels",
    "Merged",
    "ReviewSheet",
    "SheetLimits",
    "SheetRow",
    "Skipped",
    "Unfilled",
    "build_sheet",
    "export_sheet",
    "import_sheet",
    "merge_into_file",
    "read_sheet",
    "write_sheet",
]
