"""``kslab lab``: what ``make lab`` does — JupyterLab on working copies of notebooks/ with a
local broker.

It runs ``extensions/lab.py`` from the kslab source checkout (the kernelspec and settings it
installs live there), so the two commands cannot drift apart. Arguments it does not know go to
``jupyter lab`` (``kslab lab --port 9999 --no-browser``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from pathlib import Path

from kslab.cli._common import CliError

__all__ = ["PASS_UNKNOWN", "configure", "launcher", "run"]

PASS_UNKNOWN = True  # the dispatcher hands unknown arguments on as ``args.extra``


def configure(parser: argparse.ArgumentParser) -> None:
    """``--broker-port``; everything else is passed to ``jupyter lab``."""
    parser.epilog = "Other arguments go to `jupyter lab`, e.g. --port 9999 --no-browser."
    parser.add_argument("--broker-port", type=int, metavar="PORT",
                        help="the local broker's port (default $KSLAB_BROKER_PORT, else free)")


def launcher() -> Path:
    """``extensions/lab.py`` of this kslab's checkout; a clear error outside a checkout."""
    import kslab

    path = Path(kslab.__file__).resolve().parents[1] / "extensions" / "lab.py"
    if not path.is_file():
        msg = (f"kslab lab needs the kslab source checkout (no {path}); clone the repository "
               f"and run `make lab` or `pip install -e .` there")
        raise CliError(msg)
    return path


def run(args: argparse.Namespace) -> int:
    """Hand over to ``extensions/lab.py``'s ``main`` with the extra arguments."""
    path = launcher()
    if args.broker_port is not None:
        os.environ["KSLAB_BROKER_PORT"] = str(args.broker_port)
    spec = importlib.util.spec_from_file_location("kslab_lab_launcher", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return int(module.main(list(args.extra)))
