"""Batch execution in the live runtime for tasks reading several partitions (joins).

A join's task queues the records of its partitions and takes them in timestamp order
(``PartitionGroup``); each run it takes one after another from one partition goes to the batch
forms as one chunk (``PartitionGroup.run_after``). Each program runs on the LocalBroker with
the batch path and record by record (``kslab.runtime.bulk: False``) over the same input, which
is all on the broker before the application starts, so the order the tasks take the records in
is the timestamps' and the outputs are deterministic: every output partition's records must
be equal on both paths and equal to what the join's rule gives, and
``process-batched-total`` must say chunks ran in batch.
"""

from __future__ import annotations

import json
import random

import pytest
from confluent_kafka import Producer
from runtime_fixtures import wait_for
from test_batch_live import _batched, _read, _start

import kslab as ks
from kslab import serdes
from kslab.processor.partitioner import default_partition

_CUSTOMERS = 30


def _produce(kafka, topic, records):
    """Produce ``(key, value, timestamp)`` rows, each to its key's default partition."""
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5})
    for key, value, timestamp in records:
        producer.produce(topic, value, key, partition=default_partition(key, 2),
                         timestamp=timestamp)
    assert producer.flush(30) == 0


def _customers():
    """Every customer at timestamp 10 (0 would be the producer's clock), and a third of them
    renamed mid-way (timestamps among the orders': a run of orders stops at each)."""
    rows = [(f"c{i}".encode(), json.dumps({"name": f"n{i}"}).encode(), 10)
            for i in range(_CUSTOMERS)]
    rows += [(f"c{i}".encode(), json.dumps({"name": f"m{i}"}).encode(), 2_000 + 50 * i + 1)
             for i in range(0, _CUSTOMERS, 3)]
    return rows


def _orders(n, seed=7):
    rnd = random.Random(seed)
    return [(f"c{rnd.randrange(_CUSTOMERS + 5)}".encode(),  # (5 with no customer)
             json.dumps({"id": i, "amount": rnd.randrange(100)}).encode(), 1_000 + 2 * i)
            for i in range(n)]


def _enriched(orders, customers, sink):
    builder = ks.StreamsBuilder()
    table = builder.table(customers, ks.Consumed.with_(serdes.String(), serdes.Json()))
    (builder.stream(orders, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .join(table, lambda order, customer: {**order, "name": customer["name"]})
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    return builder


def _expected_enriched(orders, customers):
    """The stream-table join's outputs per partition: each order with its customer's name as
    of the order's timestamp (the task takes both topics in timestamp order)."""
    events = sorted([(timestamp, 0, key, value) for key, value, timestamp in customers]
                    + [(timestamp, 1, key, value) for key, value, timestamp in orders],
                    key=lambda event: event[:2])
    names: dict[bytes, str] = {}
    out: dict[int, list[tuple]] = {0: [], 1: []}
    for timestamp, kind, key, value in events:
        if kind == 0:
            names[key] = json.loads(value)["name"]
        elif key in names:
            joined = json.dumps({**json.loads(value), "name": names[key]},
                                separators=(",", ":")).encode()
            out[default_partition(key, 2)].append((key, joined, timestamp, None))
    return out


def _run_both(kafka, builder_of, expected_count):
    """Each path's outputs, and its batched count."""
    results = []
    for bulk in (True, False):
        sink = kafka.create(kafka.name(f"out-{bulk}"), 2)
        streams = _start(kafka, builder_of(sink), f"join-{bulk}", kslab__runtime__bulk=bulk)
        got = _read(kafka, sink, expected_count, 2)
        results.append((got, _batched(streams)))
        streams.close(timeout=10_000)
    return results


@pytest.mark.parametrize("seed", [7])
def test_a_stream_table_join_runs_its_orders_in_batches_as_the_record_path(kafka, seed):
    orders_topic = kafka.create(kafka.name("orders"), 2)
    customers_topic = kafka.create(kafka.name("customers"), 2)
    customers, orders = _customers(), _orders(3_000, seed)
    _produce(kafka, customers_topic, customers)
    _produce(kafka, orders_topic, orders)
    expected = _expected_enriched(orders, customers)
    count = sum(map(len, expected.values()))
    (batched, in_batch), (by_record, none) = _run_both(
        kafka, lambda sink: _enriched(orders_topic, customers_topic, sink), count)
    assert batched == expected
    assert by_record == expected
    assert none == 0
    assert in_batch > 2_000  # (each partition's orders, cut at the renames and poll ends)


def _clicks_and_views(seed=9):
    rnd = random.Random(seed)
    views = [(f"u{rnd.randrange(20)}".encode(), json.dumps({"page": i}).encode(),
              1_000 + 3 * i) for i in range(1_500)]
    clicks = [(f"u{rnd.randrange(20)}".encode(), json.dumps({"click": i}).encode(),
               1_001 + 3 * i + rnd.randrange(40)) for i in range(1_500)]
    return views, clicks


def _joined_clicks(views, clicks, sink):
    builder = ks.StreamsBuilder()
    json_in = ks.Consumed.with_(serdes.String(), serdes.Json())
    left = builder.stream(views, json_in)
    right = builder.stream(clicks, json_in)
    (left.join(right, lambda view, click: {**view, **click},
               ks.JoinWindows.of_time_difference_and_grace(20, 5_000),
               ks.StreamJoined.with_(serdes.String(), serdes.Json(), serdes.Json()))
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    return builder


def test_a_stream_stream_join_runs_in_batches_as_the_record_path(kafka):
    views_topic = kafka.create(kafka.name("views"), 2)
    clicks_topic = kafka.create(kafka.name("clicks"), 2)
    views, clicks = _clicks_and_views()
    _produce(kafka, views_topic, views)
    _produce(kafka, clicks_topic, clicks)
    # the count of joined pairs (both within 20 ms: each pair joins once, whichever came
    # second emits it)
    count = sum(1 for key, _, ts in views for other, _, cts in clicks
                if key == other and abs(ts - cts) <= 20)
    (batched, in_batch), (by_record, none) = _run_both(
        kafka, lambda sink: _joined_clicks(views_topic, clicks_topic, sink), count)
    assert sum(map(len, batched.values())) == count
    assert batched == by_record
    assert none == 0
    assert in_batch > 0


def test_a_joiner_failing_mid_run_loses_no_order_when_the_thread_is_replaced(kafka):
    """The joiner raises on an order in the middle of a run until the thread fails (its
    records queued behind the failing one go back to the queue, nothing is committed past
    it), a new thread takes the tasks over from the last commit, and every order's output
    is there at least once."""
    orders_topic = kafka.create(kafka.name("orders"), 2)
    customers_topic = kafka.create(kafka.name("customers"), 2)
    customers, orders = _customers(), _orders(1_500)
    _produce(kafka, customers_topic, customers)
    _produce(kafka, orders_topic, orders)
    sink = kafka.create(kafka.name("out"), 2)
    errors = []
    failing = next(i for i in range(900, 1_500) if int(orders[i][0][1:]) < _CUSTOMERS)
    failed = []  # (raising until the thread fails: the batch path tries it first)

    def joiner(order, customer):
        if order["id"] == failing and not errors:
            failed.append(order["id"])
            raise ValueError(f"order {failing} is bad, once")
        return {**order, "name": customer["name"]}

    builder = ks.StreamsBuilder()
    table = builder.table(customers_topic, ks.Consumed.with_(serdes.String(), serdes.Json()))
    (builder.stream(orders_topic, ks.Consumed.with_(serdes.String(), serdes.Json()))
     .join(table, joiner)
     .to(sink, ks.Produced.with_(serdes.String(), serdes.Json())))
    streams = kafka.track(ks.KafkaStreams(builder, kafka.config("failing")))
    streams.set_uncaught_exception_handler(
        lambda error: errors.append(error) or ks.KafkaStreams.REPLACE_THREAD)
    streams.start()
    expected = _expected_enriched(orders, customers)
    got: dict[int, list[tuple]] = {0: [], 1: []}

    def every_output_seen():
        for partition, records in _read(kafka, sink, 10**9, 2, timeout=2).items():
            got[partition] = records
        return all(set(got[p]) == set(expected[p]) for p in (0, 1))

    assert wait_for(every_output_seen, timeout=90)
    assert set(failed) == {failing}
    assert len(errors) == 1
    assert f"order {failing} is bad, once" in str(errors[0])
    assert all(len(got[p]) >= len(expected[p]) for p in (0, 1))
