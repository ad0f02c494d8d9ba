"""On-disk index cache, keyed by a hash of the indexed units and the index settings."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from ..fileio import OutputError, file_problem, os_reason
from ._units import Unit

_Index = TypeVar("_Index")


def default_cache_dir() -> Path:
    """`$RAGTRIAGE_CACHE_DIR`, else `$XDG_CACHE_HOME/ragtriage`, else `~/.cache/ragtriage`."""
    explicit = os.environ.get("RAGTRIAGE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragtriage"


def units_hash(units: Sequence[Unit]) -> str:
    """SHA-256 over every unit's ID, document, span, title and text (the snapshot as indexed)."""
    digest = hashlib.sha256()
    for unit in units:
        record = [unit.id, unit.document_id, unit.start, unit.end, unit.title, unit.text]
        digest.update(json.dumps(record, ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def cache_key(kind: str, units_digest: str, settings: Mapping[str, str]) -> str:
    """Directory name of one index: its kind and a hash of the units and settings."""
    blob = json.dumps({"units": units_digest, **settings}, sort_keys=True)
    return f"{kind}-{hashlib.sha256(blob.encode('utf-8')).hexdigest()[:24]}"


class IndexCache:
    """A directory of finished indexes; each is written to a temporary name and then renamed."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        """Where indexes live; `None` disables caching."""

    def path(self, key: str) -> Path | None:
        """The finished index directory for `key`, if present."""
        if self.root is None:
            return None
        target = self.root / key
        return target if (target / "complete").is_file() else None

    def load(self, key: str, read: Callable[[Path], _Index]) -> _Index | None:
        """`read(folder)` of the finished index for `key`, or None when there is none. A
        damaged one (emptied by a cleaner or a full disk) is an input error naming its folder."""
        found = self.path(key)
        if found is None:
            return None
        try:
            return read(found)
        except (OSError, ValueError, KeyError, EOFError) as exc:
            expected = "a complete index (delete the folder to rebuild it, or use --no-cache)"
            raise file_problem(str(found), expected, type(exc).__name__) from None

    def store(self, key: str, fill: Callable[[Path], None]) -> Path | None:
        """Create the index directory for `key` by calling `fill(tmp_dir)`; return its path."""
        if self.root is None:
            return None
        # A folder the pre-check passed may still refuse an entry (root on a read-only share).
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=self.root))
        except OSError as exc:
            raise OutputError(self.root, os_reason(exc)) from None
        try:
            fill(tmp)
            (tmp / "complete").write_text("ok\n", encoding="utf-8")
            target = self.root / key
            try:
                tmp.rename(target)
            except OSError:
                if not (target / "complete").is_file():
                    raise
                # Another process finished the same index first (at any moment): keep theirs.
                shutil.rmtree(tmp)
            return target
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError):  # a full disk, a quota
                raise OutputError(self.root, os_reason(exc)) from None
            raise
