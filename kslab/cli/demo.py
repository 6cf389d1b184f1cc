"""``kslab demo``: the quickstart word count run live on a local broker, headless.

It starts ``ks.LocalBroker``, produces deterministic generated lines, runs the quickstart
notebook's topology with ``ks.KafkaStreams``, reads the counts back from the output topic,
checks them against the ``TopologyTestDriver`` on the same input, and writes the topology's
picture as SVG. Invariant: for the same ``--lines`` the printed counts are always the same.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kslab.cli._common import FAILED, CliError
from kslab.cli._config import DEV_SETTINGS

__all__ = ["SINK", "SOURCE", "configure", "generate_lines", "run", "word_count"]

SOURCE, SINK, STORE = "text-lines", "word-counts-out", "word-counts"
VOCABULARY = ("kafka", "streams", "python", "notebook", "topology", "table", "window", "join")


def word_count() -> Any:
    """The quickstart notebook's topology: lines -> words -> count per word -> counts topic."""
    import kslab as ks

    builder = ks.StreamsBuilder()
    words = builder.stream(SOURCE).flat_map_values(lambda line: line.lower().split())
    counts = words.group_by(lambda key, word: word).count(materialized=STORE)
    counts.to_stream().to(SINK)
    return builder.build()


def generate_lines(count: int, seed: int = 7) -> list[str]:
    """``count`` lines of 2 to 6 words from a small vocabulary, the same for the same seed."""
    rng = random.Random(seed)
    return [" ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(2, 6)))
            for _ in range(count)]


def configure(parser: argparse.ArgumentParser) -> None:
    """``--lines``, ``--out`` and ``--port``."""
    parser.add_argument("--lines", type=int, default=40, help="how many lines to generate (40)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="where to write word-count.svg (default: a new temporary folder)")
    parser.add_argument("--port", type=int, default=0,
                        help="the local broker's port (default: a free one)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds to wait for the counts (60)")


def run(args: argparse.Namespace) -> int:
    """Run the demo; exit 0 when the live counts equal the test driver's."""
    if args.lines < 1:
        msg = f"--lines must be at least 1; got {args.lines}"
        raise CliError(msg)
    started = time.monotonic()
    import kslab as ks

    lines = generate_lines(args.lines)
    topology = word_count()
    with ks.TopologyTestDriver(topology) as driver:
        driver.create_input_topic(SOURCE).pipe_value_list(lines)
        expected = driver.create_output_topic(SINK).read_key_values_to_map()
    state_dir = Path(tempfile.mkdtemp(prefix="kslab-demo-state-"))
    try:
        with ks.LocalBroker(args.port or None) as broker:
            print(f"kslab demo: local broker at {broker.bootstrap_servers}", flush=True)
            got = _live_counts(broker.bootstrap_servers, topology, lines, state_dir, expected,
                               args.timeout)
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)
    words = sum(len(line.split()) for line in lines)
    print(f"produced {len(lines)} lines ({words} words) to {SOURCE}; "
          f"counts read back from {SINK}:")
    width = max(len(w) for w in got)
    for word, n in sorted(got.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {word:<{width}}  {n}")
    if got != expected:
        msg = f"the live counts differ from the TopologyTestDriver's: {_diff(got, expected)}"
        raise CliError(msg, FAILED)
    print("the live counts equal the TopologyTestDriver's for the same input")
    print(f"graph: {_write_graph(topology, args.out)}")
    print(f"kslab demo: done in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


def _live_counts(servers: str, topology: Any, lines: list[str], state_dir: Path,
                 expected: dict[str, int], timeout: float) -> dict[str, int]:
    """Produce ``lines``, run the topology, read counts until they match or ``timeout`` ends."""
    import orjson
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    import kslab as ks
    from kslab.serdes import Json

    sink = next(n for n in topology.nodes.values() if getattr(n, "topic", None) == SINK)
    key_serde, value_serde = sink.key_serde or Json(), sink.value_serde or Json()
    admin = AdminClient({"bootstrap.servers": servers})
    for future in admin.create_topics([NewTopic(SOURCE, 1), NewTopic(SINK, 1)]).values():
        future.result(10)
    producer = Producer({"bootstrap.servers": servers, "linger.ms": 5})
    for line in lines:  # the quickstart's source reads with the default serdes: JSON
        producer.produce(SOURCE, value=orjson.dumps(line))
    producer.flush(10)
    producer.close()
    del admin  # an AdminClient has no close(): its last reference ends it
    streams = ks.KafkaStreams(topology, {"application.id": "kslab-demo",
                                         "bootstrap.servers": servers,
                                         "state.dir": str(state_dir), **DEV_SETTINGS})
    consumer = Consumer({"bootstrap.servers": servers, "group.id": "kslab-demo-reader",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(SINK, 0, 0)])
    got: dict[str, int] = {}
    streams.start()
    try:
        deadline = time.monotonic() + timeout
        while got != expected and time.monotonic() < deadline:
            for message in consumer.consume(1000, 0.1):
                if message.error() is None:
                    key = key_serde.deserialize(SINK, message.key())
                    got[key] = value_serde.deserialize(SINK, message.value())
    finally:
        consumer.close()
        streams.close(timeout=10_000)  # its threads and clients end with it
    if not got:
        msg = f"no counts reached {SINK} within {timeout} s; the app's state: {streams.state.name}"
        raise CliError(msg, FAILED)
    return got


def _write_graph(topology: Any, out: Path | None) -> Path:
    from kslab.notebook.render import draw

    folder = out if out is not None else Path(tempfile.mkdtemp(prefix="kslab-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "word-count.svg"
    path.write_text(draw(topology).svg)
    return path.resolve()


def _diff(got: dict[str, int], expected: dict[str, int]) -> str:
    wrong = sorted(set(got) | set(expected))
    return ", ".join(f"{w}: {got.get(w)} (expected {expected.get(w)})" for w in wrong
                     if got.get(w) != expected.get(w))


