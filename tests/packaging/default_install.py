"""Run Python as if only ragtriage's default install were present.

A subprocess gets a meta-path finder that refuses every top-level module outside the
standard library, ragtriage and the default dependencies (with theirs), and the modules of
the optional extras are marked absent in `sys.modules` (so `find_spec` answers None, as it
does when a package is not installed). Nothing is uninstalled from the test environment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

from ragtriage._optional import EXTRAS

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"

_PRELUDE = r"""
import importlib.abc, json, sys
ALLOWED = set(json.loads(sys.argv[1]))
for name in json.loads(sys.argv[2]):
    sys.modules[name] = None  # find_spec answers None; import raises ModuleNotFoundError

class DefaultInstallOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        top = fullname.partition(".")[0]
        if (top in ALLOWED or top in sys.stdlib_module_names or top in sys.builtin_module_names
                or top.startswith("_sysconfigdata")):
            return None
        raise ModuleNotFoundError(f"No module named {fullname!r} (not in the default install)",
                                  name=fullname)

sys.meta_path.insert(0, DefaultInstallOnly())
sys.argv = ["ragtriage", *sys.argv[3:]]
"""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject() -> dict[str, object]:
    """The repository's pyproject.toml."""
    with (ROOT / "pyproject.toml").open("rb") as handle:
        data: dict[str, object] = tomllib.load(handle)["project"]
    return data


def requirement_name(requirement: str) -> str:
    """The normalised distribution name of a requirement string."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match is not None, requirement
    return _normal(match.group(0))


@cache
def modules_of() -> dict[str, set[str]]:
    """Normalised distribution name -> its top-level modules (installed distributions)."""
    out: dict[str, set[str]] = {}
    for module, dists in metadata.packages_distributions().items():
        for dist in dists:
            out.setdefault(_normal(dist), set()).add(module)
    return out


def _closure(names: list[str]) -> set[str]:
    """These distributions and everything they require (extras and markers excluded)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requirements = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for requirement in requirements:
            requirement_text, _, marker = requirement.partition(";")
            if "extra" in marker:
                continue
            if marker.strip() and not _marker_holds(marker):
                continue
            todo.append(requirement_name(requirement_text))
    return seen


def _marker_holds(marker: str) -> bool:
    from packaging.markers import Marker

    return Marker(marker.strip()).evaluate()


@cache
def allowed_modules() -> frozenset[str]:
    """Top-level modules importable on the default install: ragtriage's and its deps'."""
    deps = [requirement_name(r) for r in pyproject()["dependencies"]]  # type: ignore[union-attr]
    allowed = {"ragtriage"}
    for dist in _closure(deps):
        allowed |= modules_of().get(dist, set())
    return frozenset(allowed)


def optional_modules() -> list[str]:
    """The top-level modules of every optional extra."""
    return sorted({name for names in EXTRAS.values() for name in names})


def run_default(code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `code` (after the prelude) in a fresh interpreter with the default install only."""
    env = dict(os.environ, PYTHONPATH=str(SRC), PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [
            sys.executable,
            "-c",
            _PRELUDE + code,
            json.dumps(sorted(allowed_modules())),
            json.dumps(optional_modules()),
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
        check=False,
    )


CLI = "from ragtriage.cli.main import main\nmain()\n"
"""Code that runs the `ragtriage` command with the remaining arguments."""
