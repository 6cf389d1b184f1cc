"""One instance of the chaos test's application, run as a child process by ``bench/chaos.py``.

The application, on keyed input (key ``k<n>``, value ``e<seq>``, ``seq`` unique per record):

- ``counts``: a count per key (``group_by_key().count()``), every update to ``<prefix>-counts``;
- ``windowed``: a count per key and 5 s tumbling window (grace 10 min, so no record of the
  driver's in-order timestamps is late), every update to ``<prefix>-windowed`` keyed
  ``<key>@<window start>``;
- ``joined``: each event joined with the key's row of the ``<prefix>-profiles`` table (loaded
  before any instance starts), ``e<seq>|<profile>`` to ``<prefix>-joined``.

The record cache is off, so every update is written. Usage::

    python bench/chaos_app.py '<json: bootstrap, app_id, prefix, state_dir, guarantee, threads>'

It prints ``RUNNING`` when the client first runs. On stdin, ``add`` starts one more stream thread
and ``remove`` stops the newest (each answers ``ADDED <name>`` / ``REMOVED <name>``), ``dump``
logs the client's state, metrics and every thread's stack (to diagnose a hang); SIGTERM
closes the client (``close(30 s)``) and exits 0, as a graceful bounce does.
"""

from __future__ import annotations

import faulthandler
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WINDOW_MS = 5_000
GRACE_MS = 600_000


def topology(prefix: str) -> Any:
    """The word count, windowed count and stream-table join over ``<prefix>-events``."""
    import kslab as ks
    from kslab import serdes

    b = ks.StreamsBuilder()
    events = b.stream(f"{prefix}-events", ks.Consumed.with_(serdes.String(), serdes.String()))
    profiles = b.table(f"{prefix}-profiles", ks.Consumed.with_(serdes.String(), serdes.String()),
                       ks.Materialized.as_("profiles"))
    grouped = events.group_by_key(ks.Grouped.with_(serdes.String(), serdes.String()))
    grouped.count(ks.Materialized.as_("counts")).to_stream().to(
        f"{prefix}-counts", ks.Produced.with_(serdes.String(), serdes.Long()))
    (grouped.windowed_by(ks.TimeWindows.of_size_and_grace(WINDOW_MS, GRACE_MS))
        .count(ks.Materialized.as_("windowed"))
        .to_stream()
        .map(lambda wk, n: ks.KeyValue(f"{wk.key}@{wk.window.start}", n))
        .to(f"{prefix}-windowed", ks.Produced.with_(serdes.String(), serdes.Long())))
    events.join(profiles, lambda event, profile: f"{event}|{profile}").to(
        f"{prefix}-joined", ks.Produced.with_(serdes.String(), serdes.String()))
    return b.build()


def config(bootstrap: str, app_id: str, state_dir: str, guarantee: str,
           threads: int) -> dict[str, Any]:
    """The instance's config: fast group settings (as the runtime tests'), no record cache."""
    return {
        "application.id": app_id,
        "bootstrap.servers": bootstrap,
        "state.dir": state_dir,
        "processing.guarantee": guarantee,
        "num.stream.threads": threads,
        "statestore.cache.max.bytes": 0,
        "commit.interval.ms": 200,
        "consumer.session.timeout.ms": 6000,
        "consumer.heartbeat.interval.ms": 500,
    }


def main() -> None:
    import logging

    import kslab as ks

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(threadName)s %(message)s")
    args = json.loads(sys.argv[1])
    streams = ks.KafkaStreams(topology(args["prefix"]), config(
        args["bootstrap"], args["app_id"], args["state_dir"], args["guarantee"],
        args["threads"]))
    streams.set_state_listener(
        lambda new, old: logging.info("state %s -> %s", old.name, new.name))
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())

    def commands() -> None:
        for line in sys.stdin:
            command = line.strip()
            if command == "add":
                print(f"ADDED {streams.add_stream_thread()}", flush=True)
            elif command == "remove":
                print(f"REMOVED {streams.remove_stream_thread(30_000)}", flush=True)
            elif command == "dump":  # the harness's diagnosis of an instance that hangs
                logging.warning("dump: state %s, metrics %s", streams.state.name,
                                json.dumps(streams.metrics(), default=str))
                faulthandler.dump_traceback(sys.stderr, all_threads=True)

    threading.Thread(target=commands, daemon=True).start()
    streams.start()
    if streams.wait_until_running(120):
        print("RUNNING", flush=True)
    done.wait()
    closed = streams.close(timeout=30_000)
    print("CLOSED" if closed else "CLOSE-TIMEOUT", flush=True)
    sys.exit(0 if closed else 3)


if __name__ == "__main__":
    main()
