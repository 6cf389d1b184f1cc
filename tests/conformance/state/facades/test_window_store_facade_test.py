"""Kafka's ``WindowStoreFacadeTest`` (test-utils): the plain window view of a timestamped window
store that ``driver.get_window_store`` hands out, over a mocked ``TimestampedWindowStore``.

Mapping: ``ConsumerRecord.NO_TIMESTAMP`` is -1; ``name()``, ``persistent()`` and ``isOpen()`` are
the properties ``name``, ``persistent`` and ``is_open``; the facade is
``kslab.state.window.WindowStoreFacade`` (what ``TimestampedWindowStore.plain_view()`` returns).
Nothing is skipped.
"""

from __future__ import annotations

from unittest import mock

import pytest

import kslab as ks
from kslab.state import TimestampedWindowStore
from kslab.state.window import WindowStoreFacade


@pytest.fixture
def inner() -> mock.Mock:
    return mock.create_autospec(TimestampedWindowStore, instance=True)


@pytest.fixture
def facade(inner: mock.Mock) -> WindowStoreFacade:
    return WindowStoreFacade(inner)


def test_should_forward_init(facade: WindowStoreFacade, inner: mock.Mock) -> None:
    context, root = object(), object()
    facade.init(context, root)
    inner.init.assert_called_once_with(context, root)


def test_should_put_window_start_timestamp_with_unknown_timestamp(
        facade: WindowStoreFacade, inner: mock.Mock) -> None:
    facade.put("key", "value", 21)
    inner.put.assert_called_once_with("key", ks.ValueAndTimestamp("value", -1), 21)


def test_should_forward_flush(facade: WindowStoreFacade, inner: mock.Mock) -> None:
    facade.flush()
    inner.flush.assert_called_once_with()


def test_should_forward_close(facade: WindowStoreFacade, inner: mock.Mock) -> None:
    facade.close()
    inner.close.assert_called_once_with()


def test_should_return_name() -> None:
    inner = mock.Mock()
    name = mock.PropertyMock(return_value="name")
    type(inner).name = name
    assert WindowStoreFacade(inner).name == "name"
    name.assert_called_once_with()


def test_should_return_is_persistent() -> None:
    inner = mock.Mock()
    persistent = mock.PropertyMock(side_effect=[True, False])
    type(inner).persistent = persistent
    facade = WindowStoreFacade(inner)
    assert facade.persistent is True
    assert facade.persistent is False
    assert persistent.call_count == 2


def test_should_return_is_open() -> None:
    inner = mock.Mock()
    is_open = mock.PropertyMock(side_effect=[True, False])
    type(inner).is_open = is_open
    facade = WindowStoreFacade(inner)
    assert facade.is_open is True
    assert facade.is_open is False
    assert is_open.call_count == 2
