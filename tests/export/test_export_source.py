"""Which variable is the topology, which cells topology.py holds, and how it reads."""

from __future__ import annotations

import pytest
from export_fixtures import WORD_COUNT, load_module, notebook, read_notebook

import kslab as ks
from kslab.export import ExportError, export_notebook
from kslab.export._cells import select_cells
from kslab.export._source import render_topology

BUILDER = "import kslab as ks\nbuilder = ks.StreamsBuilder()\n"
STREAM = 'builder.stream("a").to("b")\n'


def rendered(tmp_path, *cells, variable=None):
    nb = read_notebook(notebook(tmp_path / "nb.ipynb", *cells))
    return render_topology(select_cells(nb), "nb.ipynb", variable)


def test_a_built_topology_wins_over_a_later_builder(tmp_path):
    source = rendered(tmp_path, BUILDER + STREAM, "topology = builder.build()",
                      "with ks.TopologyTestDriver(topology) as d:\n    pass",
                      "variant = ks.StreamsBuilder()", "variant.stream('x').to('y')")
    assert source.variable == "topology"
    assert [c.number for c in source.cells] == [1, 2]
    assert [c.number for c in source.left_out] == [3, 4, 5]


def test_a_chained_processor_api_topology_counts_as_built(tmp_path):
    source = rendered(tmp_path, "import kslab as ks\nb = ks.StreamsBuilder()",
                      "t = (ks.Topology()\n    .add_source('s', 'a')\n"
                      "    .add_sink('o', 'b', 's'))")
    assert source.variable == "t"


def test_a_builder_is_taken_when_nothing_is_built(tmp_path):
    source = rendered(tmp_path, BUILDER, STREAM, "x = 1")
    assert (source.variable, [c.number for c in source.cells]) == ("builder", [1])


def test_the_cell_tagged_topology_names_the_variable(tmp_path):
    source = rendered(tmp_path, BUILDER + STREAM, ("app = builder\nn = 3", ["topology"]),
                      "topology = builder.build()")
    assert source.variable == "n"  # the last name it binds: the author's choice to check
    source = rendered(tmp_path, BUILDER, (STREAM + "final = builder.build()", ["topology"]),
                      "other = ks.Topology()")
    assert (source.variable, [c.number for c in source.left_out]) == ("final", [3])


def test_the_variable_can_be_named(tmp_path):
    source = rendered(tmp_path, BUILDER + STREAM, "topology = builder.build()",
                      variable="builder")
    assert (source.variable, [c.number for c in source.cells]) == ("builder", [1])
    with pytest.raises(ExportError, match=r"no exported cell of nb\.ipynb binds `nope`"):
        rendered(tmp_path, BUILDER, variable="nope")


def test_no_topology_is_a_clear_error(tmp_path):
    with pytest.raises(ExportError, match=r"binds a topology: assign one at top level"):
        rendered(tmp_path, "x = 1", "y = x + 1")
    with pytest.raises(ExportError, match=r"^cell 1 \(`print\(1\)`\) is tagged 'topology' but"):
        rendered(tmp_path, ("print(1)", ["topology"]))


def test_topology_py_runs_the_cells_in_a_function_as_the_notebook_did(tmp_path):
    cells = (
        "%load_ext kslab\nimport kslab as ks\nfrom kslab import serdes\nimport json\n"
        "from nbformat import (\n    v4,\n)\nUSED = [serdes.String(), v4]\n",
        'SQL = """keep\n  this indent\n"""\nseen = 0\n',
        "class Tag(ks.Processor):\n    def init(self, context):\n        self.context = context\n"
        "    def process(self, record):\n        global seen\n        seen += 1\n"
        "        self.context.forward(record.with_value(SQL + record.value))\n",
        "topology = (ks.Topology().add_source('s', 'in', key_serde='string', "
        "value_serde='string')\n    .add_processor('p', Tag, 's')\n"
        "    .add_sink('o', 'out', 'p', key_serde='string', value_serde='string'))\ntopology",
    )
    result = export_notebook(notebook(tmp_path / "nb.ipynb", *cells), tmp_path / "app",
                             execute=False)
    text = (tmp_path / "app" / "topology.py").read_text()
    assert ("\nimport kslab as ks\nfrom kslab import serdes\nfrom nbformat import (\n"
            "    v4,\n)\nimport kslab as _kslab\n") in text
    assert "\nnbformat==" in (tmp_path / "app" / "requirements.txt").read_text()
    assert "import json" not in text  # the cells never use it
    assert '    SQL = """keep\n  this indent\n"""\n' in text
    assert "            nonlocal seen\n" in text
    assert "    # %load_ext kslab (notebook only)\n" in text
    assert "\n    topology\n" not in text  # a bare name only displayed it
    module = load_module(tmp_path / "app" / "topology.py")
    with ks.TopologyTestDriver(module.build_topology()) as driver:
        driver.create_input_topic("in").pipe_input("k", "v", 1)
        assert driver.create_output_topic("out").read_value() == "keep\n  this indent\nv"
    assert result.describe == str(module.topology.describe())


def test_a_cell_that_needs_the_notebook_is_named(tmp_path):
    path = notebook(tmp_path / "nb.ipynb", "import kslab as ks", "display('hi')",
                    "topology = ks.Topology().add_source('s', 'a').add_sink('o', 'b', 's')")
    with pytest.raises(ExportError) as caught:
        export_notebook(path, tmp_path / "app", execute=False)
    assert str(caught.value).startswith(
        "nb.ipynb: cell 2 fails outside the notebook with NameError: name 'display' is not "
        "defined;")
    assert caught.value.cell == 2
    assert not (tmp_path / "app").exists()


def test_export_refuses_cells_left_out_that_change_the_topology(tmp_path):
    path = notebook(tmp_path / "nb.ipynb", BUILDER, 'builder.stream("a").to("b")')
    with pytest.raises(ExportError, match=r"cells after 1, which were left out, change it"):
        export_notebook(path, tmp_path / "app")


def test_word_count_exports_without_running(tmp_path):
    result = export_notebook(notebook(tmp_path / "wc.ipynb", WORD_COUNT), tmp_path / "app",
                             execute=False)
    assert (result.variable, result.cells, result.sessions) == ("topology", [1], 0)
    assert (tmp_path / "app" / "tests" / "fixtures" / "describe.txt").read_text() == \
        result.describe


def test_modules_beside_the_notebook_ship_with_the_app(tmp_path):
    (tmp_path / "wordsplit.py").write_text("def words(line):\n    return line.split()\n")
    (tmp_path / "names").mkdir()
    (tmp_path / "names" / "__init__.py").write_text('OUT = "split-words"\n')
    path = notebook(tmp_path / "nb.ipynb",
                    "import kslab as ks\nfrom wordsplit import words\nimport names\n"
                    "builder = ks.StreamsBuilder()\n"
                    "builder.stream('lines').flat_map_values(words).to(names.OUT)\n"
                    "topology = builder.build()")
    out = tmp_path / "app"
    result = export_notebook(path, out, execute=False)
    assert (out / "wordsplit.py").read_text() == (tmp_path / "wordsplit.py").read_text()
    assert (out / "names" / "__init__.py").is_file()
    assert "(topic: split-words)" in result.describe
    dockerfile = (out / "Dockerfile").read_text()
    assert "COPY names/ ./names/\nCOPY wordsplit.py ./wordsplit.py\n" in dockerfile
    requirements = (out / "requirements.txt").read_text()
    assert "wordsplit" not in requirements and "names" not in requirements


def test_export_writes_only_into_a_new_empty_or_earlier_export_directory(tmp_path):
    path = notebook(tmp_path / "wc.ipynb", WORD_COUNT)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "README.md").write_text("my project\n")
    with pytest.raises(ExportError, match=r"busy already holds other files \(it is not an "):
        export_notebook(path, busy, execute=False)
    assert (busy / "README.md").read_text() == "my project\n"
    (tmp_path / "empty").mkdir()
    export_notebook(path, tmp_path / "empty", execute=False)
    stale = tmp_path / "empty" / "tests" / "fixtures" / "session-07.json"
    stale.write_text("{}")
    export_notebook(path, tmp_path / "empty", execute=False)  # over an earlier export
    assert not stale.exists()
    with pytest.raises(ExportError, match=r"is a file; give a directory"):
        export_notebook(path, path, execute=False)
