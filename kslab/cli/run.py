"""``kslab run TARGET``: run a topology live with ``ks.KafkaStreams`` until SIGTERM or Ctrl-C.

Config comes from ``--config FILE`` (TOML, see ``kslab.cli._config``), then the environment
(``KSLAB_<PROPERTY>``: ``KSLAB_BOOTSTRAP_SERVERS``, ``KSLAB_APPLICATION_ID``, ...), then flags,
as an app written by ``kslab export`` reads them. On SIGTERM or Ctrl-C it
closes the app gracefully (in-flight work committed, group left) and exits 0; if the app fails
it exits 1 naming the error.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from kslab.cli._common import FAILED, CliError
from kslab.cli._config import DEV_SETTINGS, load_config, parse_setting
from kslab.cli._target import load_target

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The target, the config file and the flags that override it."""
    parser.add_argument("target", metavar="FILE_OR_MODULE[:VAR]",
                        help="e.g. app.py:topology or mypkg.streams:build_topology; VAR is a "
                             "Topology, a StreamsBuilder or a function returning one (left "
                             "out: the module's only one, else its build_topology)")
    parser.add_argument("--config", "-c", type=Path, metavar="FILE",
                        help="TOML file of Kafka Streams properties (e.g. the config.toml "
                             "kslab export writes); KSLAB_<PROPERTY> variables override it")
    parser.add_argument("--bootstrap-servers", metavar="HOST:PORT",
                        help="the brokers; overrides $KSLAB_BOOTSTRAP_SERVERS, which overrides "
                             "the config file")
    parser.add_argument("--application-id", metavar="ID",
                        help="overrides $KSLAB_APPLICATION_ID and the config file (default: "
                             "the target's module name)")
    parser.add_argument("--create-topics", action="store_true",
                        help="create the source and sink topics the broker lacks (1 partition "
                             "each) before starting: for a fresh local broker, not production")
    parser.add_argument("--dev", action="store_true",
                        help="for a local broker: --create-topics, and unless configured "
                             "otherwise " + ", ".join(f"{k}={v}" for k, v in DEV_SETTINGS.items())
                             + " (joins in ~3 s instead of ~25 s)")
    parser.add_argument("--log-level", default="INFO",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="the runtime's log on standard error (INFO)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        dest="settings", help="any other property (repeatable), e.g. "
                                              "--set commit.interval.ms=100")


def run(args: argparse.Namespace) -> int:
    """Load the target, start it, wait for a signal or a failure, close it."""
    import kslab as ks
    from kslab.errors import KslabError

    logging.basicConfig(level=args.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    flags: dict[str, Any] = dict(parse_setting(s) for s in args.settings)
    flags["bootstrap.servers"] = args.bootstrap_servers
    flags["application.id"] = args.application_id
    props = load_config(args.config, flags)
    if args.dev:
        props = {**DEV_SETTINGS, **props}
    target = load_target(args.target)
    props.setdefault("application.id", target.module.rpartition("/")[2].removesuffix(".py")
                     .replace(".", "-"))
    if not props.get("bootstrap.servers"):
        msg = ("no brokers: pass --bootstrap-servers HOST:PORT, set bootstrap.servers in the "
               "--config file, or set KSLAB_BOOTSTRAP_SERVERS")
        raise CliError(msg)
    try:
        topology = target.topology(props)
        streams = ks.KafkaStreams(topology, props)
    except KslabError as exc:
        raise CliError(str(exc)) from None
    if args.create_topics or args.dev:
        created = _create_topics(topology, props["bootstrap.servers"])
        if created:
            print(f"kslab run: created topics {', '.join(created)} (1 partition each)")
    return _run_until_stopped(streams, f"{target.module}:{target.var}")


def _run_until_stopped(streams: Any, label: str) -> int:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    ended = threading.Event()

    def on_change(new: Any, old: Any) -> None:
        print(f"kslab run: {old.name} -> {new.name}", flush=True)
        if new.name in ("ERROR", "NOT_RUNNING"):
            ended.set()

    streams.set_state_listener(on_change)
    print(f"kslab run: {label} as {streams.application_id} on {streams.bootstrap_servers}; "
          f"Ctrl-C or SIGTERM stops it", flush=True)
    try:
        streams.start()
        while not stop.wait(0.2) and not ended.is_set():
            pass
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        streams.close()
        msg = f"the app failed to start: {exc}"
        raise CliError(msg, FAILED) from None
    failed = streams.state.name in ("ERROR", "PENDING_ERROR")
    closed = streams.close(timeout=30_000)
    if failed:
        error = streams.errors[-1] if streams.errors else "see the log above"
        msg = f"the app failed: {error}"
        raise CliError(msg, FAILED)
    print(f"kslab run: closed{'' if closed else ' (timed out after 30 s)'}", flush=True)
    sys.stdout.flush()
    return 0 if closed else FAILED


def _create_topics(topology: Any, servers: str) -> list[str]:
    """Create the user topics ``topology`` reads or writes that the broker lacks; their names.

    Sink topics too: a broker that auto-creates them picks its own partition count (Tansu: 4),
    which would spread the output unlike the notebook's driver.
    """
    from confluent_kafka.admin import AdminClient, NewTopic

    from kslab.cli.describe import to_json

    admin = AdminClient({"bootstrap.servers": servers})
    try:
        existing = set(admin.list_topics(timeout=10).topics)
    except Exception as exc:
        msg = f"cannot reach the brokers at {servers} to create topics: {exc}"
        raise CliError(msg, FAILED) from None
    topics = to_json(topology)["topics"]
    wanted = [t for t in dict.fromkeys([*topics["source"], *topics["sink"]]) if t not in existing]
    for future in admin.create_topics([NewTopic(t, 1) for t in wanted]).values():
        future.result(10)
    return wanted
