"""The code table of a snapshot's IDs: documents first, then chunks, each ID once, as written
(the table holds copies of the IDs, equal to them)."""

from __future__ import annotations

from ragtriage.columnar._native_snapshot import snapshot_codes
from ragtriage.schemas import Snapshot


def _snapshot(ids: list[str]) -> Snapshot:
    return Snapshot.model_validate({
        "snapshot_id": "s",
        "documents": [{"id": i, "text": f"text of {i}"} for i in ids],
        "chunks": [{"id": f"{ids[0]}#c1", "document_id": ids[0], "start": 0, "end": 4}],
    })


def test_each_id_has_its_code_in_order_as_written() -> None:
    ids = ["d2", "d1", "ü-文档", "a b", "x" * 300, "7"]
    codes = snapshot_codes(_snapshot(ids))
    assert codes.code == {
        "d2": 0, "d1": 1, "ü-文档": 2, "a b": 3, "x" * 300: 4, "7": 5,
        "d2#c1": 6,
    }
    assert codes.n_documents == 6
    assert codes.document_of.tolist() == [0, 1, 2, 3, 4, 5, 0]
