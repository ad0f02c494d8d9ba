"""`evaluate --algorithm columnar`: the options it refuses, then the library call."""

from __future__ import annotations

import click

from ..api import COLUMNAR_UNSUPPORTED, columnar_unsupported, evaluate_columnar
from ..evaluation import Evaluation
from ..request import Request
from ._dataset import print_notice


def columnar_evaluation(request: Request) -> Evaluation:
    """Evaluate with the columnar algorithm (rendered as the reference algorithm's result)."""
    refused = columnar_unsupported(request)
    if refused:
        raise click.UsageError(COLUMNAR_UNSUPPORTED.format(option=", ".join(refused)))
    return evaluate_columnar(request, notify=print_notice)
