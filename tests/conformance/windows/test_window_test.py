"""Kafka's ``WindowTest`` (kstream), translated to kslab's typed windows.

Java subclasses the abstract ``Window`` twice (``TestWindow``, ``TestWindow2``); kslab's
``ks.Window`` is a plain value, and its typed subclasses in ``kslab.dsl.windows`` carry Java's
base-class checks: ``SessionWindow`` (bounds as in Java's base ``Window``: start >= 0, end >=
start) stands for ``TestWindow`` and ``UnlimitedWindow`` for the other kind. Java's
``IllegalArgumentException`` is ``kslab.errors.InvalidArgumentError``. Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.dsl.windows import SessionWindow, UnlimitedWindow
from kslab.errors import InvalidArgumentError

_TEST_WINDOW = SessionWindow  # Java's TestWindow
window = _TEST_WINDOW(5, 10)


def test_should_throw_if_start_is_negative() -> None:
    with pytest.raises(InvalidArgumentError, match=r"startMs time cannot be negative\."):
        _TEST_WINDOW(-1, 0)


def test_should_throw_if_end_is_smaller_than_start() -> None:
    with pytest.raises(InvalidArgumentError, match=r"cannot be smaller than window startMs"):
        _TEST_WINDOW(1, 0)


def test_should_be_equal_if_start_and_end_same() -> None:
    window2 = _TEST_WINDOW(window.start, window.end)
    assert window == window
    assert window == window2
    assert window2 == window
    assert hash(window) == hash(window2)


def test_should_not_be_equal_if_null() -> None:
    assert window != None  # noqa: E711


def test_should_not_be_equal_if_start_or_end_is_different() -> None:
    for start, end in [(0, window.end), (7, window.end), (window.start, 7), (window.start, 15),
                       (7, 8), (0, 15)]:
        assert window != _TEST_WINDOW(start, end)


def test_should_not_be_equal_if_different_window_type() -> None:
    assert window != UnlimitedWindow(window.start, window.end)
