"""Writing an output file whole or not at all.

Every output goes to a temporary file in the target's folder and is renamed into place only
when complete, so a failed run (a full disk, text UTF-8 cannot encode, an interrupted
command) never leaves a partial file and never destroys an older good one. Targets are
checked before the work starts where possible (`check_output`), with one message for every
command: `cannot write PATH: REASON. Nothing was written.`
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any

from ..errors import RagtriageError
from ..paths import PathArg, as_path
from ._open import DASH, kind_of
from ._threads import room_for_a_thread


class OutputError(RagtriageError):
    """An output file could not be written; nothing was written to it."""

    def __init__(self, path: PathArg, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        shown = self.path.replace("\n", "\\n")  # a path's line break must not start a line
        super().__init__(f"cannot write {shown}: {reason}. Nothing was written.")


def same_file(a: PathArg, b: PathArg) -> bool:
    """Whether two paths name one file (a link or a hard link to it included)."""
    a, b = as_path(a), as_path(b)
    try:
        return a.samefile(b)
    except OSError:  # one does not exist (yet): compare where they point
        try:
            return a.resolve() == b.resolve()
        except (OSError, RuntimeError):  # a link loop: reading the input names the problem
            return False


def refuse_inputs(targets: Iterable[PathArg], inputs: Iterable[tuple[str, PathArg]]) -> None:
    """Raise `OutputError` for the first target that is one of the command's input files
    (`inputs`: the option or argument that named each, e.g. `--qrels`), before anything is
    written: writing it would replace the file the output was made from."""
    sources = list(inputs)
    for target in targets:
        for option, source in sources:
            if same_file(target, source):
                raise OutputError(target, f"it is also an input of this command ({option})")


def refuse_overwrites(
    outputs: Sequence[tuple[str, PathArg | None]], inputs: Sequence[tuple[str, PathArg | None]]
) -> None:
    """Raise `OutputError` for the first of a command's `outputs` (the option naming each,
    its path; None: not given) that is one of its `inputs` (`refuse_inputs`) or an earlier
    output, which writing it would replace."""
    written = [(option, path) for option, path in outputs if path is not None]
    read = [(option, path) for option, path in inputs if path is not None]
    for at, (_, path) in enumerate(written):
        refuse_inputs([path], read)
        for option, earlier in written[:at]:
            if same_file(path, earlier):
                raise OutputError(path, f"it is also this command's {option}")


def os_reason(exc: OSError) -> str:
    """Why an OS call failed, in the words of every `cannot write` message."""
    names = {
        errno.ENOENT: "its folder does not exist",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EISDIR: "it is a directory",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.ENOSPC: "no space left on the device",
        errno.EROFS: "the file system is read-only",
        errno.EDQUOT: "disk quota exceeded",
    }
    return names.get(exc.errno or 0, exc.strerror or type(exc).__name__)


def check_output(path: PathArg, *, folder: bool = False) -> None:
    """Refuse, before any work, a target that cannot be written (or, with `folder`, an
    output folder that cannot be created or written into). A file's path given as text
    ending in '/' is refused: `Path` would drop the '/' and write a file of the folder's name."""
    if not folder and isinstance(path, str) and path.endswith(("/", os.sep)):
        raise OutputError(path, "a path ending in '/' names a folder, not a file")
    path = as_path(path)
    if str(path) == "-":  # written as a file named '-', a script reading stdout gets nothing
        raise OutputError(path, f"'-' {DASH.format('output')}")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:  # a name too long, a folder that cannot be searched, ...
        # Below a file, an output folder is refused naming that file (below).
        if not folder or exc.errno != errno.ENOTDIR:
            raise OutputError(path, os_reason(exc)) from None
        mode = None
    if folder:
        if mode is not None and not stat.S_ISDIR(mode):
            raise OutputError(path, "it exists and is not a folder")
        parent = path if mode is not None else path.parent
    else:
        if mode is not None and not stat.S_ISREG(mode):
            raise OutputError(path, f"it is {kind_of(mode)}, not a regular file")
        # Renaming over it would replace it; a file without a write permission is kept as
        # `>` keeps it (also from root, which the permission would not stop).
        if mode is not None and not (mode & 0o222 and os.access(path, os.W_OK)):
            raise OutputError(path, "it is read-only")
        parent = path.parent
    probe = parent if str(parent) else Path(".")
    if not probe.exists():
        if not folder or probe == path:
            raise OutputError(path, f"the folder {str(probe)!r} does not exist")
        # An output folder is made with its parents: the nearest that exists must take them.
        nearest = next((above for above in path.parents if above.exists()), None)
        if nearest is None:
            return
        probe = nearest
    if not probe.is_dir():
        raise OutputError(path, f"{str(probe)!r} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(path, f"the folder {str(probe)!r} is not writable")


def cannot_create(path: PathArg, exc: OSError) -> OutputError:
    """The `OutputError` of a file that could not be created (or opened to write) at `path`."""
    path = as_path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if exc.errno == errno.ENOENT and folder.is_dir():  # /proc: no new file in it
        return OutputError(path, f"a file cannot be created in the folder {str(folder)!r}")
    return OutputError(path, os_reason(exc))


def make_folder(path: PathArg) -> None:
    """Create an output folder (and its parents) unless it exists; failures are
    `OutputError`."""
    path = as_path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(path, "it exists and is not a folder") from None
    except OSError as exc:
        raise OutputError(path, os_reason(exc)) from None


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def atomic_output(
    path: PathArg, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
    """A handle on a temporary file next to `path`, renamed onto `path` when the block ends
    without an exception; on any failure the temporary file is removed and `path` is left
    as it was. OS and encoding failures become `OutputError`."""
    path = as_path(path)
    check_output(path)
    binary = "b" in mode
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as exc:
        raise cannot_create(path, exc) from None
    done = False
    try:
        handle: IO[Any] = (
            os.fdopen(fd, mode)
            if binary
            else os.fdopen(fd, mode, encoding=encoding, newline=newline)
        )
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, _mode_for(path))
        if (pending := _TOGETHER.get()) is not None:
            pending.append((temp, path))  # renamed, or removed, when `outputs_together` ends
        else:
            os.replace(temp, path)
        done = True
    except OSError as exc:
        raise OutputError(path, os_reason(exc)) from None
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.start + 1] if isinstance(exc.object, str) else ""
        raise OutputError(
            path, f"the text holds {bad!r}, which {exc.encoding} cannot encode (a lone surrogate?)"
        ) from None
    finally:
        if not done:
            with contextlib.suppress(OSError):
                os.unlink(temp)


_TOGETHER: ContextVar[list[tuple[str, Path]] | None] = ContextVar("_TOGETHER", default=None)
"""The temporary files of the running `outputs_together` block, each with its target."""


@contextlib.contextmanager
def outputs_together() -> Iterator[None]:
    """A command's several outputs, all or none: each output `atomic_output` completes in the
    block waits, as its temporary file, and all are renamed into place when the block ends
    without an exception; on any failure (a later output's full disk, an interrupt) every
    temporary file is removed and no target is touched. A block inside another joins it."""
    if _TOGETHER.get() is not None:
        yield
        return
    pending: list[tuple[str, Path]] = []
    token = _TOGETHER.set(pending)
    try:
        yield
        with _folders_locked([path for _, path in pending]):
            while pending:  # renaming in one folder does not fail but for a vanished folder
                temp, path = pending[0]
                try:
                    os.replace(temp, path)
                except OSError as exc:
                    raise OutputError(path, os_reason(exc)) from None
                pending.pop(0)
    finally:
        _TOGETHER.reset(token)
        for temp, _ in pending:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def lock_file(handle: int | IO[Any], *, shared: bool = False, wait: bool = True) -> bool:
    """Lock an open file (or folder) against other processes' locks (`flock`), shared or
    exclusive, until it is closed: True once held, False when `wait` is false and another
    holds it. Where the system has no `flock` (Windows), nothing is locked: True."""
    if sys.platform == "win32":
        return True
    import fcntl

    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    try:
        fcntl.flock(handle, mode if wait else mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def _folders_locked(paths: Sequence[Path]) -> Iterator[None]:
    """Several outputs' folders locked (`lock_file`, in one order, so two commands never wait
    for each other) while they are renamed into place: another command writing the same
    outputs at once renames all of its own before or after them, never in between (a mix)."""
    folders = {os.path.abspath(path.parent) for path in paths} if len(paths) > 1 else set()
    with contextlib.ExitStack() as held:
        for folder in sorted(folders):
            with contextlib.suppress(OSError):  # a vanished folder: its rename says so
                fd = os.open(folder, os.O_RDONLY)
                held.callback(os.close, fd)
                lock_file(fd)
        yield


def write_text(path: PathArg, text: str | Iterable[str | bytes | memoryview]) -> None:
    """Write `text` (UTF-8), or its pieces in turn, to `path` whole or not at all. A piece is
    text (encoded here) or UTF-8 bytes (written as they are: a large report's pieces are
    made so, never decoded and encoded again); the pieces' line breaks are written as they
    are on every system.

    A text in pieces is written by a thread of its own (`_Writer`) while the caller makes the
    next pieces: copying them into the file holds no lock, so it runs beside their making
    (copying a 1.8 GB report took ~3.7 s on the 2-core machine). Every `_FLUSH_EVERY`
    bytes, what was written so far is handed to the disk by another thread; the final
    `fsync` then finds little left to write (a 1.8 GB report waited ~2.4 s for it, after its
    last piece was made). Those threads' errors are raised here (`OutputError`). Near the
    address-space bound (`room_for_a_thread`) the pieces are written here, without a thread.
    """
    if isinstance(text, str):
        with atomic_output(path) as handle:
            handle.write(text)
        return
    if not room_for_a_thread():  # near `ulimit -v`: the pieces are written here
        with atomic_output(path, "wb") as handle:
            for piece in text:
                handle.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
        return
    with atomic_output(path, "wb") as handle:
        writer = _Writer(handle)
        try:
            for piece in text:
                writer.put(piece)
        finally:  # the handle must not close under a running write or flush
            writer.close()
        writer.check()


_FLUSH_EVERY = 1 << 26
"""Bytes written between two early flushes of an output written in pieces (64 MiB)."""

_QUEUED = 2
"""Pieces made and not yet written, at most (the caller waits for the writer beyond)."""


class _Writer(threading.Thread):
    """Writes the pieces `put` to it, in turn, to a handle, starting a `_Flush` every
    `_FLUSH_EVERY` bytes (when the last one is done). After an error it writes nothing
    more and `put` raises it; `close` waits for every piece and flush, `check` raises the
    error."""

    def __init__(self, handle: IO[bytes]) -> None:
        super().__init__(name="ragtriage-write", daemon=True)
        self.handle = handle
        self.pieces: queue.Queue[str | bytes | memoryview | None] = queue.Queue(_QUEUED)
        self.error: BaseException | None = None
        self.start()

    def put(self, piece: str | bytes | memoryview) -> None:
        self.check()
        self.pieces.put(piece)

    def close(self) -> None:
        self.pieces.put(None)
        self.join()

    def check(self) -> None:
        if self.error is not None:
            raise self.error

    def run(self) -> None:
        since, flush = 0, None
        while (piece := self.pieces.get()) is not None:
            if self.error is not None:
                continue  # drained, so that `put` never waits on a writer that stopped
            try:
                # Text UTF-8 cannot encode (a lone surrogate) raises here, as a text file would.
                data = piece.encode("utf-8") if isinstance(piece, str) else piece
                since += self.handle.write(data)
                if since >= _FLUSH_EVERY and (flush is None or not flush.is_alive()) and (
                    room_for_a_thread()
                ):
                    _Flush.check(flush)
                    self.handle.flush()
                    flush, since = _Flush(self.handle.fileno()), 0
            except BaseException as exc:  # raised by the caller's thread (`check`)
                self.error = exc
        if flush is not None:
            flush.join()
            if self.error is None:
                self.error = flush.error


class _Flush(threading.Thread):
    """Hands a file's data written so far to the disk (`fdatasync`), in a thread of its own
    that ends when it is done (a thread left idle would make the command's exit wait)."""

    def __init__(self, fd: int) -> None:
        super().__init__(name="ragtriage-flush", daemon=True)
        self.fd = fd
        self.error: OSError | None = None
        self.start()

    def run(self) -> None:
        try:
            getattr(os, "fdatasync", os.fsync)(self.fd)  # macOS has no fdatasync
        except OSError as exc:
            self.error = exc

    @staticmethod
    def check(flush: _Flush | None) -> None:
        """Raise the error of a finished flush, if any."""
        if flush is not None and flush.error is not None:
            raise flush.error


def write_bytes(path: PathArg, data: bytes) -> None:
    """Write `data` to `path` whole or not at all."""
    with atomic_output(path, "wb") as handle:
        handle.write(data)
