"""Records a task sends to topics it reads come back in Kafka's driver order.

Kafka's driver processes one record, commits, then queues what it sent to internal (or any
source) topics; the task takes the head with the smallest timestamp across its partitions.
The driver processes a lone looped-back partition's records at once instead of queueing them:
these tests pin that both give Kafka's order, stream time and offsets.
"""

from __future__ import annotations

import kslab as ks
from kslab import serdes

S = serdes.String()


class FanOut(ks.Processor):
    """Per input ``(k, plan)``: for each ``topic:delta`` in the plan, send ``k<i>`` there."""

    def init(self, context):
        self.context = context

    def process(self, record):
        for i, step in enumerate(record.value.split(), 1):
            topic, delta = step.split(":")
            self.context.forward(
                ks.Record(f"{record.key}{i}", topic, record.timestamp + int(delta)),
                child_name=f"to-{topic}",
            )


class Note(ks.Processor):
    """Forwards ``value@timestamp st=<stream time> off=<offset>`` for every looped-back record."""

    def init(self, context):
        self.context = context

    def process(self, record):
        meta = self.context.record_metadata()
        text = (f"{meta.topic}@{record.timestamp} st={self.context.current_stream_time_ms()} "
                f"off={meta.offset}")
        self.context.forward(record.with_value(text))


def _topology(topics: list[str]) -> ks.Topology:
    topo = ks.Topology()
    topo.add_source("in", "input", key_serde=S, value_serde=S)
    topo.add_processor("fan", FanOut, "in")
    for topic in topics:
        topo.add_sink(f"to-{topic}", topic, "fan", key_serde=S, value_serde=S)
    topo.add_source("loop", *topics, key_serde=S, value_serde=S)
    topo.add_processor("note", Note, "loop")
    topo.add_sink("out", "output", "note", key_serde=S, value_serde=S)
    return topo


def test_one_looped_partition_is_taken_in_send_order():
    with ks.TopologyTestDriver(_topology(["a"])) as driver:
        driver.create_input_topic("input").pipe_key_value_list(
            [("x", "a:10 a:1 a:5"), ("y", "a:0")], 100, 100)
        assert driver.create_output_topic("output").read_key_values_to_list() == [
            ("x1", "a@110 st=110 off=0"),
            ("x2", "a@101 st=110 off=1"),
            ("x3", "a@105 st=110 off=2"),
            ("y1", "a@200 st=200 off=3"),
        ]
        assert driver.create_output_topic("a").get_queue_size() == 4  # the topic keeps them


def test_two_looped_partitions_are_merged_by_timestamp():
    with ks.TopologyTestDriver(_topology(["a", "b"])) as driver:
        driver.create_input_topic("input").pipe_key_value_list(
            [("x", "a:10 b:5 a:1"), ("y", "b:3 b:2")], 100, 100)
        assert driver.create_output_topic("output").read_key_values_to_list() == [
            ("x2", "b@105 st=105 off=0"),
            ("x1", "a@110 st=110 off=0"),
            ("x3", "a@101 st=110 off=1"),
            ("y1", "b@203 st=203 off=1"),
            ("y2", "b@202 st=203 off=2"),
        ]


def test_records_sent_while_looping_back_wait_behind_those_already_sent():
    class Bounce(ks.Processor):
        """Records from topic a are sent on to topic b, once."""

        def init(self, context):
            self.context = context

        def process(self, record):
            if self.context.record_metadata().topic == "a":
                self.context.forward(record.with_timestamp(record.timestamp - 50), "to-b")
            else:
                self.context.forward(record, "note")

    topo = ks.Topology()
    topo.add_source("in", "input", key_serde=S, value_serde=S)
    topo.add_processor("fan", FanOut, "in")
    topo.add_sink("to-a", "a", "fan", key_serde=S, value_serde=S)
    topo.add_source("loop", "a", "b", key_serde=S, value_serde=S)
    topo.add_processor("bounce", Bounce, "loop")
    topo.add_sink("to-b", "b", "bounce", key_serde=S, value_serde=S)
    topo.add_processor("note", Note, "bounce")
    topo.add_sink("out", "output", "note", key_serde=S, value_serde=S)
    with ks.TopologyTestDriver(topo) as driver:
        driver.create_input_topic("input").pipe_input("x", "a:0 a:1", 100)
        # x1 (a@100) is processed and sends b@50; then queue a holds x2 (a@101) and queue b
        # holds x1 (b@50): the smaller head timestamp goes first, then x2 sends b@51.
        assert driver.create_output_topic("output").read_key_values_to_list() == [
            ("x1", "b@50 st=100 off=0"),
            ("x2", "b@51 st=101 off=1"),
        ]
