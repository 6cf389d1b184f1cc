"""A word-count application run as a child process by the crash tests (killed with SIGKILL).

Usage: python crash_app.py BOOTSTRAP APP_ID SOURCE WORDS SINK STATE_DIR GUARANTEE [APP_SERVER]
Prints RUNNING once the client is running; SIGTERM closes it cleanly.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from apps import word_count_papi

import kslab as ks


def main() -> None:
    bootstrap, app_id, source, words, sink, state_dir, guarantee = sys.argv[1:8]
    config = {
        "application.id": app_id,
        "bootstrap.servers": bootstrap,
        "state.dir": state_dir,
        "processing.guarantee": guarantee,
        "commit.interval.ms": 100,
        "consumer.session.timeout.ms": 3000,
        "consumer.heartbeat.interval.ms": 300,
    }
    if len(sys.argv) > 8:
        config["application.server"] = sys.argv[8]
    streams = ks.KafkaStreams(word_count_papi(source, sink, repartition=words), config)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    streams.start()
    if streams.wait_until_running(60):
        print("RUNNING", flush=True)
    done.wait()
    streams.close(timeout=10_000)
    print("CLOSED", flush=True)


if __name__ == "__main__":
    main()
