"""What the fake judge endpoints of the tests share: which task a request is."""

from __future__ import annotations


def task_of(system: str) -> str:
    """Which judge task a request is, from its system prompt."""
    for key, task in (
        ("classify what an assistant", "outcome"),
        ("split an answer", "claims"),
        ("supported by numbered", "support"),
        ("states a reference fact", "coverage"),
    ):
        if key in system:
            return task
    return "unknown"
