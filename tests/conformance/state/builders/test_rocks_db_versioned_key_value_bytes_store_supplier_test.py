"""Kafka's ``RocksDbVersionedKeyValueBytesStoreSupplierTest`` (streams, state/internals),
translated to kslab's ``VersionedBytesStoreSupplier`` (what
``Stores.persistent_versioned_key_value_store`` returns). Nothing is skipped.
"""

from __future__ import annotations

import pytest

from kslab.state.versioned import VersionedBytesStoreSupplier

STORE_NAME = "versioned_store"


@pytest.mark.parametrize(("history_retention", "expected_segment_interval"), [
    (0, 2_000), (1_000, 2_000), (6_000, 2_000), (30_000, 10_000), (60_000, 20_000),
    (80_000, 20_000), (100_000, 20_000), (200_000, 40_000), (300_000, 60_000),
    (600_000, 60_000), (720_000, 60_000), (1_200_000, 100_000), (3_600_000, 300_000),
    (6_000_000, 300_000), (7_200_000, 300_000), (24 * 3_600_000, 3_600_000),
])
def test_should_use_default_segment_interval(history_retention, expected_segment_interval):
    supplier = VersionedBytesStoreSupplier(STORE_NAME, history_retention)
    assert supplier.segment_interval_ms() == expected_segment_interval
