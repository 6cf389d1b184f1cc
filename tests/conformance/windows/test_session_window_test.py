"""Kafka's ``SessionWindowTest`` (kstream.internals), translated to
``kslab.dsl.windows.SessionWindow`` (a ``ks.Window`` with Java's ``overlap``; Java's
``IllegalArgumentException`` is ``kslab.errors.InvalidArgumentError``). Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl.windows import SessionWindow, TimeWindow
from kslab.errors import InvalidArgumentError

START, END = 50, 100
WINDOW = SessionWindow(START, END)
TIME_WINDOW = TimeWindow(START, END)


def test_should_not_overlap_if_other_window_is_before_this_window() -> None:
    for start, end in [(0, 25), (0, START - 1), (START - 1, START - 1)]:
        assert not WINDOW.overlap(SessionWindow(start, end))


def test_should_overlap_if_other_window_end_is_within_this_window() -> None:
    for start, end in [(0, START), (0, START + 1), (0, 75), (0, END - 1), (0, END),
                       (START - 1, START), (START - 1, START + 1), (START - 1, 75),
                       (START - 1, END - 1), (START - 1, END)]:
        assert WINDOW.overlap(SessionWindow(start, end))


def test_should_overlap_if_other_window_contains_this_window() -> None:
    for start, end in [(0, END), (0, END + 1), (0, 150), (START - 1, END), (START - 1, END + 1),
                       (START - 1, 150), (START, END), (START, END + 1), (START, 150)]:
        assert WINDOW.overlap(SessionWindow(start, end))


def test_should_overlap_if_other_window_is_within_this_window() -> None:
    for start, end in [(START, START), (START, 75), (START, END), (75, END), (END, END)]:
        assert WINDOW.overlap(SessionWindow(start, end))


def test_should_overlap_if_other_window_start_is_within_this_window() -> None:
    for start, end in [(START, END + 1), (START, 150), (75, END + 1), (75, 150), (END, END + 1),
                       (END, 150)]:
        assert WINDOW.overlap(SessionWindow(start, end))


def test_should_not_overlap_is_other_window_is_after_this_window() -> None:
    for start, end in [(END + 1, END + 1), (END + 1, 150), (125, 150)]:
        assert not WINDOW.overlap(SessionWindow(start, end))


def test_cannot_compare_session_window_with_different_window_type() -> None:
    with pytest.raises(InvalidArgumentError):
        WINDOW.overlap(TIME_WINDOW)
