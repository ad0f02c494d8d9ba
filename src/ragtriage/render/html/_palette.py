"""The colours of the diagnosis stages in the report's charts, told apart also by people with
colour-blind vision.

Okabe and Ito's eight colours (designed to stay apart under protanopia and deuteranopia)
fill the first eight failing stages. Sixteen stages cannot all be told apart by colour alone,
so the others add a pattern: a light tint of one of those colours, hatched or dotted with the
colour itself. Within each pattern the colours are chosen to stay far apart under both
simulations; stages that share a colour family never share a pattern. The mapping is keyed
by stage name: a new stage is one entry here (a test fails until it has one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from markupsafe import escape

Pattern = Literal["solid", "hatch", "dots"]


@dataclass(frozen=True)
class StageStyle:
    """How one stage is drawn."""

    colour: str
    """The fill (`solid`), or the background under the pattern."""
    pattern: Pattern = "solid"
    """`solid`, `hatch` (diagonal stripes) or `dots`."""
    ink: str | None = None
    """The stripes' or dots' colour (patterned styles)."""


# Okabe & Ito (2008), "Color Universal Design".
BLACK = "#000000"
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
BLUISH_GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
REDDISH_PURPLE = "#CC79A7"
OKABE_ITO: tuple[str, ...] = (
    BLACK,
    ORANGE,
    SKY_BLUE,
    BLUISH_GREEN,
    YELLOW,
    BLUE,
    VERMILLION,
    REDDISH_PURPLE,
)
"""The eight colours, in their published order."""

_TINT = 0.4


def tint(colour: str, share: float = _TINT) -> str:
    """`colour` mixed with white (`share` of white), as `#RRGGBB`."""
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * share):02X}" for c in channels)


def _patterned(colour: str, pattern: Pattern, share: float = _TINT) -> StageStyle:
    return StageStyle(tint(colour, share), pattern, colour)


OK_STYLE = StageStyle("#BBBBBB")
"""The `ok` stage: a neutral grey."""

STAGE_STYLES: Mapping[str, StageStyle] = MappingProxyType(
    {
        "permission_leak": StageStyle(VERMILLION),
        "retrieval_miss": StageStyle(BLUE),
        "ranking_loss": StageStyle(SKY_BLUE),
        "truncation_loss": StageStyle(BLUISH_GREEN),
        "injection_followed": StageStyle(BLACK),
        "stale_evidence": StageStyle(YELLOW),
        "unsupported_claim": StageStyle(ORANGE),
        "invalid_citation": StageStyle(REDDISH_PURPLE),
        "incomplete_answer": _patterned(YELLOW, "hatch"),
        "missed_refusal": _patterned(VERMILLION, "hatch"),
        "false_refusal": _patterned(SKY_BLUE, "hatch"),
        "needless_clarification": _patterned(BLUISH_GREEN, "hatch"),
        # A paler tint: at 40 % every free colour family lies too close to a stage beside it.
        "needless_escalation": _patterned(VERMILLION, "dots", 0.7),
        "missed_clarification": _patterned(ORANGE, "dots"),
        "judge_uncertain": _patterned(BLACK, "dots"),
        "injection_in_context": _patterned(REDDISH_PURPLE, "dots"),
        "ok": OK_STYLE,
    }
)
"""Every built-in diagnosis stage's style, `ok` included."""


def stage_style(stage: str, position: int = 0) -> StageStyle:
    """The style of `stage`; a stage registered by a plugin and missing here gets a dotted
    tint chosen by its `position` in the stage order (not guaranteed distinct)."""
    found = STAGE_STYLES.get(stage)
    if found is not None:
        return found
    return _patterned(OKABE_ITO[position % len(OKABE_ITO)], "dots")


def pattern_id(stage: str) -> str:
    """The SVG element ID of a patterned stage's fill (stage names are identifiers)."""
    return f"rt-fill-{stage}"


def fill(stage: str, style: StageStyle) -> str:
    """The value of a shape's `fill` attribute for `stage`."""
    if style.pattern == "solid":
        return style.colour
    return f"url(#{escape(pattern_id(stage))})"


def pattern_defs(styles: Mapping[str, StageStyle]) -> str:
    """`<defs>` with one `<pattern>` per patterned stage among `styles` (empty when none)."""
    parts = []
    for stage, style in styles.items():
        if style.pattern == "solid":
            continue
        ident = escape(pattern_id(stage))
        if style.pattern == "hatch":
            mark = f'<rect width="2.5" height="6" fill="{style.ink}"/>'
            shape = 'width="6" height="6" patternTransform="rotate(45)"'
            size = 6
        else:
            mark = f'<circle cx="2.5" cy="2.5" r="1.4" fill="{style.ink}"/>'
            shape = 'width="5" height="5"'
            size = 5
        parts.append(
            f'<pattern id="{ident}" patternUnits="userSpaceOnUse" {shape}>'
            f'<rect width="{size}" height="{size}" fill="{style.colour}"/>{mark}</pattern>'
        )
    return f"<defs>{''.join(parts)}</defs>" if parts else ""
