"""The command-line interface (one module per command)."""

from .main import cli, main

__all__ = ["cli", "main"]
