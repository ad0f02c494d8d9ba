"""A rule that is one alternation searches only the branches a text admits, apart.

`_literals.branch_patterns` compiles each branch of such a pattern apart (a common prefix the
parser factored out, such as `\\b`, given back to each); `InjectionRule.search` takes the
leftmost of their matches and, at one position, the first branch's. That must be the match of
the whole pattern, span for span, or a finding would move or vanish: checked here on short
texts over the patterns' own letters, for the bundled rules and for patterns with groups,
back references, look-arounds, a suffix after the alternation and branches that overlap.
"""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from ragtriage.detectors import InjectionRule, InjectionRules, bundled_injection_rules
from ragtriage.detectors._literals import branch_literals, branch_patterns

PATTERNS = [
    r"\bfoo\s+(bar|baz)\b|\bqux\b", r"x(?P<n>a)|y(?P<m>b)(?P=m)?", r"(?<=a)b|c(?=d)|e",
    r"\b(?:ab|a)(?:c|bc)\b", r"ab*|a", r"Ab|aB|c", r"(a)|b\1", r"\b(?:a|ab)(?:b|)c",
    r"(?:a|ab)(?:c|bcd)(?:d*)", r"x(?:ab|a)|xa", r"[ab](?:c|cd)d?", r"\Ba|b\B|\bc",
    r"(?:x|y)(?:z|zz)", r"a(?:b|c)d|a(?:b|c)",
]  # fmt: skip
"""Alternations whose branches overlap, share prefixes or refer to each other's groups."""
LETTERS = "abcdexyzq fo\n"
RULES = [
    InjectionRule(f"t{n}", "en", "override", "test", re.compile(p, re.IGNORECASE))
    for n, p in enumerate(PATTERNS)
]
MINE = InjectionRules("test", tuple(RULES)).prefilter.words
"""Every string of the test rules: held, it admits every rule and branch."""
VERSIONS = ("injection-v1", "injection-v2", "injection-v3")
BUNDLED = [r for v in VERSIONS for r in bundled_injection_rules(v).rules]
EVERY = frozenset().union(*(bundled_injection_rules(v).prefilter.words
                            for v in VERSIONS))  # fmt: skip
"""Every string of every bundled rule."""


def span(match: re.Match[str] | None) -> tuple[int, int] | None:
    return None if match is None else match.span()


def test_the_test_patterns_are_split_and_one_that_must_not_be_is_not() -> None:
    # Split where one alternation follows items that match one way, not where two do.
    assert [len(rule.branches) for rule in RULES] == [2, 2, 3, 0, 2, 3, 2, 0, 0, 2, 2, 3, 2, 2]
    # After `a*`, `(?:b|ab)` tries both branches for each length of `a*` before the next
    # length: the branches apart (`a*b`, `a*ab`) could find another match.
    assert branch_literals(re.compile(r"a*(?:b|ab)")) == ()
    assert branch_literals(re.compile(r"(?:a|b)(?:c|d)")) == ()  # two alternations
    assert len(branch_patterns(re.compile(r"\bxa|\byb", re.IGNORECASE))) == 2


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=LETTERS, max_size=14))
def test_the_branches_apart_find_what_the_whole_pattern_finds(text: str) -> None:
    for rule in RULES:
        assert span(rule.search(text, MINE)) == span(rule.pattern.search(text)), (rule, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*sorted(EVERY), " ", "  ", "\n", ".", "a", "the"]), max_size=12))
def test_the_bundled_rules_split_find_what_they_find_whole(words: list[str]) -> None:
    text = "".join(words)
    for rule in BUNDLED:
        assert span(rule.search(text, EVERY)) == span(rule.pattern.search(text)), (rule.id, text)
