"""Key-value changelogs carry every write, in order, sent at the commit (Java logs every put of a
store without a cache), and restore the same state."""

from __future__ import annotations

from apps import final_counts, lines, reference_counts, word_count_papi

import kslab as ks


def test_every_write_of_a_commit_reaches_the_changelog_in_order_and_restores_every_count(kafka):
    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    text = lines(300, seed=5)
    expected = reference_counts(text)
    writes = sum(expected.values())
    kafka.produce(source, [(None, t.encode()) for t in text])
    # no commit until close: the whole input is one batch of changelog writes
    config = kafka.config("batch", commit__interval__ms=600_000)
    streams = kafka.track(ks.KafkaStreams(word_count_papi(source, sink, persistent=False),
                                          config))
    streams.start()
    assert final_counts(kafka.read(sink, writes)) == expected
    assert streams.close(timeout=10_000)
    changelog = f"{config['application.id']}-counts-changelog"
    records = kafka.read(changelog, writes, settle=1.0)
    assert len(records) == writes  # one per count, not only each word's last
    assert final_counts(records) == expected
    seen: dict[bytes, int] = {}
    for key, value, _partition in records:  # each word's counts in order: 1, 2, 3, ...
        seen[key] = seen.get(key, 0) + 1
        assert int.from_bytes(value, "big") == seen[key]

    more = lines(50, seed=6)
    kafka.produce(source, [(None, t.encode()) for t in more])
    again = kafka.track(ks.KafkaStreams(word_count_papi(source, sink, persistent=False),
                                        config))
    again.start()  # the in-memory store starts empty: everything comes from the changelog
    total = reference_counts(text + more)
    kafka.read_until(sink, lambda r: final_counts(r) == total)
    restored = sum(t["restore-total"] for t in again.metrics()["threads"].values())
    assert restored == writes
    assert final_counts(kafka.read(sink, writes + sum(reference_counts(more).values()))) \
        == total


def test_exactly_once_holds_every_changelog_write_until_the_commit(kafka):
    """A window store's changelog (not batched: every write goes out) under exactly-once: its
    records reach the broker with the commit, in order, not while the transaction runs, so a
    crash mid-transaction leaves none in the log for a restore that shows aborted records
    (Tansu's ``read_committed``) to replay."""
    from kslab import serdes

    source, sink = kafka.create(kafka.name("in")), kafka.create(kafka.name("out"))
    b = ks.StreamsBuilder()
    (b.stream(source, ks.Consumed.with_(serdes.String(), serdes.String()))
        .group_by_key(ks.Grouped.with_(serdes.String(), serdes.String()))
        .windowed_by(ks.TimeWindows.of_size_and_grace(1000, 600_000))
        .count(ks.Materialized.as_("w"))
        .to_stream()
        .map(lambda wk, n: ks.KeyValue(f"{wk.key}@{wk.window.start}", n))
        .to(sink, ks.Produced.with_(serdes.String(), serdes.Long())))
    kafka.produce(source, [(b"a", b"x")] * 3 + [(b"b", b"y")] * 2, timestamp=5_000)
    config = kafka.config("eos-held", processing__guarantee="exactly_once_v2",
                          commit__interval__ms=600_000, statestore__cache__max__bytes=0)
    streams = kafka.track(ks.KafkaStreams(b.build(), config))
    streams.start()
    assert len(kafka.read(sink, 5)) == 5  # processed: the outputs are in the open transaction
    changelog = f"{config['application.id']}-w-changelog"
    assert kafka.read(changelog, 1, timeout=2.0) == []  # its changelog writes wait
    assert streams.close(timeout=10_000)  # the commit sends them
    records = kafka.read(changelog, 5, settle=1.0)
    assert [int.from_bytes(v[-8:], "big") for _, v, _ in records] == [1, 2, 3, 1, 2]
