"""Kafka's ``TimeWindowsTest`` (kstream), translated to kslab's ``TimeWindows``.

Java's ``IllegalArgumentException`` maps to ``kslab.errors.InvalidArgumentError`` (kslab's window
specs raise ``WindowSpecError``, which is that and a ``ks.TopologyError``); ``ofMillis(n)`` is the
int ``n``; the public fields ``sizeMs`` / ``advanceMs`` are ``size_ms`` / ``advance_ms``; Java's
``EqualityCheck.verifyEquality`` is ``==`` / ``hash`` (and ``!=`` for ``verifyInEquality``).
Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl import TimeWindows
from kslab.errors import InvalidArgumentError
from kslab.records import Window

ANY_SIZE = 123
ANY_GRACE = 1024


def verify_equality(one: object, two: object) -> None:
    assert one == two and two == one
    assert hash(one) == hash(two)
    assert one != "not a window" and one is not None


def verify_in_equality(one: object, two: object) -> None:
    assert one != two and two != one
    assert not one == two  # noqa: SIM201


def test_should_set_window_size() -> None:
    assert TimeWindows.of_size_with_no_grace(ANY_SIZE).size_ms == ANY_SIZE
    assert TimeWindows.of_size_and_grace(ANY_SIZE, ANY_GRACE).size_ms == ANY_SIZE


def test_should_set_window_advance() -> None:
    assert TimeWindows.of_size_with_no_grace(ANY_SIZE).advance_by(4).advance_ms == 4


def test_window_size_must_not_be_zero() -> None:
    with pytest.raises(InvalidArgumentError):
        TimeWindows.of_size_with_no_grace(0)


def test_window_size_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError):
        TimeWindows.of_size_with_no_grace(-1)


def test_advance_interval_must_not_be_zero() -> None:
    with pytest.raises(InvalidArgumentError):
        TimeWindows.of_size_with_no_grace(ANY_SIZE).advance_by(0)


def test_advance_interval_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError):
        TimeWindows.of_size_with_no_grace(ANY_SIZE).advance_by(-1)


def test_advance_interval_must_not_be_larger_than_window_size() -> None:
    with pytest.raises(InvalidArgumentError, match="given advancement interval is: 124 ms"):
        TimeWindows.of_size_with_no_grace(ANY_SIZE).advance_by(ANY_SIZE + 1)


def test_grace_period_should_enforce_boundaries() -> None:
    TimeWindows.of_size_and_grace(3, 0)
    with pytest.raises(InvalidArgumentError, match=r"Grace period must not be negative\."):
        TimeWindows.of_size_and_grace(3, -1)


def test_should_compute_windows_for_hopping_windows() -> None:
    matched = TimeWindows.of_size_with_no_grace(12).advance_by(5).windows_for(21)
    assert len(matched) == 12 // 5 + 1
    assert matched[10] == Window(10, 22)
    assert matched[15] == Window(15, 27)
    assert matched[20] == Window(20, 32)


def test_should_compute_windows_for_barely_overlapping_hopping_windows() -> None:
    matched = TimeWindows.of_size_with_no_grace(6).advance_by(5).windows_for(7)
    assert len(matched) == 1
    assert matched[5] == Window(5, 11)


def test_should_compute_windows_for_tumbling_windows() -> None:
    matched = TimeWindows.of_size_with_no_grace(12).windows_for(21)
    assert len(matched) == 1
    assert matched[12] == Window(12, 24)


def test_equals_and_hashcode_should_be_valid_for_positive_cases() -> None:
    verify_equality(TimeWindows.of_size_with_no_grace(3), TimeWindows.of_size_with_no_grace(3))
    verify_equality(TimeWindows.of_size_with_no_grace(3).advance_by(1),
                    TimeWindows.of_size_with_no_grace(3).advance_by(1))
    verify_equality(TimeWindows.of_size_and_grace(3, 4), TimeWindows.of_size_and_grace(3, 4))
    verify_equality(TimeWindows.of_size_and_grace(3, 33), TimeWindows.of_size_and_grace(3, 33))


def test_equals_and_hashcode_should_be_valid_for_negative_cases() -> None:
    verify_in_equality(TimeWindows.of_size_with_no_grace(9), TimeWindows.of_size_with_no_grace(3))
    verify_in_equality(TimeWindows.of_size_and_grace(9, 9), TimeWindows.of_size_and_grace(3, 9))
    verify_in_equality(TimeWindows.of_size_with_no_grace(3).advance_by(2),
                       TimeWindows.of_size_with_no_grace(3).advance_by(1))
    verify_in_equality(TimeWindows.of_size_and_grace(3, 2), TimeWindows.of_size_and_grace(3, 1))
    verify_in_equality(TimeWindows.of_size_and_grace(3, 9), TimeWindows.of_size_and_grace(3, 4))
    verify_in_equality(TimeWindows.of_size_and_grace(4, 2).advance_by(2),
                       TimeWindows.of_size_and_grace(3, 2).advance_by(2))
    verify_in_equality(TimeWindows.of_size_and_grace(3, 2).advance_by(1),
                       TimeWindows.of_size_and_grace(3, 2).advance_by(2))
    assert TimeWindows.of_size_and_grace(3, 1).advance_by(2) != \
        TimeWindows.of_size_and_grace(3, 2).advance_by(2)
