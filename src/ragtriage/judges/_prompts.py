"""Versioned prompt templates, shipped as package data (`judges/prompts/<version>.toml`)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Literal

from ..fileio import file_problem

Task = Literal["outcome", "claims", "support", "coverage"]
TASKS: tuple[Task, ...] = ("outcome", "claims", "support", "coverage")
"""The judge's four tasks, in the order they run for one answer."""

DEFAULT_PROMPT_VERSION = "v1"
"""The prompt version used unless another is asked for."""

Message = dict[str, str]

_CJK = re.compile(
    r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"
)


@dataclass(frozen=True)
class PromptSet:
    """One version of the four prompt templates."""

    version: str
    """The version stored with every label."""
    templates: dict[Task, tuple[Template, Template]]
    """Per task: (system, user) templates with `$name` placeholders."""

    def messages(self, task: Task, **values: str) -> list[Message]:
        """The chat messages for one call; every placeholder must be given."""
        system, user = self.templates[task]
        return [
            {"role": "system", "content": system.substitute(values).strip()},
            {"role": "user", "content": user.substitute(values).strip()},
        ]


def available_versions() -> tuple[str, ...]:
    """Prompt versions shipped with this release."""
    folder = resources.files("ragtriage.judges").joinpath("prompts")
    return tuple(
        sorted(p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml"))
    )


def load_prompts(version: str = DEFAULT_PROMPT_VERSION) -> PromptSet:
    """Read one prompt version; an unknown version is an input error."""
    known = available_versions()
    if version not in known:
        expected = f"one of {', '.join(known)}"
        raise file_problem("<command line>", expected, repr(version), "--prompt-version")
    text = (
        resources.files("ragtriage.judges")
        .joinpath("prompts", f"{version}.toml")
        .read_text("utf-8")
    )
    data = tomllib.loads(text)
    templates = {
        task: (Template(data[task]["system"]), Template(data[task]["user"])) for task in TASKS
    }
    return PromptSet(version=str(data["version"]), templates=templates)


def estimate_tokens(text: str) -> int:
    """A rough token count without a tokenizer: 1 per CJK character, 1 per 4 other characters."""
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def message_tokens(messages: list[Message]) -> int:
    """Estimated input tokens of a chat request (4 tokens of overhead per message)."""
    return sum(estimate_tokens(m["content"]) + 4 for m in messages)
