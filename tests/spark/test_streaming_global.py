"""Global stores in Spark streaming (issue 21, item 2): each task's global stores are read from
the global topic in Kafka to its end before the task processes its micro-batch, as Kafka
Streams bootstraps them and its global thread keeps up, so the output is the test driver's
when the driver is given each global record before the stream records that came after it."""

from __future__ import annotations

import spark_apps as apps

import kslab as ks
from conftest import consume_all, produce
from kslab import serdes
from kslab.spark import start

S, L = serdes.String(), serdes.Long()


def raw(rows):
    """``(partition, key, value, ts)`` strings as the producer's bytes."""
    return [(p, S.serialize("", k), S.serialize("", v), ts) for p, k, v, ts in rows]


def driver(topology, piped, partitions, topic, value_serde):
    """The test driver's ``topic`` after piping ``(topic, partition, key, value, ts)`` rows in
    order, as ``(key, value, ts)`` per record."""
    with ks.TopologyTestDriver(topology, partitions=partitions) as d:
        for t, p, k, v, ts in piped:
            d.pipe_raw(t, S.serialize("", k), S.serialize("", v), None, ts, p)
        return [(r.key, r.value, r.timestamp)
                for r in d.create_output_topic(topic, S, value_serde).read_records_to_list()]


def output(broker, topic, value_serde):
    return [(S.deserialize("", k), value_serde.deserialize("", v), ts)
            for _, k, v, ts in consume_all(broker, topic, 2)]


def by_key(records):
    keyed: dict[str, list] = {}
    for key, value, ts in records:
        keyed.setdefault(key, []).append((value, ts))
    return keyed


def test_a_global_table_join_bootstraps_and_keeps_up_as_the_driver(spark, broker, topics,
                                                                 tmp_path):
    customers, orders = topics("customers", 2), topics("orders", 2)
    prefix = customers.removesuffix("customers")
    topics("enriched", 2), topics("per-customer", 2)
    config = {"application.id": f"{prefix}app", "bootstrap.servers": broker.bootstrap_servers}
    before = [(0, "c1", "Ann", 10), (1, "c2", "Bo", 20), (0, "c1", "Ann B.", 30),
              (1, "c4", "Di", 40)]
    first = [(i % 2, f"o{i}", f"c{1 + i % 4}:{i}", 100 + i) for i in range(10)]
    later = [(1, "c3", "Cy", 200), (0, "c1", "Ann C.", 210)]  # between the two runs
    second = [(i % 2, f"o{i}", f"c{1 + i % 4}:{i}", 300 + i) for i in range(10, 16)]

    def run():
        streams = start(apps.orders_with_customers(prefix), config, spark=spark,
                        checkpoint_location=str(tmp_path / "ckpt"),
                        trigger={"availableNow": True})
        assert streams.await_termination(300)

    produce(broker, customers, raw(before))
    produce(broker, orders, raw(first))
    run()
    produce(broker, customers, raw(later))
    produce(broker, orders, raw(second))
    run()

    piped = ([(customers, *r) for r in before] + [(orders, *r) for r in first] +
             [(customers, *r) for r in later] + [(orders, *r) for r in second])
    partitions = {customers: 2, orders: 2}
    topology = apps.orders_with_customers(prefix)
    enriched = output(broker, f"{prefix}enriched", S)
    expected = driver(topology, piped, partitions, f"{prefix}enriched", S)
    # the first run sees the whole table as it was (c1 renamed, no c3), the second the updates
    assert sorted(expected) == sorted(
        [(f"o{i}", f"c{1 + i % 4}:{i}|{['Ann B.', 'Bo', 'unknown', 'Di'][i % 4]}", 100 + i)
         for i in range(10)] +
        [(f"o{i}", f"c{1 + i % 4}:{i}|{['Ann C.', 'Bo', 'Cy', 'Di'][i % 4]}", 300 + i)
         for i in range(10, 16)])
    assert sorted(enriched) == sorted(expected)
    counts = output(broker, f"{prefix}per-customer", L)
    assert by_key(counts) == by_key(driver(topology, piped, partitions,
                                           f"{prefix}per-customer", L))


def test_a_global_store_with_its_own_update_processor_streams_as_the_driver(spark, broker,
                                                                            topics, tmp_path):
    names, ids = topics("names", 2), topics("ids", 2)
    prefix = names.removesuffix("names")
    topics("named", 2)
    config = {"application.id": f"{prefix}app", "bootstrap.servers": broker.bootstrap_servers}
    name_rows = [(0, "a", "ann", 1), (1, "b", "bo", 2), (0, "a", "anna", 3)]
    id_rows = [(0, "x", "a", 10), (1, "y", "b", 11), (1, "z", "c", 12)]
    produce(broker, names, raw(name_rows))
    produce(broker, ids, raw(id_rows))
    streams = start(apps.papi_global_store(prefix), config, spark=spark,
                    checkpoint_location=str(tmp_path / "ckpt"), trigger={"availableNow": True})
    assert streams.await_termination(300)
    piped = [(names, *r) for r in name_rows] + [(ids, *r) for r in id_rows]
    expected = driver(apps.papi_global_store(prefix), piped, {names: 2, ids: 2},
                      f"{prefix}named", S)
    assert sorted(expected) == [("x", "a=ANNA", 10), ("y", "b=BO", 11), ("z", "c=None", 12)]
    assert sorted(output(broker, f"{prefix}named", S)) == expected
