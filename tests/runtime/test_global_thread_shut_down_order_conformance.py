"""Kafka's ``GlobalThreadShutDownOrderTest`` (streams/src/test/.../integration) on the live
runtime (a LocalBroker): a stream processor reads the global store ``globalStore`` in its
``close()``, slowly (a second per key); ``close()`` of the client must end the stream threads
before it closes the global store, so every read finds its value, and the processor is closed
once.

Mapping: Java's ``KeyValueStoreBuilder`` with a mock time is ``Stores.key_value_store_builder``;
the global store's updater puts each record.
"""

from __future__ import annotations

import time

from runtime_fixtures import wait_for

import kslab as ks
from kslab import serdes

STR, LONG = serdes.String(), serdes.Long()
RECORDS = [("A", 1), ("B", 2), ("C", 3), ("D", 4)]


class _Updater(ks.Processor):
    def init(self, context) -> None:
        self.store = context.get_state_store("globalStore")

    def process(self, record) -> None:
        self.store.put(record.key, record.value)


def test_should_finish_global_store_operation_on_shut_down(kafka):
    seen = {"first": False, "closes": 0, "values": []}

    class GlobalStoreProcessor(ks.Processor):
        def init(self, context) -> None:
            self.store = context.get_state_store("globalStore")

        def process(self, record) -> None:
            seen["first"] = True

        def close(self) -> None:
            seen["closes"] += 1
            for key in ("A", "B", "C", "D"):
                time.sleep(1)  # a thread slow to close
                seen["values"].append(self.store.get(key))

    global_topic = kafka.create(kafka.name("global-store-topic"))
    stream_topic = kafka.create(kafka.name("stream-topic"))
    builder = ks.StreamsBuilder()
    builder.add_global_store(
        ks.Stores.key_value_store_builder(ks.Stores.persistent_key_value_store("globalStore"),
                                          STR, LONG),
        global_topic, ks.Consumed.with_(STR, LONG), _Updater)
    builder.stream(stream_topic, ks.Consumed.with_(STR, LONG)).process(GlobalStoreProcessor)
    streams = kafka.track(ks.KafkaStreams(builder.build(), kafka.config(
        "app", auto__offset__reset="earliest", statestore__cache__max__bytes=0,
        commit__interval__ms=100)))
    for topic in (global_topic, stream_topic):
        kafka.produce(topic, [(STR.serialize(topic, k), LONG.serialize(topic, v))
                              for k, v in RECORDS])
    streams.start()
    assert wait_for(lambda: seen["first"], timeout=30), "no record processed within 30 s"
    assert streams.close(30_000)
    assert seen["values"] == [1, 2, 3, 4]
    assert seen["closes"] == 1
