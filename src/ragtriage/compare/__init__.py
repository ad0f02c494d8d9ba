"""Compare runs on one evaluation set: per-question changes, paired statistics, provenance."""

from ._comparable import (
    check_arguments,
    check_comparable,
    check_made_from,
    check_numbers,
    select_runs,
)
from ._compare import compare, default_comparison
from ._comparison import (
    Comparison,
    FlakyQuestion,
    MetricChange,
    MetricComparison,
    PairComparison,
    QuestionChange,
    RepeatStat,
    RunGroup,
)
from ._comparison_json import PAIRING, comparison_json
from ._comparison_render import (
    ci_text,
    paired_value,
    question_rows,
    render_comparison_markdown,
    render_comparison_table,
)
from ._provenance import (
    ConditionDiff,
    ProvenanceDiff,
)
from ._stages import run_stages
from ._stats import (
    BootstrapCI,
    PairedSample,
    TestResult,
    bootstrap_ci,
    mcnemar_exact,
    sign_flip_test,
)

__all__ = [
    "PAIRING",
    "BootstrapCI",
    "Comparison",
    "ConditionDiff",
    "FlakyQuestion",
    "MetricChange",
    "MetricComparison",
    "PairComparison",
    "PairedSample",
    "ProvenanceDiff",
    "QuestionChange",
    "RepeatStat",
    "RunGroup",
    "TestResult",
    "bootstrap_ci",
    "check_arguments",
    "check_comparable",
    "check_made_from",
    "check_numbers",
    "ci_text",
    "compare",
    "comparison_json",
    "default_comparison",
    "mcnemar_exact",
    "paired_value",
    "question_rows",
    "render_comparison_markdown",
    "render_comparison_table",
    "run_stages",
    "select_runs",
    "sign_flip_test",
]
