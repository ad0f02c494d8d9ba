"""Review sheets for people: export claims and reference facts, import filled sheets as labels."""

from ._export import ReviewSheet, Skipped, build_sheet, export_sheet
from ._import import REQUIRED_COLUMNS, ImportedLabels, Unfilled, import_sheet
from ._merge import Merged, merge_into_file
from ._sheet import (
    CLAIM_VERDICTS,
    COLUMNS,
    FACT_VERDICTS,
    FILL_COLUMNS,
    SheetRow,
    read_sheet,
    split_ids,
    write_sheet,
)
from ._sheet_limits import SHEET_LIMITS, SheetLimits

__all__ = [
    "CLAIM_VERDICTS",
    "COLUMNS",
    "FACT_VERDICTS",
    "FILL_COLUMNS",
    "REQUIRED_COLUMNS",
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
    "split_ids",
    "write_sheet",
]
