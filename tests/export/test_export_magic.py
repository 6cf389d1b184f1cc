"""``%kslab export`` in a notebook run by nbclient: it exports the notebook it runs in."""

from __future__ import annotations

import pytest
from export_fixtures import WORD_COUNT, notebook, read_notebook

DRIVE = """\
with ks.TopologyTestDriver(topology) as driver:
    driver.create_input_topic("lines").pipe_input(None, "a b a", 7)
"""


def run(path, *, allow_errors=False):
    import nbclient  # (not at collection: with nbformat it loads jsonschema, ~2.5 s of CPU)

    nb = read_notebook(path)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def stderr(cell):
    """What a cell printed to stderr (IPython shows a UsageError there, without traceback)."""
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stderr")


@pytest.mark.slow
def test_the_magic_exports_the_notebook_of_its_session(tmp_path, monkeypatch):
    out = tmp_path / "app"
    path = notebook(tmp_path / "wc.ipynb", "%load_ext kslab\n" + WORD_COUNT, DRIVE,
                    f"%kslab export -o {out}")
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))  # what Jupyter gives its kernels
    nb = run(path)
    printed = "".join(o.get("text", "") for o in nb.cells[2].outputs)
    assert printed.startswith(f"exported `topology` from cell 1 to {out}\nleft out cells 2, 3 ")
    assert "tests: 1 driver session(s) replayed" in printed
    session = (out / "tests" / "fixtures" / "session-01.json").read_text()
    assert '{"topic": "lines", "key": null, "value": "a b a", "timestamp": 7}' in session
    assert '{"key": "a", "value": 2, "timestamp": 7}' in session
    assert "    # %load_ext kslab (notebook only)\n" in (out / "topology.py").read_text()


def test_the_magic_without_a_session_says_how_to_name_the_notebook(tmp_path, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    path = notebook(tmp_path / "nb.ipynb", "%load_ext kslab\n" + WORD_COUNT,
                    "%kslab export -o app")
    nb = run(path, allow_errors=True)
    error = stderr(nb.cells[1])
    assert error.startswith("UsageError: %kslab export: cannot tell which notebook this kernel "
                            "runs")
    assert "%kslab export path/to/notebook.ipynb -o DIR" in error
    assert not (tmp_path / "app").exists()


def test_the_magic_takes_a_path_and_reports_a_refused_cell(tmp_path):
    other = notebook(tmp_path / "other.ipynb", WORD_COUNT, "!ls")
    path = notebook(tmp_path / "nb.ipynb", "%load_ext kslab",
                    f"%kslab export {other} -o {tmp_path / 'app'} --no-execute")
    nb = run(path, allow_errors=True)
    assert stderr(nb.cells[1]).startswith(
        "UsageError: %kslab export: cell 2 (`!ls`) uses `!ls`, which plain")
