"""One call per command: the Python API that mirrors `ragtriage evaluate`, `compare`, ...

Each function takes the command's positional arguments and its options as keywords under the
same names (`--label-policy` -> `label_policy`; a repeatable option as a list under its plural
name: `--run` -> `runs`). Paths may be `str` or any `os.PathLike`. The command line parses its
options, calls the function here, and prints what it returns; both score the same questions.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from ..executors import ExecutorName

if TYPE_CHECKING:
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
        run_files,
    )
    from ._scoring import (
        ComparedRuns,
        GateOptions,
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
    )
    from ._starting import init_files
    from ._trec_eval import trec_eval_files

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "StarterDataset": "..starter",
    "ImportedSheet": "._converting",
    "ImportedTraceRun": "._converting",
    "WrittenNative": "._converting",
    "export_trec_files": "._converting",
    "import_openinference_files": "._converting",
    "import_records_files": "._converting",
    "import_tau2_files": "._converting",
    "import_trec_files": "._converting",
    "review_export_files": "._converting",
    "review_import_files": "._converting",
    "write_imported": "._converting",
    "JudgeOutcome": "._producing",
    "WrittenRunFile": "._producing",
    "calibrate_labels": "._producing",
    "judge_files": "._producing",
    "run_files": "._producing",
    "ComparedRuns": "._scoring",
    "compare_files": "._scoring",
    "compare_request": "._scoring",
    "diagnose_files": "._scoring",
    "diagnose_request": "._scoring",
    "evaluate_files": "._scoring",
    "evaluate_request": "._scoring",
    "GateOptions": "._scoring",
    "gate_files": "._scoring",
    "gate_request": "._scoring",
    "pick_runs": "._scoring",
    "report_html": "._scoring",
    "report_page": "._scoring",
    "report_request": "._scoring",
    "trec_eval_files": "._trec_eval",
    "init_files": "._starting",
}

__all__ = [
    "ComparedRuns",
    "ExecutorName",
    "GateOptions",
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
    "report_html",
    "report_page",
    "report_request",
    "review_export_files",
    "review_import_files",
    "run_files",
    "trec_eval_files",
    "write_imported",
]


__getattr__ = lazy_names(__name__, _LAZY, globals())
