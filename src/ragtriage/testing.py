"""A release gate inside a test suite: `gate(policy, dataset, runs)` fails the test like CI would.

```python
from ragtriage.testing import gate

def test_release_gate():
    gate("policy.toml", "evalset.json", ["runs/candidate.jsonl"], snapshot="snapshot.json")
```

A failing gate raises `GateFailed` (an `AssertionError`, so pytest reports a failure, not an
error) whose message is the gate's rule table; invalid input raises `InputError` as every
command does. It applies the same rules as `ragtriage gate` (same measures, holdout left out
unless asked for), whose exit codes stay 0 pass, 1 fail, 2 invalid input.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .errors import InputError, Problem
from .evaluation import evaluate
from .gate import GateResult, load_policy, render_gate_markdown, render_gate_table
from .gate import gate as apply_gate
from .holdout import record_look, without_holdout
from .loading import load_dataset
from .metrics import default_measures

__all__ = ["GateFailed", "gate"]


class GateFailed(AssertionError):
    """The gate failed; the message is its rule table, `result` the whole verdict."""

    def __init__(self, result: GateResult) -> None:
        self.result = result
        """The gate's verdict, every rule with what it observed."""
        super().__init__("\n" + render_gate_table(result))


def _name_of(path: Path, run_files: dict[str, str]) -> str:
    by_file = {file: name for name, file in run_files.items()}
    name = by_file.get(str(path))
    if name is None:
        known = ", ".join(sorted(run_files)) or "none"
        raise InputError(
            [Problem("<gate>", None, "runs", f"a loaded run file ({known})", str(path))]
        )
    return name


def gate(
    policy: Path | str,
    dataset: Path | str,
    runs: Sequence[Path | str],
    *,
    snapshot: Path | str | None = None,
    run: str | None = None,
    baseline: str | None = None,
    labels: Sequence[Path | str] = (),
    k: int | None = None,
    allow_unreviewed: bool = False,
    include_holdout: bool = False,
    seed: int = 0,
    resamples: int = 2000,
    markdown: Path | str | None = None,
) -> GateResult:
    """Check a run against a release policy; raise `GateFailed` when a rule fails.

    `runs` are run files; the gated run is `run` (a run name), else the last file's run, and
    `baseline` (a run name) feeds the regression and drop rules. Holdout questions are left
    out unless `include_holdout`, and then the look is recorded in the holdout ledger.
    `markdown` also writes the Markdown report (for a job summary), pass or fail.
    """
    loaded_policy = load_policy(Path(policy))
    files = [Path(r) for r in runs]
    loaded = load_dataset(
        Path(dataset),
        snapshot=None if snapshot is None else Path(snapshot),
        runs=files,
        labels=[Path(p) for p in labels],
    )
    if include_holdout:
        record_look(loaded, command="gate", runs=[r.name for r in loaded.runs])
    else:
        loaded = without_holdout(loaded)
    target = run
    if target is None:
        if not files:
            raise InputError([Problem("<gate>", None, "runs", "at least one run file", "none")])
        target = _name_of(files[-1], loaded.run_files or {})
    wanted = [m.name for m in default_measures()] + list(loaded_policy.metrics())
    evaluation = evaluate(
        loaded,
        k=k,
        metrics=list(dict.fromkeys(wanted)),
        allow_unreviewed=allow_unreviewed,
    )
    result = apply_gate(evaluation, loaded_policy, target, baseline, seed=seed, resamples=resamples)
    if markdown is not None:
        Path(markdown).write_text(render_gate_markdown(result), encoding="utf-8")
    if not result.passed:
        raise GateFailed(result)
    return result
