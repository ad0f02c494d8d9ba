"""Where scoring runs: in this process (`local`) or on a Ray cluster (`ray`)."""

from ._base import Engine, LocalEngine, shard_bounds
from ._ray import RayEngine

__all__ = ["Engine", "LocalEngine", "RayEngine", "make_engine", "shard_bounds"]


def make_engine(name: str, address: str | None = None) -> Engine | RayEngine:
    """An engine by name (`local` or `ray`); `address` picks the Ray cluster to join."""
    if name == "ray":
        return RayEngine(address)
    return LocalEngine()
