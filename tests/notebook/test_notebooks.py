"""The notebooks in notebooks/, executed headlessly with nbclient on the kslab kernel."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("nbformat") is None or importlib.util.find_spec("nbclient") is None:
    pytest.skip("needs nbformat and nbclient (the notebook extra)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="session")
def kslab_kernel(tmp_path_factory):
    """The kslab kernelspec from extensions/, installed under a temporary prefix."""
    prefix = tmp_path_factory.mktemp("jupyter-prefix")
    subprocess.run([sys.executable, str(ROOT / "extensions" / "install.py"), "--prefix",
                    str(prefix)], check=True, capture_output=True)
    share = str(prefix / "share" / "jupyter")
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = share
    yield share
    if old is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old


def execute(name: str) -> list:
    """Run every cell of ``name`` on the kernel its metadata names; return the code cells."""
    import nbclient  # (here, not at collection: with nbformat it loads jsonschema, ~2.5 s of CPU
    import nbformat  # per xdist worker)

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert nb.metadata.kernelspec.name == "kslab"
    nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(NOTEBOOKS)}}
                            ).execute()
    cells = [c for c in nb.cells if c.cell_type == "code"]
    for cell in cells:
        for out in cell.outputs:
            assert out.output_type != "error", out
            if out.output_type == "stream":
                assert "already loaded" not in out.text
    return cells


def html_of(cell) -> str:
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)


def text_of(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_notebooks_are_stored_without_outputs():
    import nbformat

    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), path


def test_quickstart_word_count(kslab_kernel):
    cells = execute("01-quickstart-word-count.ipynb")
    by_source = {c.source.splitlines()[-1]: c for c in cells if c.source}
    words = html_of(by_source["words"])
    assert '<div class="kslab-graph"' in words
    assert 'class="node processor highlighted" data-key="KSTREAM-FLATMAPVALUES' in words \
        or "KSTREAM&#45;FLATMAPVALUES" in words
    assert '<td>None</td><td>quick</td><td title="1000 ms">0:01</td>' in words
    counts = html_of(by_source["counts"])
    assert "<td>the</td><td>3</td>" in counts
    assert text_of(by_source["%kslab describe builder"]).startswith("Topologies:\n")
    drive = by_source["%kslab drive builder"]
    assert any(WIDGET in o.get("data", {}) for o in drive.outputs)


def test_orders_enrichment(kslab_kernel):
    cells = execute("02-orders-enrichment.ipynb")
    totals = html_of(next(c for c in cells if c.source.endswith("totals")))
    assert "kslab-graph" in totals
    # o1: 2 keyboards at 40.0, in the preview, its dict value spread into columns
    assert ("<th>key</th><th>customer</th><th>product</th><th>qty</th><th>customer_name</th>"
            "<th>title</th><th>total</th><th>timestamp</th>") in totals
    assert ('<tr><td>o1</td><td>c1</td><td>p1</td><td>2</td><td>Ada</td><td>keyboard</td>'
            '<td>80.0</td><td title="1000 ms">0:01</td></tr>') in totals
    # the price change shows the new totals it is about (issue 23)
    assert plain_of(cells[-1]).splitlines() == [
        "  order customer_name    title  qty  total",
        "0    o2         Brian  monitor    1  120.0",
        "1    o4          Chen  monitor    2  240.0",
    ]


def test_custom_processor(kslab_kernel):
    cells = execute("03-custom-processor.ipynb")
    assert "kslab-graph" in html_of(cells[2])  # the Processor API topology
    trace = plain_of(next(c for c in cells if c.source.endswith('"value", "detail"]]')))
    assert trace.splitlines()[6] == \
        "5        totals       send  /docs  {'views': 1, 'at': 12000}   page-totals"  # not bytes
    assert any(WIDGET in o.get("data", {}) for o in cells[-1].outputs)  # the store browser


def test_promote_to_the_live_runtime(kslab_kernel):
    cells = execute("04-promote-to-the-live-runtime.ipynb")
    promoted = next(c for c in cells if c.source.startswith("monitor = %kslab promote"))
    assert "kslab: created topics promo-lines" in text_of(promoted)
    assert any(WIDGET in o.get("data", {}) for o in promoted.outputs)
    lookup = next(c for c in cells if "count_of" in c.source)
    assert "promo-counts" in html_of(lookup) or any(
        "3" in o.get("data", {}).get("text/plain", "") for o in lookup.outputs)
    client = plain_of(next(c for c in cells if c.source.startswith("monitor.refresh()")))
    assert client.splitlines()[0].split() == ["state", "RUNNING"]  # not (<State.RUNNING: 2>, ..)
    assert client.splitlines()[-1] == "Name: promo-wc, dtype: object"
    assert "local broker stopped" in text_of(cells[-1])


def test_promote_runs_twice_on_the_labs_broker_with_the_same_counts(kslab_kernel, monkeypatch):
    """Issue 23: as under ``make lab`` (the broker outlives the kernel), two runs of notebook
    04 in a row each count the=3, the second after clearing what the first left."""
    import kslab as ks

    broker = ks.LocalBroker()
    broker.start()
    monkeypatch.setenv("KSLAB_BOOTSTRAP_SERVERS", broker.bootstrap_servers)
    monkeypatch.setenv("KSLAB_LAB_BROKER", broker.bootstrap_servers)
    try:
        for run in (1, 2):
            cells = execute("04-promote-to-the-live-runtime.ipynb")
            promoted = next(c for c in cells if c.source.startswith("monitor = %kslab promote"))
            cleared = "kslab: promo-wc ran on this broker before: emptied promo-counts-out, " \
                      "promo-lines; deleted 3 internal topic(s); reset its offsets"
            assert (cleared in text_of(promoted)) == (run == 2), text_of(promoted)
            lookup = next(c for c in cells if "count_of" in c.source)
            assert [o["data"]["text/plain"] for o in lookup.outputs
                    if "text/plain" in o.get("data", {})] == ["3"]
            assert "this kernel started no broker" in text_of(cells[-1])
    finally:
        broker.stop()


def tagged(cells: list, tag: str):
    """The code cell carrying ``tag`` in its metadata."""
    return next(c for c in cells if tag in c.metadata.get("tags", []))


def plain_of(cell) -> str:
    """The cell's text/plain outputs, without the kslab warnings shown under it."""
    return "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs
                   if "kslab-cell-warnings" not in o.get("data", {}).get("text/html", ""))


def warnings_of(cell) -> list[str]:
    """The kslab warnings shown under the cell (issue 23), as text."""
    return [o["data"]["text/plain"] for o in cell.outputs
            if "kslab-cell-warnings" in o.get("data", {}).get("text/html", "")]


def test_windowed_click_analytics(kslab_kernel):
    cells = execute("05-windowed-click-analytics.ipynb")
    windowed = html_of(next(c for c in cells if c.source.endswith("per_minute")))
    assert "<b>TimeWindowedKStream KSTREAM-SOURCE-0000000000 windowed by" in windowed
    # times and windows read as m:ss, as the prose writes them (the raw ms on hover)
    assert "<th>windows</th>" in windowed
    assert '<td title="60111 ms">1:00.111</td><td>[1:00, 2:00)</td>' in windowed
    counts = html_of(next(c for c in cells if c.source.endswith("counts")))
    assert ('<td title="[/docs@0/60000]">/docs [0:00, 1:00)</td><td>4</td>'
            '<td title="57000 ms">0:57</td>') in counts  # the 8 s straggler
    # before stream time reaches end + grace (1:10): updates only
    assert "final" not in plain_of(tagged(cells, "until-1:00"))
    assert text_of(tagged(cells, "until-1:09")) == "2 clicks arrived; stream time is now 1:00\n"
    assert plain_of(tagged(cells, "until-1:09")).endswith("/docs  0:00-1:00      4  0:57")
    assert "final" not in plain_of(tagged(cells, "until-1:09"))
    after = plain_of(tagged(cells, "until-1:20"))
    assert after.endswith("final   0     /docs  0:00-1:00       4  0:57\n"
                          "        1     /home  0:00-1:00       4  0:46\n"
                          "        2  /pricing  0:00-1:00       1  0:08")
    assert "/home  0:00-1:00       5" not in after  # the click from 0:52 came too late
    assert warnings_of(tagged(cells, "until-1:20")) == [  # and Kafka's warning says so, here
        "kslab: 1 warning while this cell ran\n  Skipping record for expired window. "
        "topic=[clicks] partition=[0] offset=[12] timestamp=[52000] window=[0,60000) "
        "expiration=[65570] streamTime=[75570]"]
    dropped = tagged(cells, "dropped")
    assert text_of(dropped) == "dropped-records-total: 1\n"
    assert plain_of(dropped).splitlines()[1].split() == ["12", "/home", "{'user':", "'ada'}",
                                                         "52000", "80000"]
    assert plain_of(tagged(cells, "final-table")).splitlines() == [
        "window    0:00-1:00  1:00-2:00  2:00-3:00  3:00-4:00",
        "page                                                ",
        "/docs             4          2          1          5",
        "/home             4          5          5          1",
        "/pricing          1          1          2          2",
    ]
    buffer = plain_of(tagged(cells, "buffer")).splitlines()
    assert buffer[0].split() == ["key", "start", "end", "value", "buffer_time", "timestamp"]
    assert [line.split()[1:] for line in buffer[1:]] == [
        ["/docs", "0", "60000", "4", "60000", "57000"],
        ["/home", "0", "60000", "4", "60000", "46667"],
        ["/pricing", "0", "60000", "1", "60000", "8750"],
        ["/home", "60000", "120000", "1", "120000", "60111"],
    ]
    plot = tagged(cells, "plot").outputs[0]["data"]
    assert plot["image/svg+xml"].startswith("<svg") and plot["image/svg+xml"].count(
        'class="series"') == 3
    assert ">0:00<" in plot["image/svg+xml"] and ">3:00<" in plot["image/svg+xml"]  # minutes
    assert plot["text/plain"] == "<WindowChart: 3 keys>"
    hopping = html_of(tagged(cells, "hopping-final"))
    assert '<td title="[/home@0/120000]">/home [0:00, 2:00)</td><td>10</td>' in hopping  # 4 +
    # the late click + 5
    assert any(WIDGET in o.get("data", {}) for o in cells[-1].outputs)


def test_long_driver_work_shows_a_progress_bar_in_the_notebook(kslab_kernel):
    """Issue 23 item 8: in a kernel, a pipe over the threshold draws tqdm's widget (the
    interrupt is tested in tests/testing/test_progress.py)."""
    import nbclient
    import nbformat

    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "kslab",
                                                           "display_name": "kslab"}})
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "import pandas as pd\nimport kslab as ks\nfrom kslab.testing import progress\n"
        "progress.options.threshold = 1_000\n"
        "builder = ks.StreamsBuilder()\n"
        "builder.stream('in', key_serde='string', value_serde='long').to('out')\n"
        "driver = ks.TopologyTestDriver(builder.build())\n"
        "frame = pd.DataFrame({'key': ['k'] * 5_000, 'value': range(5_000),"
        " 'timestamp': range(5_000)})",
        "driver.create_input_topic('in').pipe_dataframe(frame)",
        "print(driver.create_output_topic('out').get_queue_size())",
    )]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="kslab").execute()
    bar = nb.cells[1].outputs
    assert any(WIDGET in o.get("data", {}) for o in bar)  # tqdm.notebook's widget
    plain = [o["data"]["text/plain"] for o in bar if "text/plain" in o.get("data", {})]
    assert plain[0].startswith("piping in:   0%|") and "| 0.00/5.00k [" in plain[0]
    assert plain[1:] == ["5000"]  # the rows piped
    assert text_of(nb.cells[2]) == "5000\n"
