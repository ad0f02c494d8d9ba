"""One call per command: the Python API that mirrors `ragtriage evaluate`, `compare`, ...

Each function takes the command's positional arguments and its options as keywords under the
same names (`--label-policy` -> `label_policy`; a repeatable option as a list under its plural
name: `--run` -> `runs`). Paths may be `str` or any `os.PathLike`. The command line parses its
options, calls the function here, and prints what it returns; both score the same questions.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from ..executors import ExecutorName as ExecutorName

if TYPE_CHECKING:
    from ..starter import StarterDataset as StarterDataset
    from ._calibrating import calibrate_labels as calibrate_labels
    from ._converting import (
        ImportedTraceRun as ImportedTraceRun,
        WrittenNative as WrittenNative,
        export_trec_files as export_trec_files,
        import_openinference_files as import_openinference_files,
        import_records_files as import_records_files,
        import_tau2_files as import_tau2_files,
        import_trec_files as import_trec_files,
    )
    from ._producing import (
        JudgeOutcome as JudgeOutcome,
        WrittenRunFile as WrittenRunFile,
        judge_files as judge_files,
        run_files as run_files,
    )
    from ._reviewing import (
        ImportedSheet as ImportedSheet,
        review_export_files as review_export_files,
        review_import_files as review_import_files,
    )
    from ._scoring import (
        ComparedRuns as ComparedRuns,
        GateOptions as GateOptions,
        compare_files as compare_files,
        compare_request as compare_request,
        diagnose_files as diagnose_files,
        diagnose_request as diagnose_request,
        evaluate_files as evaluate_files,
        evaluate_request as evaluate_request,
        gate_files as gate_files,
        gate_request as gate_request,
        report_html as report_html,
        report_page as report_page,
        report_request as report_request,
    )
    from ._starting import init_files as init_files
    from ._trec_eval import trec_eval_files as trec_eval_files

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "..starter": ("StarterDataset",),
    "._calibrating": ("calibrate_labels",),
    "._converting": (
        "ImportedTraceRun", "WrittenNative", "export_trec_files", "import_openinference_files",
        "import_records_files", "import_tau2_files", "import_trec_files",
    ),
    "._producing": (
        "JudgeOutcome", "WrittenRunFile", "judge_files", "run_files",
    ),
    "._reviewing": ("ImportedSheet", "review_export_files", "review_import_files"),
    "._scoring": (
        "ComparedRuns", "GateOptions", "compare_files", "compare_request", "diagnose_files",
        "diagnose_request", "evaluate_files", "evaluate_request", "gate_files", "gate_request",
        "report_html", "report_page", "report_request",
    ),
    "._starting": ("init_files",),
    "._trec_eval": ("trec_eval_files",),
}


__getattr__, _LAZY_NAMES = lazy_names(__name__, _LAZY, globals())

__all__ = [
    "ExecutorName",
    *_LAZY_NAMES,
]
