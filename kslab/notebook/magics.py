"""The ``%kslab`` line magic: describe, drive, broker and promote from a notebook cell.

Each subcommand resolves names in the user's namespace and hands off to the public API (a
topology's ``describe()``, the ``DriverExplorer`` widget, ``ks.LocalBroker``,
``ks.KafkaStreams``). Invariant: user mistakes (an undefined variable, a wrong argument) raise
IPython's ``UsageError``, which the notebook shows as one line without a traceback.
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
from pathlib import Path
from typing import Any, NoReturn

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

from kslab.notebook._rerun import is_lab_broker, reset_previous_run, topology_topics

__all__ = ["KslabMagics", "resolve_builder", "resolve_topology"]

EXPORTING_ENV = "KSLAB_EXPORTING"  # set in the kernel that runs a notebook for its export
_USAGE = "usage: %kslab describe|drive|broker|promote|export ...; %kslab? explains each"


@magics_class
class KslabMagics(Magics):
    """``%kslab``: the kslab lab's commands (see ``%kslab?``)."""

    broker: Any = None  # the LocalBroker started by ``%kslab broker start``
    apps: list[Any] = []  # the KafkaStreams started by ``%kslab promote``
    monitors: list[Any] = []  # their monitors, stopped with them

    @line_magic
    def kslab(self, line: str) -> Any:
        """Work with kslab topologies from a notebook.

        %kslab describe VAR
            Print the topology description of VAR (a StreamsBuilder, Topology, KStream or
            KTable), exactly as Kafka Streams prints it.
        %kslab drive VAR [TOPIC=DFVAR ...]
            Open the driver explorer on VAR's topology: step through the records of the
            given frames (or the builder's sample= frames), rewind with the slider, watch
            each record's path, the output topics and the stores.
        %kslab broker start|stop|status
            Start, stop or show the embedded development broker (ks.LocalBroker).
        %kslab promote VAR [--bootstrap-servers HOST:PORT] [--application-id ID]
                [--keep | --reset] [KEY=VALUE ...]
            Run VAR's topology on the live runtime (ks.KafkaStreams) and return the runtime
            monitor (its .streams is the app). Without --bootstrap-servers it uses
            $KSLAB_BOOTSTRAP_SERVERS (set by make lab's broker), else the local broker,
            started if needed. Missing input topics are created; KEY=VALUE pairs are extra
            Kafka Streams config (commit.interval.ms=100 ...); state.dir defaults to a new
            temporary directory. Run again, it closes the app it promoted before under the
            same id; on the lab's broker (make lab's or this kernel's) an application id
            that ran there before starts clean: its internal topics and offsets deleted, the
            topology's own topics emptied, so a notebook run twice shows the same results
            (--keep keeps them; --reset does the same on any other broker).
        %kslab export [NOTEBOOK] [-o DIR] [--var NAME] [--no-execute]
            Turn this notebook (as last saved; or NOTEBOOK) into an app in DIR (default: the
            notebook's name beside it): topology.py, app.py, config.toml, requirements.txt,
            Dockerfile, README.md and tests/ from the notebook's driver sessions. The
            notebook is run again in a fresh kernel to record them (--no-execute skips that).

        A variable may be any expression over the notebook's names (``%kslab drive app.builder``).
        """
        words = shlex.split(line, posix=False)  # keep quotes: VAR may be handles['x']
        if not words:
            raise UsageError(_USAGE)
        command, args = words[0], words[1:]
        handler = getattr(self, f"_cmd_{command}", None)
        if handler is None:
            msg = f"%kslab has no command '{command}'; {_USAGE}"
            raise UsageError(msg)
        try:
            return handler(args)
        except UsageError:
            raise
        except Exception as exc:  # a runtime failure (no broker binary, broker down...)
            msg = f"%kslab {command} failed: {type(exc).__name__}: {_one_line(exc)}"
            raise UsageError(msg) from None

    # -- commands -------------------------------------------------------------------------------

    def _cmd_describe(self, args: list[str]) -> None:
        if len(args) != 1:
            msg = "usage: %kslab describe VAR (a StreamsBuilder, Topology, KStream or KTable)"
            raise UsageError(msg)
        print(resolve_topology(self._lookup(args[0]), args[0]).describe())

    def _cmd_drive(self, args: list[str]) -> Any:
        if not args:
            msg = "usage: %kslab drive VAR [TOPIC=DFVAR ...]"
            raise UsageError(msg)
        target = self._lookup(args[0])
        inputs: dict[str, Any] = {}
        for pair in args[1:]:
            topic, sep, var = pair.partition("=")
            if not sep or not topic or not var:
                msg = f"'{pair}' is not TOPIC=DFVAR; write e.g. orders=orders_df"
                raise UsageError(msg)
            inputs[topic] = self._lookup(var)
        from kslab.notebook.widgets import DriverExplorer

        builder = resolve_builder(target)
        if not inputs and builder is not None:
            inputs = dict(builder.samples)
        if not inputs:
            msg = (f"nothing to drive: {args[0]} has no sample= frames; pass them as "
                   "%kslab drive VAR TOPIC=DFVAR")
            raise UsageError(msg)
        try:
            return DriverExplorer(resolve_topology(target, args[0]), inputs)
        except UsageError:
            raise
        except Exception as exc:
            msg = f"cannot drive {args[0]}: {_one_line(exc)}"
            raise UsageError(msg) from None

    def _cmd_broker(self, args: list[str]) -> Any:
        if args not in (["start"], ["stop"], ["status"]):
            msg = "usage: %kslab broker start|stop|status"
            raise UsageError(msg)
        cls = type(self)
        if args[0] == "start":
            if cls.broker is None or not cls.broker.running:
                from kslab.runtime import LocalBroker

                cls.broker = LocalBroker()
                cls.broker.start()
            print(f"kslab: local broker running at {cls.broker.bootstrap_servers}")
        elif args[0] == "stop":
            for app in cls.apps:
                app.close(timeout=10_000)
            for monitor in cls.monitors:  # after the apps: their last picture says stopped
                monitor.stop()
            closed = f"closed {len(cls.apps)} app(s)"
            cls.apps, cls.monitors = [], []
            if cls.broker is not None:
                cls.broker.stop()
                cls.broker = None
                print(f"kslab: {closed}; local broker stopped")
            else:
                print(f"kslab: {closed}; this kernel started no broker")
        elif cls.broker is not None and cls.broker.running:
            print(f"kslab: local broker running at {cls.broker.bootstrap_servers} "
                  f"(pid {cls.broker.pid}); {len(cls.apps)} app(s) promoted")
        else:
            print("kslab: no local broker; start one with %kslab broker start")

    def _cmd_promote(self, args: list[str]) -> Any:
        opts = _promote_args(args)
        topology = resolve_topology(self._lookup(opts.var), opts.var)
        servers = opts.bootstrap_servers or os.environ.get("KSLAB_BOOTSTRAP_SERVERS")
        if servers is None:  # no servers given and no broker from `make lab`: start one
            self._cmd_broker(["start"])
            servers = type(self).broker.bootstrap_servers
        app_id = opts.application_id or f"kslab-{_slug(opts.var)}"
        config = {"application.id": app_id, "bootstrap.servers": servers}
        for pair in opts.config:
            key, sep, value = pair.partition("=")
            if not sep:
                msg = f"'{pair}' is not KEY=VALUE; write e.g. num.stream.threads=2"
                raise UsageError(msg)
            config[key] = value
        if "state.dir" not in config:  # a fresh directory: no state left from an earlier broker
            config["state.dir"] = tempfile.mkdtemp(prefix="kslab-promote-")
        self._close_promoted(app_id)  # the same cell run again in this kernel
        cls = type(self)
        kernel_broker = cls.broker.bootstrap_servers if cls.broker is not None else None
        if opts.reset or (not opts.keep and is_lab_broker(servers, kernel_broker)):
            cleared = reset_previous_run(servers, app_id, topology_topics(topology))
            if cleared.summary(app_id):
                print(cleared.summary(app_id))
        created = ensure_source_topics(topology, servers)
        if created:
            print(f"kslab: created topics {', '.join(created)} (1 partition each)")
        from kslab.runtime import KafkaStreams

        streams = KafkaStreams(topology, config)
        streams.start()
        type(self).apps.append(streams)
        print(f"kslab: {config['application.id']} running on {servers}; "
              "%kslab broker stop closes it")
        from kslab.notebook.monitor import RuntimeMonitor

        monitor = RuntimeMonitor(streams)
        type(self).monitors.append(monitor)
        return monitor

    def _close_promoted(self, application_id: str) -> None:
        """Close the apps (and their monitors) this kernel promoted under ``application_id``."""
        cls = type(self)
        for app in [a for a in cls.apps if a.application_id == application_id]:
            app.close(timeout=10_000)
            cls.apps.remove(app)
            for monitor in [m for m in cls.monitors if m.streams is app]:
                monitor.stop()
                cls.monitors.remove(monitor)
            print(f"kslab: closed the {application_id} this kernel promoted before")

    def _cmd_export(self, args: list[str]) -> Any:
        opts = _export_args(args)
        if os.environ.get(EXPORTING_ENV):  # this notebook is being run by its own export
            print("kslab: %kslab export skipped while the notebook runs for an export")
            return None
        notebook = Path(opts.notebook) if opts.notebook else self._notebook_path()
        from kslab.export import ExportError, export_notebook

        try:
            result = export_notebook(notebook, opts.output or notebook.with_suffix(""),
                                     execute=not opts.no_execute, variable=opts.var)
        except ExportError as exc:
            msg = f"%kslab export: {exc}"
            raise UsageError(msg) from None
        print(result.summary())
        return None

    def _notebook_path(self) -> Path:
        """The notebook this kernel runs, from the session Jupyter gave it."""
        namespace = self.shell.user_ns if self.shell is not None else {}
        name = namespace.get("__session__") or os.environ.get("JPY_SESSION_NAME")
        candidates = [Path(name), Path.cwd() / Path(name).name] if name else []
        found = next((p for p in candidates if p.suffix == ".ipynb" and p.is_file()), None)
        if found is None:
            msg = ("%kslab export: cannot tell which notebook this kernel runs (no Jupyter "
                   "session path); give it: %kslab export path/to/notebook.ipynb -o DIR")
            raise UsageError(msg)
        return found.resolve()

    # -- helpers --------------------------------------------------------------------------------

    def _lookup(self, expr: str) -> Any:
        namespace = self.shell.user_ns if self.shell is not None else {}
        match = re.match(r"[A-Za-z_]\w*", expr)
        head = match.group(0) if match else expr
        if head not in namespace:
            msg = (f"no variable '{head}' in this notebook; define it in a cell above "
                   f"(e.g. {head} = ks.StreamsBuilder()) and run that cell first")
            raise UsageError(msg)
        try:
            return eval(expr, namespace)  # an expression over the user's own names
        except Exception as exc:
            msg = f"cannot evaluate '{expr}': {_one_line(exc)}"
            raise UsageError(msg) from None


def resolve_builder(obj: Any) -> Any:
    """The ``StreamsBuilder`` behind a builder or DSL handle, else ``None``."""
    if hasattr(obj, "samples") and hasattr(obj, "build"):
        return obj
    builder = getattr(obj, "builder", None)
    return builder if builder is not None and hasattr(builder, "samples") else None


def resolve_topology(obj: Any, name: str = "the variable") -> Any:
    """A ``Topology`` from a topology, a builder or any DSL handle; ``UsageError`` otherwise."""
    from kslab.topology.topology import Topology

    if isinstance(obj, Topology):
        return obj
    builder = resolve_builder(obj)
    if builder is None:
        msg = (f"{name} is a {type(obj).__name__}, not a StreamsBuilder, Topology, KStream "
               "or KTable")
        raise UsageError(msg)
    try:
        return builder.build_detached()  # a copy: the magic changes nothing of the user's
    except Exception as exc:
        msg = f"cannot build the topology of {name}: {_one_line(exc)}"
        raise UsageError(msg) from None


def ensure_source_topics(topology: Any, servers: str) -> list[str]:
    """Create the user topics ``topology`` reads that the cluster lacks; return their names."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": servers})
    existing = set(admin.list_topics(timeout=10).topics)
    wanted = [t for t in topology.source_topics()
              if isinstance(t, str) and t not in topology.internal_topics and t not in existing]
    if wanted:
        for future in admin.create_topics([NewTopic(t, 1, 1) for t in wanted]).values():
            future.result(10)
    return wanted


def _promote_args(args: list[str]) -> Any:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            msg = f"{message}; {usage}"
            raise UsageError(msg)

    usage = ("usage: %kslab promote VAR [--bootstrap-servers HOST:PORT] "
             "[--application-id ID] [--keep | --reset] [KEY=VALUE ...]")
    parser = Parser(prog="%kslab promote", add_help=False, exit_on_error=False)
    parser.add_argument("var")
    parser.add_argument("--bootstrap-servers")
    parser.add_argument("--application-id")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--keep", action="store_true")  # a lab broker: keep an earlier run's
    choice.add_argument("--reset", action="store_true")  # any broker: clear an earlier run's
    parser.add_argument("config", nargs="*")
    try:
        return parser.parse_intermixed_args(args)
    except argparse.ArgumentError as exc:
        msg = f"{exc}; {usage}"
        raise UsageError(msg) from None


def _export_args(args: list[str]) -> Any:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            msg = f"{message}; {usage}"
            raise UsageError(msg)

    usage = "usage: %kslab export [NOTEBOOK] [-o DIR] [--var NAME] [--no-execute]"
    parser = Parser(prog="%kslab export", add_help=False, exit_on_error=False)
    parser.add_argument("notebook", nargs="?")
    parser.add_argument("-o", "--output")
    parser.add_argument("--var")
    parser.add_argument("--no-execute", action="store_true")
    try:
        return parser.parse_args([a.strip("'\"") for a in args])
    except argparse.ArgumentError as exc:
        msg = f"{exc}; {usage}"
        raise UsageError(msg) from None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "app"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
