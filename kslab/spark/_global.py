"""Global stores in Spark streaming: each Python worker keeps up its own global task.

Kafka Streams gives every instance a global thread that bootstraps the global stores from their
topics before any stream task runs, then follows the topics. Here every Spark Python worker
that runs a task of the application holds one ``GlobalFeed``: the topology's global task (its
processors — a ``GlobalKTable``'s or ``add_global_store``'s own — and stores), built empty on
the worker's first task and filled from offset 0, then, before each stream task the worker runs
processes its micro-batch, fed the global topics' records from where it stopped to their ends
(read from Kafka, as the global thread keeps up). Invariant: a stream task reads global stores
holding at least everything on the global topics when its micro-batch started; like Kafka
Streams' global thread, how far past that is a matter of timing, not of the checkpoint (global
stores are not part of Spark state: a restarted worker bootstraps again from the topics).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from kslab.config import REPLAY_DEFAULTS, StreamsConfig
from kslab.core.task import StreamTask
from kslab.spark._global_task import feed_global, global_task
from kslab.spark.kafka import KafkaPartition, log_ends, read_range
from kslab.topology.topology import Topology

__all__ = ["GlobalFeed", "global_feed"]

# one feed per (application, broker, global topics, global nodes) in this Python worker
_FEEDS: dict[tuple[Any, ...], GlobalFeed] = {}


class GlobalFeed:
    """An application's global task in this process, and how far it has read each partition."""

    def __init__(self, topology: Topology, props: dict[str, Any], application_id: str,
                 partition_counts: dict[str, int], servers: str) -> None:
        self.state_dir = Path(tempfile.mkdtemp(prefix="kslab-spark-global-"))
        atexit.register(shutil.rmtree, self.state_dir, True)
        config = StreamsConfig({**REPLAY_DEFAULTS, **props})
        self.task: StreamTask = global_task(topology, config, application_id,
                                            lambda: int(time.time() * 1000), partition_counts,
                                            self.state_dir)
        self.options = {"kafka.bootstrap.servers": servers}
        self.positions = {tp: 0 for tp in self.task.partition_group.queues}

    def catch_up(self) -> int:
        """Feed the global task every record from where it stopped to the topics' ends now;
        how many."""
        bounds = log_ends(self.options, sorted(self.positions))
        records: list[tuple[Any, ...]] = []
        for (topic, partition), start in sorted(self.positions.items()):
            low, end = bounds[(topic, partition)]
            start = max(start, low)
            if end > start:
                for batch in read_range(self.options,
                                        KafkaPartition(topic, partition, start, end)):
                    cols = batch.to_pydict()
                    records.extend(zip(cols["topic"], cols["partition"], cols["offset"],
                                       cols["timestamp"], cols["key"], cols["value"],
                                       cols["headers"], strict=True))
            self.positions[(topic, partition)] = max(start, end)
        if records:
            feed_global(self.task, records)
        return len(records)


def global_feed(topology: Topology, props: dict[str, Any], application_id: str,
                partition_counts: dict[str, int], servers: str) -> GlobalFeed:
    """This worker's feed for the application, caught up to the global topics' ends."""
    key = (application_id, servers,
           tuple(sorted((n, s.topic) for n, s in topology.global_stores.items())),
           tuple(sorted(topology.nodes)))
    feed = _FEEDS.get(key)
    if feed is None:
        feed = _FEEDS[key] = GlobalFeed(topology, props, application_id, partition_counts,
                                        servers)
    feed.catch_up()
    return feed
