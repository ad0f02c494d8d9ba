"""Where scoring runs: in this process (`local`) or on a Ray cluster (`ray`)."""

from ._base import Engine, LocalEngine, shard_bounds
from ._ray import RayEngine

__all__ = ["Engine", "LocalEngine", "RayEngine", "shard_bounds"]
