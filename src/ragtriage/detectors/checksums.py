"""Checks that tell a real identifier from a look-alike: the Luhn digit and issuer ranges of
payment cards, the GB 11643 check character of a Chinese resident ID, the IBAN's mod 97, the
issuing rules of a US SSN, and a JWT whose header and payload decode to JSON."""

from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from collections.abc import Callable
from typing import Literal

Checksum = Literal["luhn", "card", "gb11643", "iban", "iban_registry", "ssn", "jwt"]
_GB11643_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_GB11643_CHECK = "10X98765432"

# Issuer ranges of payment cards (first four digits, inclusive) and the lengths each uses:
# Visa; Mastercard (51-55 and the 2-series); American Express; Diners Club; JCB; Mir;
# Maestro, Discover, UnionPay, RuPay and the other 5x/6x ranges; UnionPay and RuPay 81-82.
_CARD_RANGES = (
    (4000, 4999, (13, 16, 19)),
    (5100, 5599, (16,)),
    (2221, 2720, (16,)),
    (3400, 3499, (15,)),
    (3700, 3799, (15,)),
    (3000, 3059, tuple(range(14, 20))),
    (3600, 3699, tuple(range(14, 20))),
    (3800, 3999, tuple(range(14, 20))),
    (3528, 3589, tuple(range(16, 20))),
    (2200, 2204, tuple(range(16, 20))),
    (5000, 5099, tuple(range(13, 20))),
    (5600, 6999, tuple(range(13, 20))),
    (8100, 8299, tuple(range(16, 20))),
)
_SEPARATORS = re.compile(r"[\s.-]")


def _digits(number: str) -> list[int]:
    """The decimal digits of `number`, other characters ignored."""
    values = (unicodedata.decimal(ch, None) for ch in number)
    return [value for value in values if value is not None]


def luhn_valid(number: str) -> bool:
    """The Luhn check over the digits of `number` (other characters ignored; 13-19 digits)."""
    digits = _digits(number)
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for position, digit in enumerate(reversed(digits)):
        if position % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def card_valid(number: str) -> bool:
    """A payment card number: the Luhn check, and a length its issuer range uses."""
    digits = _digits(number)
    if not luhn_valid(number):
        return False
    prefix = int("".join(map(str, digits[:4])))
    return any(
        low <= prefix <= high and len(digits) in lengths for low, high, lengths in _CARD_RANGES
    )


def gb11643_valid(number: str) -> bool:
    """The GB 11643 check character of an 18-character Chinese resident ID number.

    Spaces and hyphens between the characters are allowed (`110105 19491231 002X`).
    """
    number = _SEPARATORS.sub("", number)
    if len(number) != 18 or not number[:17].isascii() or not number[:17].isdigit():
        return False
    total = sum(int(ch) * w for ch, w in zip(number[:17], _GB11643_WEIGHTS, strict=True))
    return _GB11643_CHECK[total % 11] == number[17].upper()


def iban_valid(number: str) -> bool:
    """The ISO 13616 check of an IBAN: 15-34 characters, mod 97 of the rearranged number is 1."""
    compact = number.replace(" ", "").upper()
    if not 15 <= len(compact) <= 34 or not compact.isascii() or not compact.isalnum():
        return False
    if not compact[:2].isalpha() or not compact[2:4].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


# The length of an IBAN by its country code, from SWIFT's IBAN registry (the ISO 13616
# registration authority; release 101, as python-stdnum 2.2 ships it): 89 countries.
_IBAN_LENGTHS = {
    country: length
    for length, countries in {
        15: "NO", 16: "BE", 18: "DK FI FK FO GL NL SD", 19: "MK SI",
        20: "AT BA EE KZ LT LU MN XK", 21: "CH HR LI LV",
        22: "BG BH CR DE GB GE IE ME RS VA", 23: "AE GI IL IQ OM SO TL",
        24: "AD CZ ES MD PK RO SA SE SK TN VG", 25: "LY PT ST", 26: "IS TR",
        27: "BI DJ FR GR IT MC MR SM", 28: "AL AZ BY CY DO GT HN HU LB NI PL SV",
        29: "BR EG PS QA UA", 30: "JO KW MU YE", 31: "MT SC", 32: "LC", 33: "RU",
    }.items()
    for country in countries.split()
}  # fmt: skip


def iban_registry_valid(number: str) -> bool:
    """`iban_valid`, and a country code the IBAN registry lists with this length: an ISO 11649
    creditor reference (`RF18 5390 0754 7034`, the same mod 97) or an order reference that
    passes mod 97 by chance is not an IBAN."""
    compact = number.replace(" ", "").upper()
    return _IBAN_LENGTHS.get(compact[:2]) == len(compact) and iban_valid(number)


_SSN_NEVER_ISSUED = ("078-05-1120", "219-09-9999")  # printed in advertising, voided


def ssn_valid(number: str) -> bool:
    """A US Social Security number `AAA-GG-SSSS` the SSA can issue: area not 000, 666 or
    900-999, group not 00, serial not 0000, and not one of the voided advertising numbers."""
    match = re.fullmatch(r"(\d{3})-(\d{2})-(\d{4})", number)
    if match is None or number in _SSN_NEVER_ISSUED:
        return False
    area, group, serial = match.groups()
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _base64url_json(part: str) -> object:
    try:
        data = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        return json.loads(data.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        return None


def jwt_valid(token: str) -> bool:
    """A JSON Web Token: its header decodes to a JSON object naming an `alg`, and its payload
    to a JSON object."""
    parts = token.split(".")
    if len(parts) != 3:
        return False
    header = _base64url_json(parts[0])
    return (
        isinstance(header, dict)
        and isinstance(header.get("alg"), str)
        and isinstance(_base64url_json(parts[1]), dict)
    )


CHECKERS: dict[str, Callable[[str], bool]] = {
    "luhn": luhn_valid,
    "card": card_valid,
    "gb11643": gb11643_valid,
    "iban": iban_valid,
    "iban_registry": iban_registry_valid,
    "ssn": ssn_valid,
    "jwt": jwt_valid,
}
"""The check behind each `checksum = ...` name a detector file may give."""

CHECKSUMS: tuple[str, ...] = tuple(CHECKERS)
"""The names, in the order messages list them."""
