"""Helpers for the export tests: notebooks made in the test, generated modules imported."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))  # a notebook added later is exported too

WORD_COUNT = """\
import kslab as ks

builder = ks.StreamsBuilder()
(builder.stream("lines", key_serde="string", value_serde="string")
    .flat_map_values(lambda line: line.split())
    .group_by(lambda key, word: word, ks.Grouped.with_("string", "string"))
    .count()
    .to_stream()
    .to("counts", ks.Produced.with_("string", "long")))
topology = builder.build()
"""


def notebook(path: Path, *cells: Any) -> Path:
    """Write a notebook of ``cells``: a string is a code cell, ``(source, tags)`` a tagged one,
    ``("md", text)`` a markdown cell."""
    import nbformat  # (not at collection: it loads jsonschema, ~2.5 s of CPU per xdist worker)

    nb = nbformat.v4.new_notebook()
    for cell in cells:
        if isinstance(cell, tuple) and cell[0] == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(cell[1]))
        elif isinstance(cell, tuple):
            nb.cells.append(nbformat.v4.new_code_cell(cell[0], metadata={"tags": cell[1]}))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(cell))
    nbformat.write(nb, path)
    return path


def read_notebook(path: Path) -> Any:
    """The notebook at ``path`` (nbformat 4), nbformat imported only when a test reads one."""
    import nbformat

    return nbformat.read(path, as_version=4)


def load_module(path: Path) -> ModuleType:
    """Import a generated module by path (its folder goes first on ``sys.path``)."""
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"exported_{path.stem}_{id(path)}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))
        sys.modules.pop("topology", None)
