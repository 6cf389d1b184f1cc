"""Kafka's ``KTableKTableRightJoinTest`` (streams, kstream/internals), translated to kslab.

Java's ``KTableKTableRightJoin`` is no DSL operation of its own: it is the right-hand side of
``KTable.leftJoin``. The Java test drives that processor directly with a
``MockProcessorContext`` (not in kslab's API) and a null key; here a ``left_join`` gets a
null-keyed record on its right-hand table through the driver, where Kafka Streams drops it with
the same WARN-level message (at partition 0, offset 0). ``LogCaptureAppender`` is ``caplog``.
"""

from __future__ import annotations

import logging

import kslab as ks
from kslab import serdes

S = serdes.String()


def test_should_log_and_meter_skipped_records_due_to_null_left_key_with_built_in_metrics_version_latest(  # noqa: E501
        caplog):
    builder = ks.StreamsBuilder()
    left = builder.table("left", ks.Consumed.with_(S, S))
    right = builder.table("right", ks.Consumed.with_(S, S))
    left.left_join(right, lambda a, b: f"{a}+{b}").to_stream().to("out")
    props = {"default.key.serde": "string", "default.value.serde": "string",
             "built.in.metrics.version": "latest"}
    with ks.TopologyTestDriver(builder.build(), props) as driver, \
            caplog.at_level(logging.WARNING, logger="kslab"):
        driver.create_input_topic("right", S, S).pipe_input(None, "new", 0)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "Skipping record due to null key. topic=[right] partition=[0] offset=[0]" in warnings
