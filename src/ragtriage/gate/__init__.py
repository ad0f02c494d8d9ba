"""Release gates: a policy file agreed in advance, every rule checked, exit codes for CI."""

from ._gate import gate
from ._policy import load_policy
from ._policy_format import (
    BlockRule,
    CostBudget,
    Defaults,
    DropRule,
    LatencyBudget,
    LoadedPolicy,
    NoRegressionRule,
    Policy,
    ThresholdRule,
)
from ._verdict import GateResult, RuleResult, Verdict
from ._verdict_render import gate_json, render_gate_markdown, render_gate_table, render_junit

__all__ = [
    "BlockRule",
    "CostBudget",
    "Defaults",
    "DropRule",
    "GateResult",
    "LatencyBudget",
    "LoadedPolicy",
    "NoRegressionRule",
    "Policy",
    "RuleResult",
    "ThresholdRule",
    "Verdict",
    "gate",
    "gate_json",
    "load_policy",
    "render_gate_markdown",
    "render_gate_table",
    "render_junit",
]
