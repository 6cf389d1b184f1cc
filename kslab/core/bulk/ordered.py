"""What a chunk's stages hand to phase two, put in the record path's order: each topic's sink
records (``outputs``) and the user actions of ``peek``, ``foreach`` and ``print``
(``actions``, called by ``call_actions``).

Both are worked out at the end of phase one (placing records may find a batch form's records
unplaceable: ``tree.Unordered``, the chunk is declined). A topic one sink writes takes that
sink's columns as they are; records of several sinks (two branches to one topic, a stage and
the stage reading its repartition) are merged by their consumed record's place and, within
one stage, by depth-first path (``tree.event_keys``). Actions are called before anything of
the chunk is applied: if one raises, nothing was, and the processors that acted are told how
many of their calls were made (``Acting.replay``) for the record path to run the chunk again
without calling any action twice.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from itertools import islice, repeat
from operator import call
from typing import Any, NamedTuple

from kslab.core.bulk import tree
from kslab.core.bulk.columns import LogBatch, Merges, picked

__all__ = ["Actions", "Output", "actions", "call_actions", "outputs"]

Output = tuple[str, LogBatch, "list[int] | None"]
"""A topic, its records as columns for its log and each record's partition (``None``: 0)."""

class Actions(NamedTuple):
    """The calls of a chunk's actions in order: ``actions[i](keys[i], values[i])``, made
    for processor ``owners[i]``."""

    actions: list[Callable[[Any, Any], None]]
    keys: list[Any]
    values: list[Any]
    owners: list[Any]


def outputs(stages: list[Any], merges: Merges | None = None) -> list[Output]:
    """Each topic's sink records of ``stages`` in the record path's order (``merges``: the
    chunk's, shared with its changelogs' merge)."""
    if merges is None:
        merges = Merges()
    by_topic: dict[str, list[tuple[Any, Any]]] = {}
    for stage in stages:
        for out in stage.outs:
            if out.log.timestamps:  # (an empty one would still create the log)
                by_topic.setdefault(out.topic, []).append((stage, out))
    found: list[Output] = []
    for topic, outs in by_topic.items():
        if len(outs) == 1:
            out = outs[0][1]
            found.append((topic, out.log, out.partitions))
            continue
        per_stage: dict[int, int] = {}
        for stage, _ in outs:
            per_stage[id(stage)] = per_stage.get(id(stage), 0) + 1
        paths = max(per_stage.values()) > 1  # several sinks of one stage: depth first
        # (headers and partitions only where a record has them: the columns are long)
        headered = any(out.log.headers and out.log.headers.count(None) != len(
            out.log.headers) for _, out in outs)
        partitioned = any(out.partitions is not None for _, out in outs)
        sort_keys: list[Any] = []
        headers: list[Any] | None = [] if headered else None
        timestamps: list[int] = []
        partitions: list[int] | None = [] if partitioned else None
        for stage, out in outs:
            if not paths:
                sort_keys += _places(stage, out)
            log = out.log
            count = len(log.timestamps)
            if headers is not None:
                headers += log.headers or repeat(None, count)
            timestamps += log.timestamps
            if partitions is not None:
                partitions += out.partitions or repeat(0, count)
        order = tree.order([(stage, out.step, out.positions) for stage, out in outs]) \
            if paths else merges.order(sort_keys)  # (None: in order, one task's records)
        if order is not None:
            headers, partitions = (None if column is None else picked(column, order)
                                   for column in (headers, partitions))
            timestamps = picked(timestamps, order)
        keys = merges.column([out.log.keys for _, out in outs], order)
        values = merges.column([out.log.values for _, out in outs], order)
        found.append((topic, LogBatch(keys, values, headers, timestamps), partitions))
    return found


def _places(stage: Any, out: Any) -> list[Any]:
    """The sort key of each record of ``out``: its consumed record's place."""
    places = stage.place_keys()
    origin = stage.given[out.step].origin
    if out.positions is None:  # (every consumed record's, in order: the places as they are)
        return places if origin is stage.identity else list(map(places.__getitem__, origin))
    return [places[origin[i]] for i in out.positions]


def actions(stages: list[Any]) -> Actions:
    """Every action call of ``stages``, in the record path's order: one step's in its batch's
    order, several steps' by their full keys (``tree.order``)."""
    entries = [(stage, step, owner, batch, action) for stage in stages
               for step, owner, batch, action in stage.run.actions]
    found = Actions([], [], [], [])
    for stage, step, owner, batch, action in entries:
        count = len(batch)
        found.actions.extend(repeat(action, count))
        found.keys.extend(batch.keys)
        found.values.extend(batch.values)
        shared = stage.shared  # (several tasks' rows: each record's own task's processor)
        found.owners.extend(repeat(owner, count) if shared is None
                            else shared.owners(step, batch.origin))
    if len(entries) > 1:
        order = tree.order([(stage, step, None) for stage, step, _, _, _ in entries])
        return Actions(*(list(map(column.__getitem__, order)) for column in found))
    return found


def call_actions(calls: Actions) -> bool:
    """Call every action in order (the loop in C); ``False`` when one raised: then each
    processor that acted is told how many of its calls were made and, the one that raised,
    its error (``Acting.replay``), and the caller declines the chunk."""
    actions = iter(calls.actions)
    try:
        deque(map(call, actions, calls.keys, calls.values), maxlen=0)
    except Exception as error:
        number = len(calls.actions) - sum(1 for _ in actions) - 1  # (the one that raised)
        owners = calls.owners
        failed = owners[number]
        done: dict[int, int] = {id(failed): 0}
        every = {id(failed): failed}
        for owner in islice(owners, number):
            done[id(owner)] = done.get(id(owner), 0) + 1
            every[id(owner)] = owner
        for owner_id, owner in every.items():
            owner.replay(done[owner_id], error if owner is failed else None)
        return False
    return True
