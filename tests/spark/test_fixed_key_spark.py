"""Operators after ``process_values()`` change the key in Spark's batch replay (issue 18.1)."""

from __future__ import annotations

from pyspark import cloudpickle

import tests.dsl.fixed_key_chains as chains
from kslab.spark import run_batch

# the workers unpickle the chains' processors and lambdas by value: they need not import tests
cloudpickle.register_pickle_by_value(chains)


def test_every_chain_after_process_values_replays_on_spark(spark):
    rows = [(chains.S.serialize("in", k), chains.S.serialize("in", v), 10 * i)
            for i, (k, v) in enumerate(chains.INPUT)]
    frame = spark.createDataFrame(rows, "key binary, value binary, timestamp long")
    sinks = {name: f"out-{name}" for name in chains.CHAINS}
    out = run_batch(chains.every_chain("in", sinks), {"in": frame},
                    config={"application.id": "fixed", "statestore.cache.max.bytes": 0})
    for name, (_, value_serde, expected) in chains.CHAINS.items():
        got = out[sinks[name]].orderBy("partition", "task", "seq").collect()
        assert [(chains.S.deserialize("", r["key"]), value_serde.deserialize("", r["value"]))
                for r in got] == expected, name
