"""What the recorder captures by itself: tool and package versions, and the git commit."""

from __future__ import annotations

import platform
import re
import subprocess
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .._version import __version__
from ..paths import PathArg, as_names, as_path

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
GIT_TIMEOUT_S = 5.0
"""How long the `git rev-parse HEAD` fallback may take before the commit is left out."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _git_dir(start: Path) -> Path | None:
    """The repository's git directory, following a worktree's `.git` file."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            text = _read(dot_git) or ""
            if text.startswith("gitdir:"):  # a relative path is from the folder
                return (folder / text.removeprefix("gitdir:").strip()).resolve()
            return None
    return None


def _resolve_ref(git_dir: Path, ref: str) -> str | None:
    # A worktree keeps HEAD in its own directory and the refs in the common one.
    common = _read(git_dir / "commondir")
    dirs = [git_dir]
    if common is not None:  # a relative path is from the worktree's git directory
        dirs.append((git_dir / common).resolve())
    for directory in dirs:
        loose = _read(directory / ref)
        if loose is not None and _SHA.match(loose):
            return loose
    for directory in dirs:
        for line in (_read(directory / "packed-refs") or "").splitlines():
            sha, _, name = line.partition(" ")
            if name == ref and _SHA.match(sha):
                return sha
    return None


def _commit_from_files(start: Path) -> str | None:
    git_dir = _git_dir(start)
    if git_dir is None:
        return None
    head = _read(git_dir / "HEAD")
    if head is None:
        return None
    if _SHA.match(head):
        return head
    if head.startswith("ref:"):
        return _resolve_ref(git_dir, head.removeprefix("ref:").strip())
    return None


def _commit_from_git(start: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=start,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and _SHA.match(sha) else None


def git_commit(start: PathArg | None = None) -> str | None:
    """The commit checked out in the working tree holding `start` (default: the current folder).

    Read from the `.git` files (HEAD, loose refs, packed-refs, worktrees); when they cannot be
    read, `git rev-parse HEAD` with a timeout; None outside a repository.
    """
    folder = (Path.cwd() if start is None else as_path(start)).resolve()
    return _commit_from_files(folder) or _commit_from_git(folder)


def capture_environment(
    packages: Sequence[str] = (), repo: PathArg | None = None
) -> dict[str, str]:
    """The environment of a recording: ragtriage and Python versions, asked packages, git commit.

    Keys: `ragtriage`, `python`, `package:NAME` for each asked package (`not installed` when
    it is not), and `git_commit` when the working tree is a git repository.
    """
    found: dict[str, str] = {"ragtriage": __version__, "python": platform.python_version()}
    for name in as_names(packages, "packages"):  # one str is one package, not its letters
        try:
            found[f"package:{name}"] = version(name)
        except PackageNotFoundError:
            found[f"package:{name}"] = "not installed"
    commit = git_commit(repo)
    if commit is not None:
        found["git_commit"] = commit
    return found
