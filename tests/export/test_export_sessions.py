"""Driver sessions beyond the notebooks': raw bytes, headers, partitions, the wall clock, and
drivers of other topologies, recorded and replayed by the generated tests."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from export_fixtures import notebook

from kslab.export import export_notebook

PROCESSOR = """\
import kslab as ks


class Stamp(ks.Processor):
    def init(self, context):
        self.context = context
        context.schedule(1000, ks.PunctuationType.WALL_CLOCK_TIME, self.tick)

    def process(self, record):
        self.context.forward(record.with_headers(ks.Headers([("seen", b"\\x00\\x01")])))

    def tick(self, timestamp):
        self.context.forward(ks.Record(b"tick", b"\\xff", timestamp))


topology = (ks.Topology()
            .add_source("s", "raw", key_serde="bytes", value_serde="bytes")
            .add_processor("p", Stamp, "s")
            .add_sink("o", "out", "p", key_serde="bytes", value_serde="bytes"))
"""

DRIVERS = """\
with ks.TopologyTestDriver(topology, {"application.id": "stamp"}, 5,
                           partitions={"raw": 2}) as driver:
    raw = driver.create_input_topic("raw")
    raw.pipe_input(b"k1", b"\\x00v", 10, headers=[("h", b"1")])
    raw.pipe_input(b"k2", None, 11, partition=1)
    driver.advance_wall_clock_time(1000)

with ks.TopologyTestDriver(ks.Topology().add_source("s", "x").add_sink("o", "y", "s")) as driver:
    driver.create_input_topic("x").pipe_input("k", "v", 1)
with ks.TopologyTestDriver(topology) as driver:
    pass
"""


@pytest.mark.slow
def test_bytes_headers_partitions_and_wall_clock_round_trip(tmp_path):
    path = notebook(tmp_path / "stamp.ipynb", PROCESSOR, DRIVERS)
    result = export_notebook(path, tmp_path / "app")
    assert result.sessions == 1
    assert result.skipped == [
        "driver 2: its topology is not `topology` as exported (it describes differently)",
        "driver 3: nothing was piped into it"]
    session = json.loads((tmp_path / "app/tests/fixtures/session-01.json").read_text())
    assert (session["config"], session["initial_wall_clock_time"], session["partitions"]) == \
        ({"application.id": "stamp"}, 5, {"raw": 2})
    assert session["steps"] == [
        {"topic": "raw", "key_hex": "6b31", "value_hex": "0076", "timestamp": 10,
         "headers": [["h", "31"]], "partition": 1},  # murmur2 of b"k1"
        {"topic": "raw", "key_hex": "6b32", "value": None, "timestamp": 11, "partition": 1},
        {"advance_wall_clock_time": 1000}]
    assert session["outputs"] == {"out": [
        {"key_hex": "6b31", "value_hex": "0076", "timestamp": 10,
         "headers": [["seen", "0001"]]},  # with_headers replaced them
        {"key_hex": "6b32", "value": None, "timestamp": 11,
         "headers": [["seen", "0001"]]},
        {"key_hex": "7469636b", "value_hex": "ff", "timestamp": 1005},
        {"key_hex": "7469636b", "value_hex": "ff", "timestamp": 1005}]}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests"], cwd=tmp_path / "app", capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


@pytest.mark.slow
def test_a_changed_output_fails_the_generated_test(tmp_path):
    path = notebook(tmp_path / "stamp.ipynb", PROCESSOR, DRIVERS)
    export_notebook(path, tmp_path / "app")
    topology = tmp_path / "app" / "topology.py"
    topology.write_text(topology.read_text().replace('b"\\xff"', 'b"\\xfe"'))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests"], cwd=tmp_path / "app", capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1
    assert "'value_hex': 'fe'" in done.stdout and "1 failed, 1 passed" in done.stdout
