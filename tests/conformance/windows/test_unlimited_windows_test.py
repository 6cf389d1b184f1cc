"""Kafka's ``UnlimitedWindowsTest`` (kstream), translated to a ``UnlimitedWindows`` window spec.

Java's ``UnlimitedWindows.of().startOn(ofEpochMilli(t))`` would be
``UnlimitedWindows.of().start_on(t)`` (``kslab.dsl.windows.UnlimitedWindows``) with ``start_ms``
and ``windows_for(ts)`` (a dict of start to ``kslab.dsl.windows.UnlimitedWindow``), as
``TimeWindows`` spells Java's methods. Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl.windows import UnlimitedWindow, UnlimitedWindows
from kslab.errors import InvalidArgumentError

ANY_START_TIME = 10


def verify_equality(one: object, two: object) -> None:
    assert one == two and two == one
    assert hash(one) == hash(two)
    assert one != "not a window" and one is not None


def verify_in_equality(one: object, two: object) -> None:
    assert one != two and two != one


def test_should_set_window_start_time() -> None:
    assert UnlimitedWindows.of().start_on(ANY_START_TIME).start_ms == ANY_START_TIME


def test_start_time_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError):
        UnlimitedWindows.of().start_on(-1)


def test_should_include_records_that_happened_on_window_start() -> None:
    w = UnlimitedWindows.of().start_on(ANY_START_TIME)
    matched = w.windows_for(w.start_ms)
    assert len(matched) == 1
    assert matched[ANY_START_TIME] == UnlimitedWindow(ANY_START_TIME)


def test_should_include_records_that_happened_after_window_start() -> None:
    w = UnlimitedWindows.of().start_on(ANY_START_TIME)
    matched = w.windows_for(w.start_ms + 1)
    assert len(matched) == 1
    assert matched[ANY_START_TIME] == UnlimitedWindow(ANY_START_TIME)


def test_should_exclude_records_that_happened_before_window_start() -> None:
    w = UnlimitedWindows.of().start_on(ANY_START_TIME)
    assert w.windows_for(w.start_ms - 1) == {}


def test_equals_and_hashcode_should_be_valid_for_positive_cases() -> None:
    verify_equality(UnlimitedWindows.of(), UnlimitedWindows.of())
    verify_equality(UnlimitedWindows.of().start_on(1), UnlimitedWindows.of().start_on(1))


def test_equals_and_hashcode_should_be_valid_for_negative_cases() -> None:
    verify_in_equality(UnlimitedWindows.of().start_on(9), UnlimitedWindows.of().start_on(1))
