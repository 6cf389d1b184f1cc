"""Kafka's ``InMemoryKeyValueLoggedStoreTest``: the ``AbstractKeyValueStoreTest`` tests
(``_abstract_key_value_store_tests``) over ``Stores.in_memory_key_value_store("my-store")``
behind a ``key_value_store_builder`` with logging enabled (topic config ``retention.ms`` 1000).

Mapping: as ``test_in_memory_key_value_store_test`` (``RecordingContext`` is the Java
``KeyValueStoreTestDriver``, whose changelog the logged store writes). Nothing is skipped.
"""

from __future__ import annotations

from typing import Any

import pytest

import kslab as ks
from tests.conformance.state._abstract_key_value_store_tests import *  # noqa: F403
from tests.conformance.state._kv_store_support import RecordingContext


@pytest.fixture
def create_store() -> Any:
    def create(context: RecordingContext) -> Any:
        opened = ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("my-store"),
            context.default_key_serde, context.default_value_serde,
        ).with_logging_enabled({"retention.ms": "1000"}).build()
        opened.init(context, opened)
        return opened
    return create
