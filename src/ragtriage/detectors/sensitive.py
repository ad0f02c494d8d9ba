"""Sensitive content: configurable detectors (expressions, checksums, named lists) and masking.

Findings carry the detector and the span, never the value. `mask_text` is what every
renderer calls on any answer, claim or passage text before it is shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, cast

from ..errors import InputError, Problem
from ..paths import PathArg, as_optional_path
from ._literals import (
    Needed,
    Prefilter,
    admits,
    digit_count,
    fold,
    needed_digits,
    needed_literals,
)
from ._rulefiles import (
    compile_pattern,
    parse_bundled_rules,
    parse_rule_file,
    read_normalise,
    unknown_keys,
    used_once,
)
from .checksums import CHECKERS, CHECKSUMS, Checksum
from .normalise import matching_form, matching_text
from .view import DetectorView

if TYPE_CHECKING:
    from ..loading import SnapshotIndex

DEFAULT_SENSITIVE_RULES = "sensitive-v3"
"""The bundled detector set used when none is named."""


@dataclass(frozen=True)
class SensitiveDetector:
    """One detector: an expression, optionally confirmed by a checksum.

    When the expression has a group named `value`, the finding is that group's span (the
    label before a secret is context, not the secret).
    """

    name: str
    """Detector name; appears in findings and in the mask (`[masked:NAME]`)."""
    description: str
    """What it finds."""
    pattern: re.Pattern[str]
    """The compiled expression."""
    checksum: Checksum | None = None
    """A check every match (its `value` group, if any) must pass, if any."""
    requires: str | None = None
    """Text every match contains; a text without it is not scanned (speed). Compared folded
    (`_literals.fold`, as `re.IGNORECASE` equates characters), so that it never changes what
    matches, whatever the pattern's flags."""
    required: str | None = field(init=False, repr=False, compare=False)
    """`requires`, folded."""
    literals: Needed | None = field(init=False, repr=False, compare=False)
    """What every match holds, folded, read from `pattern` (`_literals.needed_literals`); a
    text whose folded form lacks it is not scanned."""
    digits: int = field(init=False, repr=False, compare=False)
    """The fewest digits every match consumes, read from `pattern`
    (`_literals.needed_digits`); a text with fewer is not scanned."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "literals", needed_literals(self.pattern))
        object.__setattr__(self, "digits", needed_digits(self.pattern))
        object.__setattr__(self, "required", None if self.requires is None else fold(self.requires))


# eq=False: hashed by identity, so the per-text scan cache does not rehash every rule.
@dataclass(frozen=True, eq=False)
class SensitiveConfig:
    """A versioned set of detectors plus named lists of exact terms."""

    version: str
    """Detector set version; appears in reports."""
    detectors: tuple[SensitiveDetector, ...]
    """Expression detectors, in priority order."""
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Named term lists: (name, terms); matched case-insensitively as literal text."""
    normalise: bool = True
    """Match the normalised form of a text (`normalise.matching_form`: format characters
    removed, NFKC); `sensitive-v1` matched raw text and keeps doing so."""

    @cached_property
    def prefilter(self) -> Prefilter:
        """Finds in one pass the strings of every detector's literals a folded text holds."""
        return Prefilter(det.literals for det in self.detectors)

    def with_list(self, name: str, terms: Sequence[str]) -> SensitiveConfig:
        """A copy with one more named list (replacing a list of the same name); a term that
        is empty or only whitespace raises `InputError`, as in a detector file."""
        if problems := _blank_terms(terms, "with_list", name):
            raise InputError(problems)
        kept = tuple(item for item in self.lists if item[0] != name)
        return replace(self, lists=(*kept, (name, tuple(terms))))


def _blank_terms(terms: Sequence[str], source: str, where: str) -> list[Problem]:
    """A problem per term that is empty or only whitespace: it would match nothing or every
    space, never a value."""
    expected = "a term with a character other than whitespace"
    return [
        Problem(source, None, f"{where}[{n}]", expected, repr(term))
        for n, term in enumerate(terms)
        if not term.strip()
    ]


@dataclass(frozen=True, order=True)
class SensitiveFinding:
    """A sensitive value found in a text: where, and by which detector (never the value)."""

    start: int
    """Offset of the first character."""
    end: int
    """Offset one past the last character."""
    detector: str
    """Detector or list name."""

    def label(self) -> str:
        """`NAME[start:end]`, as shown in reports."""
        return f"{self.detector}[{self.start}:{self.end}]"


_UNSPACED = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
)
"""Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, Chinese)."""
_WORDISH = f"[^\\W{_UNSPACED}]"
"""A letter, digit or `_` of a script that spaces its words: what a whole term may not touch."""


def _whole(term: str) -> str:
    """A list term as an expression that finds it whole: not inside a longer word (`Ann` is not
    in `Annual`); an edge in a script without spaces (`李雷`) may touch anything."""
    body = re.escape(term)
    if re.match(_WORDISH, term[0]):
        body = f"(?<!{_WORDISH}){body}"
    if re.match(_WORDISH, term[-1]):
        body = f"{body}(?!{_WORDISH})"
    return body


_DETECTOR_KEYS = ("name", "description", "pattern", "checksum", "requires")
"""The keys of a `[[detectors]]` table."""
_TOP_KEYS = ("version", "description", "normalise", "detectors", "lists")
"""The top-level keys of a detector file."""


def _parse(data: Mapping[str, object], source: str) -> SensitiveConfig:
    problems: list[Problem] = []
    version = data.get("version")
    if not isinstance(version, str) or not version:
        problems.append(Problem(source, None, "version", "a non-empty string", repr(version)))
    normalise = read_normalise(data, source, problems)
    unknown_keys(data, _TOP_KEYS, source, "(top level)", problems)
    detectors, seen = [], set[str]()
    raw_detectors = data.get("detectors", [])
    if not isinstance(raw_detectors, list):
        problems.append(
            Problem(
                source, None, "detectors", "a list of [[detectors]] tables", repr(raw_detectors)
            )
        )
        raw_detectors = []
    for n, raw in enumerate(raw_detectors):
        where = f"detectors[{n}]"
        if not isinstance(raw, dict):
            problems.append(Problem(source, None, where, "a table", repr(raw)))
            continue
        name, pattern, checksum = raw.get("name"), raw.get("pattern"), raw.get("checksum")
        description, requires = raw.get("description", ""), raw.get("requires")
        unknown_keys(raw, _DETECTOR_KEYS, source, where, problems)
        if requires is not None and (not isinstance(requires, str) or not requires):
            problems.append(
                Problem(source, None, f"{where}.requires", "a non-empty string", repr(requires))
            )
        if not isinstance(name, str) or not name:
            problems.append(
                Problem(source, None, f"{where}.name", "a non-empty string", repr(name))
            )
        else:
            used_once(name, seen, source, f"{where}.name", "a detector name", problems)
        if checksum is not None and checksum not in CHECKSUMS:
            expected = f"one of {', '.join(CHECKSUMS)}"
            problems.append(Problem(source, None, f"{where}.checksum", expected, repr(checksum)))
        compiled = None
        if not isinstance(pattern, str) or not pattern:
            problems.append(
                Problem(source, None, f"{where}.pattern", "a non-empty string", repr(pattern))
            )
        else:
            compiled = compile_pattern(pattern, 0, source, where)
            if isinstance(compiled, Problem):
                problems.append(compiled)
        if problems or not isinstance(compiled, re.Pattern):  # the file is refused
            continue
        kind, required = cast(Checksum | None, checksum), cast(str | None, requires)  # checked
        detectors.append(SensitiveDetector(str(name), str(description), compiled, kind, required))
    lists = []
    raw_lists = data.get("lists", {})
    if not isinstance(raw_lists, dict):
        problems.append(
            Problem(source, None, "lists", "a table of name = [terms]", repr(raw_lists))
        )
        raw_lists = {}
    for name, terms in sorted(raw_lists.items()):
        if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
            problems.append(
                Problem(source, None, f"lists.{name}", "a list of strings", repr(terms))
            )
            continue
        problems += _blank_terms(terms, source, f"lists.{name}")
        lists.append((name, tuple(terms)))
    if problems:
        raise InputError(problems)
    return SensitiveConfig(str(version), tuple(detectors), tuple(lists), normalise)


@lru_cache(maxsize=4)
def bundled_sensitive_config(version: str = DEFAULT_SENSITIVE_RULES) -> SensitiveConfig:
    """A detector set shipped with ragtriage, by version (e.g. `sensitive-v1`)."""
    return parse_bundled_rules(
        version, "sensitive rules", "a bundled detector set version", _parse
    )


def default_sensitive_config() -> SensitiveConfig:
    """The bundled default detector set."""
    return bundled_sensitive_config(DEFAULT_SENSITIVE_RULES)


def load_sensitive_config(path: PathArg | None = None) -> SensitiveConfig:
    """Read a detector file (same format as `rules/sensitive-v1.toml`); default without a path."""
    path = as_optional_path(path)
    if path is None:
        return default_sensitive_config()
    return parse_rule_file(path, "TOML detector file", _parse)


def _candidates(text: str, config: SensitiveConfig) -> list[tuple[int, int, int, str]]:
    found, folded, digits = [], fold(text), digit_count(text)
    held = config.prefilter.held(folded)
    for priority, det in enumerate(config.detectors):
        lacks = det.required is not None and det.required not in folded
        if lacks or det.digits > digits or not admits(det.literals, held):
            continue
        valued = "value" in det.pattern.groupindex
        for match in det.pattern.finditer(text):
            start, end = match.span("value") if valued else match.span()
            if end <= start:  # an empty finding masks nothing
                continue
            if det.checksum is not None and not CHECKERS[det.checksum](text[start:end]):
                continue
            found.append((start, end, priority, det.name))
    base = len(config.detectors)
    for offset, (name, terms) in enumerate(config.lists):
        if not terms:
            continue
        if config.normalise:  # the text is matched in its normalised form: so are the terms
            terms = tuple(matching_text(t) for t in terms)
        alternatives = "|".join(_whole(t) for t in sorted(terms, key=len, reverse=True) if t)
        if not alternatives:
            continue
        for match in re.finditer(alternatives, text, re.IGNORECASE):
            found.append((match.start(), match.end(), base + offset, name))
    return found


def find_sensitive(
    text: str, config: SensitiveConfig | None = None
) -> tuple[SensitiveFinding, ...]:
    """Non-overlapping findings in `text`, by position; longer wins, then earlier detector."""
    return _find(text, config or default_sensitive_config())


def sensitive_labels(text: str) -> tuple[str, ...]:
    """The labels of `find_sensitive(text)`'s findings (`SensitiveFinding.label`), as the
    details name them: empty when it finds nothing."""
    return tuple([f.label() for f in find_sensitive(text)])


# Answers are unique but passages recur across questions and runs: scan each text once.
@lru_cache(maxsize=1 << 18)
def _find(text: str, chosen: SensitiveConfig) -> tuple[SensitiveFinding, ...]:
    if chosen.normalise:
        candidates = _candidates(matching_text(text), chosen)
        if candidates:  # map the spans back to `text` (same text, with offsets)
            form = matching_form(text)
            candidates = [(*form.source_span(a, b), p, name) for a, b, p, name in candidates]
    else:
        candidates = _candidates(text, chosen)
    ranked = sorted(candidates, key=lambda c: (-(c[1] - c[0]), c[2], c[0]))
    kept: list[SensitiveFinding] = []
    for start, end, _, name in ranked:
        if all(end <= f.start or start >= f.end for f in kept):
            kept.append(SensitiveFinding(start, end, name))
    return tuple(sorted(kept))


def mask_text(text: str, config: SensitiveConfig | None = None) -> str:
    """`text` with every sensitive value replaced by `[masked:DETECTOR]`."""
    return mask_span(text, 0, len(text), config)


def mask_span(text: str, start: int, end: int, config: SensitiveConfig | None = None) -> str:
    """`text[start:end]` masked as a part of `text`: a value the span cuts has its part inside
    masked too (a value split between two chunks of a document shows in neither)."""
    findings = [f for f in find_sensitive(text, config) if f.end > start and f.start < end]
    if not findings:
        return text[start:end]
    parts, last = [], start
    for finding in findings:
        parts.append(text[last : max(finding.start, start)])
        parts.append(f"[masked:{finding.detector}]")
        last = min(finding.end, end)
    parts.append(text[last:end])
    return "".join(parts)


def masked_item_text(item_id: str, text: str, index: SnapshotIndex) -> str:
    """`text`, shown for a document or chunk ID, masked (`mask_text`); a chunk's text that is
    its span of its document is masked as a part of the document (`mask_span`), so that a
    value a chunk boundary cuts is masked in both chunks."""
    chunk = index.chunks.get(item_id)
    doc = None if chunk is None else index.documents.get(chunk.document_id)
    if chunk is not None and doc is not None and doc.text[chunk.start : chunk.end] == text:
        return mask_span(doc.text, chunk.start, chunk.end)
    return mask_text(text)


@dataclass(frozen=True)
class SensitiveScan:
    """Sensitive findings of one question: in the answer and in each context item."""

    answer: tuple[SensitiveFinding, ...]
    """Findings in the answer text (spans are offsets into the answer)."""
    context: tuple[tuple[str, tuple[SensitiveFinding, ...]], ...]
    """(context item ID, findings in its text) for items with findings, in context order."""

    def labels(self) -> tuple[str, ...]:
        """Findings as report labels: `answer:card_number[10:29]`, `D3:email[4:20]`."""
        out = [f"answer:{f.label()}" for f in self.answer]
        out += [f"{item}:{f.label()}" for item, found in self.context for f in found]
        return tuple(out)


ContextFindings = tuple[tuple[str, tuple[SensitiveFinding, ...]], ...]
"""`SensitiveScan.context`: (context item ID, its findings) for the items with findings."""


def scan_view(
    view: DetectorView,
    config: SensitiveConfig | None = None,
    *,
    context: ContextFindings | None = None,
    answer: tuple[SensitiveFinding, ...] | None = None,
) -> SensitiveScan:
    """Scan one question's answer and final-context texts.

    `context`: the context's findings when the caller already scanned its texts (the
    engine scans each snapshot item's text once, for every question that has it in
    its context); None: scanned here. `answer`: likewise, the answer's (the engine gives
    none for an answer its scan found clean).
    """
    if answer is None:
        answer = find_sensitive(view.answer or "", config)
    if context is None:
        found_in = []
        for item_id, text in view.context_texts:
            found = find_sensitive(text, config)
            if found:
                found_in.append((item_id, found))
        context = tuple(found_in)
    return SensitiveScan(answer, context)
