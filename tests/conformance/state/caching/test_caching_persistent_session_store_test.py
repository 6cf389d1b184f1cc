"""Kafka's ``CachingPersistentSessionStoreTest``: ``CachingSessionStore`` over a RocksDB
session store of ``Bytes`` keys and values, with a 600-byte thread cache.

The tests (and how Java maps to kslab, and what is skipped) are in
``_caching_session_store_cases.py``, shared with the other caching session store test.
"""

from __future__ import annotations

import pytest

from tests.conformance.state.caching._caching_session_store_cases import *  # noqa: F403


@pytest.fixture
def store_kind() -> str:
    return "rocks_db"
