"""Registry serdes pickle as their settings, so a topology using them ships to Spark's workers:
the client is rebuilt on unpickling, a mock:// registry's schemas travel with the serde and come
back with the same ids in another process, and a client object refuses with the fix."""

from __future__ import annotations

import base64
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from kslab import SerdeError, serdes
from tests.serdes.registry_server import http_registry_fixture  # noqa: F401 - the fixture

ORDER = {"type": "record", "name": "Order", "namespace": "com.acme",
         "fields": [{"name": "id", "type": "long"}]}
TOTAL = {"title": "Total", "type": "object", "properties": {"id": {"type": "integer"}},
         "required": ["id"]}
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def mock_url(request):
    name = f"pickle-{request.node.name}"
    serdes.drop_mock_registry(name)
    yield f"mock://{name}"
    serdes.drop_mock_registry(name)


def test_an_http_registry_serde_round_trips_and_reads_what_the_original_wrote(http_registry):
    avro = serdes.Avro(ORDER, registry=http_registry.url)
    framed = avro.serialize("orders", {"id": 7})
    copy = pickle.loads(pickle.dumps(avro))
    assert copy == avro and copy is not avro
    assert repr(copy) == f"Avro(schema='com.acme.Order', registry='{http_registry.url}')"
    assert copy.deserialize("orders", framed) == {"id": 7}
    assert copy.serialize("orders", {"id": 7}) == framed  # the same subject, the same id 1
    key = pickle.loads(pickle.dumps(serdes.JsonSchema(TOTAL, registry={"url": http_registry.url},
                                                      is_key=True)))
    assert key.is_key and key.serialize("t", {"id": 3}) == b"\x00\x00\x00\x00\x02" + b'{"id":3}'
    assert http_registry.subjects == {"orders-value": [1], "t-key": [2]}


def test_a_mock_registry_is_restored_with_its_ids_in_another_process(mock_url):
    avro = serdes.Avro(ORDER, registry=mock_url)
    json_key = serdes.JsonSchema(TOTAL, registry=mock_url, is_key=True)
    written = [avro.serialize("a", {"id": 1}), json_key.serialize("b", {"id": 2}),
               avro.serialize("d", {"id": 4})]
    assert [data[1:5] for data in written] == [i.to_bytes(4, "big") for i in (1, 2, 3)]
    shipped = base64.b64encode(pickle.dumps([avro, json_key, written])).decode()
    code = (
        "import base64, pickle, sys; from kslab import serdes; "
        "avro, key, written = pickle.loads(base64.b64decode(sys.argv[1])); "
        f"registry = serdes.mock_registry({mock_url[len('mock://'):]!r}); "
        "print(sorted((registry.get_latest_version(s).schema_id, s) "
        "for s in registry.get_subjects())); "
        "print(avro.deserialize('a', written[0]), key.deserialize('b', written[1]), "
        "avro.deserialize('d', written[2])); "
        "print(avro.serialize('d', {'id': 4}) == written[2], "
        "pickle.loads(pickle.dumps(avro)).serialize('a', {'id': 1}) == written[0])\n"
        "try:\n    avro.serialize('new', {'id': 5})\n"
        "except Exception as e:\n    print(type(e).__name__, e)"
    )
    result = subprocess.run([sys.executable, "-c", code, shipped], capture_output=True,
                            text=True, check=False, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "[(1, 'a-value'), (2, 'b-key'), (3, 'd-value')]",
        "{'id': 1} {'id': 2} {'id': 4}",
        "True True",
        f"SerdeError Avro(schema='com.acme.Order', registry='{mock_url}') cannot write to "
        "topic 'new' in this process (a Spark worker): its schema is not under subject "
        f"'new-value' in the {mock_url} registry copied from the driver, and a schema "
        "registered here would get an id other processes do not know; register it in the "
        "driver before the job is built (serialize one value for this topic with this serde "
        "there), or use an http:// registry",
    ]


def test_restoring_into_a_registry_that_holds_the_same_schemas_is_idempotent(mock_url):
    avro = serdes.Avro(ORDER, registry=mock_url)
    framed = avro.serialize("orders", {"id": 5})
    data = pickle.dumps(avro)
    twice = [pickle.loads(data), pickle.loads(data)]  # a reused worker unpickles again
    registry = serdes.mock_registry(mock_url[len("mock://"):])
    assert registry.get_subjects() == ["orders-value"]
    assert registry.get_versions("orders-value") == [1]
    assert [copy.deserialize("orders", framed) for copy in twice] == [{"id": 5}, {"id": 5}]


def test_a_conflicting_id_is_an_error_naming_the_id_and_the_fix(mock_url):
    name = mock_url[len("mock://"):]
    avro = serdes.Avro(ORDER, registry=mock_url)
    avro.serialize("orders", {"id": 5})  # id 1 is orders-value here
    data = pickle.dumps(avro)
    serdes.drop_mock_registry(name)
    serdes.JsonSchema(TOTAL, registry=mock_url).serialize("other", {"id": 1})  # now id 1 is other
    with pytest.raises(ValueError, match="cannot take schema id 1 ") as caught:
        pickle.loads(data)
    assert str(caught.value) == (
        f"mock://{name} in this process cannot take schema id 1 (subject 'orders-value', "
        "version 1) from the pickled serde: here id 1 is another schema; register schemas "
        "only in the driver's mock registry (before the job is built), "
        "drop_mock_registry(name) here first, or use an http:// registry")


def test_a_client_object_refuses_pickling_saying_to_pass_the_url(mock_url):
    client = serdes.mock_registry(mock_url[len("mock://"):])
    avro = serdes.Avro(ORDER, registry=client)
    with pytest.raises(TypeError) as caught:
        pickle.dumps(avro)
    assert str(caught.value) == (
        "Avro(schema='com.acme.Order', registry='<MockSchemaRegistryClient>') cannot be pickled "
        "(sent to a Spark worker or another process): its registry is a "
        "MockSchemaRegistryClient object, which does not pickle; pass the registry's URL "
        "(registry='http://host:8081') or its config dict instead, so the other process "
        "builds its own client")


def test_a_plain_serde_without_a_registry_still_pickles():
    schema = serdes.JsonSchema(TOTAL)
    copy = pickle.loads(pickle.dumps(schema))
    assert copy == schema and copy.deserialize("t", b'{"id":9}') == {"id": 9}
    with pytest.raises(SerdeError, match="'id' is a required property"):
        copy.serialize("t", {})
