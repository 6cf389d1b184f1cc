"""Kafka's ``SlidingWindowsTest`` (kstream), translated to kslab's ``SlidingWindows``.

Java's ``IllegalArgumentException`` maps to ``kslab.errors.InvalidArgumentError``; ``ofMillis(n)``
is the int ``n``; ``timeDifferenceMs()`` / ``gracePeriodMs()`` are ``time_difference_ms()`` /
``grace_period_ms()``. Java draws the sizes with ``Math.random()``; here they are fixed values
from the same ranges. Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl import SlidingWindows
from kslab.errors import InvalidArgumentError

ANY_SIZE = 123
ANY_GRACE = 1024


def verify_equality(one: object, two: object) -> None:
    assert one == two and two == one
    assert hash(one) == hash(two)
    assert one != "not a window" and one is not None


def verify_in_equality(one: object, two: object) -> None:
    assert one != two and two != one


def test_should_set_time_difference() -> None:
    assert SlidingWindows.of_time_difference_and_grace(ANY_SIZE, ANY_GRACE) \
        .time_difference_ms() == ANY_SIZE
    assert SlidingWindows.of_time_difference_with_no_grace(ANY_SIZE).time_difference_ms() \
        == ANY_SIZE


def test_time_difference_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError,
                       match=r"Window time difference must not be negative\."):
        SlidingWindows.of_time_difference_and_grace(-1, 5)


def test_should_set_grace_period() -> None:
    assert SlidingWindows.of_time_difference_and_grace(10, ANY_SIZE).grace_period_ms() == ANY_SIZE


def test_grace_period_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError, match=r"Window grace period must not be negative\."):
        SlidingWindows.of_time_difference_and_grace(10, -1)


def test_equals_and_hashcode_should_be_valid_for_positive_cases() -> None:
    grace, time_difference = 7, 13
    verify_equality(SlidingWindows.of_time_difference_and_grace(time_difference, grace),
                    SlidingWindows.of_time_difference_and_grace(time_difference, grace))
    verify_equality(SlidingWindows.of_time_difference_with_no_grace(time_difference),
                    SlidingWindows.of_time_difference_with_no_grace(time_difference))


def test_equals_and_hashcode_should_not_be_equal_for_different_time_difference() -> None:
    verify_in_equality(SlidingWindows.of_time_difference_and_grace(4, 5),
                       SlidingWindows.of_time_difference_and_grace(30, 5))


def test_equals_and_hashcode_should_not_be_equal_for_different_grace_period() -> None:
    verify_in_equality(SlidingWindows.of_time_difference_and_grace(5, 4),
                       SlidingWindows.of_time_difference_and_grace(5, 30))
