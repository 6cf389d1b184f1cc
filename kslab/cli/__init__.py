"""The ``kslab`` console script: one small module per subcommand, imported only when chosen.

Each subcommand module exposes ``configure(parser)`` and ``run(args) -> int``. Invariant: a
user mistake (a wrong target, a missing file, a bad option) prints one line naming it and exits
2 with no traceback; a failure while running exits 1 with one line; success exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

from kslab.cli._common import CliError

__all__ = ["COMMANDS", "main"]

# name -> (module, one-line help); modules are imported only for the command being run
COMMANDS: dict[str, tuple[str, str]] = {
    "broker": ("kslab.cli.broker", "run the embedded Kafka-compatible broker in the foreground"),
    "run": ("kslab.cli.run", "run a topology from a file or module live with KafkaStreams"),
    "export": ("kslab.cli.export_command", "turn a notebook into a deployable app"),
    "describe": ("kslab.cli.describe", "print a topology as text, dot, svg or json"),
    "lab": ("kslab.cli.lab", "JupyterLab on copies of notebooks/ with a local broker"),
    "reset": ("kslab.cli.reset", "reset an application's offsets, internal topics and state"),
    "demo": ("kslab.cli.demo", "word count live on a local broker, headless; prints the counts"),
}


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the process arguments), run the subcommand, return its exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="kslab", description="Kafka Streams topologies in Python, from notebook to app.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = next((a for a in args_list if not a.startswith("-")), None)
    parsers = {name: sub.add_parser(name, help=text, description=text[0].upper() + text[1:])
               for name, (_, text) in COMMANDS.items()}
    module = None
    if chosen in COMMANDS:
        module = _load(chosen)
        module.configure(parsers[chosen])
    if getattr(module, "PASS_UNKNOWN", False):
        args, extra = parser.parse_known_args(args_list)
        args.extra = extra
    else:
        args = parser.parse_args(args_list)
    if module is None:  # pragma: no cover - argparse rejected an unknown command already
        return 2
    try:
        return int(module.run(args))
    except CliError as exc:
        print(f"kslab {args.command}: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130


def _load(command: str) -> ModuleType:
    """The subcommand's module."""
    return importlib.import_module(COMMANDS[command][0])
