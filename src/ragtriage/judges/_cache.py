"""A persistent SQLite cache of judge replies, keyed by judge spec + prompt version + inputs."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ._spec import JudgeSpec, content_hash

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    content TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL
)
"""


@dataclass(frozen=True)
class CachedReply:
    """A reply as the endpoint gave it (its content is parsed again on every read)."""

    content: str
    """The message content."""
    finish_reason: str | None
    """Why generation stopped (`stop`, `length` ...)."""
    prompt_tokens: int
    """Input tokens of the original call."""
    completion_tokens: int
    """Output tokens of the original call."""


def cache_key(spec: JudgeSpec, task: str, messages: list[dict[str, str]]) -> str:
    """sha256 over the judge spec, the prompt version, the task and the exact messages."""
    return content_hash({"judge": spec.cache_identity(), "task": task, "messages": messages})


class ReplyCache:
    """Replies by key in one SQLite file; only replies the endpoint actually gave are stored.

    Transport failures are not stored, so a later run retries them; unparseable replies are
    stored, because at temperature 0 with a seed the same request would give the same reply.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path))
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.commit()

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for a key, if any."""
        row = self._db.execute(
            "SELECT content, finish_reason, prompt_tokens, completion_tokens"
            " FROM replies WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        return CachedReply(str(row[0]), row[1], int(row[2]), int(row[3]))

    def put(self, key: str, task: str, reply: CachedReply) -> None:
        """Store a reply (the first stored reply for a key wins)."""
        self._db.execute(
            "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
            (
                key,
                task,
                reply.content,
                reply.finish_reason,
                reply.prompt_tokens,
                reply.completion_tokens,
            ),
        )
        self._db.commit()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()
