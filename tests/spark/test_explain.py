"""The semantics report names how each node runs on Spark and what differs."""

from __future__ import annotations

import re

import pytest
import spark_apps as apps

import kslab as ks
from kslab.spark import explain


def test_word_count_report_covers_every_node():
    topo = apps.word_count()
    report = explain(topo)
    assert report.supported
    assert [r.node for r in report] == list(topo.nodes)
    repartition_source = next(r for r in report if r.kind == "source" and r.subtopology == 1)
    assert "murmur2" in repartition_source.batch and "arrival" in repartition_source.differences
    count = next(r for r in report if r.kind == "processor" and "counts" in r.streaming)
    assert "MapState" in count.streaming and "dropped" in count.batch
    assert "wall-clock punctuation never fires in batch" in count.differences
    sink = report[next(n for n in topo.nodes if n.startswith("KSTREAM-SINK"))]
    assert "at-least-once" in sink.streaming
    text = str(report)
    assert text.startswith("Spark semantics (every node supported)")
    assert "differs:" in text and len(report.to_pandas()) == len(topo.nodes)


def test_unsupported_nodes_say_why():
    topo = (ks.Topology().add_source("src", re.compile("in-.*"))
            .add_sink("dyn", lambda k, v, ctx: f"out-{k}", "src"))
    report = explain(topo)
    assert not report.supported
    assert "pattern" in report["src"].differences
    assert "TopicNameExtractor" in report["dyn"].differences
    assert "UNSUPPORTED" in str(report)


def test_every_core_store_kind_streams_and_a_custom_kind_is_refused():
    report = explain(apps.windowed_counts_final())
    assert report.supported
    window_node = next(r for r in report if "click-counts" in r.streaming)
    assert "MapState" in window_node.streaming and "not supported" not in window_node.streaming

    custom = explain(apps.custom_store())
    assert custom["remember"].batch.startswith("runs inside the core's StreamTask")
    assert custom["remember"].streaming.startswith("not supported: its store 'seen' is a list")

    from kslab.spark import start

    with pytest.raises(ks.TopologyError, match=r"node 'remember' cannot run in Spark streaming: "
                                               r"its store 'seen' is a list store"):
        start(apps.custom_store(), {"application.id": "a", "bootstrap.servers": "x:1"},
              checkpoint_location="unused")
