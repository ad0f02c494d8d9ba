"""One call per command: the Python API that mirrors `ragtriage evaluate`, `compare`, ...

Each function takes the command's positional arguments and its options as keywords under the
same names (`--label-policy` -> `label_policy`; a repeatable option as a list under its plural
name: `--run` -> `runs`). Paths may be `str` or any `os.PathLike`. The command line parses its
options, calls the function here, and prints what it returns; both score the same questions.
"""

from ..executors import ExecutorName
from ..starter import StarterDataset
from ._converting import (
    ImportedSheet,
    ImportedTraceRun,
    WrittenNative,
    export_trec_files,
    import_openinference_files,
    import_records_files,
    import_tau2_files,
    import_trec_files,
    review_export_files,
    review_import_files,
    write_imported,
)
from ._producing import (
    JudgeOutcome,
    WrittenRunFile,
    calibrate_labels,
    judge_files,
    read_snapshot_and_evalset,
    run_files,
)
from ._scoring import (
    ComparedRuns,
    compare_files,
    compare_request,
    diagnose_files,
    diagnose_request,
    evaluate_files,
    evaluate_request,
    gate_files,
    gate_request,
    pick_runs,
    report_html,
    report_page,
    report_request,
    trec_eval_files,
)
from ._starting import init_files

__all__ = [
    "ComparedRuns",
    "ExecutorName",
    "ImportedSheet",
    "ImportedTraceRun",
    "JudgeOutcome",
    "StarterDataset",
    "WrittenNative",
    "WrittenRunFile",
    "calibrate_labels",
    "compare_files",
    "compare_request",
    "diagnose_files",
    "diagnose_request",
    "evaluate_files",
    "evaluate_request",
    "export_trec_files",
    "gate_files",
    "gate_request",
    "import_openinference_files",
    "import_records_files",
    "import_tau2_files",
    "import_trec_files",
    "init_files",
    "judge_files",
    "pick_runs",
    "read_snapshot_and_evalset",
    "report_html",
    "report_page",
    "report_request",
    "review_export_files",
    "review_import_files",
    "run_files",
    "trec_eval_files",
    "write_imported",
]
