"""A release gate inside a test suite: `gate(DATASET, ...)` fails the test as CI would.

```python
from ragtriage.testing import gate

def test_release_gate():
    gate("evalset.json", policy="policy.toml", snapshot="snapshot.json",
         runs=["runs/main.jsonl", "runs/candidate.jsonl"], baseline="main")
```

It is `ragtriage gate` as a test assertion: the same call as `ragtriage.gate_files` (the same
keywords as the command's options, the same measures, holdout questions left out unless
`include_holdout=True`), except that a failing gate raises `GateFailed` (an `AssertionError`,
so pytest reports a failure, not an error) whose message is the gate's rule table exactly as
the command prints it. Invalid input raises `InputError` as every command does; the command's
exit codes stay 0 pass, 1 fail, 2 invalid input.
"""

from __future__ import annotations

from typing import Unpack

from .api import GateOptions, gate_files
from .errors import check_keywords
from .fileio import write_text
from .gate import GateResult, render_gate_markdown, render_gate_table
from .paths import PathArg, as_path
from .render import terminal_width
from .request import Notify

__all__ = ["GateFailed", "gate"]


class GateFailed(AssertionError):
    """The gate failed; the message is its rule table, `result` the whole verdict."""

    def __init__(self, result: GateResult) -> None:
        self.result = result
        """The gate's verdict, every rule with what it observed."""
        # Laid out as `ragtriage gate` prints it, for the terminal the tests run in.
        super().__init__("\n" + render_gate_table(result, terminal_width()))


def gate(
    dataset: PathArg | None = None,
    *,
    markdown: PathArg | None = None,
    notify: Notify | None = None,
    **options: Unpack[GateOptions],
) -> GateResult:
    """`ragtriage gate DATASET ...` as an assertion: raise `GateFailed` when a rule fails.

    Takes `ragtriage.gate_files`' arguments; `markdown` also writes the Markdown report
    (for a job summary), pass or fail.
    """
    check_keywords("gate", options, GateOptions)
    result = gate_files(dataset, notify=notify, **options)
    if markdown is not None:
        write_text(as_path(markdown, "markdown"), render_gate_markdown(result))
    if not result.passed:
        raise GateFailed(result)
    return result
