"""Text normalisation before the boundary detectors match (injection rules, sensitive values).

A disguise that a reader does not see must not hide a value or an instruction from the
detectors: invisible format characters, full-width or mathematical letters, Cyrillic and Greek
look-alikes, a phrase broken across lines, spaced-out Chinese, a base64 blob. The detectors
match on a normalised copy and report spans in the original text: every character of a
`MappedText` remembers the span of the original character(s) it came from.

This module is the one place the engine's text checks get their normalisation: the array
scans and the explanations both call the detectors, which call this.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

_TAG_FIRST, _TAG_LAST = 0xE0020, 0xE007E
"""Unicode tag characters: invisible copies of printable ASCII ("ASCII smuggling")."""

# Look-alikes of Latin letters in the Cyrillic, Greek and Armenian blocks (and two IPA
# letters), mapped to the Latin letter they imitate. Only letters that a reader cannot tell
# apart in common fonts; the text is matched, never shown, in this form.
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԛ": "Q",
        "Ԝ": "W", "Ү": "Y", "Ӏ": "I", "а": "a", "е": "e", "о": "o", "р": "p", "с": "c",
        "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l",
        "ԛ": "q", "ԝ": "w", "ү": "y", "ɡ": "g", "ɑ": "a",
        # Greek
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ι": "i",
        "κ": "k", "ν": "v", "ρ": "p", "υ": "u", "α": "a", "ϲ": "c", "ϳ": "j",
        # Armenian
        "օ": "o", "ս": "u", "հ": "h", "ո": "n",
    }
)

_CJK = "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Han ideographs, radicals and kana: scripts written without spaces between words."""

_SPACED_CJK = re.compile(f"(?<=[{_CJK}])[ \\t]+(?=[{_CJK}])")
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])-[ \t]*\r?\n[ \t]*(?=[^\W\d_])")
_LINE_BREAKS = re.compile(r"[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*")
_INNER_BREAK = re.compile(r"(?<=[^\W\d_])\r?\n(?=[^\W\d_])")
_BASE64 = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{16,}={0,2}(?![\w+/=-])")

BASE64_MIN_LETTERS = 0.6
"""A decoded base64 segment is read as text when at least this share of it is letters."""


@dataclass(frozen=True)
class MappedText:
    """A transformed text and, for each of its characters, the span of the original."""

    text: str
    """The transformed text."""
    starts: tuple[int, ...]
    """Per character of `text`, the offset in the original of the first character it came from."""
    ends: tuple[int, ...]
    """Per character of `text`, the offset one past the last original character it came from."""

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that `text[start:end]` came from.

        An empty range maps to an empty span where its position's character came from.
        """
        if end > start:
            return self.starts[start], self.ends[end - 1]
        if start < len(self.starts):
            return self.starts[start], self.starts[start]
        last = self.ends[-1] if self.ends else 0
        return last, last


def identity(text: str) -> MappedText:
    """`text` unchanged, each character mapped to itself."""
    return MappedText(text, tuple(range(len(text))), tuple(range(1, len(text) + 1)))


@lru_cache(maxsize=1 << 14)
def _fold_cluster(cluster: str, confusables: bool) -> str:
    """One character with the combining marks that follow it, folded (see `fold`)."""
    code = ord(cluster[0])
    if len(cluster) == 1 and _TAG_FIRST <= code <= _TAG_LAST:
        return chr(code - 0xE0000)
    if len(cluster) == 1 and unicodedata.category(cluster) == "Cf":
        return ""
    out = unicodedata.normalize("NFKC", cluster)
    return out.translate(_CONFUSABLES) if confusables else out


_joins = unicodedata.combining
"""Whether a character is a combining mark (non-zero), folded with the character before it."""


_MARK = "\uffff"
"""What a combining mark becomes in `_CharFolds`: a noncharacter, which sends the text to the
walk (a text holding U+FFFF itself is walked too, with the same result)."""


class _CharFolds(dict[int, str]):
    """Each character's `_fold_cluster` (`_MARK` for a mark), filled on first use: a
    `str.translate` table."""

    def __init__(self, confusables: bool) -> None:
        super().__init__()
        self.confusables = confusables

    def __missing__(self, code: int) -> str:
        if len(self) >= 1 << 14:  # bounded, like `_fold_cluster`'s cache
            self.clear()
        char = chr(code)
        folded = self[code] = _MARK if _joins(char) else _fold_cluster(char, self.confusables)
        return folded


_CHAR_FOLDS = {False: _CharFolds(False), True: _CharFolds(True)}


def _clusters(text: str) -> list[tuple[int, int]]:
    """Spans of each character with the combining marks that follow it."""
    spans: list[tuple[int, int]] = []
    for n, ch in enumerate(text):
        if spans and _joins(ch):
            spans[-1] = (spans[-1][0], n + 1)
        else:
            spans.append((n, n + 1))
    return spans


def fold_text(text: str, *, confusables: bool) -> str:
    """The text of `fold(text, confusables=...)`, without the offsets (faster)."""
    if text.isascii():
        return text
    folded = text.translate(_CHAR_FOLDS[confusables])
    if _MARK not in folded:  # no combining mark: every character is a cluster of its own
        return folded
    return "".join(_fold_cluster(text[a:b], confusables) for a, b in _clusters(text))


def fold(text: str, *, confusables: bool) -> MappedText:
    """Format characters removed, NFKC, optionally Latin look-alikes mapped.

    Format characters (category Cf: soft hyphen, zero-width space and joiners, bidirectional
    controls, byte order mark) are dropped; Unicode tag characters become the ASCII character
    they hide. NFKC, applied to each character with its combining marks, turns full-width and
    mathematical letters and digits, no-break spaces, ligatures and decomposed accents into
    their plain forms. With `confusables`, Cyrillic, Greek and Armenian letters that look like
    Latin ones become those Latin letters.
    """
    if text.isascii():
        return identity(text)
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for start, end in _clusters(text):
        for piece in _fold_cluster(text[start:end], confusables):
            chars.append(piece)
            starts.append(start)
            ends.append(end)
    return MappedText("".join(chars), tuple(starts), tuple(ends))


Replacement = str | Callable[[re.Match[str]], str]


def substitute(
    mapped: MappedText, pattern: re.Pattern[str], replacement: Replacement
) -> MappedText:
    """`pattern.sub(replacement, mapped.text)`, keeping the offsets.

    The characters of each replacement map to the span of the original its match came from.
    """
    text = mapped.text
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    last = 0
    for match in pattern.finditer(text):
        start, end = match.span()
        new = replacement if isinstance(replacement, str) else replacement(match)
        if new == match.group(0):
            continue
        pieces.append(text[last:start])
        starts.extend(mapped.starts[last:start])
        ends.extend(mapped.ends[last:start])
        if new and end > start:
            source_start, source_end = mapped.source_span(start, end)
            pieces.append(new)
            starts.extend([source_start] * len(new))
            ends.extend([source_end] * len(new))
        last = end
    if not pieces:
        return mapped
    pieces.append(text[last:])
    starts.extend(mapped.starts[last:])
    ends.extend(mapped.ends[last:])
    return MappedText("".join(pieces), tuple(starts), tuple(ends))


def _readable(data: bytes) -> str | None:
    """`data` as text when it is UTF-8 prose: mostly letters, nothing unprintable, and words
    separated by spaces unless written in a non-Latin script."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.strip():
        return None
    if not any(ch.isspace() for ch in text.strip()) and text.isascii():
        return None  # one ASCII "word": an identifier or a token, not prose
    if any(not (ch.isprintable() or ch in "\n\r\t") for ch in text):
        return None
    letters = sum(ch.isalpha() for ch in text)
    return text if letters >= BASE64_MIN_LETTERS * len(text) else None


def decode_base64(segment: str) -> str | None:
    """The readable text a base64 (standard or URL-safe) segment encodes, else None."""
    body = segment.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    alphabet = b"-_" if ("-" in body or "_" in body) else None
    if alphabet is not None and ("+" in body or "/" in body):
        return None
    try:
        data = base64.b64decode(padded, altchars=alphabet, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _readable(data)


def _line_break(match: re.Match[str]) -> str:
    return " " if match.group(0).count("\n") == 1 else "\n\n"


_READING_STEPS: tuple[tuple[re.Pattern[str], Replacement], ...] = (
    (_HYPHEN_BREAK, ""),
    (_LINE_BREAKS, _line_break),
    (_SPACED_CJK, ""),
)
"""Hyphenated line breaks joined, a single line break read as a space, CJK closed up."""


def _steps(text: str) -> tuple[tuple[re.Pattern[str], Replacement], ...]:
    """The reading steps that can change `text` (the others are skipped, for speed)."""
    if "\n" not in text:
        return () if text.isascii() else _READING_STEPS[2:]
    return _READING_STEPS


def _reading_text(folded: str) -> str:
    for pattern, replacement in _steps(folded):
        folded = pattern.sub(replacement, folded)
    return folded


def _reading_form(folded: MappedText) -> MappedText:
    for pattern, replacement in _steps(folded.text):
        folded = substitute(folded, pattern, replacement)
    return folded


def instruction_texts(text: str) -> tuple[str, ...]:
    """The texts of `instruction_views(text)`, in the same order, without offsets (faster)."""
    folded = fold_text(text, confusables=True)
    texts = [_reading_text(folded)]
    if "\n" in folded and _INNER_BREAK.search(folded):
        texts.append(_reading_text(_INNER_BREAK.sub("", folded)))
    for match in _BASE64.finditer(folded):
        decoded = decode_base64(match.group(0))
        if decoded is not None:
            texts.append(_reading_text(fold_text(decoded, confusables=True)))
    return tuple(texts)


def instruction_views(text: str) -> tuple[MappedText, ...]:
    """The forms of `text` the instruction rules are matched against, spans into `text`.

    1. The reading form: `fold` with look-alikes, hyphenated line breaks joined, a single line
       break read as a space (a blank line still separates), spaces between CJK characters
       removed (`忽 略 以 上` reads `忽略以上`).
    2. When a line break falls inside a run of letters, the reading form with those breaks
       removed instead (`instruc` + line break + `tions` reads `instructions`).
    3. Each base64 segment (16 characters or more) that decodes to readable UTF-8 text: the
       decoded text's reading form, every character mapped to the whole segment.

    `instruction_texts` gives the same texts, faster, for a first pass.
    """
    folded = fold(text, confusables=True)
    views = [_reading_form(folded)]
    if "\n" in folded.text and _INNER_BREAK.search(folded.text):
        views.append(_reading_form(substitute(folded, _INNER_BREAK, "")))
    for match in _BASE64.finditer(folded.text):
        decoded = decode_base64(match.group(0))
        if decoded is None:
            continue
        start, end = folded.source_span(*match.span())
        inner = _reading_text(fold_text(decoded, confusables=True))
        views.append(MappedText(inner, (start,) * len(inner), (end,) * len(inner)))
    return tuple(views)


def matching_text(text: str) -> str:
    """The text of `matching_form(text)`, without offsets (faster)."""
    return fold_text(text, confusables=False)


def matching_form(text: str) -> MappedText:
    """The form sensitive-value detectors match against: `fold` without look-alike mapping.

    Zero-width or soft-hyphen separators inside a card number vanish, full-width digits and
    no-break spaces become ASCII ones; letters keep their script.
    """
    return fold(text, confusables=False)
