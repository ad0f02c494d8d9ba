"""Work shared with forked processes of this machine: they inherit the caller's data at the
fork (never pickled), and only their results come back through a pipe."""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

CAN_FORK = "fork" in multiprocessing.get_all_start_methods()
"""Whether this platform can fork workers (they inherit the caller's data, never pickled)."""

_TASKS: dict[int, tuple[Callable[..., Any], Sequence[tuple[Any, ...]], Callable[[Any], Any]]] = {}
"""Each running `alongside` call's task, by the call's key: its forked workers inherit it at
the fork, never pickled (a call in another thread adds its own, never replaces this one)."""

_KEYS = itertools.count()


def _default_sigterm(parent: int) -> None:
    # A forked worker dies on SIGTERM, whatever handler it inherited: the pool's `terminate`
    # (run on leaving its block) stops idle workers that way. A handler that raises instead
    # (Ray's driver installs one on `ray.init`, even one that fails) could leave a worker
    # waiting on the pool's queue lock, and the pool's exit waiting on it forever.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Ctrl-C reaches every process of the group: the caller stops (and terminates the pool),
    # a worker would only print its own traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with(parent)


def _end_with(parent: int) -> None:
    """Have Linux send this forked worker SIGTERM when `parent`, the process that forked it,
    ends, even by SIGKILL: a worker left behind would finish its task, then print a broken
    pipe's traceback to the caller's terminal after the command ended."""
    if sys.platform != "linux":
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before the request: no signal will come
        os.kill(os.getpid(), signal.SIGTERM)


def _pool(processes: int) -> multiprocessing.pool.Pool:
    """Forked workers, each starting with the default SIGTERM action and ending with this
    process (`_end_with`).

    The action is also the default while the workers are forked (from the main thread, where
    a handler can be set): a worker inherits the handler of the moment of its fork, and a
    SIGTERM that reached it before its initializer ran would run an inherited handler.
    """
    context = multiprocessing.get_context("fork")
    start = (processes, _default_sigterm, (os.getpid(),))
    previous = signal.getsignal(signal.SIGTERM)  # None: a handler not set from Python
    if previous is None or threading.current_thread() is not threading.main_thread():
        return _widened(context.Pool(*start))
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        return _widened(context.Pool(*start))
    finally:
        signal.signal(signal.SIGTERM, previous)


def _widened(pool: multiprocessing.pool.Pool) -> multiprocessing.pool.Pool:
    """The pool, its results' pipe widened to 1 MiB where Linux allows it (else as it was).

    Through the default 64 KiB pipe a worker's result of a MiB waits for this process's
    result thread to read it a pipe at a time, the thread each time waiting for the
    interpreter lock (`sys.getswitchinterval`) that a busy main thread holds: a worker of
    `alongside` spent a tenth of its time so."""
    import fcntl  # where processes fork

    # AttributeError: not Linux; OSError: over the user's pipe size limit.
    with contextlib.suppress(AttributeError, OSError):
        results = pool._outqueue._reader  # type: ignore[attr-defined]
        fcntl.fcntl(results.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    return pool


_SWITCH_INTERVAL = 0.0005
"""The interpreter's switch interval while `alongside` runs (seconds; Python's default is
0.005): how long the pool's threads, which hand the forked workers their arguments and read
their results from the pipe, wait at most for the interpreter lock while this process's
main thread computes its own share. At the default, a worker explaining 100,000 questions'
chunks spent 0.18 s of its 1.6 s waiting to send its results (16 ms a result), against
0.11 s."""


_SHORTENED = threading.Lock()
_shortened_by = 0
_interval_before = 0.0


@contextlib.contextmanager
def _short_switch_interval() -> Iterator[None]:
    """`_SWITCH_INTERVAL` while any thread's `alongside` runs; the interval found by the first
    restored when the last leaves (not the short one a second found on entering)."""
    global _shortened_by, _interval_before
    with _SHORTENED:
        if _shortened_by == 0:
            _interval_before = sys.getswitchinterval()
            sys.setswitchinterval(_SWITCH_INTERVAL)
        _shortened_by += 1
    try:
        yield
    finally:
        with _SHORTENED:
            _shortened_by -= 1
            if _shortened_by == 0:
                sys.setswitchinterval(_interval_before)


def _call(key: int, index: int) -> Any:
    function, arguments, pack = _TASKS[key]
    return pack(function(*arguments[index]))


def default_workers() -> int:
    """One worker per CPU this process may use (1 where processes cannot be forked)."""
    if not CAN_FORK:
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def alongside(
    function: Callable[..., T], arguments: Sequence[tuple[Any, ...]], processes: int | None = None,
    then: Callable[[int, T], T] | None = None,
    wire: tuple[Callable[[T], Any], Callable[[Any], T]] | None = None, first: int = 2,
) -> list[T]:
    """`function(*a)` for each `a` of `arguments`, in order: this process takes them from the
    front, one at a time, while forked processes take them from the back, until the two
    meet (so neither waits on a share that proved slower: a forked process also pays for
    sending its results back, this one for reading them). Each forked process has at most
    two queued at a time, `first` at first (for a caller whose first `then` takes longer;
    together at most a quarter of the arguments, two each at least). `processes`: how many
    processes in all, this one included (default: one per argument). `then(index, result)`,
    given, finishes each result in this process (what is cheaper made here than sent back),
    as soon as it is computed here or received, so that it overlaps the forked processes'
    work. `wire`, given, is (pack, unpack): a forked process packs each of its results, and
    this one unpacks it on receipt (a form that pickles faster than the result itself)."""
    count = len(arguments)
    others = count - 1 if processes is None else min(processes - 1, count - 1)
    finish = then or _as_is
    pack, unpack = wire or (_same, _same)
    if others < 1 or not CAN_FORK:
        return [finish(index, function(*a)) for index, a in enumerate(arguments)]
    results: list[Any] = [None] * count
    front, back = 0, count  # this process's next argument; the forked processes' last
    key = next(_KEYS)
    _TASKS[key] = (function, arguments, pack)
    try:
        with _short_switch_interval(), _pool(others) as pool:
            queued: deque[tuple[int, multiprocessing.pool.AsyncResult[Any]]] = deque()

            def give(ahead: int = 2) -> None:
                nonlocal back
                while len(queued) < ahead * others and back - 1 > front:
                    back -= 1
                    queued.append((back, pool.apply_async(_call, (key, back))))

            give(max(2, min(first, count // (4 * others))))
            while front < back:
                results[front] = finish(front, function(*arguments[front]))
                front += 1
                while queued and queued[0][1].ready():
                    index, result = queued.popleft()
                    results[index] = finish(index, unpack(_received(result)))
                give()
            for index, result in queued:
                results[index] = finish(index, unpack(_received(result)))
    finally:
        del _TASKS[key]
    return results


def _received(result: multiprocessing.pool.AsyncResult[Any]) -> Any:
    """A forked process's result; one that ran out of memory sending it raises MemoryError, as
    this process would (the pool says `MaybeEncodingError`, naming the MemoryError)."""
    try:
        return result.get()
    except multiprocessing.pool.MaybeEncodingError as exc:  # type: ignore[attr-defined]
        if not str(exc.exc).startswith("MemoryError("):
            raise
        raise MemoryError("a forked process ran out of memory sending its result") from exc


def _as_is(index: int, result: T) -> T:
    return result


def _same(result: Any) -> Any:
    return result
