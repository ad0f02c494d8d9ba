"""The sensitive detectors' prefilter skips only texts a detector cannot match.

A detector searches a text only when the folded text holds the literals its expression's parse
tree says every match holds (`_literals.needed_literals`, as for the injection rules). A wrong
literal would silently leave a secret unmasked, so the findings with the prefilter are
compared with the findings of the same detectors searching every text, over texts built from
a value of each detector, near misses (other case, other prefix, cut short), labels, digits,
separators, zero-width and full-width characters and CJK.
"""

from __future__ import annotations

import base64
import json
import random

from boundaries_builders import agreeing, sensitive_oracles
from hypothesis import given, settings, strategies as st

from ragtriage.detectors import bundled_sensitive_config
from ragtriage.detectors._literals import Needed
from ragtriage.detectors.sensitive import _find

VERSIONS = ("sensitive-v1", "sensitive-v2", "sensitive-v3")


def _b64(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


VALUES = [
    "11010519491231002X", "4111 1111 1111 1111", "4111.1111.1111.1111",
    "GB82 WEST 1234 5698 7654 32", "234-56-7890",
    f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64({'sub': '1'})}.abcdEFGH_-12",
    "sk-" + "a1B2" * 6, "sk-proj-" + "Zz9_" * 6, "ghp_" + "x7" * 18, "xoxb-1234567890abc",
    "sk_live_" + "Ab3" * 6, "rk_test_" + "9" * 16, "AIza" + "B_" * 17 + "c",
    "AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "SecretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'", "jane.doe@example.com",
    "用户@例子.中国", "+86 138 0013 8000", "13800138000", "+44 20 7946 0958", "(555) 201-3344",
    "555 201 3344", "555-201-3344",
]  # fmt: skip
"""A value each bundled detector finds (every one is found by one of them, in both versions)."""
PIECES = [
    "SK-", "Sk_Live_", "GHP_", "XOXB-", "xoxz-", "aiza", "AKIA", "akia", "EYJ", "eyj", "eyJ",
    "AWS", "aws", "Secret", "SECRET_ACCESS", "ſecret", "access", "key", "@", ".com", "+", "(",
    ")", "-", ".", " ", "\n", "_", "/", "=", ":", "'", '"', "0", "1", "86", "18", "19", "20",
    "555", "X", "\u200b", "\u00a0", "\uff11", "卡号", "the", "of",
]  # fmt: skip
"""Prefixes and labels in other case or cut short, separators, digits and other characters."""
ORACLES = sensitive_oracles(VERSIONS, literals=None, digits=0)  # searches every text


def disguise(text: str, rng: random.Random) -> str:
    """Some characters swapped to the other case, some cut off (near misses)."""
    kept = [c for c in text if rng.random() > 0.03]
    return "".join(c.swapcase() if rng.random() < 0.1 else c for c in kept)


def same_findings(text: str) -> set[str]:
    return agreeing(_find.__wrapped__, ORACLES, lambda f: f.detector, text)  # type: ignore[attr-defined]


def test_the_prefilter_changes_no_finding_and_every_bundled_detector_fires() -> None:
    rng = random.Random(44)
    fired: set[str] = set()
    for _ in range(1500):
        pieces = rng.choices(VALUES, k=rng.randint(0, 2))
        pieces += rng.choices(PIECES, k=rng.randint(0, 10))
        rng.shuffle(pieces)
        text = "".join(pieces)
        fired |= same_findings(disguise(text, rng) if rng.random() < 0.5 else text)
    every = {f"{v}:{d.name}" for v in VERSIONS for d in bundled_sensitive_config(v).detectors}
    assert every - fired == set()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(VALUES + PIECES), st.text(max_size=3)), max_size=12),
    st.randoms(use_true_random=False),
)
def test_the_prefilter_changes_no_finding_on_generated_texts(
    pieces: list[str], rng: random.Random
) -> None:
    same_findings(disguise("".join(pieces), rng))


def test_the_literals_of_the_secret_detectors() -> None:
    detectors = {d.name: d for d in bundled_sensitive_config("sensitive-v2").detectors}
    assert detectors["api_key"].literals == Needed(
        ("aiza", "ghp_", "rk_live_", "rk_test_", "sk-", "sk_live_", "sk_test_", "xox"),
        ((("aiza",),), (("ghp_",),), (("rk_live_", "rk_test_", "sk_live_", "sk_test_"),),
         (("sk-",),), (("xox",),)),
    )  # fmt: skip
    # 25 spellings of `secret access key` share `access`, `ecret` and `key`: each needed
    assert detectors["aws_secret_key"].literals == Needed(
        ("access", "secret"),
        ((("access",), ("ecret",), ("key",), ("a", "s")), (("secret",), ("a", "s"))),
    )
    assert detectors["card_number"].literals is None  # no literal: searches every text
