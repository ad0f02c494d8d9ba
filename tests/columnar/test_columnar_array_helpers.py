"""The snapshot is read with the cycle collector paused."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from native_layers_data import write_dataset

from ragtriage.columnar import _native_eval, evaluate_native


def test_the_snapshot_is_read_with_the_cycle_collector_paused(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # Its documents are many acyclic models: a collection while they are made would only
    # scan them (at 100,000 documents, 0.35 s of a 1.1 s read).
    evalset, snapshot, run = write_dataset(tmp_path, 3, 4)
    seen: list[bool] = []
    read = _native_eval.load_snapshot

    def load_snapshot(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return read(*args)

    monkeypatch.setattr(_native_eval, "load_snapshot", load_snapshot)
    assert gc.isenabled()
    evaluate_native(evalset, snapshot, [run], workers=1)
    assert (seen, gc.isenabled()) == ([False], True)
