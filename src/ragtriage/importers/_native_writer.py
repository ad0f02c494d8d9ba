"""Writing native files (snapshot, evaluation set, run) as JSON or JSONL, byte-stable."""

from __future__ import annotations

from ..fileio import json_line, json_text, make_folder, write_text
from ..paths import PathArg, as_path, file_suffix
from ..schemas import EvalSet, Run, Snapshot

_LISTS = {"snapshot": ("documents", "chunks"), "evalset": ("questions",), "run": ("results",)}


def native_text(model: Snapshot | EvalSet | Run, jsonl: bool) -> str:
    """The file text: one JSON document, or a header line followed by one record per line."""
    data = model.model_dump(mode="json")
    if not jsonl:
        return json_text(data)
    lists = _LISTS[data["kind"]]
    header = {key: value for key, value in data.items() if key not in lists}
    lines = [json_line(header)]
    for key in lists:
        lines.extend(json_line(item) for item in data[key])
    return "\n".join(lines) + "\n"


def write_native(model: Snapshot | EvalSet | Run, path: PathArg) -> None:
    """Write a native file; `.jsonl` gets the line format, anything else one JSON document."""
    path = as_path(path)
    make_folder(path.parent)
    write_text(path, native_text(model, file_suffix(path) == ".jsonl"))
