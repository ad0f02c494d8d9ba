"""Loading: read snapshot, evaluation set, runs and labels (native JSON/JSONL or article format)."""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._article_convert import (
        ARTICLE_DEFAULT_K,
        ARTICLE_REVIEWER,
        convert_article,
    )
    from ._files import (
        SourceFile,
        display_path,
        file_sha256,
        pydantic_problems,
        report_head,
        validate_item,
    )
    from ._index import (
        EvidenceLevel,
        SnapshotIndex,
    )
    from ._load_dataset import (
        Dataset,
        load_dataset,
    )
    from ._readers import (
        LoadedFile,
        Wanted,
        read_file,
    )

# Each name is imported from its module on first use, so that a command loads only
# what it runs (`ragtriage trec-eval` needs none of the evaluation stack).
_LAZY = {
    "ARTICLE_DEFAULT_K": "._article_convert",
    "ARTICLE_REVIEWER": "._article_convert",
    "convert_article": "._article_convert",
    "SourceFile": "._files",
    "display_path": "._files",
    "file_sha256": "._files",
    "pydantic_problems": "._files",
    "report_head": "._files",
    "validate_item": "._files",
    "EvidenceLevel": "._index",
    "SnapshotIndex": "._index",
    "Dataset": "._load_dataset",
    "load_dataset": "._load_dataset",
    "LoadedFile": "._readers",
    "read_file": "._readers",
    "Wanted": "._readers",
}

__all__ = [
    "ARTICLE_DEFAULT_K",
    "ARTICLE_REVIEWER",
    "Dataset",
    "EvidenceLevel",
    "LoadedFile",
    "SnapshotIndex",
    "SourceFile",
    "Wanted",
    "convert_article",
    "display_path",
    "file_sha256",
    "load_dataset",
    "pydantic_problems",
    "read_file",
    "report_head",
    "validate_item",
]


__getattr__ = lazy_names(__name__, _LAZY, globals())
