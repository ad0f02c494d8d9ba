"""What an executor is: something that maps a function over shards of work."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Literal, Protocol, TypeVar

from ..errors import RequestError

T = TypeVar("T")
R = TypeVar("R")

ExecutorName = Literal["local", "ray"]
"""Where work that can be spread runs: this machine, or a Ray cluster (`--executor`)."""


def check_ray_address(executor: str, ray_address: str | None) -> None:
    """`RequestError` when a cluster address comes without the Ray executor: one check for
    every command taking both, made once their values passed the options' own checks."""
    if ray_address is not None and executor != "ray":
        raise RequestError("--ray-address needs --executor ray")


class Executor(Protocol):
    """Runs one function over many inputs and returns the outputs in input order."""

    name: str
    """`local` or `ray`."""

    def shard_count(self, items: int) -> int:
        """How many shards to cut `items` questions into."""
        ...

    def map(self, func: Callable[[T], R], inputs: Sequence[T]) -> list[R]:
        """`[func(x) for x in inputs]`, possibly elsewhere; order is kept."""
        ...


class LocalExecutor:
    """Everything in this process, one shard: the default, and the reference for Ray."""

    name = "local"

    def shard_count(self, items: int) -> int:
        """One shard: vectorised code gains nothing from splitting on one machine."""
        return 1

    def map(self, func: Callable[[T], R], inputs: Sequence[T]) -> list[R]:
        """Plain loop."""
        return [func(item) for item in inputs]


def shard_bounds(items: int, shards: int) -> list[tuple[int, int]]:
    """Split `range(items)` into `shards` contiguous, nearly equal [start, stop) ranges."""
    shards = max(1, min(shards, items)) if items else 1
    edges = [items * i // shards for i in range(shards + 1)]
    return list(pairwise(edges))
