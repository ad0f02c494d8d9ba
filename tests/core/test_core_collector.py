"""The cycle collector paused for a block of many acyclic objects (`_collector`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from core_builders import doc, evalset_doc, question, snapshot_doc, write_json

from ragtriage._collector import no_cycle_collection
from ragtriage.errors import InputError, Problem
from ragtriage.loading import load_dataset


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The collector running, with nothing frozen, as in a fresh program; restored after."""
    running = gc.isenabled()
    gc.enable()
    gc.collect()
    try:
        yield
    finally:
        gc.unfreeze()
        (gc.enable if running else gc.disable)()


def _generation(obj: object) -> int | None:
    return next(
        (g for g in range(3) if any(o is obj for o in gc.get_objects(generation=g))), None
    )


def test_the_block_pauses_the_collector_and_resumes_it(collector_on: None) -> None:
    with no_cycle_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    with no_cycle_collection():
        assert not gc.isenabled()
    assert not gc.isenabled()  # not started where it was not running


def test_what_the_block_kept_is_in_the_oldest_generation(collector_on: None) -> None:
    # Not scanned as young when the collector resumes: at 100,000 questions that first
    # scan took half a second.
    with no_cycle_collection():
        kept = [[n] for n in range(10_000)]
    assert _generation(kept) == 2
    assert _generation(kept[-1]) == 2
    assert gc.get_freeze_count() == 0


def test_objects_the_program_froze_stay_frozen(collector_on: None) -> None:
    frozen = [["before"]]
    gc.freeze()
    count = gc.get_freeze_count()
    with no_cycle_collection():
        kept = [["during"]]
    assert gc.get_freeze_count() == count
    assert _generation(frozen) is None  # still frozen, in no generation
    assert _generation(kept) in (0, 1)  # young, as without the block


def test_the_loader_reads_with_the_collector_paused(collector_on: None, tmp_path: Path) -> None:
    # A model per record, none in a cycle: at 100,000 results the collector's scans took
    # 19 s of load_dataset's 27 s. The checks it runs over what passed (one question refused
    # here) run inside it.
    write_json(tmp_path / "snapshot.json", snapshot_doc([doc("d1")]))
    questions = [question("q1", evidence=[["d1"]]), question("q2", answerability="maybe")]
    write_json(tmp_path / "evalset.json", evalset_doc(questions))
    seen: list[bool] = []

    def check(read: object) -> list[Problem]:
        seen.append(gc.isenabled())
        return []

    with pytest.raises(InputError):
        load_dataset(tmp_path / "evalset.json", snapshot=tmp_path / "snapshot.json", check=check)
    assert seen == [False]
    assert gc.isenabled()
