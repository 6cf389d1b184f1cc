"""The display seam: the topology and the DSL draw through a renderer the notebook installs."""

from __future__ import annotations

import kslab as ks
from kslab.topology import display


def test_import_kslab_installs_the_notebook_renderer():
    topology = ks.Topology().add_source("src", "in")
    assert "kslab-view" in topology._repr_mimebundle_()["text/html"]


def test_without_a_renderer_an_object_shows_as_its_repr():
    builder = ks.StreamsBuilder()
    stream = builder.stream("in")
    previous = display.set_renderer(None)
    try:
        assert stream._repr_mimebundle_() == {"text/plain": repr(stream)}
        assert builder.build()._repr_mimebundle_() == {"text/plain": repr(builder.build())}
    finally:
        display.set_renderer(previous)


def test_a_renderer_gets_the_object_and_the_mime_filters():
    calls = []

    def renderer(obj, include, exclude):
        calls.append((obj, include, exclude))
        return {"text/plain": "drawn"}

    topology = ks.Topology().add_source("src", "in")
    previous = display.set_renderer(renderer)
    try:
        assert topology._repr_mimebundle_(include=["text/html"]) == {"text/plain": "drawn"}
    finally:
        assert display.set_renderer(previous) is renderer
    assert calls == [(topology, ["text/html"], None)]
