"""Key-value changelogs carry each key's last write per commit, and restore the same state."""

from __future__ import annotations

from apps import final_counts, lines, reference_counts, word_count_papi

import kslab as ks


def test_one_changelog_record_per_key_per_commit_restores_every_count(kafka):
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
    records = kafka.read(changelog, len(expected), settle=1.0)
    assert len(records) == len(expected) < writes  # one per word instead of one per count
    assert final_counts(records) == expected

    more = lines(50, seed=6)
    kafka.produce(source, [(None, t.encode()) for t in more])
    again = kafka.track(ks.KafkaStreams(word_count_papi(source, sink, persistent=False),
                                        config))
    again.start()  # the in-memory store starts empty: everything comes from the changelog
    total = reference_counts(text + more)
    kafka.read_until(sink, lambda r: final_counts(r) == total)
    restored = sum(t["restore-total"] for t in again.metrics()["threads"].values())
    assert restored == len(expected)
    assert final_counts(kafka.read(sink, writes + sum(reference_counts(more).values()))) \
        == total
