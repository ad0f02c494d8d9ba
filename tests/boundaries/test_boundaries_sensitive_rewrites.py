"""The bundled detectors' expressions, rewritten for speed, find exactly what they found before.

A pattern that begins with a lookbehind is tried at every position of a text; one that begins
with a character it consumes lets Python's `re` skip to the candidates. The rewrites moved
each leading lookbehind after that first character. The former expressions are kept here
as the oracle.
"""

# ruff: noqa: E501  (the former expressions are kept verbatim, one a line)

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import given, settings, strategies as st

from ragtriage.detectors import bundled_sensitive_config, find_sensitive

FORMER = {
    ("sensitive-v1", "cn_resident_id"): r"""(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[0-9Xx](?![0-9A-Za-z])""",
    ("sensitive-v1", "card_number"): r"""(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])""",
    ("sensitive-v1", "aws_access_key"): r"""(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])""",
    ("sensitive-v1", "phone_cn_mobile"): r"""(?<![\d+])(?:\+?86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}(?!\d)""",
    ("sensitive-v1", "phone_international"): r"""(?<![\w+])\+[1-9]\d{0,2}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,3}(?!\d)""",
    ("sensitive-v1", "phone_nanp"): r"""(?<![\d-])(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}(?![\d-])""",
    ("sensitive-v2", "cn_resident_id"): r"""(?<![0-9A-Za-z])[1-9]\d{5}[ -]?(?:18|19|20)\d{2}[ -]?(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[ -]?\d{3}[0-9Xx](?![0-9A-Za-z])""",
    ("sensitive-v2", "iban"): r"""(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])""",
    ("sensitive-v2", "us_ssn"): r"""(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])""",
    ("sensitive-v2", "aws_access_key"): r"""(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])""",
    ("sensitive-v2", "aws_secret_key"): r"""(?i:aws[_ .-]?secret(?:[_ .-]?access)?(?:[_ .-]?key)?|secret[_ .-]?access[_ .-]?key)["']?\s*(?:[:=]|=>)?\s*["']?(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
    ("sensitive-v2", "phone_cn_mobile"): r"""(?<![\d+])(?:\+?86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}(?!\d)""",
    ("sensitive-v2", "phone_international"): r"""(?<![\w+])\+[1-9]\d{0,2}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,3}(?!\d)""",
    ("sensitive-v2", "phone_nanp"): r"""(?<![\d-])(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}(?![\d-])|(?<![\d+.,-])(?:\([2-9]\d{2}\) ?|[2-9]\d{2} )[2-9]\d{2} \d{4}(?![\d.,-]?\d)""",
}  # fmt: skip
"""(version, detector) -> the expression before the rewrite."""

VERSIONS = ("sensitive-v1", "sensitive-v2")

SHAPES = (
    r"\([0-9]{3}\) ?[0-9]{3}[.-][0-9]{4}",
    r"[0-9]{3}[.-][0-9]{3}[.-][0-9]{4}",
    r"\(?[2-9][0-9]{2}\)? [2-9][0-9]{2} [0-9]{4}",
    r"\+?(86)?[ -]?1[0-9]{2}[ -]?[0-9]{4}[ -]?[0-9]{4}",
    r"\+[1-9][0-9]{0,2}[ .-]?(\([0-9]{1,4}\))?[0-9]{2,4}([ .-]?[0-9]{2,4}){1,3}",
    r"[0-9]{3}-[0-9]{2}-[0-9]{4}",
    r"[1-9][0-9]{5}[ -]?(18|19|20)[0-9]{2}[ -]?[01][0-9][0-3][0-9][ -]?[0-9]{3}[0-9Xx]",
    r"[A-Z]{2}[0-9]{2}( ?[A-Z0-9]{4}){2,7}( ?[A-Z0-9]{1,3})?",
    r"A[KS]IA[A-Z0-9]{16}",
    r"([Aa][Ww][Ss][_ ]?)?[Ssſ]ecret([_ -]?[Aa]ccess)?[_ -]?[Kk]ey\"?[:=]? ?[A-Za-z0-9/+]{40}",
)
"""Shapes of phone numbers, US SSNs, resident IDs, IBANs and AWS keys (and near misses)."""
EDGES = st.sampled_from(["", *"-.,+()0X_a"])
"""Nothing, or a character that may end a value or extend it into a longer one."""

SHAPED = st.tuples(
    EDGES, st.one_of(*(st.from_regex(shape, fullmatch=True) for shape in SHAPES)), EDGES
).map("".join)
# Pieces around them: digits (also full-width and Arabic-Indic), separators, letters next
# to a value, the prefixes and labels the detectors look for, CJK, `X` (a resident ID's
# check character), `ſ` and `K` (case-insensitive `s` and `k`).
PIECES = st.one_of(
    st.text(alphabet="0123456789", min_size=1, max_size=19),
    SHAPED,
    st.sampled_from(list("-. ()+,_/=:'\"\n\t@")),
    st.sampled_from(
        [
            *"XxAaSsZ卡号\u00a0\u200b\uff11\u0661ſK",
            *("+86", "(555)", "AKIA", "aws_secret_access_key", "AWS Secret Key: "),
            "SecretAccessKey",
        ]
    ),
)
TEXTS = st.tuples(st.lists(PIECES, max_size=6), SHAPED, st.lists(PIECES, max_size=6)).map(
    lambda parts: "".join(parts[0]) + parts[1] + "".join(parts[2])
)


def test_the_oracle_names_every_rewritten_expression() -> None:
    changed = {
        (version, detector.name)
        for version in VERSIONS
        for detector in bundled_sensitive_config(version).detectors
        if FORMER.get((version, detector.name), detector.pattern.pattern)
        != detector.pattern.pattern
    }
    assert changed == set(FORMER)


@settings(max_examples=1000)
@given(text=TEXTS)
def test_each_rewritten_expression_matches_the_same_spans(text: str) -> None:
    for version in VERSIONS:
        for detector in bundled_sensitive_config(version).detectors:
            former = FORMER.get((version, detector.name))
            if former is None:
                continue
            old = [(m.span(), m.groupdict()) for m in re.finditer(former, text)]
            new = [(m.span(), m.groupdict()) for m in detector.pattern.finditer(text)]
            assert new == old, (version, detector.name)


@settings(max_examples=300)
@given(text=TEXTS)
def test_the_findings_are_those_of_the_former_expressions(text: str) -> None:
    for version in VERSIONS:
        config = bundled_sensitive_config(version)
        former = replace(
            config,
            detectors=tuple(
                replace(d, pattern=re.compile(FORMER.get((version, d.name), d.pattern.pattern)))
                for d in config.detectors
            ),
        )
        assert find_sensitive(text, config) == find_sensitive(text, former)
