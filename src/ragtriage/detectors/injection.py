"""Instructions hidden in documents: a rule-based detector whose rules are versioned data.

The rules live in `rules/injection-vN.toml` (package data). Every report names the rule set's
version, so a change of rules is never mistaken for a change of the system under test.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Literal, cast

from ..errors import InputError, Problem, found_text
from ..paths import PathArg, as_optional_path
from ._literals import (
    FirstStrings,
    Needed,
    Prefilter,
    admits,
    branch_literals,
    branch_patterns,
    fold,
    may_match_empty,
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
from .normalise import instruction_texts, instruction_views
from .view import DetectorView

DEFAULT_INJECTION_RULES = "injection-v3"
"""The rule set used when none is named."""

Category = Literal["override", "format", "secrets", "tool_or_url"]
_CATEGORIES = ("override", "format", "secrets", "tool_or_url")
_TOP_KEYS = ("version", "description", "normalise", "rules")
"""The top-level keys of a rule file."""


@dataclass(frozen=True)
class InjectionRule:
    """One detector rule: a case-insensitive regular expression with its meaning."""

    id: str
    """Stable rule ID, e.g. `en.override.ignore_previous`."""
    lang: str
    """Language the rule is written for (`en`, `zh`)."""
    category: Category
    """`override`, `format`, `secrets` or `tool_or_url`."""
    description: str
    """What the rule looks for."""
    pattern: re.Pattern[str]
    """The compiled expression."""
    literals: Needed | None = field(init=False, repr=False, compare=False)
    """Folded strings (`_literals.fold`) every match holds, read from `pattern`
    (`_literals.needed_literals`); None when its parse tree gives none (the rule then
    searches every text)."""

    branches: tuple[Needed | None, ...] = field(init=False, repr=False, compare=False)
    """For a pattern that is one alternation, what every match of each branch holds
    (`_literals.branch_literals`); empty otherwise (the pattern is searched whole)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "literals", needed_literals(self.pattern))
        object.__setattr__(self, "branches", branch_literals(self.pattern))

    def search(self, text: str, held: AbstractSet[str]) -> re.Match[str] | None:
        """The first match in `text`; None at once when `held` (the rule set's strings that
        `fold(text)` holds, `InjectionRules.prefilter`) lacks the rule's literals. Of a
        pattern that is one alternation, only the branches `held` admits are searched."""
        if not admits(self.literals, held):
            return None
        if not self.branches:
            return self.pattern.search(text)
        first = None  # the leftmost match; at one position, the first branch's
        for pattern, needed in zip(branch_patterns(self.pattern), self.branches, strict=True):
            if not admits(needed, held) or (match := pattern.search(text)) is None:
                continue
            if first is None or match.start() < first.start():
                first = match
        return first


# eq=False: hashed by identity, so the per-text scan cache does not rehash every rule.
@dataclass(frozen=True, eq=False)
class InjectionRules:
    """A versioned rule set."""

    version: str
    """Rule set version; appears in every report that uses it."""
    rules: tuple[InjectionRule, ...]
    """The rules, in file order."""
    normalise: bool = True
    """Match the normalised forms of a text (`normalise.instruction_views`), not only the raw
    text. `injection-v1` matched raw text and keeps doing so."""

    @cached_property
    def prefilter(self) -> Prefilter:
        """Finds in one pass the strings of every rule's literals a folded text holds."""
        return Prefilter(n for rule in self.rules for n in (rule.literals, *rule.branches))

    @cached_property
    def first_strings(self) -> FirstStrings:
        """The rules a text may match, from the strings `prefilter` found in it."""
        return FirstStrings(rule.literals for rule in self.rules)

    def searched(self, *held: AbstractSet[str]) -> list[InjectionRule]:
        """The rules, in order, that may match a text whose forms hold `held` (the others'
        `search` gives None for each form at once)."""
        rules = self.rules
        return [rules[n] for n in self.first_strings.items(*held)]


@dataclass(frozen=True)
class InjectionMatch:
    """One rule firing on one passage, with the span it matched."""

    rule_id: str
    """The rule that fired."""
    category: Category
    """The rule's category."""
    start: int
    """Offset of the match's first character."""
    end: int
    """Offset one past the match's last character."""


@dataclass(frozen=True)
class FlaggedItem:
    """A context item of one question that the detector flagged."""

    item_id: str
    """The context item (document or chunk ID)."""
    matches: tuple[InjectionMatch, ...]
    """Every rule that fired, first match per rule."""


def _parse_rules(data: dict[str, object], source: str) -> InjectionRules:
    problems: list[Problem] = []
    version = data.get("version")
    if not isinstance(version, str) or not version:
        problems.append(Problem(source, None, "version", "a non-empty string", repr(version)))
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        problems.append(
            Problem(source, None, "rules", "a non-empty list of [[rules]] tables", repr(raw_rules))
        )
        raw_rules = []
    normalise = read_normalise(data, source, problems)
    unknown_keys(data, _TOP_KEYS, source, "(top level)", problems)
    rules: list[InjectionRule] = []
    seen: set[str] = set()
    for n, raw in enumerate(raw_rules):
        where = f"rules[{n}]"
        if not isinstance(raw, dict):
            problems.append(Problem(source, None, where, "a table", repr(raw)))
            continue
        fields = {key: raw.get(key) for key in ("id", "lang", "category", "description", "pattern")}
        given = {key: value for key, value in fields.items() if isinstance(value, str) and value}
        for key, value in fields.items():
            if key not in given:
                at = f"{where}.{key}"
                problems.append(Problem(source, None, at, "a non-empty string", repr(value)))
        unknown_keys(raw, tuple(fields), source, where, problems)
        if "id" in given:
            used_once(given["id"], seen, source, f"{where}.id", "a rule ID", problems)
        category = given.get("category")
        if category is not None and category not in _CATEGORIES:
            expected = f"one of {', '.join(_CATEGORIES)}"
            problems.append(Problem(source, None, f"{where}.category", expected, repr(category)))
        pattern = None
        if "pattern" in given:
            pattern = compile_pattern(given["pattern"], re.IGNORECASE, source, where)
            if isinstance(pattern, Problem):
                problems.append(pattern)
            elif may_match_empty(pattern):  # it would flag every passage
                expected = "a pattern that cannot match empty text"
                found = found_text(given["pattern"])
                problems.append(Problem(source, None, f"{where}.pattern", expected, found))
        if problems or not isinstance(pattern, re.Pattern):  # the file is refused
            continue
        kind = cast(Category, category)  # checked against _CATEGORIES above
        rules.append(
            InjectionRule(given["id"], given["lang"], kind, given["description"], pattern)
        )
    if problems:
        raise InputError(problems)
    return InjectionRules(str(version), tuple(rules), normalise)


def load_injection_rules(path: PathArg | None = None) -> InjectionRules:
    """Read a rule file; without a path, the bundled default rule set."""
    path = as_optional_path(path)
    if path is None:
        return default_injection_rules()
    return parse_rule_file(path, "TOML rule file", _parse_rules)


@lru_cache(maxsize=4)
def bundled_injection_rules(version: str = DEFAULT_INJECTION_RULES) -> InjectionRules:
    """A rule set shipped with ragtriage, by version (e.g. `injection-v1`)."""
    return parse_bundled_rules(
        version, "injection rules", "a bundled rule set version", _parse_rules
    )


def default_injection_rules() -> InjectionRules:
    """The bundled default rule set."""
    return bundled_injection_rules(DEFAULT_INJECTION_RULES)


def detect_injection(text: str, rules: InjectionRules | None = None) -> tuple[InjectionMatch, ...]:
    """Every rule that fires on `text` (its first match), in rule order; empty when clean."""
    return _detect(text, rules or default_injection_rules())


# The same passages recur across questions and runs: scan each (text, rule set) once.
@lru_cache(maxsize=1 << 18)
def _detect(text: str, chosen: InjectionRules) -> tuple[InjectionMatch, ...]:
    found, held = [], chosen.prefilter.held
    if not chosen.normalise:
        present = held(fold(text))
        for rule in chosen.searched(present):
            match = rule.search(text, present)
            if match is not None:
                found.append(InjectionMatch(rule.id, rule.category, match.start(), match.end()))
        return tuple(found)
    texts = instruction_texts(text)
    keys = [held(fold(view)) for view in texts]
    hits = []
    for rule in chosen.searched(*keys):
        spans = []
        for n, view in enumerate(texts):
            match = rule.search(view, keys[n])
            if match is not None:
                spans.append((n, match.start(), match.end()))
        hits.append((rule, spans))
    if not any(spans for _, spans in hits):
        return ()
    views = instruction_views(text)  # the same texts, with offsets into `text`
    for rule, spans in hits:
        if spans:
            start, end = min(views[n].source_span(a, b) for n, a, b in spans)
            found.append(InjectionMatch(rule.id, rule.category, start, end))
    return tuple(found)


def flag_context(
    view: DetectorView, rules: InjectionRules | None = None
) -> tuple[FlaggedItem, ...]:
    """The question's final-context items that carry instruction-like text, in context order."""
    out = []
    for item_id, text in view.context_texts:
        matches = detect_injection(text, rules)
        if matches:
            out.append(FlaggedItem(item_id, matches))
    return tuple(out)


def carries_marker(answer: str, marker: str) -> bool:
    """Whether `answer` holds a canary's `marker`, compared case-insensitively, since an
    obeying model may change its case (the one rule: the engine reads it once per answer)."""
    return marker.casefold() in answer.casefold()
