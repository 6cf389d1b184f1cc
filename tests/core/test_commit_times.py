"""``StreamTask.commit_times(n)`` is ``commit()`` n times: a dirty cache is flushed by the first
commit (its update forwarded, its counters moved), the rest only count their flushes."""

from __future__ import annotations

from typing import Any

import kslab as ks
from kslab import serdes

S, L = serdes.String(), serdes.Long()


def _drive(commit: Any) -> tuple[Any, ...]:
    b = ks.StreamsBuilder()
    (b.stream("lines", ks.Consumed.with_(S, S))
     .group_by(lambda k, v: v, ks.Grouped.with_(S, S))
     .count(ks.Materialized.as_("counts"))
     .to_stream()
     .to("out", ks.Produced.with_(S, L)))
    with ks.TopologyTestDriver(b.build()) as driver:
        driver.create_input_topic("lines", S, S).pipe_value_list(["a"], 0, 0)
        task = next(iter(driver.tasks.values()))
        store = task.stores["counts"]
        store.put("x", ks.ValueAndTimestamp(5, 7))  # dirty until the next commit
        assert not store.flush_is_noop()
        cache = store.thread_cache
        # internal on purpose: the store's namespace in the thread cache
        named = cache.named_cache(store._namespace)
        before = (cache.flushes, named.flushes)
        commit(task)
        assert store.flush_is_noop()
        out = driver.create_output_topic("out", S, L).read_key_values_to_list()
        return ([(kv.key, kv.value) for kv in out], cache.flushes - before[0],
                named.flushes - before[1], cache.puts,
                named.lru_keys(), named.dirty_keys(), task.commit_requested)


def test_commit_times_equals_commits_one_by_one() -> None:
    def one_by_one(task: Any) -> None:
        for _ in range(3):
            task.commit()

    at_once = _drive(lambda task: task.commit_times(3))
    assert at_once == _drive(one_by_one)
    out, thread_flushes, named_flushes, puts, lru, dirty, requested = at_once
    assert out == [("a", 1), ("x", 5)]  # the dirty entry forwarded by the first commit
    assert (thread_flushes, named_flushes) == (3, 3)
    assert (puts, lru, dirty, requested) == (2, [b"a", b"x"], [], False)
