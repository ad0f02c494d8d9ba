"""A sensitive detector skips a text with fewer digits than every match of it consumes.

The fewest digits are read from the expression's parse tree (`_literals.needed_digits`): a
card number needs 11 wherever its separators fall, a mobile number 10. A wrong count would
silently leave a value unmasked, so findings with the count are compared with the findings
of the same detectors searching every text, over texts of digits around each detector's
count, in ASCII, full-width and Arabic-Indic digits, with separators.
"""

from __future__ import annotations

import random
import re

from boundaries_builders import agreeing, sensitive_oracles
from hypothesis import given, settings, strategies as st

from ragtriage.detectors import bundled_sensitive_config
from ragtriage.detectors._literals import digit_count, needed_digits
from ragtriage.detectors.sensitive import _find

VERSIONS = ("sensitive-v1", "sensitive-v2", "sensitive-v3")
ORACLES = sensitive_oracles(VERSIONS, digits=0)  # searches texts without digits too
DIGITS = ["0", "1", "3", "5", "8", "9", "\uff11", "\u0663", "\u0969", "13800138000", "4111"]
"""ASCII digits, a full-width one, an Arabic-Indic one, a Devanagari one, runs of digits."""
AROUND = [" ", "-", ".", "(", ")", "+", "+86", "GB82", "X", "x", "\u200b", "a", "卡号"]
VALUES = ["11010519491231002X", "4111 1111 1111 1111", "234-56-7890", "(555) 201-3344",
          "555-201-3344", "+44 20 7946 0958", "13800138000", "GB82 WEST 1234 5698 7654 32"]
"""A value each detector with digits finds; a text may lose one of its digits (a near miss)."""


def same_findings(text: str) -> set[str]:
    return agreeing(_find.__wrapped__, ORACLES, lambda f: f.detector, text)  # type: ignore[attr-defined]


def test_the_fewest_digits_of_the_bundled_detectors() -> None:
    found = {v: {d.name: d.digits for d in bundled_sensitive_config(v).detectors} for v in VERSIONS}
    assert found == {
        "sensitive-v1": {
            "cn_resident_id": 17, "card_number": 13, "api_key": 0, "aws_access_key": 0,
            "email": 0, "phone_cn_mobile": 10, "phone_international": 5, "phone_nanp": 9,
        },
        "sensitive-v2": {
            "cn_resident_id": 17, "card_number": 11, "iban": 2, "us_ssn": 9, "jwt": 0,
            "api_key": 0, "aws_access_key": 0, "aws_secret_key": 0, "email": 0,
            "phone_cn_mobile": 10, "phone_international": 5, "phone_nanp": 9,
        },
        "sensitive-v3": {
            "cn_resident_id": 17, "card_number": 11, "iban": 2, "us_ssn": 9, "jwt": 0,
            "api_key": 0, "aws_access_key": 0, "aws_secret_key": 0, "email": 0,
            "phone_cn_mobile": 10, "phone_international": 5, "phone_nanp": 9,
        },
    }  # fmt: skip


def test_the_fewest_digits_of_each_construct() -> None:
    cases = {
        r"\d{3}-\d{2}": 5, r"(?:ab|1\d)x": 0, r"(?:1\d|2\d\d)": 2, r"[0-9a]\d": 1,
        r"[0-9]|[٠-٩]": 1, r"(?<=\d)\d": 1, r"(?=\d\d)\d": 1, r"[^0-9]\d*": 0, r"\d+?": 1,
        r"(\d)\1": 1, r"(?>\d{2})": 2, r"\d{2}(?:-\d{2}){3,}": 8, r"\D\W\w.": 0,
        r"(?i)1[a-f]2": 2, r"(?a)\d{4}": 4, r"(?:\d{4} ?){0,3}": 0,
    }  # fmt: skip
    assert {p: needed_digits(re.compile(p)) for p in cases} == cases


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(), st.text(st.characters(max_codepoint=127))))
def test_the_digit_count_is_what_backslash_d_matches(text: str) -> None:
    assert digit_count(text) == len(re.findall(r"\d", text)) == sum(map(str.isdecimal, text))


def test_fewer_digits_change_no_finding_and_every_digit_detector_fires() -> None:
    rng = random.Random(45)
    fired: set[str] = set()
    for _ in range(3000):
        pieces = rng.choices(DIGITS, k=rng.randint(0, 24))
        pieces += rng.choices(AROUND, k=rng.randint(0, 6))
        pieces += rng.choices(VALUES, k=rng.randint(0, 1))
        rng.shuffle(pieces)
        text = "".join(pieces)
        digits = [n for n, c in enumerate(text) if c.isdecimal()]
        if digits and rng.random() < 0.5:  # one digit fewer than the value has
            cut = rng.choice(digits)
            text = text[:cut] + text[cut + 1 :]
        fired |= same_findings(text)
    wanted = {f"{v}:{d.name}" for v in VERSIONS for d in bundled_sensitive_config(v).detectors
              if d.digits > 2}  # fmt: skip
    assert wanted - fired == set()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(DIGITS + AROUND + VALUES), st.text(max_size=3)),
                max_size=30))
def test_fewer_digits_change_no_finding_on_generated_texts(pieces: list[str]) -> None:
    same_findings("".join(pieces))
