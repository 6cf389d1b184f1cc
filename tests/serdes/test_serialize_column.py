"""``Serde.serialize_column``: a column of values written as ``serialize`` writes each one."""

from __future__ import annotations

import orjson
import pytest

import kslab as ks
from kslab import serdes
from kslab.errors import SerdeError


def test_json_column_is_each_value_serialized_and_keeps_none() -> None:
    json = serdes.Json()
    values = [{"a": 1, "b": [1, 2]}, None, "text", 3.5, {"nested": {"x": None}}]
    assert json.serialize_column("t", values) == [json.serialize("t", v) for v in values]
    assert json.serialize_column("t", values)[1] is None


def _deep(depth: int) -> dict[str, object]:
    item: dict[str, object] = {}
    for _ in range(depth):
        item = {"d": item}
    return item


@pytest.mark.parametrize("values", [
    [{"a": 1, "b": "x"}, {"b": "x},{y"}],  # the cut's marker inside a string
    [{"a": [{"b": 1}, {"c": 2}]}, {}],  # and between dicts nested in a list
    [{}, {}, {"n": float("nan"), "big": 2 ** 63}],
    [{"s": "line\nbreak\r"}, {"t": True}],  # escaped line breaks
    [{"f": orjson.Fragment(b'{"a":\n1}')}, {"z": 2}],  # a raw line break
    [_deep(253), {"x": 1}],  # written alone, one level too deep in an array
], ids=["marker-in-string", "nested-list-of-dicts", "empty-nan-big", "escaped-breaks",
        "fragment-line-break", "deepest"])
def test_a_json_column_of_dicts_cut_from_one_array_is_each_value_serialized(
        values: list[object]) -> None:
    """A column of dicts is written as one JSON array and cut between the elements
    (``_split_dicts``), or one by one where a cut is not certain: the bytes of each value's
    ``serialize`` either way."""
    json = serdes.Json()
    assert json.serialize_column("t", values) == [json.serialize("t", v) for v in values]


def test_json_column_raises_the_serdes_error_for_the_value_it_refuses() -> None:
    json = serdes.Json()
    with pytest.raises(SerdeError) as column_error:
        json.serialize_column("t", [{"ok": 1}, {1, 2}])
    with pytest.raises(SerdeError) as single_error:
        json.serialize("t", {1, 2})
    assert str(column_error.value) == str(single_error.value)


def test_the_default_column_form_passes_headers_per_item() -> None:
    seen: list[tuple[str, object]] = []

    class Tagged(serdes.Serde):
        def serialize(self, topic, data, headers=None):
            seen.append((data, headers))
            return f"{data}".encode()

        def deserialize(self, topic, data, headers=None):
            return data

    assert Tagged().serialize_column("t", ["a", "b"], ["h1", "h2"]) == [b"a", b"b"]
    assert seen == [("a", "h1"), ("b", "h2")]


@pytest.mark.parametrize("bulk", [True, False])
def test_piping_json_keys_and_values_reads_back_each_pair(bulk: bool) -> None:
    """The input topic serializes a chunk's values as a column and its keys one by one (a
    Json key has no C-level codec): each record keeps its own key and value."""
    topology = (ks.Topology()
                .add_source("src", "in", key_serde="json", value_serde="json")
                .add_sink("out", "out", "src", key_serde="json", value_serde="json"))
    pairs = [({"k": i}, {"v": i * 10}) for i in range(300)] + [({"k": "none"}, None)]
    with ks.TopologyTestDriver(topology, {"kslab.driver.bulk": bulk}) as driver:
        driver.create_input_topic("in", serdes.Json(), serdes.Json()).pipe_key_value_list(pairs)
        out = driver.create_output_topic("out", serdes.Json(), serdes.Json())
        assert [(kv.key, kv.value) for kv in out.read_key_values_to_list()] == pairs
