"""A persistent SQLite cache of judge replies, keyed by judge spec + prompt version + inputs."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..fileio import content_hash, file_problem
from ._formats import response_format_body
from ._spec import JudgeSpec

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
_COLUMNS = "key, task, content, finish_reason, prompt_tokens, completion_tokens"
_BUSY_SECONDS = 5.0
"""How long a new cache another judge is writing is waited for (sqlite3's busy timeout)."""
_FIX = "delete or move it, or give another --cache (or --no-cache)"


@dataclass(frozen=True)
class CachedReply:
    """A reply as the endpoint gave it (its content is parsed again on every read)."""

    content: str
    """The message content."""
    finish_reason: str | None
    """Why generation stopped (`stop`, `length` ...)."""
    prompt_tokens: int | None
    """Input tokens of the original call (None: the endpoint did not report them)."""
    completion_tokens: int | None
    """Output tokens of the original call (None: not reported)."""


_UNREPORTED = -1
"""How the cache stores a token count the endpoint did not report (its columns are NOT NULL)."""


def cache_key(spec: JudgeSpec, task: str, messages: list[dict[str, str]]) -> str:
    """sha256 over the judge spec, the prompt version, the task and the exact messages (and,
    for constrained output, the reply schema sent: a changed schema is a different request)."""
    keyed: dict[str, object] = {"judge": spec.cache_identity(), "task": task, "messages": messages}
    if spec.response_format == "json_schema":
        keyed["response_format"] = response_format_body(spec, task)
    return content_hash(keyed)


def _busy(exc: sqlite3.Error) -> bool:
    """Whether SQLite refused because another connection holds the database."""
    return (exc.sqlite_errorcode & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _unusable(path: Path, found: str) -> InputError:
    return file_problem(str(path), f"a judge cache (SQLite); {_FIX}", found, "(judge cache)")


class ReplyCache:
    """Replies by key in one SQLite file; only replies the endpoint actually gave are stored.

    Transport failures are not stored, so a later run retries them; unparseable replies are
    stored, because at temperature 0 with a seed the same request would give the same reply.
    A path that is not a usable cache raises `InputError` naming it and what to do.
    """

    def __init__(self, path: Path) -> None:
        if path.is_dir():
            raise _unusable(path, "a directory")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _unusable(path, f"a folder that cannot be created ({exc.strerror})") from None
        self.path = path
        try:
            self._db = sqlite3.connect(str(path))
        except sqlite3.Error as exc:
            raise _unusable(path, f"a file SQLite cannot open ({exc})") from None
        deadline = time.monotonic() + _BUSY_SECONDS
        while True:
            try:
                self._set_up(path)
                return
            except sqlite3.Error as exc:
                # Another judge writing a new cache: SQLite switches it to WAL only between
                # writes, and waits for none (no busy handler), so try again.
                if _busy(exc) and time.monotonic() < deadline:
                    self._db.rollback()
                    time.sleep(0.05)
                    continue
                self._db.close()
                raise _unusable(path, f"not a usable judge cache ({exc})") from None

    def _set_up(self, path: Path) -> None:
        # Another program's database is refused before anything is written into it.
        tables = [
            name
            for (name,) in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        if tables and "replies" not in tables:
            self._db.close()
            found = f"a database of another shape (tables {', '.join(tables)}"
            raise _unusable(path, f"{found}; no replies table)")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.execute(f"SELECT {_COLUMNS} FROM replies LIMIT 1").fetchall()
        self._db.commit()

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for a key, if any; a row of the wrong shape counts as absent."""
        try:
            row = self._db.execute(
                "SELECT content, finish_reason, prompt_tokens, completion_tokens"
                " FROM replies WHERE key = ?",
                (key,),
            ).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        content, finish, p_tok, c_tok = row
        if (
            not isinstance(content, str)
            or not (finish is None or isinstance(finish, str))
            or not isinstance(p_tok, int)
            or not isinstance(c_tok, int)
        ):
            return None
        tokens = [None if n == _UNREPORTED else n for n in (p_tok, c_tok)]
        return CachedReply(content, finish, *tokens)

    def put(self, key: str, task: str, reply: CachedReply) -> None:
        """Store a reply (the first stored reply for a key wins); a failed write only loses
        the cache entry, never the reply."""
        try:
            self._db.execute(
                "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    task,
                    reply.content,
                    reply.finish_reason,
                    _UNREPORTED if reply.prompt_tokens is None else reply.prompt_tokens,
                    _UNREPORTED if reply.completion_tokens is None else reply.completion_tokens,
                ),
            )
            self._db.commit()
        except sqlite3.Error:
            return

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()
