"""Phase one of a stage over its plan's tree, and the record path's depth-first order of what
the tree's steps do.

``walk`` gives each step of a plan (``kslab.core.bulk.plan``) the records the steps before it
forwarded, in the record path's order, and runs its batch form once over them: a step with
several children forwards each batch to each of them, a routed batch (``Routed``) goes to its
named children, a merge step takes its parents' batches merged into the order the record
path would have had them reach it.

That order is depth first: a consumed record goes through its first child's whole subtree
(every sink it reaches, every action called) before its second child's, and each record a
flat map makes goes through the subtree before the next. ``seqs_in`` gives each record a step
was given its path in that walk, a tuple: the record's ``parents`` in each batch form's given
batch, with a rank where one given record made several (a flat map) and the child's slot
where a step forwards every record to several children. Records a record cache's commit
forwards (``Batch.at_commit``) come after everything their consumed record did: their path
starts ``(_COMMIT, j)``. So whatever two steps do for one consumed record sorts by
``(path, step)`` (steps are numbered parents first: a step acts on a record before its
children do). Paths are worked out only where order across steps matters (a merge, a topic
or actions from several steps); a linear plan's batches are in order as they are.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from itertools import islice
from operator import lt
from typing import Any

from kslab.processor.batch import Batch, Routed

__all__ = ["Unordered", "event_keys", "order", "position_of", "seqs_in", "walk"]

_COMMIT = 1 << 30  # a commit's forwards come after every child slot of their record
_EMPTY = Batch([], [], [])


class Unordered(Exception):
    """A batch form's records could not be placed in the record path's order (no
    ``parents`` where one consumed record had several given records): decline the run."""


def walk(stage: Any, sink: Callable[[Any, int, Batch], bool]) -> bool:
    """Phase one of ``stage``: every step's batch form over what it was given, in the
    plan's order (``sink(stage, step, batch)`` for a sink step); ``False``: declined (a
    batch form cannot take its run, or ``sink`` declined)."""
    plan = stage.plan
    steps = plan.steps
    edges = stage.edges
    roots = plan.roots
    run = stage.run
    for slot, root in enumerate(roots):
        edges[root].append((-1, stage.cols, slot if len(roots) > 1 else None))
    for index, step in enumerate(steps):
        batch = _given(stage, index)
        stage.given[index] = batch
        if step.sink is not None:
            if not sink(stage, index, batch):
                return False
            continue
        if not len(batch):
            made: Any = batch  # (nothing to run: nothing reaches the step)
        else:
            processor = step.processor
            foreign = batch.contexts is not None
            if foreign and not getattr(processor, "batch_contexts", False):
                return False  # records under other records' contexts: the record path
            run.step = index
            made = processor.process_batch(batch, run)
            if made is None:
                return False
            if foreign and made is not batch and len(made) and made.contexts is None:
                return False  # (a processor that said it keeps them lost them)
        stage.made[index] = made
        if made.__class__ is Routed:
            for name, part in made.parts.items():
                child = step.named.get(name)
                if child is None:
                    return False  # (the record path says which child is unknown)
                edges[child].append((index, part, None))
            continue
        children = step.children
        for slot, child in enumerate(children):
            edges[child].append((index, made, slot if len(children) > 1 else None))
    return True


def _given(stage: Any, index: int) -> Batch:
    """What step ``index`` is given: its one parent's batch, or its parents' batches merged
    in the record path's order (by consumed record, then path)."""
    edges = stage.edges[index]
    filled = [edge for edge in edges if len(edge[1])]
    if not filled:
        return _EMPTY
    if len(filled) == 1 and len(edges) == 1:
        return filled[0][1]
    seqs = [_edge_seqs(stage, edge) for edge in filled]
    run = stage.run
    keys = [(origin, seq) for edge, part_seqs in zip(filled, seqs, strict=True)
            for origin, seq in zip(edge[1].origin, part_seqs, strict=True)]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    columns = [[], [], [], [], []]  # type: ignore[var-annotated]
    own_times = any(edge[1].timestamps is not None for edge in filled)
    own_contexts = any(edge[1].contexts is not None for edge in filled)
    for _, part, _ in filled:
        columns[0] += part.keys
        columns[1] += part.values
        columns[2] += part.origin
        if own_times:
            columns[3] += run.timestamps(part)
        if own_contexts:
            columns[4] += part.contexts or [None] * len(part)
    picked = [list(map(column.__getitem__, order)) if column else None for column in columns]
    stage.seqs[index] = [keys[i][1] for i in order]  # (merged: their paths are known)
    return Batch(picked[0], picked[1], picked[2], picked[3],  # type: ignore[arg-type]
                 contexts=picked[4])


def seqs_in(stage: Any, index: int) -> list[tuple[int, ...]]:
    """The path of each record step ``index`` was given (worked out once)."""
    seqs = stage.seqs[index]
    if seqs is None:
        edges = stage.edges[index]
        filled = [edge for edge in edges if len(edge[1])]
        seqs = stage.seqs[index] = _edge_seqs(stage, filled[0]) if filled else []
    return seqs  # type: ignore[no-any-return]


def _edge_seqs(stage: Any, edge: tuple[int, Batch, int | None]) -> list[tuple[int, ...]]:
    """The paths of the records ``edge`` brings (from the source, or a step's batch)."""
    parent, part, slot = edge
    count = len(part)
    if parent < 0:
        seqs: list[tuple[int, ...]] = [()] * count
    else:
        given = stage.given[parent]
        if part.at_commit and part is not given:
            seqs = [(_COMMIT, j) for j in range(count)]
        else:
            above = seqs_in(stage, parent)
            parents = _lineage(given, part)
            same = _constant(above)
            if parents is None:
                seqs = above
            elif same is not None and len(set(parents)) == count:
                seqs = [same] * count  # (the usual case: one object, told apart in C)
            else:
                seqs = list(map(above.__getitem__, parents))
                if len(set(parents)) < count:  # one record made several: their ranks
                    ranks = []
                    last, rank = -1, 0
                    for position in parents:
                        rank = rank + 1 if position == last else 0
                        last = position
                        ranks.append(rank)
                    seqs = [(*seq, rank) for seq, rank in zip(seqs, ranks, strict=True)]
    if slot is not None:
        same = _constant(seqs)
        seqs = [(*same, slot)] * count if same is not None else [(*seq, slot) for seq in seqs]
    return seqs


def _constant(seqs: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """The one path of ``seqs`` when all are equal (one object repeated: compared by
    identity, in C), else ``None``."""
    if seqs and seqs.count(seqs[0]) == len(seqs):
        return seqs[0]
    return None


def _lineage(given: Batch, part: Batch) -> list[int] | None:
    """Each record of ``part`` (what a batch form made of ``given``): its position in
    ``given`` (``None``: one for one, in order)."""
    if part is given or part.origin is given.origin:
        return None
    parents = part.parents
    if parents is not None:
        return list(parents)
    origin = given.origin
    if not all(map(lt, origin, islice(origin, 1, None))):
        raise Unordered
    return [bisect_left(origin, row) for row in part.origin]


def position_of(stage: Any, index: int, origin: int) -> int:
    """The position of consumed record ``origin``'s first record in step ``index``'s batch."""
    return bisect_left(stage.given[index].origin, origin)


def order(entries: list[tuple[Any, int, list[int] | None]]) -> list[int]:
    """The record path's order of what steps do for records they were given: ``entries``
    holds each stage, step and the positions of its records (``None``: all of them); the
    positions into the entries' records, one after another, sorted by (consumed record's
    place, path, step). Where every entry's records share one path (at most one record per
    consumed record each: the usual fan-out), the entries are put in (path, step) order once
    and the records sorted by place alone (stable)."""
    shared: list[tuple[tuple[int, ...], int]] | None = []
    for stage, index, positions in entries:
        seqs = seqs_in(stage, index)
        if positions is not None:
            seqs = [seqs[i] for i in positions]
        same = _constant(seqs) if seqs else ()
        if same is None:
            shared = None
            break
        shared.append((same, index))  # type: ignore[union-attr]
    if shared is None:
        keys: list[Any] = []
        for stage, index, positions in entries:
            keys += event_keys(stage, index, positions)
        return sorted(range(len(keys)), key=keys.__getitem__)
    starts = []
    places: list[Any] = []
    for stage, index, positions in entries:
        starts.append(len(places))
        given = stage.given[index].origin
        rows = given if positions is None else [given[i] for i in positions]
        places += map(stage.place_keys().__getitem__, rows)
    ranked = sorted(range(len(entries)), key=shared.__getitem__)
    bounds = [*starts, len(places)]
    first = [i for entry in ranked for i in range(bounds[entry], bounds[entry + 1])]
    return sorted(first, key=places.__getitem__)


def event_keys(stage: Any, index: int, positions: list[int] | None = None) -> list[Any]:
    """The chunk-wide sort key of what step ``index`` does for each record it was given (at
    ``positions``; ``None``: all): (its consumed record's place, its path, the step)."""
    given = stage.given[index]
    places = stage.place_keys()
    seqs = seqs_in(stage, index)
    origin = given.origin
    if positions is None:
        return [(places[row], seq, index) for row, seq in zip(origin, seqs, strict=True)]
    return [(places[origin[i]], seqs[i], index) for i in positions]
