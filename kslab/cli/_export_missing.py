"""Stands in for ``kslab export`` when this kslab has no exporter module, and says so."""

from __future__ import annotations

import argparse

from kslab.cli._common import FAILED, CliError


def configure(parser: argparse.ArgumentParser) -> None:
    """Accept the exporter's arguments so the message below is what the user sees."""
    parser.add_argument("notebook", metavar="NOTEBOOK", nargs="?")
    parser.add_argument("rest", nargs=argparse.REMAINDER)


def run(args: argparse.Namespace) -> int:
    """Fail with a clear message: export is unavailable here."""
    msg = ("export is unavailable: this kslab has no exporter (the module "
           "kslab.cli.export_command is missing); install a kslab that includes it")
    raise CliError(msg, FAILED)
