"""The live runtime's processing cost per word beside the raw loop's, on the same messages.

``bench/runtime.py --cpu`` times whole runs against the broker, which move +-20% here with the
broker's own load on the two cores. This harness holds everything else still: kslab's stream
thread joins its group on a LocalBroker, then the broker is stopped, and both contestants are
fed the same pre-built ``confluent_kafka.Message`` batches of word-count lines (1,000 a batch, as
a poll returns) in turns, producing into their producers' queues (which keep everything while
the broker is gone). kslab runs them through ``StreamThread._process`` and sends its batched
changelog writes every ``--flush-every`` batches, as a commit would; the raw loop runs
``bench/runtime.py``'s loop body; "floor" runs the same user processor on a stand-in framework
that does nothing but the API's work (see ``floor_pass``). Each side reports the minimum over
``--runs`` passes of its thread's ``time.thread_time()``: the processing cost alone, without
polls, commits or network. Thread times move a lot on these VMs; for steady numbers count
instructions: ``valgrind --tool=cachegrind --cache-sim=no python bench/runtime_hotpath.py
--only kslab --runs 2`` minus the same with ``--runs 1`` is one pass.

Usage: python bench/runtime_hotpath.py [--lines 25000] [--runs 5] [--flush-every 12]
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Message, Producer
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from runtime import kslab_app, make_input, raw_word_count  # noqa: E402

BATCH = 1000
# the producers keep every message while the broker is gone (librdkafka's maximums)
QUEUE = {"queue.buffering.max.messages": 2_000_000_000 // 1000,
         "queue.buffering.max.kbytes": 2_000_000_000 // 1000}


def batches(topic: str, lines: list[tuple[bytes, bytes]], start: int) -> list[list[Any]]:
    """``lines`` as consumed messages of ``topic`` partition 0 from offset ``start``."""
    out: list[list[Any]] = []
    for i in range(0, len(lines), BATCH):
        out.append([Message(topic=topic, partition=0, offset=start + i + j, key=key,
                            value=value, timestamp=(1, 1_000_000 + start + i + j))
                    for j, (key, value) in enumerate(lines[i:i + BATCH])])
    return out


class KslabContestant:
    """kslab's stream thread, held in its loop to run passes on request."""

    def __init__(self, bootstrap: str, src: str, dst: str, flush_every: int) -> None:
        from kslab.runtime._thread import StreamThread

        self.flush_every = flush_every
        self.requests: queue.Queue[Any] = queue.Queue()
        self.results: queue.Queue[Any] = queue.Queue()
        self.state = tempfile.mkdtemp(prefix="bench-hot-")
        original = StreamThread._loop
        StreamThread._loop = lambda thread: self._loop(thread)  # type: ignore[method-assign]
        try:
            self.streams = kslab_app(bootstrap, "word count", "at_least_once", src, dst,
                                     f"app-hot-{src}", self.state,
                                     {f"producer.{k}": v for k, v in QUEUE.items()})
            self.streams.start()
            ready = self.results.get(timeout=90)
        finally:
            StreamThread._loop = original  # type: ignore[method-assign]
        if isinstance(ready, BaseException):
            raise ready

    def _loop(self, thread: Any) -> None:
        try:
            deadline = time.monotonic() + 60
            while not thread._route and time.monotonic() < deadline:
                messages = thread.consumer.consume(1, 0.1)  # the group join assigns the task
                if messages:
                    thread._process(messages)
            if not thread._route:
                raise RuntimeError("kslab's stream thread was not assigned its task in 60 s")
        except BaseException as exc:
            self.results.put(exc)
            return
        self.results.put("ready")
        flush = thread.collector.flush_changelogs
        while (work := self.requests.get()) is not None:
            try:
                start = time.thread_time()
                for i, batch in enumerate(work, 1):
                    thread._process(batch)
                    if i % self.flush_every == 0:
                        flush()
                flush()
                self.results.put(time.thread_time() - start)
            except BaseException as exc:
                self.results.put(exc)
        thread._halt.set()

    def run(self, work: list[list[Any]]) -> float:
        """CPU seconds of the stream thread over ``work``."""
        self.requests.put(work)
        got = self.results.get()
        if isinstance(got, BaseException):
            raise got
        return got

    def stop(self) -> None:
        """End the thread without a commit (the broker is gone)."""
        self.requests.put(None)
        shutil.rmtree(self.state, ignore_errors=True)


def raw_pass(producer: Any, dst: str, counts: dict[str, int], work: list[list[Any]]) -> float:
    """CPU seconds of ``bench/runtime.py``'s raw loop body over ``work`` (in its own thread)."""
    word = re.compile(r"\s+")
    took: list[float] = []

    def body() -> None:
        offsets: dict[int, int] = {}
        start = time.thread_time()
        for batch in work:
            raw_word_count(batch, counts, producer, dst, word, offsets)
        took.append(time.thread_time() - start)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    return took[0]


def floor_pass(producer: Any, dst: str, state: dict[str, Any], work: list[list[Any]]) -> float:
    """CPU seconds of kslab's API shape with the least framework Python allows, over ``work``.

    The same user ``Counter`` as ``bench/runtime.py``'s kslab contestant, on a stand-in
    framework with nothing but the work: records with the class-switch copy ``kslab.records``
    uses, a ``forward`` that calls the sink, a sink that encodes and produces, a store whose
    ``get`` is a ``dict``'s own and whose ``put`` notes the key for the changelog, sent once
    per pass. No stream time, metrics, error handling, headers or serde fallbacks: the cost of
    the API itself (a record per output, method calls per word), the floor under any framework
    written in Python.
    """
    import struct

    word = re.compile(r"\s+")
    produce = producer.produce
    long = struct.Struct(">q").pack
    objects: dict[str, int] = state.setdefault("objects", {})
    dirty: dict[str, int] = {}

    class Fields:
        __slots__ = ("_headers", "key", "timestamp", "value")

    class Rec(Fields):
        __slots__ = ()

        def with_key(self, key: Any) -> Rec:
            new = Fields()
            new.key, new.value, new.timestamp, new._headers = key, self.value, self.timestamp, None
            new.__class__ = Rec
            return new  # type: ignore[return-value]

        def with_value(self, value: Any) -> Rec:
            new = Fields()
            new.key, new.value, new.timestamp, new._headers = self.key, value, self.timestamp, None
            new.__class__ = Rec
            return new  # type: ignore[return-value]

    class Context:
        record: Any = None

        def forward(self, record: Any) -> None:
            sink(record)

    def sink(record: Any) -> None:
        produce(dst, long(record.value), record.key.encode(), 0, None, None, record.timestamp,
                None)

    context = Context()

    class Store:
        get = staticmethod(objects.get)

        def put(self, key: str, value: int) -> None:
            objects[key] = value
            dirty[key] = context.record.timestamp

    class Counter:  # bench/runtime.py's, word for word
        def __init__(self) -> None:
            self.context, self.store = context, Store()

        def process(self, record: Any) -> None:
            store, forward = self.store, self.context.forward
            for w in word.split(record.value):
                n = (store.get(w) or 0) + 1
                store.put(w, n)
                forward(record.with_key(w).with_value(n))

    process = Counter().process
    took: list[float] = []

    def body() -> None:
        start = time.thread_time()
        for batch in work:
            for msg in batch:
                new = Fields()
                new.key, new.value = msg.key().decode(), msg.value().decode()
                new.timestamp, new._headers = msg.timestamp()[1], None
                new.__class__ = Rec
                context.record = new
                process(new)
        for key, timestamp in dirty.items():  # the changelog, once per key
            produce("changelog", long(objects[key]), key.encode(), 0, None, None, timestamp,
                    None)
        took.append(time.thread_time() - start)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    return took[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=25000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--flush-every", type=int, default=12,
                        help="batches between changelog sends (12: about the bench's 1 s "
                        "commits at least once; 2: its 100 ms ones exactly once)")
    parser.add_argument("--only", choices=("raw", "floor", "kslab"),
                        help="run one contestant (for an instruction count under valgrind)")
    parser.add_argument("--verbose", action="store_true", help="print every pass's time")
    opts = parser.parse_args()
    lines = make_input("word count", opts.lines)
    from kslab.runtime import LocalBroker

    broker = LocalBroker().start()
    bootstrap = broker.bootstrap_servers
    admin = AdminClient({"bootstrap.servers": bootstrap})
    src, dst = f"in-hot-{time.time_ns()}", f"out-hot-{time.time_ns()}"
    for f in admin.create_topics([NewTopic(src, 1, 1), NewTopic(dst, 1, 1)]).values():
        f.result(10)
    kslab = KslabContestant(bootstrap, src, dst, opts.flush_every) \
        if opts.only in (None, "kslab") else None
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5,
                         "enable.idempotence": True, **QUEUE})
    Consumer({"bootstrap.servers": bootstrap, "group.id": "unused"}).close()  # same libraries
    broker.stop()
    counts: dict[str, int] = {}
    floor: dict[str, Any] = {}
    times: dict[str, list[float]] = {"raw": [], "floor": [], "kslab": []}
    for run in range(opts.runs):
        work = batches(src, lines, run * len(lines))
        if opts.only in (None, "raw"):
            times["raw"].append(raw_pass(producer, dst, counts, work))
        if opts.only in (None, "floor"):
            times["floor"].append(floor_pass(producer, dst, floor, work))
        if kslab is not None:
            times["kslab"].append(kslab.run(work))
    if kslab is not None:
        kslab.stop()
    words = opts.lines * 8
    if opts.verbose:
        print({who: [round(t, 3) for t in got] for who, got in times.items()})
    best = {who: min(got) for who, got in times.items() if got}
    text = ", ".join(f"{who} {t:.3f} s ({t / words * 1e9:.0f} ns/word)"
                     for who, t in best.items())
    ratio = "".join(f", raw/{who} {best['raw'] / best[who]:.2f}x" for who in ("floor", "kslab")
                    if "raw" in best and who in best)
    print(f"{opts.lines} lines, changelog sent every {opts.flush_every} batches, min of "
          f"{opts.runs}: {text}{ratio}", flush=True)
    os._exit(0)  # the clients would wait for the stopped broker


if __name__ == "__main__":
    main()
