"""Issue 23 item 9: a saved notebook reads well outside Jupyter. A notebook with the driver
explorer and the store browser is executed with nbclient, saved, and rendered by nbconvert's
HTML exporter (no widget code runs there): the page shows each widget's static copy, not
``DriverExplorer(children=(HBox(...``."""

from __future__ import annotations

import importlib.util

import pytest

from tests.notebook.test_notebooks import WIDGET, kslab_kernel  # noqa: F401 (the fixture)

if not all(importlib.util.find_spec(m) for m in ("nbformat", "nbclient", "nbconvert")):
    pytest.skip("needs nbformat, nbclient and nbconvert (the notebook extra)",
                allow_module_level=True)

SETUP = """\
import kslab as ks
from kslab.widgets import DriverExplorer, StoreBrowser
from tests.notebook.fixtures import lines_frame, word_count

builder, _ = word_count()"""
EXPLORER = """\
explorer = DriverExplorer(builder, {"lines": lines_frame()})
explorer.seek(2)
explorer"""


def test_a_saved_notebook_shows_the_widgets_static_copies(kslab_kernel, tmp_path):  # noqa: F811
    import nbclient  # (here, not at collection: nbformat loads jsonschema, whose URI grammars
    import nbconvert  # cost each xdist worker ~3 CPU-s, and nbconvert more)
    import nbformat

    from tests.notebook.test_browser import ROOT

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "kslab",
                                                           "display_name": "kslab"}})
    nb.cells = [nbformat.v4.new_code_cell(s) for s in (SETUP, EXPLORER, "StoreBrowser(explorer)")]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="kslab", store_widget_state=False,
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    explorer, browser = nb.cells[1].outputs[0]["data"], nb.cells[2].outputs[0]["data"]
    assert WIDGET in explorer and WIDGET in browser  # Jupyter still shows the live widget
    assert explorer["text/plain"] == "DriverExplorer: record 2 of 3"
    assert browser["text/plain"] == "<kslab StoreBrowser: open in Jupyter to use it>"
    saved = tmp_path / "saved.ipynb"  # as JupyterLab saves it: no widget state (its default)
    nbformat.write(nb, saved)

    exporter = nbconvert.HTMLExporter()  # JupyterLab's template, as nbviewer renders
    page, _ = exporter.from_notebook_node(nbformat.read(saved, as_version=4))
    (tmp_path / "saved.html").write_text(page)
    assert "children=(" not in page
    assert "DriverExplorer, as it was when this output was made" in page
    assert "<b>record 2 of 3</b>: topic <code>lines</code>" in page
    assert '<div class="kslab-static-tab">output topics</div>' in page
    assert "<b>counts-out</b> (6 records, 3 new from this record)" in page
    assert '<tr class="kslab-new"><td>the</td><td>2</td>' in page
    assert '<div class="kslab-static-tab">stores</div>' in page
    assert page.count("<svg") >= 1  # the graph with the record's path
    assert "StoreBrowser, as it was when this output was made" in page
    assert "store: <code>counts</code>" in page
    assert "<td>quick</td><td>1</td>" in page
