"""Kafka's ``SessionWindowsTest`` (kstream), translated to kslab's ``SessionWindows``.

Java's ``IllegalArgumentException`` maps to ``kslab.errors.InvalidArgumentError``; ``ofMillis(n)``
is the int ``n``; ``inactivityGap()`` / ``gracePeriodMs()`` are ``inactivity_gap()`` /
``grace_period_ms()``. Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl import SessionWindows
from kslab.errors import InvalidArgumentError

ANY_SIZE = 123
ANY_OTHER_SIZE = 456
ANY_GRACE = 1024


def verify_equality(one: object, two: object) -> None:
    assert one == two and two == one
    assert hash(one) == hash(two)
    assert one != "not a window" and one is not None


def verify_in_equality(one: object, two: object) -> None:
    assert one != two and two != one


def test_should_set_window_gap() -> None:
    assert SessionWindows.of_inactivity_gap_with_no_grace(42).inactivity_gap() == 42
    assert SessionWindows.of_inactivity_gap_and_grace(42, ANY_GRACE).inactivity_gap() == 42


def test_grace_period_should_enforce_boundaries() -> None:
    SessionWindows.of_inactivity_gap_and_grace(3, 0)
    with pytest.raises(InvalidArgumentError, match=r"Grace period must not be negative\."):
        SessionWindows.of_inactivity_gap_and_grace(3, -1)


def test_no_grace_api_should_not_set_grace_period() -> None:
    for gap in (3, ANY_SIZE, ANY_OTHER_SIZE):
        assert SessionWindows.of_inactivity_gap_with_no_grace(gap).grace_period_ms() == 0


def test_with_grace_api_should_set_grace_period() -> None:
    for gap in (3, ANY_SIZE, ANY_OTHER_SIZE):
        assert SessionWindows.of_inactivity_gap_and_grace(gap, ANY_GRACE).grace_period_ms() \
            == ANY_GRACE


def test_window_size_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError, match=r"Gap time cannot be zero or negative\."):
        SessionWindows.of_inactivity_gap_with_no_grace(-1)


def test_window_size_must_not_be_zero() -> None:
    with pytest.raises(InvalidArgumentError):
        SessionWindows.of_inactivity_gap_with_no_grace(0)


def test_equals_and_hashcode_should_be_valid_for_positive_cases() -> None:
    verify_equality(SessionWindows.of_inactivity_gap_with_no_grace(1),
                    SessionWindows.of_inactivity_gap_with_no_grace(1))
    verify_equality(SessionWindows.of_inactivity_gap_and_grace(1, 11),
                    SessionWindows.of_inactivity_gap_and_grace(1, 11))


def test_equals_and_hashcode_should_be_valid_for_negative_cases() -> None:
    verify_in_equality(SessionWindows.of_inactivity_gap_with_no_grace(9),
                       SessionWindows.of_inactivity_gap_with_no_grace(1))
    verify_in_equality(SessionWindows.of_inactivity_gap_and_grace(9, 9),
                       SessionWindows.of_inactivity_gap_and_grace(1, 9))
    verify_in_equality(SessionWindows.of_inactivity_gap_and_grace(1, 9),
                       SessionWindows.of_inactivity_gap_and_grace(1, 6))
