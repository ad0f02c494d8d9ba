"""Loading: read snapshot, evaluation set, runs and labels (native JSON/JSONL or article format)."""

from ._article_convert import ARTICLE_DEFAULT_K, ARTICLE_REVIEWER, convert_article
from ._files import (
    SourceFile,
    display_path,
    file_sha256,
    pydantic_problems,
    report_head,
    validate_item,
)
from ._index import EvidenceLevel, SnapshotIndex
from ._load_dataset import Dataset, load_dataset
from ._readers import LoadedFile, read_file

__all__ = [
    "ARTICLE_DEFAULT_K",
    "ARTICLE_REVIEWER",
    "Dataset",
    "EvidenceLevel",
    "LoadedFile",
    "SnapshotIndex",
    "SourceFile",
    "convert_article",
    "display_path",
    "file_sha256",
    "load_dataset",
    "pydantic_problems",
    "read_file",
    "report_head",
    "validate_item",
]
