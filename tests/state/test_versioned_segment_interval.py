"""``Stores.persistent_versioned_key_value_store(name, history, segment_interval)`` keeps the
segment interval it validates, as Java's ``RocksDbVersionedKeyValueBytesStoreSupplier`` does."""

from __future__ import annotations

import datetime as dt

import pytest

import kslab as ks
from kslab.state.base import InvalidStoreArgumentError


def test_given_segment_interval_is_kept():
    supplier = ks.Stores.persistent_versioned_key_value_store("s", 60_000, 5_000)
    assert supplier.segment_interval_ms() == 5_000
    supplier = ks.Stores.persistent_versioned_key_value_store(
        "s", dt.timedelta(hours=1), dt.timedelta(seconds=7))
    assert supplier.segment_interval_ms() == 7_000


def test_without_segment_interval_the_default_for_the_history_retention():
    assert ks.Stores.persistent_versioned_key_value_store(
        "s", 60_000).segment_interval_ms() == 20_000
    assert ks.Stores.persistent_versioned_key_value_store(
        "s", 2 * 3_600_000).segment_interval_ms() == 300_000


@pytest.mark.parametrize("interval", [0, -1, "10s"])
def test_bad_segment_interval_is_refused(interval):
    with pytest.raises(InvalidStoreArgumentError):
        ks.Stores.persistent_versioned_key_value_store("s", 60_000, interval)
