"""The aggregates' sum (`exact_sum`) is `math.fsum`'s, bit for bit, on its fast path (whole
numbers, numpy's sum) and off it (fractions, sums past 2**53, signed zeros)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ragtriage.metrics._aggregate import exact_sum


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)  # -0.0 and 0.0 differ here


WHOLE = st.integers(min_value=-(2**60), max_value=2**60).map(float)
SMALL_WHOLE = st.integers(min_value=-1000, max_value=1000).map(float)
FINITE = st.floats(min_value=-1e300, max_value=1e300)  # fsum overflows past these, as before
ZEROS = st.sampled_from([0.0, -0.0])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(WHOLE, SMALL_WHOLE, FINITE, ZEROS), max_size=60))
def test_the_sum_is_fsums_bit_for_bit(values: list[float]) -> None:
    assert _bits(exact_sum(np.array(values, dtype=np.float64))) == _bits(math.fsum(values))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(SMALL_WHOLE, ZEROS), max_size=60))
def test_whole_numbers_sum_as_fsum_does(values: list[float]) -> None:
    assert _bits(exact_sum(np.array(values, dtype=np.float64))) == _bits(math.fsum(values))


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], 0.0),
        ([3.0, 1.0, 2.0], 6.0),
        ([0.5, 0.25], 0.75),
        ([0.1] * 10, 1.0),  # added one by one: 0.9999999999999999
        ([2.0**53, 1.0, 1.0], 2.0**53 + 2.0),  # one by one in floats: 2**53
        ([2.0**52, 2.0**52, 1.0, -(2.0**53)], 1.0),
        ([1.0, -1.0], 0.0),
    ],
)
def test_sums_that_plain_float_addition_gets_wrong(values: list[float], expected: float) -> None:
    assert exact_sum(np.array(values, dtype=np.float64)) == expected
    assert math.fsum(values) == expected


def test_a_sum_of_negative_zeros_has_fsums_sign() -> None:
    assert _bits(exact_sum(np.array([-0.0, -0.0]))) == _bits(math.fsum([-0.0, -0.0]))
    assert _bits(exact_sum(np.array([-0.0, 0.0]))) == _bits(0.0)
