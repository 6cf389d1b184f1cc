"""An exported app builds on a fresh machine, checked for every notebook without building it:
the bundled kslab wheel, requirements with no test dependency, a topology module with no sample
data (the whole round trip, in a fresh venv, is test_export_fresh_venv.py).
"""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import pytest
from export_fixtures import NOTEBOOKS

import kslab

SOURCE = Path(kslab.__file__).resolve().parent


def _wheel_version() -> str:
    import importlib.metadata as metadata

    return metadata.version("kslab")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_app_bundles_kslab_and_its_topology_holds_no_sample_data(exported, path):
    out = exported(path).out_dir
    wheel_name = f"kslab-{_wheel_version()}-py3-none-any.whl"
    assert sorted(p.name for p in (out / "wheels").iterdir()) == [wheel_name]
    with zipfile.ZipFile(out / "wheels" / wheel_name) as wheel:
        assert wheel.read("kslab/__init__.py") == (SOURCE / "__init__.py").read_bytes()
        assert wheel.read("kslab/export/templates/Dockerfile.tmpl") == \
            (SOURCE / "export/templates/Dockerfile.tmpl").read_bytes()
    runtime = (out / "requirements.txt").read_text().splitlines()
    assert "--find-links wheels" in runtime and f"kslab=={_wheel_version()}" in runtime
    assert not [line for line in runtime if line.startswith(("pytest", "calfkit"))]
    text = (out / "topology.py").read_text()
    tree = ast.parse(text)
    assert not [kw for node in ast.walk(tree) if isinstance(node, ast.Call)
                for kw in node.keywords if kw.arg == "sample"]
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)}
    assert bound.isdisjoint(_sample_names(path)), _sample_names(path) & bound
    assert "pandas" not in text and "numpy" not in text  # only the sample frames used them


def _sample_names(notebook: Path) -> set[str]:
    """The names the notebook passes as ``sample=``."""
    import nbformat

    names = set()
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "code" and "sample=" in cell.source:
            for node in ast.walk(ast.parse("\n".join(
                    line for line in cell.source.splitlines() if not line.startswith("%")))):
                if isinstance(node, ast.keyword) and node.arg == "sample":
                    names |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    return names


