"""Records the notebook's driver sessions inside the kernel that runs it for ``kslab export``.

A session is what one ``TopologyTestDriver`` made by the notebook's own code was given (its
history: records and wall-clock advances, in order) and every record it wrote to each
non-internal topic, with the driver's config. Only drivers of the exported topology count:
a driver whose topology describes differently (an earlier draft, a preview) is reported as
skipped. Invariant: the recorder only reads drivers; it never drives or closes one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import kslab
from kslab.export._fixtures import shape_field, shape_headers
from kslab.testing import driver as driver_module
from kslab.topology._nodes import SinkNode
from kslab.topology.topology import Topology

__all__ = ["MAX_RECORDS", "SessionRecorder", "as_topology"]

MAX_RECORDS = 5_000  # a bigger session is not a readable fixture; it is skipped, with a note
_KSLAB_DIR = str(Path(kslab.__file__).resolve().parent)
_DRIVER_FILE = driver_module.__file__


class SessionRecorder:
    """Keeps each driver user code creates while installed; ``dump`` writes their sessions."""

    def __init__(self) -> None:
        self.drivers: list[tuple[Any, bool]] = []

    def install(self) -> None:
        """Start recording (``TopologyTestDriver``'s creation hook)."""
        driver_module.CREATED_HOOKS.append(self._observe)

    def uninstall(self) -> None:
        """Stop recording."""
        if self._observe in driver_module.CREATED_HOOKS:
            driver_module.CREATED_HOOKS.remove(self._observe)

    def _observe(self, driver: Any) -> None:
        self.drivers.append((driver, _created_by_user()))

    def dump(self, target: Any, variable: str, path: str) -> None:
        """Write ``{"describe", "sessions", "skipped"}`` for ``target`` to ``path`` (JSON)."""
        self.uninstall()
        describe = str(as_topology(target, variable, None).describe())
        sessions: list[dict[str, Any]] = []
        skipped: list[str] = []
        seen: set[str] = set()
        user_drivers = [d for d, by_user in self.drivers if by_user]
        for number, driver in enumerate(user_drivers, 1):
            why = _mismatch(driver, target, variable)
            session = None if why else _session(driver)
            if isinstance(session, str):
                why, session = session, None
            if session is None:
                skipped.append(f"driver {number}: {why}")
                continue
            key = json.dumps([session["config"], session["initial_wall_clock_time"],
                              session["partitions"], session["steps"]], sort_keys=True)
            if key in seen:
                skipped.append(f"driver {number}: same input as an earlier driver")
                continue
            seen.add(key)
            session["driver"] = number
            sessions.append(session)
        Path(path).write_text(json.dumps(
            {"describe": describe, "sessions": sessions, "skipped": skipped}))


def as_topology(obj: Any, variable: str, config: Any) -> Topology:
    """``obj`` as a topology: as is, or built from its ``StreamsBuilder`` with ``config``."""
    if isinstance(obj, Topology):
        return obj
    builder = obj if hasattr(obj, "samples") and hasattr(obj, "build") else getattr(
        obj, "builder", None)
    if builder is None or not hasattr(builder, "build"):
        msg = (f"`{variable}` is a {type(obj).__name__}, not a Topology or StreamsBuilder; "
               "export the variable that holds the topology (--var NAME)")
        raise TypeError(msg)
    return builder.build(config)


def _created_by_user() -> bool:
    """Whether the driver being made was asked for by notebook code (not a kslab widget)."""
    frame = sys._getframe(2)  # past _observe: TopologyTestDriver.__init__
    while frame is not None and frame.f_code.co_filename == _DRIVER_FILE:
        frame = frame.f_back  # TopologyTestDriver.__init__, replay()
    return frame is not None and not frame.f_code.co_filename.startswith(_KSLAB_DIR)


def _mismatch(driver: Any, target: Any, variable: str) -> str | None:
    """Why ``driver`` does not run the exported topology, or ``None`` when it does."""
    try:
        wanted = str(as_topology(target, variable, driver.given_config).describe())
    except Exception as exc:
        return f"cannot build `{variable}` with this driver's config: {exc}"
    if str(driver.topology.describe()) != wanted:
        return f"its topology is not `{variable}` as exported (it describes differently)"
    return None


def _session(driver: Any) -> dict[str, Any] | str:
    """The JSON-able session of ``driver``, or why it cannot be one."""
    config = driver.given_config
    bad = [k for k, v in config.items() if not isinstance(v, str | int | float | bool | None)]
    if bad:
        return (f"config {bad[0]!r} is a {type(config[bad[0]]).__name__}, which a fixture "
                "cannot hold; name serdes by string ('long', 'json', ...) in driver configs")
    history = driver.history
    if not any(step.kind == "record" for step in history):
        return "nothing was piped into it"
    if len(history) > MAX_RECORDS:
        return f"{len(history)} steps, over the {MAX_RECORDS} a readable fixture holds"
    partitions = driver.given_partitions
    inputs: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    for step in history:
        if step.kind == "wall_clock":
            steps.append({"advance_wall_clock_time": step.timestamp})
            continue
        topic = step.topic
        serdes = inputs.get(topic) or inputs.setdefault(topic, driver.create_input_topic(topic))
        record = {"topic": topic, **shape_field(serdes.key_serde, topic, step.key, "key"),
                  **shape_field(serdes.value_serde, topic, step.value, "value"),
                  "timestamp": step.timestamp}
        if step.headers:
            record["headers"] = shape_headers(step.headers)
        if partitions:
            record["partition"] = step.partition
        steps.append(record)
    outputs = {topic: _outputs(driver, topic) for topic in _output_topics(driver)}
    if sum(len(records) for records in outputs.values()) > MAX_RECORDS:
        return f"it wrote over the {MAX_RECORDS} records a readable fixture holds"
    return {"config": dict(config), "initial_wall_clock_time": driver.initial_wall_clock_time,
            "partitions": dict(partitions) if partitions else None, "steps": steps,
            "outputs": outputs}


def _output_topics(driver: Any) -> list[str]:
    """The topics the topology writes that are not internal, written to or not."""
    topology = driver.topology
    topics = {topology.resolve_topic(node.topic, driver.application_id)
              for node in topology.nodes.values()
              if isinstance(node, SinkNode) and isinstance(node.topic, str)}
    topics.update(t for t, log in driver.output_logs().items() if log.total)
    internal = {topology.resolve_topic(t, driver.application_id)
                for t in topology.internal_topics}
    return sorted(t for t in topics if t not in internal and not driver.is_internal_topic(t))


def _outputs(driver: Any, topic: str) -> list[dict[str, Any]]:
    log = driver.output_logs().get(topic)
    if log is None:
        return []
    serdes = driver.create_output_topic(topic)
    records = []
    for index in range(log.total):
        key, value, headers, timestamp, _partition = log.record(index)
        record = {**shape_field(serdes.key_serde, topic, key, "key"),
                  **shape_field(serdes.value_serde, topic, value, "value"),
                  "timestamp": timestamp}
        if headers:
            record["headers"] = shape_headers(headers)
        records.append(record)
    return records
