"""Sensitive-content detectors: expressions, checksums, named lists, spans and masking."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from ragtriage.detectors import (
    SensitiveFinding,
    default_sensitive_config,
    find_sensitive,
    gb11643_valid,
    load_sensitive_config,
    luhn_valid,
    mask_span,
    mask_text,
)
from ragtriage.errors import InputError


def _refused(path: Path) -> list[str]:
    """The messages of the problems load_sensitive_config raises for the file at `path`."""
    with pytest.raises(InputError) as caught:
        load_sensitive_config(path)
    return [p.message() for p in caught.value.problems]


MIXED = (
    "卡号 4111 1111 1111 1111，身份证 11010519491231002X，电话 138 0013 8000 或 "
    "+86 13800138000，邮箱 li.lei@example.com，密钥 sk-proj-abcdefghijklmnopqrstuvwx，"
    "AKIAIOSFODNN7EXAMPLE，美国 (555) 201-3344。订单号 4111111111111112 不是卡号。"
)


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("4111 1111 1111 1111", True),
        ("4111-1111-1111-1111", True),
        ("5500005555555559", True),
        ("4111111111111112", False),
        ("4111", False),
    ],
)

def test_luhn(number: str, valid: bool) -> None:
    assert luhn_valid(number) is valid


@pytest.mark.parametrize(
    ("number", "valid"),
    [("11010519491231002X", True), ("11010519491231002x", True), ("110105194912310021", False)],
)
def test_gb11643_check_character(number: str, valid: bool) -> None:
    assert gb11643_valid(number) is valid


def test_every_detector_finds_its_value_with_a_span() -> None:
    found = find_sensitive(MIXED)
    assert [(f.detector, MIXED[f.start : f.end]) for f in found] == [
        ("card_number", "4111 1111 1111 1111"),
        ("cn_resident_id", "11010519491231002X"),
        ("phone_cn_mobile", "138 0013 8000"),
        ("phone_cn_mobile", "+86 13800138000"),
        ("email", "li.lei@example.com"),
        ("api_key", "sk-proj-abcdefghijklmnopqrstuvwx"),
        ("aws_access_key", "AKIAIOSFODNN7EXAMPLE"),
        ("phone_nanp", "(555) 201-3344"),
    ]
    assert found[0] == SensitiveFinding(3, 22, "card_number")
    assert found[0].label() == "card_number[3:22]"


def test_masking_replaces_values_and_keeps_the_rest() -> None:
    assert mask_text(MIXED) == (
        "卡号 [masked:card_number]，身份证 [masked:cn_resident_id]，"
        "电话 [masked:phone_cn_mobile] 或 [masked:phone_cn_mobile]，"
        "邮箱 [masked:email]，密钥 [masked:api_key]，"
        "[masked:aws_access_key]，美国 [masked:phone_nanp]。订单号 4111111111111112 不是卡号。"
    )
    assert mask_text("nothing here") == "nothing here"


def test_a_resident_id_is_not_reported_as_a_card_number() -> None:
    # This valid ID also passes Luhn: equally long, the detector listed first (the ID) wins.
    text = "ID 110105194912311356"
    assert luhn_valid("110105194912311356") and gb11643_valid("110105194912311356")
    assert [f.detector for f in find_sensitive(text)] == ["cn_resident_id"]


def test_named_lists_match_terms_case_insensitively() -> None:
    config = default_sensitive_config().with_list("customers", ["Zhang San", "李雷"])
    assert mask_text("Ask Zhang San or zhang san about 李雷.", config) == (
        "Ask [masked:customers] or [masked:customers] about [masked:customers]."
    )
    assert config.version == "sensitive-v3"


def test_a_detector_file_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "sensitive.toml"
    path.write_text(
        'version = "mine"\n'
        '[[detectors]]\nname = "ticket"\npattern = "TCK-\\\\d{6}"\n'
        '[[detectors]]\nname = "bad"\npattern = "x"\nchecksum = "crc"\n'
        '[lists]\nprojects = ["Falcon"]\n',
        encoding="utf-8",
    )
    assert _refused(path) == [
        f"{path}: detectors[1].checksum: expected one of luhn, card, gb11643, iban, "
        "iban_registry, ssn, jwt; found 'crc'"
    ]
    path.write_text(path.read_text().replace('checksum = "crc"\n', ""), encoding="utf-8")
    config = load_sensitive_config(path)
    assert mask_text("TCK-123456 for Falcon", config) == "[masked:ticket] for [masked:projects]"


def test_an_unknown_top_level_key_of_a_detector_file_is_refused(tmp_path: Path) -> None:
    # Before: ignored, so `normalize = false` left the detectors matching normalised text.
    path = tmp_path / "sensitive.toml"
    path.write_text(
        'version = "mine"\nnormalize = false\nlist = 1\n'
        '[[detectors]]\nname = "pin"\npattern = "\\\\d{4}"\n',
        encoding="utf-8",
    )
    assert _refused(path) == [
        f"{path}: (top level): expected only version, description, normalise, detectors, lists; "
        "found list (did you mean 'lists'?), normalize (did you mean 'normalise'?)"
    ]
    path.write_text(path.read_text().replace("normalize = false\nlist = 1\n", ""), "utf-8")
    assert load_sensitive_config(path).normalise is True


def test_a_repeated_detector_name_and_an_empty_list_term_are_refused(tmp_path: Path) -> None:
    # Before: both accepted; the empty term was dropped and the two detectors shared a name.
    path = tmp_path / "sensitive.toml"
    path.write_text(
        'version = "mine"\n'
        '[[detectors]]\nname = "a"\npattern = "\\\\d{4}"\n'
        '[[detectors]]\nname = "a"\npattern = "[a-z]{3}x"\n'
        '[lists]\ncustomers = ["ACME", "", " \\t"]\n',
        encoding="utf-8",
    )
    blank = "expected a term with a character other than whitespace"
    assert _refused(path) == [
        f"{path}: detectors[1].name: expected a detector name not used before; found 'a'",
        f"{path}: lists.customers[1]: {blank}; found ''",
        f"{path}: lists.customers[2]: {blank}; found ' \\t'",
    ]
    # A list given in code is checked alike; before, a blank term was dropped without a word.
    with pytest.raises(InputError) as caught:
        default_sensitive_config().with_list("customers", ["ACME", "  "])
    assert [p.message() for p in caught.value.problems] == [
        f"with_list: customers[1]: {blank}; found '  '"
    ]


def test_every_problem_of_every_detector_is_reported_at_once(tmp_path: Path) -> None:
    # Before: a detector's first problem only (the checksum), the pattern once that was fixed.
    path = tmp_path / "sensitive.toml"
    path.write_text(
        'version = "mine"\n'
        '[[detectors]]\nname = "a"\nchecksum = "luhnn"\npattern = "(bad"\n'
        '[[detectors]]\nname = ""\nrequires = ""\nchecksum = "crc"\npattern = ""\n',
        encoding="utf-8",
    )
    checksums = "one of luhn, card, gb11643, iban, iban_registry, ssn, jwt"
    assert _refused(path) == [
        f"{path}: detectors[0].checksum: expected {checksums}; found 'luhnn'",
        f"{path}: detectors[0].pattern: expected a valid regular expression; "
        "found missing ), unterminated subpattern at position 0",
        f"{path}: detectors[1].requires: expected a non-empty string; found ''",
        f"{path}: detectors[1].name: expected a non-empty string; found ''",
        f"{path}: detectors[1].checksum: expected {checksums}; found 'crc'",
        f"{path}: detectors[1].pattern: expected a non-empty string; found ''",
    ]


def test_requires_never_changes_what_a_case_insensitive_pattern_matches(tmp_path: Path) -> None:
    # Before: `requires` was compared case-sensitively, so `PASSWORD: x` was not scanned.
    path = tmp_path / "sensitive.toml"
    path.write_text(
        'version = "mine"\n'
        '[[detectors]]\nname = "pw"\nrequires = "password"\n'
        'pattern = "(?i)password[:=] ?(?P<value>\\\\S+)"\n'
        '[[detectors]]\nname = "pin"\nrequires = "pin"\n'
        'pattern = "(?i:pin):? (?P<value>\\\\d{4})"\n',
        encoding="utf-8",
    )
    config = load_sensitive_config(path)
    assert mask_text("PASSWORD: x1 or Password=y2 and PIN 4821", config) == (
        "PASSWORD: [masked:pw] or Password=[masked:pw] and PIN [masked:pin]"
    )


def _with_luhn_digit(body: str) -> str:
    for digit in "0123456789":
        if luhn_valid(body + digit):
            return body + digit
    raise AssertionError("unreachable: one check digit always fits")


# Issuer prefixes of 16-digit cards: Visa, Mastercard (both ranges), JCB, Discover, UnionPay.
CARD_PREFIXES = ("4", "51", "55", "2221", "2720", "3528", "6011", "62")


@given(
    prefix=st.sampled_from(CARD_PREFIXES),
    rest=st.text(alphabet="0123456789", min_size=14, max_size=14),
    separator=st.sampled_from(["", " ", "-", ".", "\u200b", "\u00a0"]),
    before=st.text(alphabet="abcxyz ,.;:()卡号是", max_size=20),
    after=st.text(alphabet="abcxyz ,.;:()卡号是", max_size=20),
)
def test_a_valid_card_number_never_survives_masking(
    prefix: str, rest: str, separator: str, before: str, after: str
) -> None:
    digits = _with_luhn_digit((prefix + rest)[:15])
    shown = separator.join(digits[i : i + 4] for i in range(0, 16, 4))
    masked = mask_text(f"{before} {shown} {after}")
    assert shown not in masked
    assert digits not in re.sub(r"[\s.\u200b-]", "", masked)
    assert "[masked:" in masked


def test_a_detector_may_name_a_required_text_and_a_value_group(tmp_path: Path) -> None:
    path = tmp_path / "sensitive.toml"
    path.write_text(
        'version = "mine"\n'
        '[[detectors]]\nname = "pin"\nrequires = "PIN"\npattern = "PIN:? (?P<value>\\\\d{4})"\n'
        '[[detectors]]\nname = "bad"\nrequires = ""\npattern = "x"\n'
        '[[detectors]]\nname = "odd"\nwhat = 1\npattern = "y"\n',
        encoding="utf-8",
    )
    assert _refused(path) == [
        f"{path}: detectors[1].requires: expected a non-empty string; found ''",
        f"{path}: detectors[2]: expected only name, description, pattern, checksum, requires; "
        "found what",
    ]
    path.write_text(path.read_text().split("[[detectors]]\nname = \"bad\"")[0], encoding="utf-8")
    config = load_sensitive_config(path)
    assert config.normalise is True  # the default for a detector file
    assert mask_text("PIN: 4821, pin: 4821", config) == "PIN: [masked:pin], pin: 4821"


def test_mask_span_masks_the_part_of_a_value_the_span_cuts() -> None:
    text = "card 4111 1111 1111 1111 ok"
    assert mask_span(text, 0, 15) == "card [masked:card_number]"
    assert mask_span(text, 15, len(text)) == "[masked:card_number] ok"
    assert mask_span(text, 0, 4) == "card"
    assert mask_span(text, 0, len(text)) == mask_text(text) == "card [masked:card_number] ok"
