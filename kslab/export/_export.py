"""``export_notebook``: a notebook in, a deployable app directory out.

Order of work: select and rewrite the cells, render ``topology.py``, build it in a fresh
interpreter (so a cell that only works inside the notebook fails here, named), run the
notebook to record its driver sessions, check that the exported topology describes exactly
as the notebook's, then write the files. Invariant: nothing is written to the output
directory unless every check passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kslab.export._cells import select_cells
from kslab.export._errors import ExportError
from kslab.export._files import app_files, imported_modules, test_files
from kslab.export._scrub import Secret, credential_lines, env_var, split_secrets
from kslab.export._source import TopologySource, render_topology
from kslab.export._wheel import kslab_wheel

__all__ = ["ExportResult", "export_notebook"]

_MARK = "exported by `kslab export`"  # topology.py's first line says so
_BUILD = """\
import json, sys
sys.path.insert(0, sys.argv[1])
from topology import build_topology
topology = build_topology()
topics = [t for t in topology.source_topics()
          if isinstance(t, str) and t not in topology.internal_topics]
print(json.dumps({"describe": str(topology.describe()), "source_topics": topics}))
"""


@dataclass
class ExportResult:
    """What ``export_notebook`` wrote and what it found in the notebook."""

    out_dir: Path
    variable: str
    cells: list[int]
    left_out: list[int]
    describe: str
    sessions: int
    skipped: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    sample_cells: list[int] = field(default_factory=list)  # cells whose sample data was cut
    secrets: list[Secret] = field(default_factory=list)  # credentials left out, by variable

    def summary(self) -> str:
        """A few lines for a terminal or a notebook cell."""
        lines = [f"exported `{self.variable}` from {_cells(self.cells)} to {self.out_dir}"]
        if self.left_out:
            lines.append(f"left out {_cells(self.left_out)} (after the cell that binds "
                         f"`{self.variable}`)")
        lines.append(f"tests: {self.sessions} driver session(s) replayed, plus describe()")
        lines += [f"skipped {why}" for why in self.skipped]
        if self.sample_cells:
            lines.append(f"left out the sample data (sample=) of {_cells(self.sample_cells)}")
        lines += [f"left out the credential `{s.key}` ({s.where}): the app reads "
                  f"${s.variable}" for s in self.secrets]
        lines.append(f"run it: python {self.out_dir / 'app.py'} (KSLAB_BOOTSTRAP_SERVERS=...)")
        return "\n".join(lines)


def export_notebook(notebook: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                    execute: bool = True, variable: str | None = None,
                    timeout: int = 600, bundle_kslab: bool = True) -> ExportResult:
    """Turn ``notebook`` into an app in ``out_dir``: topology, app, config, tests, image.

    ``execute`` runs the notebook (nbclient) to record its driver sessions as tests;
    ``variable`` names the topology variable when the default rule would pick another;
    ``bundle_kslab`` puts the wheel of the running kslab in ``wheels/`` (built from its
    checkout; ``False`` leaves kslab to the package index).
    """
    import nbformat

    path = Path(notebook).resolve()
    if not path.is_file():
        msg = f"no notebook at {path}; give the path of an .ipynb file"
        raise ExportError(msg)
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:
        msg = f"{path.name} is not a readable notebook: {exc}"
        raise ExportError(msg) from None
    out = Path(out_dir).resolve()
    _check_target(out)
    source = render_topology(select_cells(nb), path.name, variable)
    local = _local_modules(source.imports, path.parent)
    _check_no_secrets(local, path.name)
    built = _build(source, path.name, local)
    describe, sessions, skipped = built["describe"], [], []
    if execute:
        from kslab.export._execute import run_notebook

        capture = run_notebook(nb, path, source.variable, timeout)
        if capture.describe != built["describe"]:
            raise _differs(source, path.name)
        sessions, skipped = capture.sessions, capture.skipped
    secrets = list(source.secrets)
    fixtures = []
    for number, session in enumerate(sessions, 1):
        config, gone = split_secrets(session["config"], f"driver session {number}'s config")
        fixtures.append({**session, "config": config})
        secrets += gone
    wheel = kslab_wheel() if bundle_kslab else None
    files = {"topology.py": source.text}
    files.update(app_files(path.name, source.variable, [c.number for c in source.cells],
                           source.imports, describe, sessions, built["source_topics"],
                           [n + "/" if p.is_dir() else n for n, p in sorted(local.items())],
                           wheel.name if wheel else "", secrets))
    files.update(test_files(path.name, describe, fixtures))
    written = _write(out, files) + _copy(local, out)
    (out / "wheels").mkdir(exist_ok=True)  # the Dockerfile copies it, kslab's wheel or not
    if wheel is not None:
        written.append(Path(shutil.copy2(wheel, out / "wheels" / wheel.name)))
    else:  # git keeps no empty folder, and the Dockerfile's COPY needs it
        (out / "wheels" / ".gitkeep").write_text("")
    return ExportResult(out, source.variable, [c.number for c in source.cells],
                        [c.number for c in source.left_out], describe, len(sessions), skipped,
                        written, source.sample_cells, secrets)


def _check_target(out: Path) -> None:
    """Write only into a new or empty folder, or over an earlier export."""
    if out.exists() and not out.is_dir():
        msg = f"{out} is a file; give a directory for the app"
        raise ExportError(msg)
    if not out.is_dir() or not any(out.iterdir()):
        return
    earlier = out / "topology.py"
    if not (earlier.is_file() and _MARK in earlier.read_text(errors="replace")[:500]):
        msg = (f"{out} already holds other files (it is not an earlier export: no topology.py "
               "written by kslab export); export into a new or empty directory")
        raise ExportError(msg)


def _local_modules(imports: list[str], folder: Path) -> dict[str, Path]:
    """Modules the cells import from the notebook's own folder (they ship with the app)."""
    found = {}
    for module in imported_modules(imports):
        for candidate in (folder / f"{module}.py", folder / module):
            if candidate.is_file() or (candidate / "__init__.py").is_file():
                found[candidate.name] = candidate
    return found


def _check_no_secrets(local: dict[str, Path], notebook: str) -> None:
    """A module the app ships as it is must hold no literal credential: export would copy it."""
    for name, source in sorted(local.items()):
        files = sorted(source.rglob("*.py")) if source.is_dir() else [source]
        for file in files:
            found = credential_lines(file.read_text(errors="replace"))
            if found:
                key, line = found[0]
                where = file.relative_to(source.parent)
                msg = (f"{notebook} imports {name}, which export copies into the app, and "
                       f"{where} line {line} gives `{key}` a literal value; read it from the "
                       f"environment instead (os.environ[\"{env_var(key)}\"]) so no secret "
                       "is copied")
                raise ExportError(msg)


def _copy(local: dict[str, Path], out: Path) -> list[Path]:
    copied = []
    for name, source in local.items():
        target = out / name
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
        copied.append(target)
    return copied


def _build(source: TopologySource, notebook: str, local: dict[str, Path]) -> dict[str, Any]:
    """Build ``topology.py`` in a fresh interpreter; its describe() and source topics."""
    with tempfile.TemporaryDirectory(prefix="kslab-export-build-") as scratch:
        Path(scratch, "topology.py").write_text(source.text)
        _copy(local, Path(scratch))
        done = subprocess.run([sys.executable, "-c", _BUILD, scratch], capture_output=True,
                              text=True, timeout=300, cwd=scratch)
    if done.returncode == 0:
        return json.loads(done.stdout.splitlines()[-1])
    raise _build_failure(source, notebook, done.stderr)


def _build_failure(source: TopologySource, notebook: str, stderr: str) -> ExportError:
    """The error for an exported topology that does not build outside the notebook."""
    last = stderr.strip().splitlines()[-1] if stderr.strip() else "no output"
    lines = [int(n) for n in _topology_lines(stderr)]
    cell = source.cell_at(lines[-1]) if lines else None
    where = f"cell {cell}" if cell is not None else "the exported cells"
    msg = (f"{notebook}: {where} fails outside the notebook with {last}; it may rely on "
           "something only the notebook has (an IPython name such as display, a variable "
           "from a skipped cell). Fix the cell, or tag it 'skip-export' if the topology does "
           "not need it")
    return ExportError(msg, cell)


def _topology_lines(stderr: str) -> list[str]:
    import re

    return re.findall(r'File "[^"]*topology\.py", line (\d+)', stderr)


def _differs(source: TopologySource, notebook: str) -> ExportError:
    cut = source.cells[-1].number
    msg = (f"{notebook}: the exported cells build a topology that differs from the notebook's "
           f"`{source.variable}` at the end of the run (cells after {cut}, which were left out, "
           "change it); move those changes before the cell that binds it, or tag the cell that "
           "completes the topology 'topology'")
    return ExportError(msg, cut)


def _write(out: Path, files: dict[str, str]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*(out / "tests" / "fixtures").glob("session-*.json"),
                  *(out / "wheels").glob("kslab-*.whl")]:
        stale.unlink()  # an earlier export may have had more sessions, another wheel
    written = []
    for name, text in files.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        written.append(target)
    return written


def _cells(numbers: list[int]) -> str:
    return ("cell " if len(numbers) == 1 else "cells ") + ", ".join(map(str, numbers))
