"""Kafka's ``JoinWindowsTest`` (kstream), translated to kslab's ``JoinWindows``.

Java's ``IllegalArgumentException`` maps to ``kslab.errors.InvalidArgumentError``; the
``IllegalStateException`` of the deprecated ``grace()`` after a grace was set to
``ks.TopologyError``; ``ofMillis(n)`` is the int ``n`` and ``ofSeconds(n)`` a ``timedelta``.
The deprecated ``JoinWindows.of`` / ``grace`` exist in kslab as ``of`` / ``grace``.
Nothing is skipped.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

import kslab as ks
from kslab.dsl import JoinWindows
from kslab.errors import InvalidArgumentError

ANY_SIZE = 123
ANY_OTHER_SIZE = 456
ANY_GRACE = 1024
DEPRECATED_DEFAULT_24_HR_GRACE_PERIOD = 24 * 60 * 60 * 1000


def verify_equality(one: object, two: object) -> None:
    assert one == two and two == one
    assert hash(one) == hash(two)
    assert one != "not a window" and one is not None


def verify_in_equality(one: object, two: object) -> None:
    assert one != two and two != one


def test_valid_windows() -> None:
    (JoinWindows.of_time_difference_with_no_grace(ANY_OTHER_SIZE)
     .before(ANY_SIZE).before(0).before(-ANY_SIZE).before(-ANY_OTHER_SIZE))
    (JoinWindows.of_time_difference_with_no_grace(ANY_OTHER_SIZE)
     .after(ANY_SIZE).after(0).after(-ANY_SIZE).after(-ANY_OTHER_SIZE))


def test_before_should_not_modify_grace() -> None:
    join_windows = JoinWindows.of_time_difference_and_grace(ANY_SIZE, ANY_OTHER_SIZE) \
        .before(timedelta(seconds=ANY_SIZE))
    assert join_windows.grace_period_ms() == ANY_OTHER_SIZE


def test_after_should_not_modify_grace() -> None:
    join_windows = JoinWindows.of_time_difference_and_grace(ANY_SIZE, ANY_OTHER_SIZE) \
        .after(timedelta(seconds=ANY_SIZE))
    assert join_windows.grace_period_ms() == ANY_OTHER_SIZE


def test_time_difference_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError):
        JoinWindows.of_time_difference_with_no_grace(-1)
    with pytest.raises(InvalidArgumentError):
        JoinWindows.of_time_difference_and_grace(-1, ANY_GRACE)


def test_grace_should_not_called_after_grace_set() -> None:
    with pytest.raises(ks.TopologyError, match="Cannot call grace"):
        JoinWindows.of_time_difference_and_grace(10, 10).grace(10)
    with pytest.raises(ks.TopologyError, match="Cannot call grace"):
        JoinWindows.of_time_difference_with_no_grace(10).grace(10)


def test_end_time_should_not_be_before_start() -> None:
    with pytest.raises(InvalidArgumentError, match=r"beforeMs\+afterMs"):
        JoinWindows.of_time_difference_with_no_grace(ANY_SIZE).after(-ANY_SIZE - 1)


def test_start_time_should_not_be_after_end() -> None:
    with pytest.raises(InvalidArgumentError, match=r"beforeMs\+afterMs"):
        JoinWindows.of_time_difference_with_no_grace(ANY_SIZE).before(-ANY_SIZE - 1)


def test_until_should_set_grace_duration() -> None:
    window_spec = JoinWindows.of(ANY_SIZE)
    window_size = window_spec.size()
    assert window_spec.grace(window_size).grace_period_ms() == window_size


def test_grace_period_should_enforce_boundaries() -> None:
    JoinWindows.of_time_difference_and_grace(3, 0)
    with pytest.raises(InvalidArgumentError, match=r"Grace period must not be negative\."):
        JoinWindows.of_time_difference_and_grace(3, -1)


def test_old_api_should_set_default_grace_period() -> None:
    assert timedelta(days=1) // timedelta(milliseconds=1) == DEPRECATED_DEFAULT_24_HR_GRACE_PERIOD
    assert JoinWindows.of(3).grace_period_ms() == DEPRECATED_DEFAULT_24_HR_GRACE_PERIOD - 6
    assert JoinWindows.of(DEPRECATED_DEFAULT_24_HR_GRACE_PERIOD).grace_period_ms() == 0
    assert JoinWindows.of(DEPRECATED_DEFAULT_24_HR_GRACE_PERIOD + 1).grace_period_ms() == 0


def test_no_grace_api_should_not_set_grace_period() -> None:
    for size in (3, ANY_SIZE, ANY_OTHER_SIZE):
        assert JoinWindows.of_time_difference_with_no_grace(size).grace_period_ms() == 0


def test_with_grace_api_should_set_grace_period() -> None:
    for size in (3, ANY_SIZE, ANY_OTHER_SIZE):
        assert JoinWindows.of_time_difference_and_grace(size, ANY_GRACE).grace_period_ms() \
            == ANY_GRACE


def test_equals_and_hashcode_should_be_valid_for_positive_cases() -> None:
    no_grace, grace = JoinWindows.of_time_difference_with_no_grace, \
        JoinWindows.of_time_difference_and_grace
    verify_equality(no_grace(3), no_grace(3))
    verify_equality(grace(3, 2), grace(3, 2))
    verify_equality(no_grace(3).after(2), no_grace(3).after(2))
    verify_equality(no_grace(3).before(2), no_grace(3).before(2))
    verify_equality(grace(3, 2).after(4), grace(3, 2).after(4))
    verify_equality(grace(3, 2).before(4), grace(3, 2).before(4))


def test_equals_and_hashcode_should_be_valid_for_negative_cases() -> None:
    no_grace, grace = JoinWindows.of_time_difference_with_no_grace, \
        JoinWindows.of_time_difference_and_grace
    verify_in_equality(no_grace(9), no_grace(3))
    verify_in_equality(grace(3, 9), grace(3, 2))
    verify_in_equality(no_grace(3).after(9), no_grace(3).after(2))
    verify_in_equality(no_grace(3).before(9), no_grace(3).before(2))
    verify_in_equality(grace(3, 3).before(9).after(2), grace(3, 3).before(1).after(2))
    verify_in_equality(grace(3, 3).before(1).after(9), grace(3, 3).before(1).after(2))
    verify_in_equality(grace(3, 9).before(1).after(2), grace(3, 3).before(1).after(2))
