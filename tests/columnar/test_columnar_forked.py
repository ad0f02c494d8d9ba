"""Work shared with forked processes (`executors.alongside`):
results in argument order, whatever the number of processes."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragtriage.executors import _fork, alongside


def _square_and_process(value: int) -> tuple[int, int]:
    return value * value, os.getpid()


def test_alongside_keeps_the_order() -> None:
    arguments = [(value,) for value in range(5)]
    found = alongside(_square_and_process, arguments)
    assert [square for square, _ in found] == [0, 1, 4, 9, 16]
    assert found[0][1] == os.getpid()  # the first here, the others forked
    assert all(pid != os.getpid() for _, pid in found[1:])


def test_alongside_with_fewer_processes_than_arguments() -> None:
    # This process takes them from the first, one forked process from the last (the last
    # two queued for it at once), until they meet: in order, a run of each.
    arguments = [(value,) for value in range(7)]
    found = alongside(_square_and_process, arguments, 2)
    assert [square for square, _ in found] == [value * value for value in range(7)]
    pids = [pid for _, pid in found]
    here = pids.count(os.getpid())
    assert 1 <= here <= 5 and pids[:here] == [os.getpid()] * here
    assert len(set(pids[here:])) == 1  # one forked process ran the others


_HERE = os.getpid()


def _slow_when_forked(value: int) -> tuple[int, int]:
    if os.getpid() != _HERE:
        time.sleep(0.3)
    return value, os.getpid()


def test_alongside_gives_this_process_more_when_the_forked_ones_are_slower() -> None:
    # The forked process takes the last two at once and needs 0.3 s for each: this one has
    # done all the others by then (a fixed share would have left them to the forked one).
    found = alongside(_slow_when_forked, [(value,) for value in range(8)], 2)
    assert [value for value, _ in found] == list(range(8))
    assert [pid == _HERE for _, pid in found] == [True] * 6 + [False] * 2


def _packed(result: tuple[int, int]) -> tuple[str, int, int, int]:
    return ("packed", *result, os.getpid())


def _unpacked(sent: tuple[str, int, int, int]) -> tuple[int, int]:
    kind, value, pid, packed_in = sent
    assert (kind, packed_in) == ("packed", pid)  # packed by the process that computed it
    return value + 100, pid


def test_alongside_packs_a_forked_result_there_and_unpacks_it_here() -> None:
    # The forked process packs the results it computed, this one unpacks them on receipt;
    # its own results are taken as they are. Each is finished here after that.
    found = alongside(
        _slow_when_forked, [(value,) for value in range(8)], 2,
        then=lambda index, result: (result[0] * 10, result[1]), wire=(_packed, _unpacked),
    )
    assert [value for value, _ in found] == [0, 10, 20, 30, 40, 50, 1060, 1070]
    assert [pid == _HERE for _, pid in found] == [True] * 6 + [False] * 2


def _sigterm_action(value: int) -> str:
    return str(signal.getsignal(signal.SIGTERM))


@pytest.fixture
def raising_sigterm() -> Iterator[None]:
    """A SIGTERM handler that raises, as Ray's driver installs one on `ray.init`."""

    def raises(signum: int, frame: object) -> None:
        raise SystemExit(signum)

    before = signal.signal(signal.SIGTERM, raises)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.usefixtures("raising_sigterm")
def test_forked_workers_die_on_sigterm_whatever_handler_they_inherit() -> None:
    # The pools stop idle workers with SIGTERM on leaving their block; a worker that raised
    # instead could be left waiting on the queue's lock, and the pool's exit on it.
    default = str(signal.SIG_DFL)
    arguments = [(value,) for value in range(4)]
    assert alongside(_sigterm_action, arguments)[1:] == [default] * 3


_MANY_POOLS = """
import signal
from ragtriage.executors import alongside

def raises(signum, frame):
    raise SystemExit(signum)

def square(value):
    return value * value

signal.signal(signal.SIGTERM, raises)
for _ in range(300):
    assert alongside(square, [(value,) for value in range(5)]) == [0, 1, 4, 9, 16]
assert signal.getsignal(signal.SIGTERM) is raises
print("done")
"""


def test_a_worker_stopped_before_its_initializer_ran_does_not_hang_the_pool() -> None:
    # Pools of quick work are left while their last workers may still be starting: the
    # SIGTERM that stops them must not run a handler they inherited (it raised, and the
    # worker went on to wait on the queue's lock forever). Run apart, so a hang fails.
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _MANY_POOLS], capture_output=True, text=True, timeout=240,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")


def test_a_forked_pool_sends_results_through_a_pipe_of_a_mebibyte() -> None:
    # A worker writes a large result at once, not 64 KiB at a time, each waiting for this
    # process's result thread to get the interpreter lock from a busy main thread.
    fcntl = pytest.importorskip("fcntl")
    if not hasattr(fcntl, "F_GETPIPE_SZ"):
        pytest.skip("pipe sizes are Linux's")
    from ragtriage.executors._fork import _pool

    with _pool(1) as pool:
        assert fcntl.fcntl(pool._outqueue._reader.fileno(), fcntl.F_GETPIPE_SZ) == 1 << 20
        assert pool.apply(bytes, (3 << 20,)) == bytes(3 << 20)


def _switch_interval(value: int) -> float:
    return sys.getswitchinterval()


def test_alongside_shortens_the_switch_interval_while_it_runs() -> None:
    # The pool's threads wait at most half a millisecond for the interpreter lock that this
    # process's busy main thread holds; the interval is restored after, also after an error.
    before = sys.getswitchinterval()
    assert alongside(_switch_interval, [(0,), (1,)], 2)[0] == 0.0005
    assert sys.getswitchinterval() == before

    def fails(value: int) -> None:
        raise ZeroDivisionError(value)

    with pytest.raises(ZeroDivisionError):
        alongside(fails, [(0,), (1,)], 2)
    assert sys.getswitchinterval() == before


def _meets(value: int, entered: threading.Event, other: threading.Event) -> float:
    """Here, for the first value: note that this call is inside, and wait for `other`."""
    if os.getpid() == _HERE and value == 0:
        entered.set()
        assert other.wait(20)
    return sys.getswitchinterval()


def test_two_threads_overlapping_in_alongside_restore_the_switch_interval() -> None:
    # A enters, B enters, A leaves (B still runs at the short interval), B leaves: the
    # interval is the one from before both, not the short one that B found on entering.
    before = sys.getswitchinterval()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    found: dict[str, list[float]] = {}

    def run(name: str, entered: threading.Event, other: threading.Event) -> None:
        found[name] = alongside(_meets, [(value, entered, other) for value in range(4)], 2)

    first = threading.Thread(target=run, args=("a", a_in, b_in))
    second = threading.Thread(target=run, args=("b", b_in, a_out))
    try:
        first.start()
        assert a_in.wait(20)
        second.start()
        first.join(20)
        between = sys.getswitchinterval()
        a_out.set()
        second.join(20)
        after = sys.getswitchinterval()
    finally:
        a_out.set()
        b_in.set()
        sys.setswitchinterval(before)
    assert found == {"a": [0.0005] * 4, "b": [0.0005] * 4}
    assert (between, after) == (0.0005, before)


def _negated(value: int) -> int:
    return -value


def _square(value: int) -> int:
    return value * value


def test_two_threads_in_alongside_each_fork_their_own_task(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first thread's pool forks only after the second thread's pool forked (and maybe
    # after it finished): its forked workers still compute its own function, not the other's.
    real = _fork._pool
    second_forked = threading.Event()
    calls: list[str] = []

    def pool(processes: int) -> Any:
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            assert second_forked.wait(20)
            return real(processes)
        made = real(processes)
        second_forked.set()
        return made

    monkeypatch.setattr(_fork, "_pool", pool)
    found: dict[str, list[int]] = {}

    def run(name: str, function: Any) -> None:
        found[name] = alongside(function, [(value,) for value in range(6)], 2)

    first = threading.Thread(target=run, args=("square", _square))
    first.start()
    while not calls:
        time.sleep(0.01)
    second = threading.Thread(target=run, args=("negated", _negated))
    second.start()
    second.join(20)
    first.join(20)
    assert found == {"square": [0, 1, 4, 9, 16, 25], "negated": [0, -1, -2, -3, -4, -5]}


def _waits_for_the_forked_ones(value: int, done: str, wanted: int, wait: float) -> int:
    """Forked: note a value computed. Here, for the first value: wait up to `wait` seconds
    for the forked process to have computed `wanted` values (given at first: this one gives
    no more meanwhile)."""
    if os.getpid() != _HERE:
        with open(done, "a", encoding="utf-8") as file:
            file.write(f"{value}\n")
    elif value == 0:
        deadline = time.monotonic() + wait
        while len(_lines(done)) < wanted:
            assert time.monotonic() < deadline, _lines(done)
            time.sleep(0.01)
    return value


def _lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as file:
        return file.read().split()


def test_alongside_gives_a_forked_process_first_arguments_at_first(tmp_path: Path) -> None:
    # This process's first step waits for the forked one to have computed four: they were
    # all given at first, from the last. At most a quarter of the arguments are, two at least.
    done = str(tmp_path / "done")
    open(done, "w").close()
    arguments = [(value, done, 4, 20.0) for value in range(16)]
    assert alongside(_waits_for_the_forked_ones, arguments, 2, first=4) == list(range(16))
    assert _lines(done)[:4] == ["15", "14", "13", "12"]
    open(done, "w").close()
    few = [(value, done, 3, 1.0) for value in range(8)]
    with pytest.raises(AssertionError) as waited:  # only two given at first: 7 and 6
        alongside(_waits_for_the_forked_ones, few, 2, first=4)
    assert str(waited.value).splitlines()[0] == "['7', '6']"
