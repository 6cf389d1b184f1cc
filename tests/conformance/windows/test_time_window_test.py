"""Kafka's ``TimeWindowTest`` (kstream.internals), translated to ``kslab.dsl.windows.TimeWindow``.

kslab's ``TimeWindow`` / ``SessionWindow`` are ``ks.Window`` subclasses (equal to a plain
``Window`` with the same bounds) with Java's validation and ``overlap``. Java's
``IllegalArgumentException`` is ``kslab.errors.InvalidArgumentError``. Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl import TimeWindows
from kslab.dsl.windows import SessionWindow, TimeWindow
from kslab.errors import InvalidArgumentError

START, END = 50, 100
WINDOW = TimeWindow(START, END)
SESSION_WINDOW = SessionWindow(START, END)


def test_end_must_be_larger_than_start() -> None:
    with pytest.raises(InvalidArgumentError):
        TimeWindow(START, START)


def test_should_not_overlap_if_other_window_is_before_this_window() -> None:
    assert not WINDOW.overlap(TimeWindow(0, 25))
    assert not WINDOW.overlap(TimeWindow(0, START - 1))
    assert not WINDOW.overlap(TimeWindow(0, START))


def test_should_overlap_if_other_window_end_is_within_this_window() -> None:
    for start, end in [(0, START + 1), (0, 75), (0, END - 1), (START - 1, START + 1),
                       (START - 1, 75), (START - 1, END - 1)]:
        assert WINDOW.overlap(TimeWindow(start, end))


def test_should_overlap_if_other_window_contains_this_window() -> None:
    for start, end in [(0, END), (0, END + 1), (0, 150), (START - 1, END), (START - 1, END + 1),
                       (START - 1, 150), (START, END), (START, END + 1), (START, 150)]:
        assert WINDOW.overlap(TimeWindow(start, end))


def test_should_overlap_if_other_window_is_within_this_window() -> None:
    for start, end in [(START, 75), (START, END), (75, END)]:
        assert WINDOW.overlap(TimeWindow(start, end))


def test_should_overlap_if_other_window_start_is_within_this_window() -> None:
    for start, end in [(START, END + 1), (START, 150), (75, END + 1), (75, 150)]:
        assert WINDOW.overlap(TimeWindow(start, end))


def test_should_not_overlap_is_other_window_is_after_this_window() -> None:
    for start, end in [(END, END + 1), (END, 150), (END + 1, 150), (125, 150)]:
        assert not WINDOW.overlap(TimeWindow(start, end))


def test_cannot_compare_time_window_with_different_window_type() -> None:
    with pytest.raises(InvalidArgumentError):
        WINDOW.overlap(SESSION_WINDOW)


def test_should_return_matched_windows_ordered_by_timestamp() -> None:
    matched = TimeWindows.of_size_with_no_grace(12).advance_by(5).windows_for(21)
    assert list(matched) == [10, 15, 20]
