"""Kafka's ``TimeOrderedWindowStoreTest`` (state/internals): the cases it shares with
``TimeOrderedCachingPersistentWindowStoreTest`` are in ``_time_ordered_window_store_cases``, whose
docstring gives the mapping, the skips and the strict xfails; its own test is
``shouldForwardOldValuesWhenDisabled``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conformance.state._time_ordered_window_store_cases import *  # noqa: F403
from tests.conformance.state._time_ordered_window_store_cases import (
    Setup,
    cached,
    check_no_duplicates_in_ranges,
    check_old_values_when_disabled,
)


@pytest.mark.parametrize("has_index", [True, False])
def test_should_not_return_duplicates_in_ranges(has_index: bool, tmp_path: Any) -> None:
    check_no_duplicates_in_ranges(has_index, tmp_path, forward=True)


@cached()
def test_should_forward_old_values_when_disabled(setup: Setup) -> None:
    check_old_values_when_disabled(setup)
