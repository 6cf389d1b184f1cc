"""The global thread: fills global stores from all partitions of their topics, keeps them current.

It runs the topology's global-store nodes as one core ``StreamTask`` over all partitions of the
global topics, with a consumer outside the group. Invariant: ``bootstrap`` returns only after
every global partition was read to the end the broker reports (partition EOF, not the
watermark), so no stream task processes a record before the global stores are filled.
The bootstrap is the global stores' restore: the client's restore listener and each global
store's own one hear it (``kslab.runtime._restore``), one batch per partition per poll.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from kslab.core.global_task import GLOBAL_TASK, NoOutput, global_nodes
from kslab.core.task import StreamTask
from kslab.errors import StreamsError
from kslab.runtime._restore import RestoreNotifier

if TYPE_CHECKING:
    from kslab.runtime._events import ThreadEvents
    from kslab.runtime.streams import KafkaStreams

__all__ = ["GlobalThread"]

log = logging.getLogger("kslab.runtime")


class GlobalThread(threading.Thread):
    """Bootstraps the global stores, then follows their topics until shut down."""

    def __init__(self, streams: KafkaStreams, events: ThreadEvents) -> None:
        super().__init__(name=f"{streams.client_id}-GlobalStreamThread", daemon=True)
        self.streams = streams
        self.events = events  # what the thread tells its client
        self._halt = threading.Event()
        self.task: StreamTask | None = None
        self.consumer: Any = None
        self.processed = 0

    def bootstrap(self) -> None:
        """Build the global task and read every global partition to its end."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

        streams = self.streams
        topo = streams.topology
        inputs = [(t, p) for t in streams.plan.global_topics
                  for p in range(streams.partition_count(t))]
        directory = streams.state_root / "global"
        directory.mkdir(parents=True, exist_ok=True)
        self.task = StreamTask(
            GLOBAL_TASK, topo, global_nodes(topo), config=streams.config,
            application_id=streams.application_id, collector=NoOutput(),
            clock=lambda: int(time.time() * 1000), input_partitions=inputs,
            state_dir=directory, global_stores={}, on_skip=self.events.skipped_record,
        )
        self.task.initialize()
        streams.global_stores.update(self.task.stores)
        self.consumer = Consumer({**streams.restore_config(), "enable.partition.eof": True,
                                  "group.id": f"{streams.application_id}-global"})
        self.consumer.assign([TopicPartition(t, p, OFFSET_BEGINNING) for t, p in inputs])
        marks = {tp: self.consumer.get_watermark_offsets(TopicPartition(*tp), timeout=10)
                 for tp in inputs}
        notify = RestoreNotifier(
            streams.restore_listener, {spec.topic: name for name, spec in
                                       topo.global_stores.items()}, self.task.restore_listeners)
        notify.start({tp: max(low, 0) for tp, (low, _) in marks.items()},
                     lambda topic, partition: marks[(topic, partition)][1])
        pending = set(inputs)
        deadline = time.monotonic() + 120
        while pending:
            batches: dict[tuple[str, int], list[int]] = {}  # partition -> [count, last offset]
            for message in self.consumer.consume(10000, 0.2):
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        pending.discard((message.topic(), message.partition()))
                        continue
                    msg = f"bootstrapping global stores failed: {error}"
                    raise StreamsError(msg)
                self._add(message)
                batch = batches.setdefault((message.topic(), message.partition()), [0, 0])
                batch[0] += 1
                batch[1] = message.offset()
            self._drain()
            for (topic, partition), (count, last) in sorted(batches.items()):
                notify.batch(topic, partition, last, count)
            if time.monotonic() > deadline:
                msg = f"global stores did not reach the end of {sorted(pending)} in 120 s"
                raise StreamsError(msg)
        self.task.flush()
        notify.end({tp: 0 for tp in inputs})

    def _add(self, message: Any) -> None:
        assert self.task is not None
        self.task.add_record((message.topic(), message.partition(), message.offset(),
                              message.timestamp()[1], message.key(), message.value(),
                              message.headers()))

    def _drain(self) -> None:
        task = self.task
        assert task is not None
        while task.process():
            self.processed += 1
        task.commit()

    def run(self) -> None:
        """Apply new records of the global topics as they arrive."""
        try:
            while not self._halt.is_set():
                messages = self.consumer.consume(1000, 0.1)
                for message in messages:
                    if message.error() is None:
                        self._add(message)
                if messages:
                    self._drain()
        except BaseException as exc:
            log.error("global thread failed: %s", exc, exc_info=exc)
            self.events.global_failed(exc)
        finally:
            self.close()

    def shutdown(self) -> None:
        """Stop following the topics."""
        self._halt.set()

    def close(self) -> None:
        """Close the consumer and the global stores."""
        if self.consumer is not None:
            consumer, self.consumer = self.consumer, None
            consumer.close()
        if self.task is not None:
            task, self.task = self.task, None
            task.close()

