"""``kslab broker``: the embedded Kafka-compatible broker (``ks.LocalBroker``) in the foreground.

It prints the bootstrap servers on its first line and runs until Ctrl-C or SIGTERM, then stops
the broker (its in-memory topics go with it) and exits 0.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import threading

from kslab.cli._common import FAILED, CliError

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """``--port`` and ``--host``."""
    default = int(os.environ.get("KSLAB_BROKER_PORT", "9092"))
    parser.add_argument("--port", type=int, default=default,
                        help=f"port to listen on (default $KSLAB_BROKER_PORT or 9092, here "
                             f"{default}); 0 picks a free one")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")


def run(args: argparse.Namespace) -> int:
    """Start the broker, print its address, wait for a signal, stop it."""
    from kslab.errors import StreamsError
    from kslab.runtime.broker import LocalBroker

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if args.port and not _free(args.host, args.port):
        msg = f"port {args.port} on {args.host} is in use; pass another --port (0 picks a free one)"
        raise CliError(msg, FAILED)
    try:
        broker = LocalBroker(args.port or None, host=args.host).start()
    except StreamsError as exc:
        raise CliError(str(exc), FAILED) from None
    print(f"kslab broker: bootstrap servers {broker.bootstrap_servers} (pid {broker.pid}); "
          f"Ctrl-C stops it", flush=True)
    try:
        while broker.running and not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        died = not broker.running
        broker.stop()
    if died and not stop.is_set():
        msg = (f"the broker process on {broker.bootstrap_servers} exited unexpectedly; check that "
               f"nothing else uses port {broker.port}")
        raise CliError(msg, FAILED)
    print("kslab broker: stopped", flush=True)
    return 0


def _free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is not "in use"
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True
