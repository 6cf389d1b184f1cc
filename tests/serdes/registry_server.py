"""A stand-in schema registry over real HTTP for the serde tests (the ``http_registry`` fixture
imported by the tests that use it; a conftest.py here would be collected twice by
--doctest-modules beside the other folders' conftest modules).

No registry server installs from PyPI here (Confluent's is a JVM service; Karapace is not on the
index), so this is a stdlib HTTP server on 127.0.0.1 implementing the part of the Confluent
Schema Registry REST API that confluent-kafka's client calls: registering under a subject and
fetching a schema by id, ids global as the real registry's. Anything else it is asked for is
answered 404 and recorded, so a test fails loudly if the client starts calling more.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

import pytest


class Registry:
    """The stand-in's state: schemas by id, versions by subject, and every request seen."""

    def __init__(self) -> None:
        self.schemas: dict[int, str] = {}
        self.types: dict[int, str] = {}  # schemaType by id: "AVRO", "PROTOBUF" or "JSON"
        self.subjects: dict[str, list[int]] = {}
        self.requests: list[tuple[str, str]] = []
        self.unknown: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.url = ""

    def register(self, subject: str, schema: str, schema_type: str = "AVRO") -> int:
        with self.lock:
            # ids are global: the same schema text gets the same id under every subject
            ids = {known: schema_id for schema_id, known in self.schemas.items()}
            schema_id = ids.get(schema, len(self.schemas) + 1)
            self.schemas[schema_id] = schema
            self.types[schema_id] = schema_type
            versions = self.subjects.setdefault(subject, [])
            if schema_id not in versions:
                versions.append(schema_id)
            return schema_id


def _handler(registry: Registry) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep pytest output clean
            pass

        def _reply(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _not_found(self) -> None:
            registry.unknown.append((self.command, self.path))
            self._reply(404, {"error_code": 404, "message": f"stand-in: no {self.path}"})

        def do_POST(self) -> None:
            registry.requests.append(("POST", self.path))
            path = urlsplit(self.path).path
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            match = re.fullmatch(r"/subjects/([^/]+)/versions", path)
            if match is None:
                return self._not_found()
            schema_type = body.get("schemaType", "AVRO")
            schema_id = registry.register(unquote(match[1]), body["schema"], schema_type)
            return self._reply(200, {"id": schema_id})

        def do_GET(self) -> None:
            registry.requests.append(("GET", self.path))
            match = re.fullmatch(r"/schemas/ids/(\d+)", urlsplit(self.path).path)
            if match is None or int(match[1]) not in registry.schemas:
                return self._not_found()
            schema_id = int(match[1])
            reply = {"schema": registry.schemas[schema_id]}
            if registry.types[schema_id] != "AVRO":  # as the real registry, which omits AVRO
                reply["schemaType"] = registry.types[schema_id]
            return self._reply(200, reply)

    return Handler


@pytest.fixture(name="http_registry")
def http_registry_fixture():
    state = Registry()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()
    assert state.unknown == [], "the client called endpoints the stand-in does not implement"
