"""Where scoring runs: in this process (`local`) or on a Ray cluster (`ray`); work shared
with forked processes of this machine (`alongside`)."""

from ._base import Executor, ExecutorName, LocalExecutor, check_ray_address, shard_bounds
from ._fork import CAN_FORK, alongside, default_workers
from ._ray import RayExecutor

__all__ = [
    "CAN_FORK",
    "Executor",
    "ExecutorName",
    "LocalExecutor",
    "RayExecutor",
    "alongside",
    "check_ray_address",
    "default_workers",
    "shard_bounds",
]
