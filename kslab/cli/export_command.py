"""``kslab export NOTEBOOK -o DIR``: turn a notebook into a deployable app (``kslab.export``).

Invariant: a notebook that cannot be exported (a shell escape in an exported cell, no
topology variable, a cell that fails when run) exits 2 with the one-line reason naming the
cell; nothing is written then.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kslab.cli._common import CliError

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The notebook, ``-o DIR``, ``--var``, ``--no-execute`` and ``--no-kslab-wheel``."""
    parser.add_argument("notebook", type=Path, metavar="NOTEBOOK",
                        help="the .ipynb to export")
    parser.add_argument("-o", "--output", type=Path, metavar="DIR",
                        help="directory to write the app into (default: NOTEBOOK's name "
                             "without .ipynb, beside it)")
    parser.add_argument("--var", metavar="NAME",
                        help="the variable holding the topology (default: the last one bound "
                             "to builder.build() or ks.Topology(), else to ks.StreamsBuilder(), "
                             "or the one in a cell tagged 'topology')")
    parser.add_argument("--no-execute", action="store_true",
                        help="do not run the notebook: no tests from its driver sessions")
    parser.add_argument("--no-kslab-wheel", action="store_true",
                        help="do not bundle the wheel of this kslab in wheels/ (the image then "
                             "installs kslab from your package index)")
    parser.add_argument("--timeout", type=int, default=600, metavar="SECONDS",
                        help="longest a cell may run while recording sessions (default 600)")


def run(args: argparse.Namespace) -> int:
    """Export ``args.notebook`` and print what was written."""
    from kslab.export import ExportError, export_notebook

    out = args.output or args.notebook.with_suffix("")
    if args.notebook.suffix != ".ipynb":
        msg = f"{args.notebook} is not a notebook (.ipynb); give the notebook's path"
        raise CliError(msg)
    try:
        result = export_notebook(args.notebook, out, execute=not args.no_execute,
                                 variable=args.var, timeout=args.timeout,
                                 bundle_kslab=not args.no_kslab_wheel)
    except ExportError as exc:
        raise CliError(str(exc)) from None
    print(result.summary())
    return 0
