"""The session helper's settings and the errors when Spark cannot run or a node cannot."""

from __future__ import annotations

import builtins
import re

import pytest

import kslab as ks
from kslab.spark import SparkUnavailableError, run_batch
from kslab.spark.session import java_executable, require_pyspark


def test_session_runs_on_loopback_without_ui(spark):
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    assert "RocksDB" in spark.conf.get("spark.sql.streaming.stateStore.providerClass")


def test_no_java_says_what_to_install(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SparkUnavailableError, match=r"needs a Java runtime .*openjdk-17"):
        java_executable()


def test_bad_java_home_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(SparkUnavailableError, match=re.escape(str(tmp_path))):
        java_executable()


def test_missing_extra_says_how_to_install(monkeypatch):
    real = builtins.__import__

    def no_pyspark(name, *args, **kwargs):
        if name == "pyspark":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyspark)
    with pytest.raises(SparkUnavailableError, match=r"needs pyspark.*kslab\[spark\]"):
        require_pyspark()
    assert issubclass(SparkUnavailableError, ks.StreamsError)


def test_unsupported_node_is_named_before_spark_runs():
    topo = ks.Topology().add_source("src", re.compile("in-.*")).add_sink("out", "out", "src")
    with pytest.raises(ks.TopologyError, match=r"node 'src' cannot run on Spark: .*pattern"):
        run_batch(topo, {})


def test_session_without_java_fails_before_starting_spark(monkeypatch):
    from kslab.spark import session

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SparkUnavailableError, match=r"needs a Java runtime"):
        session("local[1]")


def test_engine_entry_points_name_the_missing_extra(monkeypatch):
    real = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    topo = ks.Topology().add_source("src", "in").add_sink("out", "out", "src")
    with pytest.raises(SparkUnavailableError, match=r"needs pyarrow.*kslab\[spark\]"):
        run_batch(topo, {})
    import kslab.spark

    with pytest.raises(SparkUnavailableError, match=r"needs pyarrow"):
        kslab.spark.start  # noqa: B018 - the attribute itself loads the streaming engine


def test_unsupported_sink_is_named_in_streaming_too():
    from kslab.spark import start

    topo = (ks.Topology().add_source("src", "in")
            .add_sink("dyn", lambda k, v, ctx: f"out-{k}", "src"))
    with pytest.raises(ks.TopologyError, match=r"node 'dyn' cannot run on Spark: .*"
                                               r"TopicNameExtractor"):
        start(topo, {"application.id": "a", "bootstrap.servers": "127.0.0.1:1"},
              checkpoint_location="unused")


def test_group_keys_land_in_the_shuffle_partition_of_their_task(spark):
    """``spread_keys`` computes Spark's own ``pmod(hash(key), n)``: each task of a stage gets a
    shuffle (state) partition of its own (Kafka partitions 0 and 1 themselves both hash to 1)."""
    from kslab.spark._groups import spread_keys

    for tasks, partitions in ((2, 2), (4, 2), (3, 3), (1, 1), (5, 4)):
        keys = spread_keys(tasks, partitions)
        assert len(set(keys)) == tasks
        query = ", ".join(f"pmod(hash({k}), {partitions})" for k in keys)
        landed = list(spark.sql(f"SELECT {query}").first())
        assert landed == [task % partitions for task in range(tasks)]
    assert list(spark.sql("SELECT pmod(hash(0), 2), pmod(hash(1), 2)").first()) == [1, 1]
