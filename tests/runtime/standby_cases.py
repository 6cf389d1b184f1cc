"""The application and config the standby tests share with their child process: a count per
key (the input's key, so the store's partition is the input's) in a persistent or in-memory
store."""

from __future__ import annotations

from typing import Any

from apps import Counter

import kslab as ks
from kslab import serdes


def count_app(source: str, sink: str, *, persistent: bool = True) -> ks.Topology:
    """Count records per key of ``source`` into 'counts', write ``(key, count)`` to ``sink``."""
    supplier = (ks.Stores.persistent_key_value_store("counts") if persistent
                else ks.Stores.in_memory_key_value_store("counts"))
    topo = ks.Topology()
    topo.add_source("in", source, key_serde=serdes.String(), value_serde=serdes.String())
    topo.add_processor("count", Counter, "in")  # counts per key, whatever it holds
    topo.add_state_store(
        ks.Stores.key_value_store_builder(supplier, serdes.String(), serdes.Long()), "count")
    topo.add_sink("out", sink, "count", key_serde=serdes.String(), value_serde=serdes.Long())
    return topo


def standby_config(bootstrap: str, app_id: str, state_dir: str, server: str,
                   replicas: int) -> dict[str, Any]:
    """Fast group settings, every update in the changelog, ``replicas`` standbys."""
    return {
        "application.id": app_id,
        "bootstrap.servers": bootstrap,
        "state.dir": state_dir,
        "application.server": server,
        "num.standby.replicas": replicas,
        "commit.interval.ms": 100,
        "statestore.cache.max.bytes": 0,
        "consumer.session.timeout.ms": 6000,
        "consumer.heartbeat.interval.ms": 500,
    }
