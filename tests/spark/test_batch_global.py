"""Global stores on Spark batch replay (issue 21, item 2): every task fills them from the global
topics' frames before it processes anything, as Kafka Streams bootstraps them at start, so the
output is the test driver's when the driver is given the global topic first."""

from __future__ import annotations

import pytest
import spark_apps as apps
from test_batch import assert_same, driver_output, frame, spark_output

from kslab import serdes
from kslab.errors import StreamsError, TopologyError
from kslab.spark import explain, run_batch

S, L = serdes.String(), serdes.Long()

CUSTOMERS = [(0, "c1", "Ann", 10), (0, "c2", "Bo", 20), (0, "c1", "Ann B.", 30),
             (0, "c4", "Di", 40)]
ORDERS = [(p, f"o{i}", f"c{1 + i % 4}:{i}", 100 + i) for i, p in
          enumerate([0, 1, 1, 0, 0, 1, 0, 1, 1, 0])]


def test_a_global_table_join_equals_the_driver_given_the_table_first(spark):
    partitions = {"orders": 2}
    out = run_batch(apps.orders_with_customers(),
                    {"customers": frame(spark, CUSTOMERS, "customers"),
                     "orders": frame(spark, ORDERS, "orders")}, partitions=partitions)
    assert sorted(out) == ["enriched", "per-customer"]
    enriched = spark_output(out["enriched"], "enriched", S)
    # every order sees the whole table (c1's latest name), c3 is unknown
    assert sorted(enriched) == sorted(
        (f"o{i}", f"c{1 + i % 4}:{i}|{['Ann B.', 'Bo', 'unknown', 'Di'][i % 4]}", 100 + i)
        for i in range(10))
    piped = [("customers", *r) for r in CUSTOMERS] + [("orders", *r) for r in ORDERS]
    assert_same(enriched, driver_output(apps.orders_with_customers(), piped, partitions,
                                        "enriched", S))
    counts = spark_output(out["per-customer"], "per-customer", L)
    assert {k: max(v for key, v, _ in counts if key == k) for k, _, _ in counts} == {
        "Ann B.": 3, "Bo": 3, "unknown": 2, "Di": 2}
    assert_same(counts, driver_output(apps.orders_with_customers(), piped, partitions,
                                      "per-customer", L))


def test_a_global_store_with_its_own_update_processor(spark):
    names = [(0, "a", "ann", 1), (0, "b", "bo", 2), (0, "a", "anna", 3)]
    ids = [(0, "x", "a", 10), (0, "y", "b", 11), (0, "z", "c", 12)]
    out = run_batch(apps.papi_global_store(), {"names": frame(spark, names, "names"),
                                               "ids": frame(spark, ids, "ids")})
    assert spark_output(out["named"], "named", S) == [
        ("x", "a=ANNA", 10), ("y", "b=BO", 11), ("z", "c=None", 12)]


def test_a_missing_global_frame_names_the_topic(spark):
    with pytest.raises(StreamsError, match="global store 'customers-by-id' reads topic "
                                           "'customers' but inputs has no frame for it"):
        run_batch(apps.orders_with_customers(), {"orders": frame(spark, ORDERS, "orders")})


def test_a_sub_topology_writing_a_global_topic_is_refused(spark):
    with pytest.raises(TopologyError, match="writes topic 'customers', which a global store "
                                            "reads"):
        run_batch(apps.writes_its_global_topic(),
                  {"customers": frame(spark, CUSTOMERS, "customers"),
                   "orders": frame(spark, ORDERS, "orders")})


def test_explain_runs_global_nodes_in_batch_and_streaming():
    report = explain(apps.orders_with_customers())
    row = report["KTABLE-SOURCE-0000000001"]
    assert row.supported and row.subtopology is None
    assert row.batch.startswith("the global task, filled in every Spark task from the global "
                                "topic's frame")
    assert row.streaming.startswith("the global task, one per Spark Python worker")
