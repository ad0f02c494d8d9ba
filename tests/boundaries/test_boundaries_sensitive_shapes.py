"""Sensitive-value shapes: 24 shapes found (13 by `sensitive-v1`), look-alikes never found,
no finding on the tau2 bank documents, and the checks behind the detectors."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest

from ragtriage.detectors import (
    SensitiveConfig,
    bundled_sensitive_config,
    card_valid,
    default_sensitive_config,
    find_sensitive,
    gb11643_valid,
    iban_registry_valid,
    iban_valid,
    jwt_valid,
    luhn_valid,
    mask_text,
    ssn_valid,
)

TAU2 = Path(__file__).resolve().parents[3] / "shared" / "data" / "tau2-banking-knowledge"
V1, V2 = bundled_sensitive_config("sensitive-v1"), bundled_sensitive_config("sensitive-v2")
V3 = bundled_sensitive_config("sensitive-v3")


def _b64url(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def _jwt() -> str:
    header, payload = _b64url({"alg": "HS256", "typ": "JWT"}), _b64url({"sub": "42"})
    return f"{header}.{payload}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"


# Secrets are assembled here so that no scanner mistakes this file for a leak.
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"

# (shape, text, detector, the part of the text that is the value)
SHAPES = [
    ("card, spaces", "4111 1111 1111 1111", "card_number", None),
    ("card, hyphens", "5500-0055-5555-5559", "card_number", None),
    ("card, digits only", "378282246310005", "card_number", None),
    ("Chinese resident ID", "11010519491231002X", "cn_resident_id", None),
    ("China mobile, spaces", "138 0013 8000", "phone_cn_mobile", None),
    ("China mobile, +86", "+86 13800138000", "phone_cn_mobile", None),
    ("e-mail", "li.lei@example.com", "email", None),
    ("OpenAI-style key", "sk-proj-" + "abcdEFGH1234" * 2, "api_key", None),
    ("GitHub token", "ghp_" + "aB3dE6gH9j" * 3 + "kLmNoP", "api_key", None),
    ("Slack token", "xoxb-" + "1234567890-abcdefghij", "api_key", None),
    ("AWS access key ID", "AKIA" + "IOSFODNN7EXAMPLE", "aws_access_key", None),
    ("international phone", "+44 20 7946 0958", "phone_international", None),
    ("North American phone", "(555) 201-3344", "phone_nanp", None),
    ("card, dots", "4111.1111.1111.1111", "card_number", None),
    ("card, zero-width separators", "4111\u200b1111\u200b1111\u200b1111", "card_number", None),
    ("Chinese resident ID, spaces", "110105 19491231 002X", "cn_resident_id", None),
    ("IBAN", "GB82 WEST 1234 5698 7654 32", "iban", None),
    ("US phone, spaces", "555 201 3344", "phone_nanp", None),
    ("AWS secret key", f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_key", AWS_SECRET),
    ("Stripe secret key", "sk_" + "live_" + "Ab3De6Gh" * 3, "api_key", None),
    ("US Social Security number", "536-22-1234", "us_ssn", None),
    ("JSON Web Token", _jwt(), "jwt", None),
    ("Google API key", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "api_key", None),
    ("internationalised e-mail", "josé.silva@exämple.de", "email", None),
]

MISSED_BY_V1 = [
    "card, dots",
    "card, zero-width separators",
    "Chinese resident ID, spaces",
    "IBAN",
    "US phone, spaces",
    "AWS secret key",
    "Stripe secret key",
    "US Social Security number",
    "JSON Web Token",
    "Google API key",
    "internationalised e-mail",
]

# More forms of the same shapes (not counted among the 24).
MORE_FORMS = [
    ("3782 822463 10005", "card_number", None),  # American Express, 4-6-5
    ("４１１１ １１１１ １１１１ １１１１", "card_number", None),  # full-width digits
    ("4111\u00a01111\u00a01111\u00a01111", "card_number", None),  # no-break spaces
    ("4111\u00ad1111\u00ad1111\u00ad1111", "card_number", None),  # soft hyphens
    ("110105 1949 1231 002X", "cn_resident_id", None),
    ("DE89370400440532013000", "iban", None),
    ("иван@пример.рф", "email", None),
    ("jose\u0301.silva@exa\u0308mple.de", "email", None),  # decomposed accents
    ('"SecretAccessKey": "' + AWS_SECRET + '"', "aws_secret_key", AWS_SECRET),
    ("rk_live_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2", "api_key", None),
    ("(555) 201 3344", "phone_nanp", None),
]

LOOK_ALIKES = [
    "Order 4111111111111112",  # fails Luhn
    "4111 1111 1111 1112",
    "Ticket 5555-5555-5555",  # 12 digits
    "IBAN GB00 0000 0000 0000 0000 00",  # passes Luhn, no issuer range; fails mod 97
    "GB82 WEST 1234 5698 7654 33",  # one digit off
    "ISBN 978-3-16-148410-0",
    "ISBN 9780306406157",
    "978 0 306 40615 7",
    "2024-12-01T10:30:45Z",
    "20241201103045",
    "1701388800123",  # a millisecond timestamp
    "2024.12.01",
    "ref 2024 1201 1030 45",
    "123e4567-e89b-12d3-a456-426614174000",  # UUID
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",  # git hash
    "110105194912310021",  # wrong check character
    "110105 19491231 0021",
    "000-12-3456",  # area 000
    "666-12-3456",
    "912-34-5678",  # area 9xx
    "123-00-4567",  # group 00
    "078-05-1120",  # the voided advertising number
    "eyJub3Rqc29u.eyJ4eXo.c2ln",  # "eyJ", but no JSON inside
    "sk_live_short",
    "AIzaShort",
    "192.168.100.200",
    "$1,234,567.89",
    "Quantities: 100 200 3000",
    "Room 101 555 0000",
    "icon@2x.png",
    "user@localhost",
    "1Z999AA10123456784",  # parcel tracking number
    "DEUTDEFF500",  # bank identifier code
    "3.14159265358979",
    "version 4.1111.1111",
    "aws_secret_access_key = <your secret key here>",
    "Call 1-800-FLOWERS",
]


def _found(text: str, config: SensitiveConfig = V2) -> list[tuple[str, str]]:
    return [(f.detector, text[f.start : f.end]) for f in find_sensitive(text, config)]


@pytest.mark.parametrize(
    ("shape", "value", "detector", "secret"), SHAPES, ids=[s[0] for s in SHAPES]
)
def test_each_shape_is_found_with_its_span(
    shape: str, value: str, detector: str, secret: str | None
) -> None:
    text = f"On file: {value}, as agreed."
    assert _found(text) == [(detector, secret or value)]
    assert (secret or value) not in mask_text(text)


def test_shapes_found_before_and_after() -> None:
    assert len(SHAPES) == 24
    missed = [shape for shape, value, _, _ in SHAPES if not find_sensitive(f"x {value} x", V1)]
    assert missed == MISSED_BY_V1
    for config in (V2, V3):
        missed = [shape for shape, v, _, _ in SHAPES if not find_sensitive(f"x {v} x", config)]
        assert missed == []
    assert default_sensitive_config() is V3


@pytest.mark.parametrize(("value", "detector", "secret"), MORE_FORMS)
def test_more_forms_of_the_shapes(value: str, detector: str, secret: str | None) -> None:
    assert _found(f"see {value} here") == [(detector, secret or value)]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_look_alike_is_not_a_sensitive_value(text: str) -> None:
    assert _found(text) == []


def test_look_alikes_before_and_after() -> None:
    assert len(LOOK_ALIKES) == 37
    assert [t for t in LOOK_ALIKES if find_sensitive(t, V1)] == [
        "IBAN GB00 0000 0000 0000 0000 00",
        "icon@2x.png",
    ]
    assert [t for t in LOOK_ALIKES if find_sensitive(t, V2)] == []
    assert [t for t in LOOK_ALIKES if find_sensitive(t, V3)] == []


def test_no_finding_on_the_tau2_bank_documents() -> None:
    path = TAU2 / "documents.json.gz"
    if not path.is_file():
        pytest.skip("shared tau2 data not on this machine")
    docs = json.loads(gzip.decompress(path.read_bytes()))
    for config in (V1, V2, V3):
        texts = {d["id"]: d["title"] + "\n\n" + d["content"] for d in docs}
        found = [doc for doc, text in texts.items() if find_sensitive(text, config)]
        assert (config.version, len(docs), found) == (config.version, 698, [])


def test_an_international_phone_number_right_after_chinese_text_is_found() -> None:
    # sensitive-v2 took a Chinese character before the `+` for a letter of a longer word.
    texts = ["请拨打+44 20 7946 0958联系我们", "電話+81 90-1234-5678", "전화+82 10-2000-0000"]
    assert [_found(t, V3) for t in texts] == [
        [("phone_international", "+44 20 7946 0958")],
        [("phone_international", "+81 90-1234-5678")],
        [("phone_international", "+82 10-2000-0000")],
    ]
    assert [_found(t, V2) for t in texts] == [[], [], []]
    masked = mask_text("请拨打+44 20 7946 0958联系我们")
    assert masked == "请拨打[masked:phone_international]联系我们"
    # a letter, digit or `_` of a spaced script, or a second `+`, still rules it out
    assert [_found(f"{c}+44 20 7946 0958", V3) for c in ("a", "é", "7", "_", "+")] == [[]] * 5


def test_an_international_phone_number_right_after_thai_or_khmer_text_is_found() -> None:
    # Thai, Lao, Myanmar and Khmer are written without spaces between words, as Chinese is
    texts = ["โทร+66 81 234 5678", "ទូរស័ព្ទ+855 12 345 678"]
    assert [_found(t, V3) for t in texts] == [
        [("phone_international", "+66 81 234 5678")],
        [("phone_international", "+855 12 345 678")],
    ]
    assert [_found(t, V2) for t in texts] == [[], []]


def test_a_signed_amount_is_not_an_international_phone_number() -> None:
    amounts = [
        "Credited +100.50 to your account.", "余额变动+5000.00元", "+12345.67 USD", "+1,234.56",
        "+1 234.56", "+100.50 2024-01-01", "Balance change: +796.18.",
    ]  # fmt: skip
    assert [_found(t, V3) for t in amounts] == [[]] * 7
    # sensitive-v2 flagged all but the one after Chinese text (it missed every number there)
    assert [bool(_found(t, V2)) for t in amounts] == [True, False, True, False, True, True, True]
    # numbers with dots still are phone numbers: the EPP form, dotted groups
    numbers = ["+1.2025550123", "+86.10.12345678", "+44.20.7946.0958", "+7 912 345-67-89"]
    assert [_found(t, V3) for t in numbers] == [[("phone_international", t)] for t in numbers]


def test_international_numbers_with_a_one_digit_area_code_are_found() -> None:
    # phonenumbers' example numbers in its international format (France, the Netherlands,
    # Australia, Japan, Korea, Taiwan, the Emirates, Benin with five groups)
    numbers = [
        "+33 6 12 34 56 78", "+33 1 23 45 67 89", "+31 6 12345678", "+61 2 1234 5678",
        "+81 3-1234-5678", "+82 2-212-3456", "+886 2 2123 4567", "+971 2 234 5678",
        "+229 01 95 12 34 56",
    ]  # fmt: skip
    assert [_found(f"Tel {n}.", V3) for n in numbers] == [
        [("phone_international", n)] for n in numbers
    ]
    # sensitive-v2 missed the first eight and left the last group of the ninth unmasked
    assert [_found(f"Tel {n}.", V2) for n in numbers] == [[]] * 8 + [
        [("phone_international", "+229 01 95 12 34")]
    ]


def test_an_iban_needs_a_registered_country_and_its_length() -> None:
    # An ISO 11649 creditor reference uses the IBAN's mod 97; so does, by chance, one in 97
    # order references shaped like an IBAN (these three among them).
    texts = ["Payment reference RF18 5390 0754 7034.", "RF18539007547034",
             "Order SO04 2330 7750 6749", "Ref TX13 6573 0050 5126 4410"]  # fmt: skip
    assert [_found(t, V3) for t in texts] == [[]] * 4
    assert [[d for d, _ in _found(t, V2)] for t in texts] == [["iban"]] * 4
    # IBANs of the registry's shortest and longest countries, and of Somalia (SO)
    ibans = [
        "NO93 8601 1117 947", "LC55 HEMM 0001 0001 0012 0012 0002 3015",
        "RU02 0445 2560 0407 0281 0412 3456 7890 1", "SO21 1000 0010 0100 0100 141",
    ]  # fmt: skip
    assert [_found(f"IBAN {n}.", V3) for n in ibans] == [[("iban", n)] for n in ibans]


def test_an_email_address_with_an_apostrophe_is_masked_whole() -> None:
    texts = [
        "Write to first.o'brien@bank.ie today", "mary-o'neil@example.org", "客户o'brien@bank.ie",
    ]  # fmt: skip
    assert [mask_text(t) for t in texts] == [
        "Write to [masked:email] today", "[masked:email]", "客户[masked:email]",
    ]  # fmt: skip
    # sensitive-v2 masked the part after the apostrophe and showed the rest
    assert mask_text(texts[0], V2) == "Write to first.o'[masked:email] today"
    # a quote around an address or a word before it is not part of it
    assert mask_text("'john@example.com' or it's john@example.com") == (
        "'[masked:email]' or it's [masked:email]"
    )


def test_a_mask_covers_the_hidden_characters_too() -> None:
    text = "card 4111\u200b1111\u200b1111\u200b1111 ok"
    assert mask_text(text) == "card [masked:card_number] ok"
    assert mask_text(text, V1) == text  # v1 matched the raw text


def test_named_list_terms_match_whole_not_inside_longer_words() -> None:
    # Before: `Ann` was masked inside `Annual` and `Joann` (and counted as a finding).
    config = V2.with_list("customers", ["Ann", "李雷", "ACME-1"])
    text = "Ann, Annual, Joann, ANN's, _Ann; 客户李雷的; ACME-1x, ACME-1."
    assert mask_text(text, config) == (
        "[masked:customers], Annual, Joann, [masked:customers]'s, _Ann; "
        "客户[masked:customers]的; ACME-1x, [masked:customers]."
    )


def test_email_next_to_chinese_text_takes_only_the_address() -> None:
    text = "邮箱li.lei@example.com告诉我"
    assert mask_text(text) == "邮箱[masked:email]告诉我"


def test_named_list_terms_match_through_disguises() -> None:
    config = V2.with_list("projects", ["Falcon"])
    assert mask_text("Project F\u200balcon and ＦＡＬＣＯＮ", config) == (
        "Project [masked:projects] and [masked:projects]"
    )


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("4111 1111 1111 1111", True),  # Visa, 16
        ("4111.1111.1111.1111", True),
        ("378282246310005", True),  # American Express, 15
        ("6011111111111117", True),  # Discover
        ("6221260000000001", False),  # UnionPay range, fails Luhn
        ("0000000000000000", False),  # passes Luhn, no issuer range
        ("90000000000000001", False),  # passes Luhn, no issuer range
        ("40000000000002", False),  # passes Luhn, Visa has no 14-digit numbers
        ("34000000000000", False),  # passes Luhn, American Express has 15 digits
        ("5500005555555559", True),
    ],
)
def test_card_check_is_luhn_and_issuer_range(number: str, valid: bool) -> None:
    assert card_valid(number) is valid


def test_luhn_reads_unicode_digits_and_ignores_other_characters() -> None:
    assert luhn_valid("４１１１ １１１１ １１１１ １１１１")
    assert luhn_valid("4111²1111111111111111") is False  # a superscript is not a digit


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("GB82WEST12345698765432", True),
        ("gb82 west 1234 5698 7654 32", True),
        ("DE89 3704 0044 0532 0130 00", True),
        ("GB82 WEST 1234 5698 7654 33", False),
        ("GB82 WEST 1234", False),  # too short
        ("8282 WEST 1234 5698 7654 32", False),
    ],
)
def test_iban_mod_97(number: str, valid: bool) -> None:
    assert iban_valid(number) is valid


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("gb82west12345698765432", True),
        ("GB82 WEST 1234 5698 7654 3", False),  # mod 97 aside, a British IBAN has 22
        ("RF18 5390 0754 7034", False),  # a creditor reference: mod 97 holds, RF is no country
        ("NO93 8601 1117 947", True),
        ("NO93 8601 1117 9470", False),
    ],
)
def test_iban_registry_country_and_length(number: str, valid: bool) -> None:
    assert iban_registry_valid(number) is valid
    assert iban_valid("RF18 5390 0754 7034") is True


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("536-22-1234", True),
        ("000-22-1234", False),
        ("666-22-1234", False),
        ("900-22-1234", False),
        ("536-00-1234", False),
        ("536-22-0000", False),
        ("219-09-9999", False),
        ("536221234", False),
    ],
)
def test_ssn_rules(number: str, valid: bool) -> None:
    assert ssn_valid(number) is valid


def test_jwt_check_decodes_header_and_payload() -> None:
    assert jwt_valid(_jwt())
    header = _b64url({"typ": "JWT"})  # no alg
    assert not jwt_valid(f"{header}.{_b64url({'sub': 1})}.sig")
    assert not jwt_valid(f"{_b64url({'alg': 'none'})}.{_b64url([1, 2])}.sig")  # payload a list
    assert not jwt_valid("eyJ%%%.eyJ.x")
    assert not jwt_valid("a.b")


def test_gb11643_accepts_spaces_between_groups() -> None:
    assert gb11643_valid("110105 19491231 002X")
    assert gb11643_valid("110105-1949-1231-002x")
    assert not gb11643_valid("110105 19491231 0021")
