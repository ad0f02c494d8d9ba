"""Whether a helper thread may be started: within `ulimit -v`, a thread needs room."""

from __future__ import annotations

import resource
import threading

_ROOM = 16 << 20
"""Address space a started thread may need besides its stack (its first allocations)."""


def room_for_a_thread() -> bool:
    """Whether this process's address-space bound (`ulimit -v`, RLIMIT_AS) leaves room for one
    more thread: its stack and `_ROOM`. True without a bound, or where the space in use
    cannot be read (`/proc`). A thread whose start-up runs out of memory never says it
    started, and CPython's `Thread.start()` then waits for it without end (the command hung
    under a 10 MB bound): the work it would have done beside the caller is done by the caller.
    """
    bound = resource.getrlimit(resource.RLIMIT_AS)[0]
    if bound == resource.RLIM_INFINITY:
        return True
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            used = next(int(line.split()[1]) << 10 for line in status if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return True
    stack = threading.stack_size() or resource.getrlimit(resource.RLIMIT_STACK)[0]
    stack = 8 << 20 if stack == resource.RLIM_INFINITY else stack
    return used + stack + _ROOM <= bound
