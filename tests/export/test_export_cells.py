"""Cell selection and magic rewriting (kslab/export/_cells.py) on notebooks made here."""

from __future__ import annotations

import pytest
from export_fixtures import WORD_COUNT, notebook, read_notebook

from kslab.export import ExportError, export_notebook
from kslab.export._cells import select_cells


def cells_of(tmp_path, *cells):
    return select_cells(read_notebook(notebook(tmp_path / "nb.ipynb", *cells)))


def test_every_code_cell_but_skipped_ones_numbered_as_in_the_notebook(tmp_path):
    chosen = cells_of(tmp_path, ("md", "# title"), "a = 1", ("b = 2", ["skip-export"]),
                      "# kslab: skip\nc = 3", "  #KSLAB: Skip this\nd = 4", "e = 5")
    assert [(c.number, c.source) for c in chosen] == [(2, "a = 1\n"), (6, "e = 5\n")]


def test_cells_tagged_export_narrow_the_selection(tmp_path):
    chosen = cells_of(tmp_path, "a = 1", ("b = 2", ["export"]), ("c = 3", ["topology"]),
                      ("d = 4", ["export", "skip-export"]))
    assert [c.number for c in chosen] == [2, 3]
    assert chosen[1].is_topology


def test_kslab_magics_become_comments_and_the_rest_stays(tmp_path):
    [cell] = cells_of(tmp_path, "%load_ext kslab\nimport kslab as ks\n"
                                "m = %kslab promote builder --application-id x\n"
                                "if True:\n    %kslab describe builder\nx = 1")
    assert cell.source == (
        "pass  # %load_ext kslab (notebook only)\nimport kslab as ks\n"
        "pass  # %kslab promote builder --application-id x (notebook only)\n"
        "if True:\n    pass  # %kslab describe builder (notebook only)\nx = 1\n")


@pytest.mark.parametrize(("source", "shown"), [
    ("x = 1\n!pip install requests", "`!pip install requests`"),
    ("files = !ls", "`!ls`"),
    ("%%bash\necho hi", "`%%bash`"),
    ("%pip install requests", "`%pip install requests`"),
    ("%timeit 1 + 1", "`%timeit 1 + 1`"),
    ("for i in range(2):\n    !echo $i", "`!echo $i`"),
    ("%load_ext autoreload", "`%load_ext autoreload`"),
])
def test_other_magics_and_shell_escapes_are_refused_naming_the_cell(tmp_path, source, shown):
    with pytest.raises(ExportError) as caught:
        cells_of(tmp_path, ("md", "intro"), "import kslab as ks", source)
    first = source.splitlines()[0]
    assert str(caught.value).startswith(f"cell 3 (`{first}`) uses {shown}, which plain Python "
                                        "cannot run")
    assert "tagged 'skip-export'" in str(caught.value)
    assert caught.value.cell == 3


def test_a_shell_escape_in_a_skipped_cell_is_left_in_the_notebook(tmp_path):
    path = notebook(tmp_path / "nb.ipynb", WORD_COUNT, ("!ls", ["skip-export"]),
                    "# kslab: skip\n!pwd")
    result = export_notebook(path, tmp_path / "app", execute=False)
    assert result.cells == [1]
    text = (tmp_path / "app" / "topology.py").read_text()
    assert "pwd" not in text and "get_ipython" not in text and "runs cell 1 of the notebook" in text


def test_export_refuses_a_shell_escape_and_writes_nothing(tmp_path):
    path = notebook(tmp_path / "shell.ipynb", ("md", "# an app"), WORD_COUNT,
                    "!curl -s http://example.com")
    with pytest.raises(ExportError, match=r"^cell 3 \(`!curl -s http://example.com`\) uses "):
        export_notebook(path, tmp_path / "app")
    assert not (tmp_path / "app").exists()


def test_a_cell_that_is_not_python_is_named(tmp_path):
    with pytest.raises(ExportError, match=r"^cell 1 \(`x = = 1`\) is not valid Python"):
        cells_of(tmp_path, "x = = 1")
