"""Issue 23 item 7: kslab's warnings about the user's records show under the cell that caused
them, counted, and do not reach the terminal."""

from __future__ import annotations

import logging
import threading

import pytest

import kslab as ks
from kslab.notebook.cell_warnings import CellWarnings, install, summary_bundle


def late_record_cell():
    """What notebook 05 does: a 60 s window (grace 0) and two records too late for it."""
    builder = ks.StreamsBuilder()
    (builder.stream("clicks", key_serde="string", value_serde="string")
     .group_by_key().windowed_by(ks.TimeWindows.of_size_with_no_grace(60_000)).count())
    with ks.TopologyTestDriver(builder.build()) as driver:
        clicks = driver.create_input_topic("clicks")
        for key, ts in (("/home", 1_000), ("/home", 130_000), ("/docs", 2_000),
                        ("/home", 3_000)):
            clicks.pipe_input(key, "x", ts)


@pytest.fixture
def shown():
    """A handler on the kslab logger whose summaries land in a list, removed afterwards."""
    bundles: list[dict[str, str]] = []
    handler = CellWarnings(bundles.append)
    logger = logging.getLogger("kslab")
    logger.addHandler(handler)
    logger.propagate = False  # as install() sets it: the handler passes on what it does not hold
    yield handler, bundles
    logger.removeHandler(handler)
    logger.propagate = True


def test_a_cells_late_records_are_shown_once_under_it_with_their_count(shown):
    handler, bundles = shown
    handler.cell_started()
    late_record_cell()
    assert bundles == []  # held while the cell runs
    handler.cell_finished()
    assert len(bundles) == 1
    text = bundles[0]["text/plain"]
    assert text.splitlines()[0] == "kslab: 2 warnings while this cell ran"
    assert text.splitlines()[1].startswith(
        "  Skipping record for expired window. topic=[clicks] partition=[0] offset=[2] "
        "timestamp=[2000] window=[0,60000) expiration=[130000] streamTime=[130000]")
    assert text.splitlines()[1].endswith(" [2 times; the first shown]")
    assert "<summary>kslab: 2 warnings while this cell ran</summary>" in bundles[0]["text/html"]
    handler.cell_started()
    handler.cell_finished()  # a quiet cell shows nothing
    assert len(bundles) == 1


def test_warnings_of_other_threads_and_outside_cells_pass_on(shown):
    handler, bundles = shown
    passed_on = []
    root = logging.getLogger()
    catcher = logging.Handler(logging.WARNING)
    catcher.emit = lambda record: passed_on.append(record.getMessage()[:37])
    root.addHandler(catcher)
    try:
        late_record_cell()  # outside a cell: passed on at once
        handler.cell_started()
        worker = threading.Thread(target=logging.getLogger("kslab.runtime").warning,
                                  args=("a stream thread's warning",))
        worker.start()
        worker.join()
        handler.cell_finished()
    finally:
        root.removeHandler(catcher)
    assert bundles == []
    assert passed_on == ["Skipping record for expired window. t",
                         "Skipping record for expired window. t", "a stream thread's warning"]


def test_a_summary_lists_at_most_eight_kinds():
    held = {f"kind {i}": [logging.LogRecord("kslab", logging.WARNING, "f", 1, f"kind {i}",
                                            None, None)] for i in range(10)}
    text = summary_bundle(held)["text/plain"].splitlines()
    assert text[0] == "kslab: 10 warnings while this cell ran"
    assert text[1:3] == ["  kind 0", "  kind 1"]
    assert text[-1] == "  and 2 other kind(s)"
    assert len(text) == 10


def test_the_extension_installs_one_handler_and_stops_propagation():
    from IPython.testing.globalipapp import get_ipython

    logger = logging.getLogger("kslab")
    before = (list(logger.handlers), logger.propagate)
    shell = get_ipython()
    try:
        first, second = install(shell), install(shell)
        assert first is second
        assert logger.propagate is False
        shell.run_cell("from tests.notebook.test_cell_warnings import late_record_cell\n"
                       "late_record_cell()")
        assert first.held == {} and first.thread is None  # shown and reset by post_run_cell
    finally:
        shell.events.unregister("pre_run_cell", first.cell_started)
        shell.events.unregister("post_run_cell", first.cell_finished)
        logger.handlers[:] = before[0]
        logger.propagate = before[1]
