"""Kafka's ``UnlimitedWindowTest`` (kstream.internals), translated to
``kslab.dsl.windows.UnlimitedWindow`` (Java's ``IllegalArgumentException`` is
``kslab.errors.InvalidArgumentError``). Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl.windows import SessionWindow, UnlimitedWindow
from kslab.errors import InvalidArgumentError

START = 50
WINDOW = UnlimitedWindow(START)
SESSION_WINDOW = SessionWindow(START, START)


def test_should_always_overlap() -> None:
    assert WINDOW.overlap(UnlimitedWindow(START - 1))
    assert WINDOW.overlap(UnlimitedWindow(START))
    assert WINDOW.overlap(UnlimitedWindow(START + 1))


def test_cannot_compare_unlimited_window_with_different_window_type() -> None:
    with pytest.raises(InvalidArgumentError):
        WINDOW.overlap(SESSION_WINDOW)
