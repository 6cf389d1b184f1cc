"""``kslab export``: turn a notebook into a deployable app.

``export_notebook(path, out_dir)`` writes ``topology.py`` (the cells that build the topology,
as ``build_topology()``, without their sample data), ``app.py`` (runs it with
``KafkaStreams``), ``config.toml``, ``requirements.txt`` and ``requirements-test.txt``,
``wheels/`` (the wheel of this kslab), ``Dockerfile`` (a runtime stage and a test stage),
``README.md`` and ``tests/`` (the notebook's driver sessions replayed with the test driver).
Cells tagged ``skip-export`` or starting with ``# kslab: skip`` stay in the notebook; cells
tagged ``export`` narrow the selection. Credentials are never copied: they become references
to environment variables.
"""

from kslab.export._errors import ExportError
from kslab.export._export import ExportResult, export_notebook

__all__ = ["ExportError", "ExportResult", "export_notebook"]
