"""Loading: read snapshot, evaluation set, runs and labels (native JSON/JSONL or article format)."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._files import (
        SourceFile as SourceFile,
        display_path as display_path,
        file_sha256 as file_sha256,
        file_sha256_later as file_sha256_later,
        pydantic_problems as pydantic_problems,
        report_head as report_head,
        validate_item as validate_item,
    )
    from ._index import EvidenceLevel as EvidenceLevel, SnapshotIndex as SnapshotIndex
    from ._kept import read_kept as read_kept
    from ._load_dataset import (
        Dataset as Dataset,
        LabelPlace as LabelPlace,
        load_dataset as load_dataset,
        no_run_problems as no_run_problems,
        reused_run_names as reused_run_names,
    )
    from ._readers import LoadedFile as LoadedFile, Wanted as Wanted, read_file as read_file

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "._files": (
        "SourceFile", "display_path", "file_sha256", "file_sha256_later", "pydantic_problems",
        "report_head", "validate_item",
    ),
    "._index": ("EvidenceLevel", "SnapshotIndex"),
    "._kept": ("read_kept",),
    "._load_dataset": (
        "Dataset", "LabelPlace", "load_dataset", "no_run_problems", "reused_run_names",
    ),
    "._readers": ("LoadedFile", "Wanted", "read_file"),
}


__getattr__, __all__ = lazy_names(__name__, _LAZY, globals())
