"""Fixtures for the export tests: each notebook in notebooks/ exported once per session."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("nbclient") is None:  # (found, not imported: see export_fixtures)
    pytest.skip("could not import 'nbclient' (the notebook extra)", allow_module_level=True)


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Any]:
    """``exported(notebook)`` -> its ``ExportResult``, exported (and run) once per session."""
    from kslab.export import export_notebook

    done: dict[Path, Any] = {}

    def export(notebook: Path) -> Any:
        if notebook not in done:
            out = tmp_path_factory.mktemp("export") / notebook.stem
            try:
                done[notebook] = export_notebook(notebook, out)
            except Exception as exc:
                done[notebook] = exc
        if isinstance(done[notebook], Exception):
            raise done[notebook]
        return done[notebook]

    return export
