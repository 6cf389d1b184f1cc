"""A source topic serving as a table's changelog (``topology.optimization=all``) restores up to
the group's committed offset only, as Java's ``StoreChangelogReader``: the records after it are
processed (their old values as the store had them then), not restored first. Restored to the
end, a fresh application's table saw every record as an update of itself (an inner foreign-key
join then sent a tombstone for a key without a match)."""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()


def _restored(streams: ks.KafkaStreams) -> int:
    return sum(t["restore-total"] for t in streams.metrics()["threads"].values())


def _app(kafka, source: str, sink: str, config: dict) -> ks.KafkaStreams:
    builder = ks.StreamsBuilder()
    builder.table(source, ks.Consumed.with_(S, S), ks.Materialized.as_("t")) \
        .to_stream().to(sink, ks.Produced.with_(S, S))
    return kafka.track(ks.KafkaStreams(builder.build(config), config))


def test_the_source_changelog_restores_up_to_the_committed_offset(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    kafka.produce(source, [(b"a", b"1"), (b"b", b"1"), (b"a", b"2")])
    config = kafka.config("source-restore", topology__optimization="all",
                          statestore__cache__max__bytes=0)
    first = _app(kafka, source, sink, config)
    first.start()
    assert len(kafka.read(sink, 3)) == 3
    assert _restored(first) == 0  # nothing committed: every record is processed, none restored
    assert first.close(timeout=10_000)  # commits offset 3
    first.cleanup()

    kafka.produce(source, [(b"b", b"2"), (b"c", b"1")])
    second = _app(kafka, source, sink, config)
    second.start()
    out = kafka.read(sink, 5, settle=1.0)
    assert [(k, v) for k, v, _p in out][3:] == [(b"b", b"2"), (b"c", b"1")]
    assert _restored(second) == 3  # up to the committed offset, not the topic's end (5)
