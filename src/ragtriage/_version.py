"""The package version, written here once: `pyproject.toml` reads it from this file
(`tool.setuptools.dynamic`), so knowing it needs no look at the installed metadata
(`--version` and `--help` start without importing `importlib.metadata`: 0.045 s, not
0.065 s)."""

__version__ = "0.1.0"
