"""Runs a notebook headlessly (nbclient) with every driver session recorded.

The notebook runs as the user would run it, top to bottom, on a Python kernel of this
interpreter with kslab's extension loaded; one cell is added before (start recording) and
one after (write the sessions of the exported variable to a file). Invariant: the user's
notebook file is never written.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kslab.export._cells import describe_cell
from kslab.export._errors import ExportError

__all__ = ["Capture", "run_notebook"]

_SETUP = """\
import os as _kslab_os
_kslab_os.environ["KSLAB_EXPORTING"] = "1"  # %kslab export in the notebook does nothing now
del _kslab_os
from kslab.export._recorder import SessionRecorder as _KslabExportRecorder
_kslab_export_recorder = _KslabExportRecorder()
_kslab_export_recorder.install()
del _KslabExportRecorder
get_ipython().extension_manager.load_extension("kslab")
"""


@dataclass(frozen=True)
class Capture:
    """What running the notebook showed: the variable's ``describe()`` and driver sessions."""

    describe: str
    sessions: list[dict[str, Any]]
    skipped: list[str]


def run_notebook(nb: Any, path: Path, variable: str, timeout: int = 600) -> Capture:
    """Execute ``nb`` (read from ``path``) in its folder and capture ``variable``'s sessions."""
    import nbclient
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient.exceptions import CellExecutionError

    copy = nbformat.from_dict(nb)
    with tempfile.TemporaryDirectory(prefix="kslab-export-") as scratch:
        out = Path(scratch) / "sessions.json"
        dump = f"_kslab_export_recorder.dump({variable}, {variable!r}, {str(out)!r})\n"
        numbers = [n for n, _ in enumerate(copy.cells, 1)]
        copy.cells = [nbformat.v4.new_code_cell(_SETUP), *copy.cells,
                      nbformat.v4.new_code_cell(dump)]
        # IPC sockets in the scratch folder: local only, and no TCP warning from the kernel
        kernel = KernelManager(kernel_name="python3", transport="ipc",
                               ip=str(Path(scratch) / "kernel"))
        client = nbclient.NotebookClient(
            copy, km=kernel, timeout=timeout, allow_errors=False,
            resources={"metadata": {"path": str(path.parent)}})
        try:
            client.execute()
        except CellExecutionError as exc:
            raise _failure(copy, numbers, exc, path) from None
        except Exception as exc:  # no kernel, a timeout
            msg = (f"running {path.name} to record its driver sessions failed: "
                   f"{type(exc).__name__}: {exc}; fix the notebook or export with --no-execute")
            raise ExportError(msg) from None
        data = json.loads(out.read_text())
    return Capture(data["describe"], data["sessions"], data["skipped"])


def _failure(copy: Any, numbers: list[int], exc: Exception, path: Path) -> ExportError:
    """The error for a cell that raised: which cell, and the exception's last line."""
    failed = next((i for i, cell in enumerate(copy.cells) if cell.cell_type == "code" and any(
        o.get("output_type") == "error" for o in cell.get("outputs", []))), None)
    error = next((o for o in copy.cells[failed].outputs if o.get("output_type") == "error"),
                 {}) if failed is not None else {}
    what = f"{error.get('ename', type(exc).__name__)}: {error.get('evalue', '')}".rstrip(": ")
    if failed is None or failed == 0:
        msg = f"running {path.name} failed before its first cell: {what}"
        return ExportError(msg)
    if failed == len(copy.cells) - 1:
        msg = f"could not record the driver sessions of {path.name}: {what}"
        return ExportError(msg)
    number = numbers[failed - 1]
    source = copy.cells[failed].source
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    msg = (f"{path.name} {describe_cell(number, first)} raised {what} when run to record its "
           "driver sessions; fix the notebook, or export with --no-execute (no tests from "
           "driver sessions then)")
    return ExportError(msg, number)
