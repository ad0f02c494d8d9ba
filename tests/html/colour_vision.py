"""Colour distances as seen with normal vision and simulated protanopia / deuteranopia.

Simulation: Machado, Oliveira & Fernandes (2009), severity 1.0, applied to linear RGB;
distance: CIE76 Delta E in CIELAB (D65). The test oracle for the report's stage palette.
"""

from __future__ import annotations

import math

Matrix = tuple[tuple[float, float, float], ...]

PROTANOPIA: Matrix = (
    (0.152286, 1.052583, -0.204868),
    (0.114503, 0.786281, 0.099216),
    (-0.003882, -0.048116, 1.051998),
)
DEUTERANOPIA: Matrix = (
    (0.367322, 0.860646, -0.227968),
    (0.280085, 0.672501, 0.047413),
    (-0.011820, 0.042940, 0.968881),
)
VISIONS: dict[str, Matrix | None] = {
    "normal": None,
    "protanopia": PROTANOPIA,
    "deuteranopia": DEUTERANOPIA,
}


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(c: float) -> float:
    c = min(max(c, 0.0), 1.0)
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def rgb(colour: str) -> tuple[float, float, float]:
    """`#RRGGBB` as three floats in [0, 1]."""
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return (r, g, b)


def simulate(colour: str, matrix: Matrix | None) -> tuple[float, float, float]:
    """The colour as seen with the given vision (None: normal), in sRGB."""
    channels = rgb(colour)
    if matrix is None:
        return channels
    lin = [_linear(c) for c in channels]
    r, g, b = (_gamma(sum(row[j] * lin[j] for j in range(3))) for row in matrix)
    return (r, g, b)


def lab(channels: tuple[float, float, float]) -> tuple[float, float, float]:
    """sRGB to CIELAB (D65)."""
    r, g, b = (_linear(c) for c in channels)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def distance(a: str, b: str, matrix: Matrix | None = None) -> float:
    """CIE76 Delta E between two colours as seen with the given vision."""
    return math.dist(lab(simulate(a, matrix)), lab(simulate(b, matrix)))
