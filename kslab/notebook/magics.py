"""The ``%kslab`` line magic: describe, drive, broker and promote from a notebook cell.

Each subcommand resolves names in the user's namespace and hands off to the public API (a
topology's ``describe()``, the ``DriverExplorer`` widget, ``ks.LocalBroker``,
``ks.KafkaStreams``). Invariant: user mistakes (an undefined variable, a wrong argument) raise
IPython's ``UsageError``, which the notebook shows as one line without a traceback.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

__all__ = ["KslabMagics", "resolve_builder", "resolve_topology"]

_USAGE = "usage: %kslab describe|drive|broker|promote ...; %kslab? explains each"


@magics_class
class KslabMagics(Magics):
    """``%kslab``: the kslab lab's commands (see ``%kslab?``)."""

    broker: Any = None  # the LocalBroker started by ``%kslab broker start``
    apps: list[Any] = []  # the KafkaStreams started by ``%kslab promote``

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
            Run VAR's topology on the live runtime (ks.KafkaStreams), on the local broker
            (started if needed) unless servers are given, and show the runtime monitor.

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
        return handler(args)

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
                cls.broker = _runtime("LocalBroker")()
                cls.broker.start()
            print(f"kslab: local broker running at {cls.broker.bootstrap_servers}")
        elif args[0] == "stop":
            for app in cls.apps:
                app.close()
            cls.apps = []
            if cls.broker is not None:
                cls.broker.stop()
                cls.broker = None
            print("kslab: local broker stopped")
        elif cls.broker is not None and cls.broker.running:
            print(f"kslab: local broker running at {cls.broker.bootstrap_servers} "
                  f"(pid {cls.broker.pid}); {len(cls.apps)} app(s) promoted")
        else:
            print("kslab: no local broker; start one with %kslab broker start")

    def _cmd_promote(self, args: list[str]) -> Any:
        import argparse

        parser = argparse.ArgumentParser(prog="%kslab promote", add_help=False,
                                         exit_on_error=False)
        parser.add_argument("var")
        parser.add_argument("--bootstrap-servers")
        parser.add_argument("--application-id")
        try:
            opts = parser.parse_args(args)
        except (argparse.ArgumentError, SystemExit):
            msg = "usage: %kslab promote VAR [--bootstrap-servers HOST:PORT] [--application-id ID]"
            raise UsageError(msg) from None
        topology = resolve_topology(self._lookup(opts.var), opts.var)
        servers = opts.bootstrap_servers
        if servers is None:
            self._cmd_broker(["start"])
            servers = type(self).broker.bootstrap_servers
        app_id = opts.application_id or f"kslab-{opts.var.replace('.', '-')}"
        streams = _runtime("KafkaStreams")(
            topology, {"application.id": app_id, "bootstrap.servers": servers}
        )
        streams.start()
        type(self).apps.append(streams)
        from kslab.notebook.monitor import RuntimeMonitor

        return RuntimeMonitor(streams)

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
        return builder.build()
    except Exception as exc:
        msg = f"cannot build the topology of {name}: {_one_line(exc)}"
        raise UsageError(msg) from None


def _runtime(name: str) -> Any:
    import kslab

    found = getattr(kslab, name, None)
    if found is None:
        msg = f"ks.{name} is not in this kslab yet (the live runtime has not landed)"
        raise UsageError(msg)
    return found


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
