"""Kafka's ``UnlimitedWindowsTest`` (kstream), translated to a ``UnlimitedWindows`` window spec.

Java's ``UnlimitedWindows.of().startOn(ofEpochMilli(t))`` would be
``UnlimitedWindows.of().start_on(t)`` with ``start_ms`` and ``windows_for(ts)`` (a dict of start
to ``kslab.dsl.windows.UnlimitedWindow``), as ``TimeWindows`` spells Java's methods. kslab has
``UnlimitedWindow`` but no ``UnlimitedWindows`` spec, so every test is xfail (see the reason).
Nothing is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab.dsl.windows as windows_module
from kslab.dsl.windows import UnlimitedWindow
from kslab.errors import InvalidArgumentError

ANY_START_TIME = 10

pytestmark = pytest.mark.xfail(strict=True, raises=AttributeError, reason=(
    "kslab has no UnlimitedWindows (Java's kstream.UnlimitedWindows). Fix in "
    "kslab/dsl/windows.py (export as ks.UnlimitedWindows, accept in windowed_by): a window spec "
    "with of() (start 0), start_on(ms | datetime) (negative: InvalidArgumentError 'Window start "
    "time (startMs) cannot be negative.'), start_ms, windows_for(ts) -> {start_ms: "
    "UnlimitedWindow(start_ms)} when ts >= start_ms else {}, size() = 2**63-1, "
    "grace_period_ms() = 0, equality and hash by start_ms (a _ByValue subclass, as TimeWindows)"))


def _unlimited_windows() -> Any:
    return windows_module.UnlimitedWindows  # type: ignore[attr-defined]


def verify_equality(one: object, two: object) -> None:
    assert one == two and two == one
    assert hash(one) == hash(two)
    assert one != "not a window" and one is not None


def verify_in_equality(one: object, two: object) -> None:
    assert one != two and two != one


def test_should_set_window_start_time() -> None:
    assert _unlimited_windows().of().start_on(ANY_START_TIME).start_ms == ANY_START_TIME


def test_start_time_must_not_be_negative() -> None:
    with pytest.raises(InvalidArgumentError):
        _unlimited_windows().of().start_on(-1)


def test_should_include_records_that_happened_on_window_start() -> None:
    w = _unlimited_windows().of().start_on(ANY_START_TIME)
    matched = w.windows_for(w.start_ms)
    assert len(matched) == 1
    assert matched[ANY_START_TIME] == UnlimitedWindow(ANY_START_TIME)


def test_should_include_records_that_happened_after_window_start() -> None:
    w = _unlimited_windows().of().start_on(ANY_START_TIME)
    matched = w.windows_for(w.start_ms + 1)
    assert len(matched) == 1
    assert matched[ANY_START_TIME] == UnlimitedWindow(ANY_START_TIME)


def test_should_exclude_records_that_happened_before_window_start() -> None:
    w = _unlimited_windows().of().start_on(ANY_START_TIME)
    assert w.windows_for(w.start_ms - 1) == {}


def test_equals_and_hashcode_should_be_valid_for_positive_cases() -> None:
    unlimited = _unlimited_windows()
    verify_equality(unlimited.of(), unlimited.of())
    verify_equality(unlimited.of().start_on(1), unlimited.of().start_on(1))


def test_equals_and_hashcode_should_be_valid_for_negative_cases() -> None:
    unlimited = _unlimited_windows()
    verify_in_equality(unlimited.of().start_on(9), unlimited.of().start_on(1))
