"""The files inlined into every report: the page script, its styles and the template."""

from __future__ import annotations

from importlib import resources

_ASSETS = resources.files(__package__).joinpath("assets")


def asset(name: str) -> str:
    """The text of one packaged asset (`report.js`, `report.css`, `report.html.j2`)."""
    return _ASSETS.joinpath(name).read_text(encoding="utf-8")
