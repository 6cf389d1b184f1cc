"""The collector started less often while an engine runs a chunk or task
(``kslab.core.gc_pause``): changed inside, put back after (also after an error), never made
stricter than the application left it, one body at a time owning the change, and each engine
running user functions under it."""

from __future__ import annotations

import gc
import threading

import pytest

import kslab as ks
from kslab import serdes
from kslab.core.gc_pause import YOUNG_COLLECTION, collections_off, fewer_collections


@pytest.fixture
def collecting():
    """Automatic collection on at CPython's default thresholds for the test, as the test
    found it afterwards."""
    was, thresholds = gc.isenabled(), gc.get_threshold()
    gc.enable()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*thresholds)
    if not was:
        gc.disable()


def test_fewer_collections_raises_the_young_threshold_for_the_body_and_puts_it_back(collecting):
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_COLLECTION, 10, 10) == (50_000, 10, 10)
        assert gc.isenabled()
    assert gc.get_threshold() == (700, 10, 10)
    with pytest.raises(ValueError, match="boom"), fewer_collections():
        raise ValueError("boom")
    assert gc.get_threshold() == (700, 10, 10)


def test_collections_off_turns_collection_off_for_the_body_and_on_again(collecting):
    with collections_off():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError, match="boom"), collections_off():
        raise ValueError("boom")
    assert gc.isenabled()


def test_what_the_application_set_more_leniently_stays_as_it_is(collecting):
    gc.disable()
    with collections_off(), fewer_collections():
        assert not gc.isenabled()
        assert gc.get_threshold() == (700, 10, 10)
    assert not gc.isenabled()
    gc.enable()
    gc.set_threshold(100_000, 20, 20)
    with fewer_collections():
        assert gc.get_threshold() == (100_000, 20, 20)
    assert gc.get_threshold() == (100_000, 20, 20)


def test_a_nested_or_another_threads_body_does_not_end_the_owners_change(collecting):
    inside, leave = threading.Event(), threading.Event()

    def owner():
        with fewer_collections():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=owner)
    thread.start()
    assert inside.wait(10)
    with collections_off():  # another thread's body: runs under the owner's change
        assert gc.isenabled()
        assert gc.get_threshold()[0] == YOUNG_COLLECTION
    assert gc.get_threshold()[0] == YOUNG_COLLECTION  # the owner's change lasts
    leave.set()
    thread.join(10)
    assert gc.get_threshold() == (700, 10, 10)
    with collections_off():
        with collections_off():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner body did not end the outer's
    assert gc.isenabled()


def test_the_driver_runs_a_bulk_pipe_with_collection_off(collecting):
    seen: list[bool] = []
    builder = ks.StreamsBuilder()
    (builder.stream("in", ks.Consumed.with_(serdes.String(), serdes.Json()))
     .map_values(lambda value: seen.append(gc.isenabled()) or value)
     .to("out", ks.Produced.with_(serdes.String(), serdes.Json())))
    with ks.TopologyTestDriver(builder.build()) as driver:
        driver.create_input_topic("in", serdes.String(), serdes.Json()).pipe_key_value_list(
            [("k", {"n": i}) for i in range(5)])
        assert len(driver.create_output_topic("out").read_values_to_list()) == 5
    assert seen == [False] * 5
    assert gc.isenabled()
