"""State stores: typed key-value views over byte backends, their suppliers, builders and contracts.

``Stores`` makes suppliers and builders; a builder's ``build()`` gives a ``StateStore`` that the
engine initializes with a ``StoreContext``. ``base`` holds the contracts, ``backends`` one module
per storage engine.
"""

from kslab.state.base import (
    StateSerdes,
    StateStore,
    StoreBuilder,
    StoreContext,
    StoreSupplier,
    ValueAndTimestampSerde,
)
from kslab.state.builders import KeyValueStoreBuilder, TimestampedKeyValueStoreBuilder
from kslab.state.iterators import KeyValueIterator
from kslab.state.keyvalue import KeyValueStore
from kslab.state.session import SessionStore
from kslab.state.stores import Stores
from kslab.state.suppliers import KeyValueBytesStoreSupplier
from kslab.state.timestamped import KeyValueStoreFacade, TimestampedKeyValueStore
from kslab.state.versioned import VersionedKeyValueStore, VersionedKeyValueStoreBuilder
from kslab.state.window import TimestampedWindowStore, WindowStore
from kslab.state.windowed_builders import (
    SessionBytesStoreSupplier,
    SessionStoreBuilder,
    TimestampedWindowStoreBuilder,
    WindowBytesStoreSupplier,
    WindowStoreBuilder,
)

__all__ = [
    "KeyValueBytesStoreSupplier",
    "KeyValueIterator",
    "KeyValueStore",
    "KeyValueStoreBuilder",
    "KeyValueStoreFacade",
    "SessionBytesStoreSupplier",
    "SessionStore",
    "SessionStoreBuilder",
    "StateSerdes",
    "StateStore",
    "StoreBuilder",
    "StoreContext",
    "StoreSupplier",
    "Stores",
    "TimestampedKeyValueStore",
    "TimestampedKeyValueStoreBuilder",
    "TimestampedWindowStore",
    "TimestampedWindowStoreBuilder",
    "ValueAndTimestampSerde",
    "VersionedKeyValueStore",
    "VersionedKeyValueStoreBuilder",
    "WindowBytesStoreSupplier",
    "WindowStore",
    "WindowStoreBuilder",
]
