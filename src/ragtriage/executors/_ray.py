"""Ray executor: shards go to the workers of a Ray cluster (or a local Ray for tests).

Scoring a shard depends only on the shard's own rows, and aggregation happens afterwards
in the caller with an exactly rounded sum, so results are identical to the local executor
whatever the number of shards or workers.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

from .._optional import require_extra
from ..errors import InputError, option_problem

T = TypeVar("T")
R = TypeVar("R")


def _call(func: Callable[[Any], Any], item: Any) -> Any:
    return func(item)


_NO_CLUSTER = "no Ray cluster answered there"
_PROBE_SECONDS = 5.0
"""How long a HOST:PORT address is given to accept a connection."""


def _unanswered(address: str) -> bool:
    """Whether nothing accepts a connection at a HOST:PORT address, where Ray would wait for
    a cluster without end; False for the other forms (`auto`, `ray://...`), Ray's to check."""
    host, colon, port = address.rpartition(":")
    if "://" in address or not colon or not host or not port.isdigit() or int(port) > 65535:
        return False
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=_PROBE_SECONDS):
            return False
    except OSError:
        return True


def _refused(address: str, reason: str) -> InputError:
    expected = "the address of a running Ray cluster (ray://HOST:PORT or auto)"
    found = f"{address!r}" + (f" ({reason})" if reason else "")
    return InputError([option_problem("--ray-address", expected, found)])


@contextlib.contextmanager
def _kept_sigterm() -> Iterator[None]:
    """The caller's SIGTERM handler kept over `ray.init`, which installs Ray's own: with it, a
    `timeout` or CI cancel ended the command with a stack dump and status 134, the private
    Ray's session folder left behind (the handler of the main thread; None, one not set from
    Python, cannot be put back)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)


class RayExecutor:
    """Maps work over a Ray cluster.

    `address=None` starts a private local Ray (`num_cpus` workers, no dashboard, session
    files under a fresh temporary directory; whatever `RAY_ADDRESS` says) and stops it on
    `close`; an address such as `ray://head:10001` or `auto` joins an existing cluster, which
    is left running. Ray is started (or joined) on first use, so a command that fails on its
    input first never waits for it.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: int = 2,
        shards_per_cpu: int = 2,
    ) -> None:
        require_extra("ray", "--executor ray")
        self._address = address
        self._num_cpus = num_cpus
        self._shards_per_cpu = shards_per_cpu
        self._owned = False
        self._temp_dir: str | None = None
        self._started: tuple[Any, int, Any] | None = None

    def _start(self) -> tuple[Any, int, Any]:
        """(ray, shards, the remote call): Ray started or joined on first use."""
        if self._started is not None:
            return self._started
        require_extra("ray", "--executor ray")
        import ray

        if not ray.is_initialized():
            with _kept_sigterm():
                self._init(ray)
            self._owned = True
        resources = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = int(resources.get("CPU", self._num_cpus))
        self._started = (ray, max(1, cpus * self._shards_per_cpu), ray.remote(_call))
        return self._started

    def _init(self, ray: Any) -> None:
        """Start the private Ray, or join the cluster at the address."""
        address = self._address
        if address is None:
            self._temp_dir = tempfile.mkdtemp(prefix="ragtriage-ray-")
            ray.init(
                address="local",  # a new Ray, whatever RAY_ADDRESS names
                num_cpus=self._num_cpus,
                include_dashboard=False,
                _temp_dir=self._temp_dir,
                log_to_driver=False,
                configure_logging=False,
            )
            return
        if _unanswered(address):  # Ray would wait for it without end
            raise _refused(address, _NO_CLUSTER)
        try:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        except (RuntimeError, ValueError, OSError, SystemExit) as exc:
            # what Ray says of an address it cannot use (a malformed one, no cluster there, a
            # client package missing; when a cluster stops answering, Ray exits the process
            # itself): the user's option, not a crash
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise _refused(address, _NO_CLUSTER if isinstance(exc, SystemExit) else reason) from exc

    def shard_count(self, items: int) -> int:
        """A few shards per CPU of the cluster, so slow workers do not hold up the rest."""
        return max(1, min(self._start()[1], items))

    def map(self, func: Callable[[T], R], inputs: Sequence[T]) -> list[R]:
        """Run `func` on every input as a Ray task; results come back in input order."""
        ray, _, remote = self._start()
        func_ref = ray.put(func)
        refs = [remote.remote(func_ref, item) for item in inputs]
        return list(ray.get(refs))

    def close(self) -> None:
        """Stop Ray if this executor started it."""
        if self._owned and self._started is not None:
            self._started[0].shutdown()
            self._owned = False
        if self._temp_dir is not None:  # the private session's files go with it
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
