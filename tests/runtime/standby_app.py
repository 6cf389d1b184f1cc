"""A counting application with standby replicas, run as a child process by the standby tests
(killed with SIGKILL).

Usage: python standby_app.py BOOTSTRAP APP_ID SOURCE SINK STATE_DIR APP_SERVER REPLICAS [EXTRA]
(EXTRA: a JSON object of further config keys).
Prints RUNNING once the client is running; SIGTERM closes it cleanly.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from standby_cases import count_app, standby_config

import kslab as ks


def main() -> None:
    bootstrap, app_id, source, sink, state_dir, server, replicas = sys.argv[1:8]
    config = standby_config(bootstrap, app_id, state_dir, server, int(replicas))
    config.update(json.loads(sys.argv[8]) if len(sys.argv) > 8 else {})
    streams = ks.KafkaStreams(count_app(source, sink), config)
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
