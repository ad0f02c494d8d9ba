"""Where scoring runs: in this process (`local`) or on a Ray cluster (`ray`)."""

from ._base import Executor, ExecutorName, LocalExecutor, shard_bounds
from ._ray import RayExecutor

__all__ = ["Executor", "ExecutorName", "LocalExecutor", "RayExecutor", "shard_bounds"]
