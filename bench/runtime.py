"""End-to-end throughput of the live runtime on a LocalBroker, beside a raw loop and Quix Streams.

Each contestant runs in its own process against the same broker and fresh topics holding the
same input (one partition each, so the numbers are "after the group join, one partition"). The
harness reads the output topic and times from the first output record to the last, so group
joins and start-up are excluded for everyone. Workloads: pass-through (String key, 100-byte
value) and word count (lines of 8 words from a 5,000-word vocabulary, one output per word),
each under at_least_once and exactly_once_v2 (output read with read_committed).

Quix Streams runs from another virtualenv when it is not importable here:
``QUIX_PYTHON=/path/to/venv/bin/python python bench/runtime.py``.

Usage: python bench/runtime.py [--records 200000] [--lines 25000] [--runs 3]
(with several runs the contestants take turns and each cell reports its median).
``--cpu [--profile FILE]``: the processing thread's CPU seconds for word count instead, raw
loop and kslab interleaved (and a cProfile of kslab's stream thread).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GUARANTEES = ("at_least_once", "exactly_once_v2")
CONTESTANTS = ("raw", "kslab", "quix")


# -- contestants (each runs in a child process) -------------------------------------------------


def run_kslab(bootstrap: str, workload: str, guarantee: str, src: str, dst: str,
              app: str, state: str) -> None:
    """kslab KafkaStreams with a Processor API topology."""
    streams = kslab_app(bootstrap, workload, guarantee, src, dst, app, state)
    streams.start()
    _wait_for_stop(state)
    streams.close()


def kslab_app(bootstrap: str, workload: str, guarantee: str, src: str, dst: str,
              app: str, state: str, extra: dict[str, Any] | None = None) -> Any:
    """The kslab contestant's KafkaStreams (not started); ``extra``: more config."""
    import re

    import kslab as ks
    from kslab import serdes

    word = re.compile(r"\s+")

    class Counter(ks.Processor):
        def init(self, context):
            self.context = context
            self.store = context.get_state_store("counts")

        def process(self, record):
            store, forward = self.store, self.context.forward
            for w in word.split(record.value):
                n = (store.get(w) or 0) + 1
                store.put(w, n)
                forward(record.with_key(w).with_value(n))

    class Forward(ks.Processor):
        def init(self, context):
            self.forward = context.forward

        def process(self, record):
            self.forward(record)

    topo = ks.Topology()
    if workload == "pass-through":
        topo.add_source("src", src, key_serde=serdes.String(), value_serde=serdes.Bytes())
        topo.add_processor("p", Forward, "src")
        topo.add_sink("out", dst, "p", key_serde=serdes.String(), value_serde=serdes.Bytes())
    else:
        topo.add_source("src", src, key_serde=serdes.String(), value_serde=serdes.String())
        topo.add_processor("count", Counter, "src")
        topo.add_state_store(ks.Stores.key_value_store_builder(
            ks.Stores.in_memory_key_value_store("counts"), serdes.String(), serdes.Long()),
            "count")
        topo.add_sink("out", dst, "count", key_serde=serdes.String(),
                      value_serde=serdes.Long())
    return ks.KafkaStreams(topo, {
        "application.id": app, "bootstrap.servers": bootstrap, "state.dir": state,
        "processing.guarantee": guarantee,
        "commit.interval.ms": 1000 if guarantee == "at_least_once" else 100,
        "consumer.session.timeout.ms": 6000, "consumer.heartbeat.interval.ms": 500,
        **(extra or {}),
    })


def raw_clients(bootstrap: str, app: str, eos: bool, src: str) -> tuple[Any, Any]:
    """The raw loop's consumer (subscribed to ``src``) and producer (in a transaction when
    ``eos``), as every raw contestant makes them."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": app,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "isolation.level": "read_committed" if eos else "read_uncommitted",
                         "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
    pconf = {"bootstrap.servers": bootstrap, "linger.ms": 5, "enable.idempotence": True}
    if eos:
        pconf["transactional.id"] = f"{app}-raw"
    producer = Producer(pconf)
    if eos:
        producer.init_transactions(30)
        producer.begin_transaction()
    consumer.subscribe([src])
    return consumer, producer


def run_raw(bootstrap: str, workload: str, guarantee: str, src: str, dst: str,
            app: str, state: str) -> None:
    """A hand-written confluent-kafka consume -> produce loop doing the same work."""
    import re

    word = re.compile(r"\s+")
    eos = guarantee == "exactly_once_v2"
    consumer, producer = raw_clients(bootstrap, app, eos, src)
    counts: dict[str, int] = {}
    interval = 0.1 if eos else 1.0
    last = time.monotonic()
    produce = producer.produce
    offsets: dict[int, int] = {}
    stop = Path(state) / "stop"
    while not stop.exists():
        batch = consumer.consume(1000, 0.1)
        if workload == "pass-through":
            for msg in batch:
                if msg.error():
                    continue
                key = msg.key().decode()  # the same serde work as the apps
                try:
                    produce(dst, msg.value(), key.encode())
                except BufferError:
                    producer.poll(0.05)
                    produce(dst, msg.value(), key.encode())
                offsets[msg.partition()] = msg.offset() + 1
        else:
            raw_word_count(batch, counts, producer, dst, word, offsets)
        if time.monotonic() - last >= interval and offsets:
            last = time.monotonic()
            raw_commit(consumer, producer, src, offsets, eos)
    consumer.close()


def raw_commit(consumer: Any, producer: Any, src: str, offsets: dict[int, int],
               eos: bool) -> None:
    """The raw loop's commit of ``offsets`` (partition -> next offset of ``src``): in the
    producer's transaction when ``eos``, else after a producer flush; then forgets them."""
    tps = [TopicPartition(src, p, o) for p, o in offsets.items()]
    if eos:
        producer.send_offsets_to_transaction(tps, consumer.consumer_group_metadata())
        producer.commit_transaction()
        producer.begin_transaction()
    else:
        producer.flush()
        consumer.commit(offsets=tps, asynchronous=False)
    offsets.clear()


def raw_word_count(batch: list[Any], counts: dict[str, int], producer: Any, dst: str,
                   word: Any, offsets: dict[int, int]) -> None:
    """The raw loop's word count over one polled batch: split, count in a dict, produce each
    count, note the next offset (bench/runtime_hotpath.py runs the same body)."""
    produce = producer.produce
    for msg in batch:
        if msg.error():
            continue
        for w in word.split(msg.value().decode()):
            n = counts.get(w, 0) + 1
            counts[w] = n
            try:
                produce(dst, n.to_bytes(8, "big"), w.encode())
            except BufferError:
                producer.poll(0.05)
                produce(dst, n.to_bytes(8, "big"), w.encode())
        offsets[msg.partition()] = msg.offset() + 1


# the Quix contestant's Application, as both Quix scripts (here and in idiomatic_live) build it
QUIX_APP = '''
import re, sys, time, threading
from pathlib import Path
from quixstreams import Application
bootstrap, workload, guarantee, src, dst, app_id, state = sys.argv[1:8]
app = Application(broker_address=bootstrap, consumer_group=app_id,
                  auto_offset_reset="earliest",
                  processing_guarantee="exactly-once" if "exactly" in guarantee
                  else "at-least-once",
                  commit_interval=1.0 if guarantee == "at_least_once" else 0.1,
                  state_dir=state, loglevel="WARNING",
                  consumer_extra_config={"session.timeout.ms": 6000,
                                         "heartbeat.interval.ms": 500})
'''

# ... and its run until the harness says stop
QUIX_RUN = '''
import threading, os
def watch():
    while not (Path(state) / "stop").exists():
        time.sleep(0.2)
    app.stop()
threading.Thread(target=watch, daemon=True).start()
app.run()
'''

QUIX = QUIX_APP + '''
word = re.compile(r"\\s+")
if workload == "pass-through":
    inp = app.topic(src, key_deserializer="string", value_deserializer="bytes")
    out = app.topic(dst, key_serializer="string", value_serializer="bytes")
    sdf = app.dataframe(inp)
    sdf.to_topic(out)
else:
    from quixstreams.models.serializers import Serializer

    class CountOfPair(Serializer):
        def __call__(self, value, ctx):
            return value[1].to_bytes(8, "big")

    inp = app.topic(src, key_deserializer="string", value_deserializer="string")
    out = app.topic(dst, key_serializer="string", value_serializer=CountOfPair())
    sdf = app.dataframe(inp)
    def count(line, state):
        result = []
        for w in word.split(line):
            n = (state.get(w) or 0) + 1
            state.set(w, n)
            result.append((w, n))
        return result
    sdf = sdf.apply(count, stateful=True, expand=True)
    sdf.to_topic(out, key=lambda kv: kv[0])
''' + QUIX_RUN


def _wait_for_stop(state: str) -> None:
    stop = Path(state) / "stop"
    while not stop.exists():
        time.sleep(0.1)


# -- the harness ----------------------------------------------------------------------------------


def make_input(workload: str, n: int) -> list[tuple[bytes, bytes]]:
    """Pass-through records or word-count lines, deterministic."""
    rnd = random.Random(42)
    if workload == "pass-through":
        return [(f"k{i % 1000}".encode(), rnd.randbytes(50).hex().encode()) for i in range(n)]
    vocab = [f"word{i}" for i in range(5000)]
    return [(b"line", " ".join(rnd.choice(vocab) for _ in range(8)).encode()) for _ in range(n)]


def _prepare(bootstrap: str, tag: str, data: list[tuple[bytes, bytes]]) -> tuple[str, str]:
    """Fresh one-partition input and output topics, the input holding ``data``."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    src, dst = f"in-{tag}", f"out-{tag}"
    # explicit retention: Tansu reports only the configs a topic was created with, and Quix
    # derives its changelog configs from them
    config = {"retention.ms": "604800000", "retention.bytes": "-1"}
    topics = [NewTopic(src, 1, 1, config=config), NewTopic(dst, 1, 1, config=config)]
    for f in admin.create_topics(topics).values():
        f.result(10)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for key, value in data:
        try:
            producer.produce(src, value, key)
        except BufferError:
            producer.poll(0.1)
            producer.produce(src, value, key)
    producer.flush(60)
    return src, dst


def measure(bootstrap: str, contestant: str, workload: str, guarantee: str,
            data: list[tuple[bytes, bytes]], run: int, quix_python: str | None) -> float | None:
    """Units per second for one contestant, or None when it cannot run."""
    tag = f"{contestant}-{workload}-{guarantee}-{run}".replace("_", "-")
    src, dst = _prepare(bootstrap, tag, data)
    expected = len(data) * (8 if workload == "word count" else 1)
    state = Path(tempfile.mkdtemp(prefix=f"bench-{tag}-"))
    args = [bootstrap, workload, guarantee, src, dst, f"app-{tag}", str(state)]
    if contestant == "quix":
        if quix_python is None:
            return None
        script = state / "quix_app.py"
        script.write_text(textwrap.dedent(QUIX))
        cmd = [quix_python, str(script), *args]
    else:
        cmd = [sys.executable, __file__, "--child", contestant, *args]
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        first, last, seen = _read(bootstrap, dst, expected, guarantee, timeout=300)
    finally:
        (state / "stop").touch()
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
        shutil.rmtree(state, ignore_errors=True)
    if seen < expected:
        print(f"  {contestant} {workload} {guarantee}: only {seen}/{expected} outputs",
              file=sys.stderr)
        return None
    return len(data) / (last - first) if last > first else None


def _read(bootstrap: str, topic: str, expected: int, guarantee: str,
          timeout: float) -> tuple[float, float, int]:
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"reader-{topic}",
        "auto.offset.reset": "earliest", "enable.auto.commit": False,
        "isolation.level": "read_committed" if guarantee == "exactly_once_v2"
        else "read_uncommitted", "fetch.wait.max.ms": 10})
    consumer.assign([TopicPartition(topic, 0, 0)])
    seen = 0
    first = last = 0.0
    deadline = time.monotonic() + timeout
    while seen < expected and time.monotonic() < deadline:
        batch = consumer.consume(10000, 0.05)
        if batch:
            now = time.perf_counter()
            if not seen:
                first = now
            seen += sum(1 for m in batch if m.error() is None)
            last = now
    consumer.close()
    return first, last, seen


def thread_cpu(bootstrap: str, contestant: str, workload: str, guarantee: str,
               data: list[tuple[bytes, bytes]], run: int, profile: str | None = None) -> float:
    """CPU seconds of the processing thread (``time.thread_time``), a load-independent view.

    ``raw`` runs the raw loop in a thread of this process; ``kslab`` times its stream thread's
    loop. Either includes the idle polls until the output is complete (a few ms of CPU).
    ``profile``: write a cProfile of that thread there.
    """
    import cProfile
    import threading

    tag = f"cpu-{contestant}-{workload}-{guarantee}-{run}".replace("_", "-")
    src, dst = _prepare(bootstrap, tag, data)
    expected = len(data) * (8 if workload == "word count" else 1)
    state = Path(tempfile.mkdtemp(prefix=f"bench-{tag}-"))
    args = (bootstrap, workload, guarantee, src, dst, f"app-{tag}", str(state))
    cpu: list[float] = []

    def timed(body: Any, *body_args: Any) -> None:
        prof = cProfile.Profile() if profile else None
        start = time.thread_time()
        try:
            if prof is not None:
                prof.runcall(body, *body_args)
            else:
                body(*body_args)
        finally:
            cpu.append(time.thread_time() - start)
            if prof is not None:
                prof.dump_stats(profile)

    from kslab.runtime._thread import StreamThread

    streams = None
    loop = StreamThread._loop
    if contestant == "raw":
        thread = threading.Thread(target=timed, args=(run_raw, *args))
        thread.start()
    else:  # the stream thread enters its loop after start() returns: unpatched after close
        StreamThread._loop = lambda self: timed(loop, self)  # type: ignore[method-assign]
        streams = kslab_app(*args)
        streams.start()
    try:
        _, _, seen = _read(bootstrap, dst, expected, guarantee, timeout=300)
    finally:
        (state / "stop").touch()
        if streams is not None:
            streams.close()
        else:
            thread.join()
        StreamThread._loop = loop  # type: ignore[method-assign]
        shutil.rmtree(state, ignore_errors=True)
    if seen < expected:
        print(f"  cpu {contestant}: only {seen}/{expected} outputs", file=sys.stderr)
    return cpu[0]


def cpu_main(opts: Any) -> None:
    """Print the processing thread's CPU seconds for word count, raw loop and kslab interleaved."""
    from kslab.runtime import LocalBroker

    data = make_input("word count", opts.lines)
    with LocalBroker() as broker:
        for guarantee in GUARANTEES:
            for run in range(opts.runs):
                profile = f"{opts.profile}.{guarantee}" if opts.profile else None
                got = {c: thread_cpu(broker.bootstrap_servers, c, "word count", guarantee,
                                     data, run, profile if c == "kslab" else None)
                       for c in ("raw", "kslab")}
                print(f"word count {guarantee} run {run}: raw {got['raw']:.3f} s, kslab "
                      f"{got['kslab']:.3f} s CPU, raw/kslab {got['raw'] / got['kslab']:.2f}x",
                      flush=True)


def _quix_python() -> str | None:
    explicit = os.environ.get("QUIX_PYTHON")
    if explicit:
        return explicit
    try:
        import quixstreams  # noqa: F401
    except ImportError:
        return None
    return sys.executable


def main() -> None:
    """Run every contestant on every workload and print a Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--lines", type=int, default=25_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workloads", default="pass-through,word count")
    parser.add_argument("--cpu", action="store_true",
                        help="print the processing thread's CPU time for word count instead")
    parser.add_argument("--profile", help="with --cpu: cProfile kslab's stream thread to "
                        "PROFILE.<guarantee>")
    opts = parser.parse_args()
    if opts.cpu:
        cpu_main(opts)
        return
    from kslab.runtime import LocalBroker

    quix = _quix_python()
    rows = []
    with LocalBroker() as broker:
        for workload, n, unit in (("pass-through", opts.records, "rec/s"),
                                  ("word count", opts.lines, "lines/s")):
            if workload not in opts.workloads.split(","):
                continue
            data = make_input(workload, n)
            for guarantee in GUARANTEES:
                rates: dict[str, list[float]] = {c: [] for c in CONTESTANTS}
                for run in range(opts.runs):  # interleaved, so load drift hits everyone alike
                    for contestant in CONTESTANTS:
                        rate = measure(broker.bootstrap_servers, contestant, workload,
                                       guarantee, data, run, quix)
                        print(f"  {workload} {guarantee} {contestant} run {run}: {rate}",
                              file=sys.stderr)
                        if rate is not None:
                            rates[contestant].append(rate)
                results = {c: sorted(r)[len(r) // 2] if r else None for c, r in rates.items()}
                rows.append((workload, guarantee, unit, results))
    print("| workload | guarantee | unit | raw confluent-kafka loop | kslab KafkaStreams | "
          "Quix Streams | kslab / raw | kslab / Quix |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for workload, guarantee, unit, r in rows:
        def fmt(v):
            return f"{v:,.0f}" if v else "n/a"

        def ratio(a, b):
            return f"{a / b:.2f}x" if a and b else "n/a"

        print(f"| {workload} | {guarantee} | {unit} | {fmt(r['raw'])} | {fmt(r['kslab'])} | "
              f"{fmt(r['quix'])} | {ratio(r['kslab'], r['raw'])} | "
              f"{ratio(r['kslab'], r['quix'])} |")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        {"kslab": run_kslab, "raw": run_raw}[sys.argv[2]](*sys.argv[3:10])
    else:
        main()
