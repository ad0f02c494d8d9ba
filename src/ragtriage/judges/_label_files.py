"""Writing what the judge (or a review import) produced: label files and run files."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from ..fileio import json_text, make_folder, write_text
from ..paths import PathArg, as_path


def write_model(model: BaseModel, path: PathArg) -> Path:
    """Write a model as deterministic JSON text (sorted keys, nulls left out, trailing
    newline), creating the folder, and return the path."""
    path = as_path(path)
    make_folder(path.parent)
    write_text(path, json_text(model.model_dump(mode="json", exclude_none=True)))
    return path


def safe_name(name: str) -> str:
    """A run name usable as a file name."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "run"
