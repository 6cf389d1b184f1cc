"""Runs one chunk of an idle single-partition task's input over columns, or declines.

Phase one runs every user function, deserializer and serializer of the chunk's plans (each
step's batch form over its records, ``kslab.core.bulk.tree``) and mutates nothing; if anything
raises, ``run`` returns ``None`` and the engine re-runs the chunk on the record path, which
raises the exact error with the exact partial state (the user functions of earlier records
then run twice, as Kafka's reprocessing after a failure also does). Phase two calls the
actions of peek, foreach and print in the record path's order (one that raises declines the
chunk before anything is applied: ``kslab.core.bulk.ordered``), then applies the chunk: logs,
offsets, clocks, metrics, what the batch forms held (store writes, changelogs, record caches),
the commits and the task's context.

Over 600 lines because phase one and phase two of a chunk share the executor's per-chunk state
(laid-out columns, cache reservations, sort keys); the plan, the tree walk, the sinks and the
ordering have modules of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate, islice, repeat
from operator import le, sub
from typing import Any, Protocol

import numpy as np

from kslab.core.bulk import ordered, tree
from kslab.core.bulk.columns import ByteColumn, Merges, fixed_width, picked
from kslab.core.bulk.plan import Plan, compile_plan
from kslab.core.bulk.shared import Shared, one_stage
from kslab.core.bulk.sinks import SinkWriter, Written, decoded, fields, readable, round_trips
from kslab.core.bulk.stage import Reserved, SinkOut, Stage
from kslab.processor.batch import Encoded
from kslab.records import Headers, Record, as_headers

__all__ = ["BulkExecutor", "EnginePort"]

# run_partitioned's sort key of a consumed record: row * _ROW + pass * _PASS + task rank
_ROW, _PASS = 1 << 40, 1 << 16
_SMALL = 1 << 15  # topic partitions numbered in 16 bits
_MOST_ROWS = 1 << 22  # rows of a chunk whose sort keys fit numpy's int64


class EnginePort(Protocol):
    """What the executor needs from the engine: the next offset of each topic partition and
    the log of each topic (and, for ``run_partitioned``, the partitions of a key column).

    ``commits_each_record`` (optional, default true): the engine commits after every
    consumed record (the test driver, as Kafka's); false for an engine that commits on an
    interval (the live runtime), which gives each chunk its records' offsets and tracks
    them itself."""

    offsets: dict[tuple[str, int], int]

    def log(self, topic: str) -> Any:
        """The log of ``topic`` (``extend_columns(*batch)`` appends a ``LogBatch``)."""

    def appends_only(self, topic: str) -> bool:
        """True when a write to ``topic`` only appends to its log (no loop-back); asking
        changes nothing."""

    def partitions(self, topic: str, keys: list[bytes | None]) -> list[int] | None:
        """The partition the default partitioner gives each serialized key on ``topic``
        (``run_partitioned``'s sinks; a ``None`` entry: the engine's sender works it out as
        it sends, as the live runtime's collector does), or ``None`` when it cannot say
        without changing anything (a ``None`` key takes the next round-robin partition)."""

    # Optional: ``writable(topic)``, true when a record for ``topic`` that a topic extractor
    # named goes out as the record path's send would send it (the runtime: a topic the broker
    # knows); without it every topic is. ``reads_back(topic)``, true when ``topic``'s log
    # keeps the fresh objects a column carries (``ByteColumn.read_back``) for its reader: a
    # sink then makes them (without it, or false, it does not).

    # For ``run_partitioned`` over topics tasks read back (optional: without them such a
    # sink declines): ``reader(topic, partition)``, the task that reads a topic partition
    # (``None``: none, or not one this way), and ``rank(task)``, the task's place in the
    # order the engine gives each task a turn.


class BulkExecutor:
    """The bulk path of one engine's tasks (plans are compiled once per task and topic)."""

    def __init__(self, port: EnginePort, *, partitioned: bool = False) -> None:
        self.port = port
        self.partitioned = partitioned  # tasks of several partitions (``run_partitioned``)
        self._plans: dict[tuple[int, str], Plan | None] = {}
        self.chunks = 0  # chunks run in bulk (tests assert a topology used or left the path)
        # the chunk's columns of known fields (a store's bytes), laid out once for every log
        # that takes them (a sink and a changelog): id of the fields -> (fields, column)
        self._laid_out: dict[int, tuple[list[bytes], ByteColumn]] = {}
        self.declined = 0
        self._walking: frozenset[int] = frozenset()  # thread caches (ids) whose held writes
        # run_partitioned walks together (``Reserved.walking``)
        self.flush_row: int | None = None  # where ``run_columns`` last declined because a
        # record cache's get or put would evict a dirty entry: that chunk row (``run_split``)
        self.shared = 0  # of the chunks, those several tasks ran as one stage
        # topics whose tasks' batch forms held or deferred something in one stage (a global
        # table's reads, a skipped record's warning): run task by task from then on
        self._unshared: set[str] = set()

    @property
    def _commits_each(self) -> bool:
        """True when the engine commits after every consumed record (``EnginePort``)."""
        return getattr(self.port, "commits_each_record", True)  # type: ignore[no-any-return]

    def _declined(self, reserved: Reserved | None = None) -> bool:
        """Count a declined chunk (and drop what it laid out); ``False``, for the caller to
        return. ``reserved``: a chunk of several tasks', whose thread caches that one run
        found reserved by another are walked together from then on (``Reserved.walking``: a
        cache the tasks' puts filled once stays full), unless a run that cannot be walked
        asked for one."""
        self._laid_out.clear()
        self.declined += 1
        if reserved is not None and (reserved.contended or reserved.refused):
            self._walking = (self._walking | reserved.contended) - reserved.refused
        return False

    def plan(self, task: Any, topic: str) -> Plan | None:
        """The compiled plan for ``topic`` in ``task`` (``None``: record path)."""
        key = (id(task), topic)
        if key not in self._plans:
            self._plans[key] = compile_plan(task, topic, partitioned=self.partitioned)
        return self._plans[key]

    def forget(self, task: Any) -> None:
        """Drop ``task``'s plans (an engine closing the task: its id may be reused)."""
        for key in [key for key in self._plans if key[0] == id(task)]:
            del self._plans[key]

    def run(self, task: Any, topic: str, rows: list[tuple[Any, ...]]
            ) -> tuple[list[Any], ...] | None:
        """Process ``rows`` (serialized, partition 0) of ``topic`` in bulk; the rows as
        columns ``(keys, values, headers, timestamps, partitions)`` (the engine may keep
        them: they are never changed), or ``None``: declined."""
        plan = self._accepted(task, topic) if rows else None
        if plan is None:
            self.declined += 1
            return None
        columns = tuple(map(list, zip(*rows, strict=True)))
        return columns if self._run(plan, task, topic, columns) else None

    def _accepted(self, task: Any, topic: str) -> Plan | None:
        """The plan when a chunk of ``topic`` may go to ``task``'s bulk path now: nothing
        scheduled or idling that the record path would run between records."""
        plan = self.plan(task, topic)
        if plan is None or task.stream_time_queue.heap or task.wall_clock_queue.heap \
                or task.idle is not None:
            return None
        return plan

    def run_columns(self, task: Any, topic: str, columns: tuple[list[Any], ...],
                    offsets: list[int] | None = None, partition: int = 0,
                    objects: Written | None = None) -> bool:
        """``run`` for rows given as columns ``(keys, values, headers, timestamps,
        partitions)`` (never changed) of ``partition`` (0 unless the engine says);
        ``offsets``: each row's offset, from an engine that tracks them itself (else they
        follow the port's next offset); ``objects``: what the engine serialized the fields
        from (``Written``); ``False``: declined (``flush_row``: at a flush, if that was why)."""
        self.flush_row = None
        plan = self._accepted(task, topic) if columns[3] else None
        if plan is None:
            self.declined += 1
            return False
        return self._run(plan, task, topic, columns, offsets, partition, objects)

    def run_partitioned(self, topic: str, columns: tuple[list[Any], ...],
                        groups: list[tuple[Any, Any]],
                        objects: Written | None = None) -> bool:
        """Run a chunk of ``topic`` whose rows several tasks read: ``columns``, its rows
        (serialized ``(keys, values, headers, timestamps, partitions)``, never changed);
        ``groups``, each task and its rows' places in the chunk (in order: a list or a
        numpy array). Every task's batch forms run first (phase one for all; one
        stateless sub-topology's tasks as one stage over the whole chunk,
        ``_prepare_shared``); then each task's phase two, and the sinks' records of all
        tasks go to their logs in the record path's order. Records a task
        sends to a topic other tasks read (a repartition topic) run through those tasks'
        batch forms in the same chunk (``_prepare_readers``). ``False``, nothing changed: declined.

        The order is the driver's (``TopologyTestDriver``): each input row is piped and then
        every task, in the port's ``rank`` order, processes one queued record per pass until
        none is left. So a record's work sorts by (input row, pass, task rank): the row's own
        task works in pass 1; a reading task takes the row's j-th record for it in pass j + 1,
        or j + 2 when it ranks before the writing task. ``objects``: what the engine
        serialized the chunk's fields from (``Written``). A chunk that declines because one
        run found a thread cache reserved by another (the tasks' puts would fill it) is tried
        once more, every task's puts into that cache walked together (``Reserved.walking``)."""
        walking = self._walking
        if self._run_partitioned(topic, columns, groups, objects):
            return True
        if self._walking is walking:
            return False
        self.declined -= 1  # (not run record by record: tried again)
        return self._run_partitioned(topic, columns, groups, objects)

    def _run_partitioned(self, topic: str, columns: tuple[list[Any], ...],
                         groups: list[tuple[Any, Any]],
                         objects: Written | None = None) -> bool:
        """One try of ``run_partitioned``."""
        prepared: list[tuple[Any, list[Any], list[Any], int]] = []  # phase two, per task
        every: list[Stage] = []  # the chunk's stages
        staged: list[tuple[Any, ...]] = []  # the changelogs' records, a block per append
        looped: list[tuple[Stage, SinkOut, list[Any]]] = []  # sink records tasks read
        reserved = Reserved(self._walking)  # what the chunk's held writes reserved
        try:
            plans = [self._accepted(task, topic) for task, _ in groups]
            if None in plans or len(columns[3]) >= _MOST_ROWS:
                return self._declined()
            ranks = [self.port.rank(task) for task, _ in groups]
            if max(ranks) >= _PASS:
                return self._declined()
            shared = topic not in self._unshared and one_stage(
                plans, [task for task, _ in groups], topic)
            found = self._prepare_shared(topic, columns, groups, plans, ranks, objects,
                                         looped) if shared else None
            if found is None:  # (phase one changed nothing: each task's, as it would have)
                shared = False
                found = self._prepare_tasks(topic, columns, groups, plans, ranks, objects,
                                            looped, staged, reserved)
            if found is None:
                return self._declined(reserved)
            prepared += found[0]
            every += found[1]
            # the chunk's merge orders and merged columns, shared by the readers' inputs,
            # the sinks' outputs and the changelogs
            merges = Merges()
            if looped:
                readers = self._prepare_readers(looped, {id(task) for task, _ in groups},
                                                staged, reserved, merges)
                if readers is None:
                    return self._declined(reserved)
                prepared += readers
                every += [stage for _, stages, _, _ in readers for stage in stages]
            if not reserved.walked():  # (the tasks' puts into a shared thread cache)
                return self._declined(reserved)
            outputs, calls = self._settle(every, merges)
        except Exception:
            return self._declined(reserved)
        if not ordered.call_actions(calls):
            return self._declined()
        actions: list[tuple[Any, Callable[[], None]]] = []
        for task, stages, keys, count in prepared:
            later: list[tuple[int, Callable[[], None]]] = []
            self._apply(task, stages, count, later)
            actions += [(keys[origin], call) for origin, call in later]
        actions.sort(key=lambda action: action[0])  # the warnings, in the record path's order
        for _, call in actions:
            call()
        self._append(outputs)
        self._append_changelogs(staged, merges)
        for stage in every:
            stage.release()
        self._laid_out.clear()  # (nothing kept alive past the chunk)
        self.chunks += 1
        self.shared += shared
        return True

    def _prepare_tasks(self, topic: str, columns: tuple[list[Any], ...],
                       groups: list[tuple[Any, Any]], plans: list[Plan], ranks: list[int],
                       objects: Written | None, looped: list[tuple[Stage, SinkOut, list[Any]]],
                       staged: list[tuple[Any, ...]], reserved: Reserved
                       ) -> tuple[list[tuple[Any, list[Any], list[Any], int]], list[Stage]] | None:
        """Phase one of each task over its own rows (``run_partitioned``): each task's
        stages, sort keys and row count, and every stage; ``None``: declined."""
        prepared: list[tuple[Any, list[Any], list[Any], int]] = []
        every: list[Stage] = []
        groups = [(task, places if places.__class__ is list else places.tolist())
                  for task, places in groups]  # (picked from: a list of ints)
        parts = _parts(plans, columns, groups, objects)
        for plan, (known, part), (task, places), rank in zip(plans, parts, groups, ranks,
                                                             strict=True):
            first = _PASS + rank  # pass 1
            keys = (np.asarray(places, np.int64) * _ROW + first).tolist()
            writes_read: list[tuple[Stage, SinkOut]] = []
            stages = self._prepare(
                plan, topic, part, True,
                lambda name, log, task=task, keys=keys: self._changelog_columns(
                    task, name, log, staged, keys),
                task.id.partition, caches_held=len(task.cached_stores) <= 1,
                looped=writes_read, reserved=reserved, task=task, places=keys,
                known=known)
            if stages is None:
                return None
            prepared.append((task, stages, keys, len(places)))
            every += stages
            looped += [(stage, out, keys) for stage, out in writes_read]
        return prepared, every

    def _prepare_shared(self, topic: str, columns: tuple[list[Any], ...],
                        groups: list[tuple[Any, Any]], plans: list[Plan], ranks: list[int],
                        objects: Written | None,
                        looped: list[tuple[Stage, SinkOut, list[Any]]]
                        ) -> tuple[list[tuple[Any, list[Any], list[Any], int]], list[Stage]] | None:
        """Phase one of one stateless sub-topology's tasks as one stage over the whole chunk,
        in row order (``kslab.core.bulk.shared``): each task's share of it for phase two,
        and the stage; ``None``: not so (a batch form declined, or held or deferred what a
        task owns: the topic then runs task by task, ``_unshared``)."""
        count = len(columns[3])
        shared = Shared(groups, plans, count, (ranks, _ROW, _PASS))
        known = readable(plans[0], objects, columns[:2])
        part = tuple(None if n < 2 and known[n] is not None else column  # (decoded only
                     for n, column in enumerate(columns))  # where unknown; nothing picked)
        extracts = any(step.sink is not None and step.sink.topic is None
                       for step in plans[0].steps)  # (its record contexts read offsets)
        task = groups[0][0]
        writes_read: list[tuple[Stage, SinkOut]] = []
        stages = self._prepare(
            plans[0], topic, part, True, lambda name, log: None, task.id.partition,
            looped=writes_read, task=task, known=known,
            offsets=shared.offsets(self.port, topic) if extracts else None,
            shared=shared)
        if stages is None:
            return None
        stage = stages[0]
        if len(stages) > 1 or stage.run.held or stage.run.deferred:
            self._unshared.add(topic)  # (what one task's processor holds or defers)
            return None
        looped += [(stage, out, stage.place_keys()) for stage, out in writes_read]
        return [(task, [share], [], len(share.timestamps))
                for task, share in shared.shares(stage)], stages

    def _prepare_readers(self, looped: list[tuple[Stage, list[Any]]], writers: set[int],
                         staged: list[tuple[Any, ...]], reserved: Reserved,
                         merges: Merges
                         ) -> list[tuple[Any, list[Stage], list[Any], int]] | None:
        """Phase one of the tasks that read what the chunk's tasks wrote (``looped``: each
        writing stage and its consumed records' sort keys): each reading task's records in
        the order they were written, each with its sort key (see ``run_partitioned``).
        ``None`` when one cannot run now: it is a writer too, has records queued or several
        input partitions, declines, or writes a topic tasks read in turn."""
        # every record the writers sent to topics tasks read, as columns, with its sort key
        sort_keys: list[int] = []
        topics: list[tuple[str, int]] = []  # each writing sink's topic and record count
        partitions: list[int] = []
        timestamps: list[int] = []
        paths: list[Any] = []  # each record's full key, where a stage wrote several
        per_stage: dict[int, int] = {}
        for stage, _, _ in looped:
            per_stage[id(stage)] = per_stage.get(id(stage), 0) + 1
        several = max(per_stage.values()) > 1  # (then in depth-first order within a row)
        # the objects the sinks wrote, for readers whose serdes give them back as they are
        objects: tuple[list[Any], list[Any]] = ([], [])
        sink_serdes: tuple[list[Any], list[Any]] = ([], [])
        for stage, out, keys in looped:
            log = out.log
            assert out.partitions is not None
            count = len(log.timestamps)
            given = stage.given[out.step]
            origin = given.origin
            rows = origin if out.positions is None else [origin[i] for i in out.positions]
            sink = stage.plan.steps[out.step].sink
            sink_serdes[0].append(sink.key_serde)
            sink_serdes[1].append(sink.value_serde)
            for kept, written in zip(objects, (given.keys, given.values), strict=True):
                kept += written if out.positions is None else map(written.__getitem__,
                                                                  out.positions)
            sort_keys += map(keys.__getitem__, rows if stage.number == 0 else map(  # (0: a
                stage.input_row.__getitem__, rows))  # consumed record is its input row)
            if several:
                paths += tree.event_keys(stage, out.step, out.positions)
            topics.append((out.topic, count))
            partitions += out.partitions
            timestamps += log.timestamps
        readable = [_read_back(serdes, written)
                    for serdes, written in zip(sink_serdes, objects, strict=True)]
        logs = [out.log for _, out, _ in looped]
        headerless = all(log.headers is None or log.headers.count(None) == len(log.headers)
                         for log in logs)
        # the written fields and headers as one column each, made only for a reader that
        # decodes them (one whose serdes take the written objects back needs no fields)
        joined: dict[str, list[Any]] = {}

        def column(name: str) -> list[Any]:
            """The written records' ``keys``, ``values`` or ``headers`` as one column."""
            found = joined.get(name)
            if found is None:
                found = joined[name] = []
                for log in logs:
                    if name == "headers":
                        found += log.headers or [None] * len(log.timestamps)
                    else:
                        found += fields(log.keys if name == "keys" else log.values)
            return found

        # the order they were written in: depth first within a row where a stage wrote
        # several, else their sort keys' (the same order as merging their topic's records,
        # ``ordered.outputs``: worked out once)
        found = self._reader_inputs(sort_keys, topics, partitions, writers,
                                    sorted(range(len(paths)), key=paths.__getitem__)
                                    if several else merges.order(sort_keys))
        if found is None:
            return None
        inputs, taken, their_keys, merged = found
        # the readers' records in the record path's order, their sort keys one after another
        # (the readers' sinks and changelogs merge by them: ``ordered.outputs``)
        merges.seed(their_keys, merged)
        # every reader's input columns picked at once, then cut (one gather per column)
        whole = [None if kind is None else picked(written, taken)
                 for kind, written in zip(readable, objects, strict=True)]
        fields_of: dict[str, list[Any]] = {}

        def picked_fields(name: str) -> list[Any]:
            """The written records' ``name`` column (``column``) for every reader."""
            every = fields_of.get(name)
            if every is None:
                every = fields_of[name] = picked(column(name), taken)
            return every

        times = picked(timestamps, taken)
        prepared: list[tuple[Any, list[Stage], list[Any], int]] = []
        for (topic, partition), (task, start, end) in inputs.items():
            plan = self._accepted(task, topic)
            if plan is None:
                return None
            count = end - start
            known = tuple(None if kind is None or type(serde) is not kind
                          else all_of[start:end]  # type: ignore[index]
                          for kind, serde, all_of in zip(
                              readable, (plan.source.key_serde, plan.source.value_serde),
                              whole, strict=True))
            columns = (  # (the fields only where the source decodes them)
                None if known[0] is not None else picked_fields("keys")[start:end],
                None if known[1] is not None else picked_fields("values")[start:end],
                [None] * count if headerless else picked_fields("headers")[start:end],
                times[start:end])
            keys = their_keys[start:end]
            stages = self._prepare(
                plan, topic, (*columns, [partition] * count), True,
                lambda name, log, task=task, keys=keys: self._changelog_columns(
                    task, name, log, staged, keys),
                partition, caches_held=len(task.cached_stores) <= 1, reserved=reserved,
                task=task, places=keys, known=known)
            if stages is None:
                return None
            prepared.append((task, stages, keys, count))
        return prepared

    def _reader_inputs(self, sort_keys: list[int], topics: list[tuple[str, int]],
                       partitions: list[int],
                       writers: set[int], written: list[int] | None = None
                       ) -> tuple[dict[tuple[str, int], tuple[Any, int, int]], list[int],
                                  list[int], list[int] | None] | None:
        """Each topic partition's reading task and where its records are in the lists that
        follow (``(task, start, end)``); the indexes of the written records the readers take,
        one reader's after another (each reader's in the order they were written: row by
        row, a row's records its one writer's in send order); their sort keys: the row's
        j-th record for a task (j from 1) is taken in pass j + 1, or j + 2 where the task
        ranks before the writer (``run_partitioned``); and the stable order of those sort
        keys (``None``: in order), the record path's order of the readers' records, so of
        what they send one for one (``Merges.seed``).
        Worked out over the columns in numpy (the sort keys' stable order, skipped where one
        writer's are in order already; then one counting pass by topic partition, a radix
        sort of 16-bit numbers that keeps write order, giving each its share and each
        record's place in its row), with Python only per topic partition; the readers in the
        order their first record was written (``written``: that order, where the caller
        knows it; else the stable order of the sort keys). ``None``: a reader cannot run now
        (``_prepare_readers``)."""
        port = self.port
        n = len(sort_keys)
        # each record's (topic, partition) as one number: topic's index * width + partition
        names = list(dict.fromkeys(topic for topic, _ in topics))
        numbers = np.fromiter(partitions, np.int64, n)
        width = int(numbers.max()) + 1 if n else 1
        topic_index = np.repeat(np.array([names.index(topic) for topic, _ in topics], np.int64),
                                [count for _, count in topics])
        tp_numbers = topic_index * width + numbers
        if len(names) * width <= _SMALL:  # (a stable sort of 16-bit ints is a radix sort)
            tp_numbers = tp_numbers.astype(np.int16)
        unique, first_seen, inverse = np.unique(tp_numbers, return_index=True,
                                                return_inverse=True)
        by_first = np.argsort(first_seen, kind="stable")
        tps = [(names[number // width], number % width)  # each one once, by first record
               for number in unique[by_first].tolist()]
        place = np.empty(len(unique), np.int16 if len(unique) <= _SMALL else np.int64)
        place[by_first] = np.arange(len(unique))  # each unique number's index in tps
        readers: list[tuple[Any, int]] = []
        for tp in tps:
            task = port.reader(*tp)
            if task is None or id(task) in writers or task.has_records() \
                    or len(task.input_partitions) != 1:
                return None
            rank = port.rank(task)
            if rank >= _PASS:
                return None
            readers.append((task, rank))
        keys = np.fromiter(sort_keys, np.int64, n)
        if written is not None:
            order = np.fromiter(written, np.int64, n)  # the order they were written in
        elif n < 2 or bool((keys[1:] >= keys[:-1]).all()):
            order = np.arange(n)  # (one writer's: in order)
        else:
            order = np.argsort(keys, kind="stable")
        keys = keys[order]
        rows, writer = keys // _ROW, keys % _PASS
        tp_ids = place[inverse.reshape(-1)][order]  # each record's index in tps
        # each topic partition's records in the order written (rows never go back in it)
        by_tp = np.argsort(tp_ids, kind="stable")
        # (row, topic partition): its records, in order; nth: each one's place among them
        group = (tp_ids.astype(np.int64) * (int(rows.max()) + 1) + rows)[by_tp] if n else rows
        if n and not bool((group[1:] >= group[:-1]).all()):
            return None  # (rows out of order: not a chunk's records)
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        nth = np.empty(n, np.int64)
        nth[by_tp] = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
        if n and int(nth.max()) >= _ROW // _PASS - 2:
            return None  # (more records of a row for one task than a sort key holds)
        rank = np.array([rank for _, rank in readers], np.int64)[tp_ids]
        passes = nth + 1 + (rank < writer)
        reader_keys = rows * _ROW + passes * _PASS + rank
        # each topic partition's share, cut from one pass over the records grouped by it,
        # the readers in the order their first record was written
        bounds = np.r_[0, np.cumsum(np.bincount(tp_ids, minlength=len(tps)))]
        firsts = by_tp[bounds[:-1]]  # where each one's first record is
        by_first = np.argsort(firsts)
        if bool((by_first[1:] < by_first[:-1]).any()):  # (not in tps' order already)
            by_tp = np.concatenate([by_tp[bounds[index]:bounds[index + 1]]
                                    for index in by_first.tolist()])
            sizes = np.diff(bounds)[by_first]
            bounds = np.r_[0, np.cumsum(sizes)]
        their_keys = reader_keys[by_tp]
        ends = bounds.tolist()
        inputs: dict[tuple[str, int], tuple[Any, int, int]] = {}
        for number, index in enumerate(by_first.tolist()):
            inputs[tps[index]] = (readers[index][0], ends[number], ends[number + 1])
        merged = np.argsort(their_keys, kind="stable")
        in_order = n < 2 or bool((merged[1:] > merged[:-1]).all())
        return (inputs, order[by_tp].tolist(), their_keys.tolist(),
                None if in_order else merged.tolist())

    def _append(self, outputs: list[ordered.Output]) -> None:
        """Append each topic's sink records (``ordered.outputs``) to its log."""
        log = self.port.log
        for topic, batch, partitions in outputs:
            log(topic).extend_columns(*batch, partitions)

    def _append_changelogs(self, staged: list[tuple[Any, ...]], merges: Merges) -> None:
        """Each changelog's records from every task (``staged``), per topic in the order of
        the sort keys of the consumed records they descend from (stable: a consumed record's
        records keep their order, and each is one task's), with their partitions; the
        order and the merged fields worked out once with the sinks' where they are the same
        (``merges``: the chunk's)."""
        by_topic: dict[str, tuple[list[Any], ...]] = {}  # sort keys, then the columns
        for topic, rows, partition, keys, values, timestamps in staged:
            found = by_topic.get(topic)
            if found is None:
                found = by_topic[topic] = ([], [], [], [], [])
            sort_keys, all_keys, all_values, all_timestamps, partitions = found
            sort_keys += rows
            all_keys.append(keys)
            all_values.append(values)
            all_timestamps += timestamps
            partitions += [partition] * len(rows)
        for topic, (sort_keys, keys, values, timestamps, partitions) in by_topic.items():
            order = merges.order(sort_keys)  # (None: one task's, in order)
            if order is not None:
                timestamps, partitions = picked(timestamps, order), picked(partitions, order)
            self.port.log(topic).extend_columns(merges.column(keys, order),
                                                merges.column(values, order), None,
                                                timestamps, partitions)

    @staticmethod
    def _settle(stages: list[Stage], merges: Merges | None = None
                ) -> tuple[list[ordered.Output], ordered.Actions]:
        """The end of phase one: the stages' sink records per topic and their actions in
        the record path's order, and each stage's deferred actions put in order (raises
        ``tree.Unordered`` where a batch form's records cannot be placed); ``merges``: the
        chunk's (``Merges``)."""
        for stage in stages:
            stage.run.settle()
        return ordered.outputs(stages, merges), ordered.actions(stages)

    def _run(self, plan: Plan, task: Any, topic: str, columns: tuple[list[Any], ...],
             offsets: list[int] | None = None, partition: int = 0,
             objects: Written | None = None) -> bool:
        reserved = Reserved()
        try:
            # a record cache holds a run's writes only where it is the task's one cache (the
            # others would flush or evict in between)
            stages = self._prepare(plan, topic, columns, self._commits_each,
                                   lambda name, log: self._changelog_columns(task, name, log),
                                   partition, caches_held=len(task.cached_stores) <= 1,
                                   reserved=reserved, task=task, offsets=offsets,
                                   known=readable(plan, objects, columns[:2]))
            if stages is None:
                self.flush_row = reserved.flush_row
                return self._declined()
            outputs, calls = self._settle(stages)
        except Exception:
            return self._declined()
        if sum(bool(stage.run.deferred) for stage in stages) > 1:
            return self._declined()  # (``_apply`` calls each stage's in turn, not by row)
        if not ordered.call_actions(calls):
            return self._declined()
        self._apply(task, stages, len(columns[3]), outputs=outputs)  # every input row
        for stage in stages:
            stage.release()
        self._laid_out.clear()  # (nothing kept alive past the chunk)
        self.chunks += 1
        return True

    # -- phase one: user code, no mutation ------------------------------------------------

    def _prepare(self, plan: Plan, topic: str, columns: tuple[list[Any], ...],
                 commit_each: bool, changelog: Callable[..., Any],
                 partition: int = 0, *, caches_held: bool = True,
                 looped: list[tuple[Stage, SinkOut]] | None = None,
                 reserved: Reserved | None = None, task: Any = None,
                 offsets: list[int] | None = None, places: list[Any] | None = None,
                 known: tuple[list[Any] | None, list[Any] | None] = (None, None),
                 shared: Shared | None = None) -> list[Stage] | None:
        """Phase one of a chunk of ``task``; ``looped``: where the records of a sink writing
        a topic tasks read go (``run_partitioned`` runs those tasks next), else such a sink
        declines; ``reserved``: the record cache bytes the chunk's held writes reserved so
        far (one dict for every task of a chunk: they may share a thread cache);
        ``offsets``: each row's, when the engine gives them; ``places``: each row's sort key
        among the chunk's (several tasks); ``known``: the keys and values the source's serdes
        would decode, where the caller has them already (``_read_back``; their fields in
        ``columns`` may then be ``None``); ``shared``: the tasks whose rows the chunk holds,
        run as one stage (``kslab.core.bulk.shared``)."""
        if reserved is None:
            reserved = Reserved()
        key_fields, value_fields, given_headers, timestamps, _ = columns
        headers = given_headers
        if headers.count(None) != len(headers):
            headers = [header if header is None or header.__class__ is Headers
                       else as_headers(header) for header in headers]
        keys, values = known
        if keys is None:
            keys = decoded(plan.source.key_serde, topic, key_fields, headers)
        if values is None:
            values = decoded(plan.source.value_serde, topic, value_fields, headers)
        timestamps = self._source_timestamps(task, topic, partition, offsets, keys, values,
                                             given_headers, timestamps)
        if timestamps is None:
            return None  # the record path's error, or its skip and warning
        stage = Stage(plan, topic, keys, values, timestamps, headers,
                      list(range(len(timestamps))), commit_each, changelog, partition,
                      caches_held, reserved, task)
        stage.offsets = offsets
        stage.shared = shared
        stages = [stage]
        write = SinkWriter(self.port, self.partitioned, self._known_column, looped)
        while True:
            if places is not None:
                stage.places = places if stage.number == 0 else list(  # (0: row by row)
                    map(places.__getitem__, stage.input_row))
            if stage.offsets is None:  # (a topic extractor's record context reads them)
                stage.first_offset = self.port.offsets.get((stage.topic, stage.partition), 0)
            if not tree.walk(stage, write):
                return None  # a batch form or a sink that cannot take this run
            plan = stage.plan
            if plan.downstream is None:
                return stages
            loop = plan.loop
            out = next(out for out in stage.outs if out.step == loop)
            cols = stage.given[loop]
            sink = plan.steps[loop].sink
            source = plan.downstream.source
            out_topic, log = out.topic, out.log
            if task.queue_for(out_topic, 0).deserializer.timestamp_extractor is not None:
                return None  # (its records' timestamps would be the extractor's)
            next_keys, next_values = cols.keys, cols.values  # type: ignore[union-attr]
            if not round_trips(sink.key_serde, source.key_serde, next_keys):  # type: ignore[union-attr]
                next_keys = list(map(source.key_serde.deserialize, repeat(out_topic),
                                     fields(log.keys), log.headers))
            if not round_trips(sink.value_serde, source.value_serde, next_values):  # type: ignore[union-attr]
                next_values = list(map(source.value_serde.deserialize, repeat(out_topic),
                                       fields(log.values), log.headers))
            rows_of = stage.input_row
            input_rows = [rows_of[i] for i in cols.origin]  # type: ignore[union-attr]
            if plan.stores and log.timestamps != list(map(timestamps.__getitem__, input_rows)):
                return None  # (a looped-back record is taken to be as late as its input row)
            stage = Stage(plan.downstream, out_topic, next_keys, next_values, log.timestamps,
                          log.headers, input_rows, commit_each,
                          changelog, 0, caches_held, reserved, task, len(stages))
            stages.append(stage)

    def _source_timestamps(self, task: Any, topic: str, partition: int,
                           offsets: list[int] | None, keys: list[Any], values: list[Any],
                           headers: list[Any], timestamps: list[int]) -> list[int] | None:
        """Each consumed record's timestamp as its source takes it: the record's own, or
        its source's timestamp extractor's, called once per record in order with the
        partition time so far and the record, as the record path calls it
        (``RecordDeserializer.timestamps_of``, next to its record form); ``None``: the chunk
        goes record by record."""
        queue = task.queue_for(topic, partition)
        if offsets is None and queue.deserializer.timestamp_extractor is not None:
            first = self.port.offsets[(topic, partition)]  # (the extractor reads them)
            offsets = range(first, first + len(timestamps))  # type: ignore[assignment]
        return queue.deserializer.timestamps_of(topic, partition, offsets, timestamps, keys,
                                                values, headers, queue.partition_time)

    def _known_column(self, encoded: Encoded, serde: Any) -> ByteColumn:
        """The ``ByteColumn`` of fields known already: as wide as ``serde`` writes every one
        (``fixed_width``), kept as runs of distinct fields where ``encoded`` has them; one
        per list of fields in a chunk (a sink's and a changelog's share its layout)."""
        fields = encoded.fields
        laid_out = self._laid_out.get(id(fields))
        if laid_out is not None and laid_out[0] is fields:
            return laid_out[1]
        dictionaries = None if encoded.distinct is None else [(0, encoded.distinct,
                                                               encoded.ids)]
        column = ByteColumn(fields, fixed_width(serde), dictionaries)
        self._laid_out[id(fields)] = (fields, column)
        return column

    # -- phase two: apply ----------------------------------------------------------------

    def _changelog_columns(self, task: Any, store_name: str, log: Any,
                           staged: list[tuple[Any, ...]] | None = None,
                           places: list[Any] | None = None) -> Any:
        """``append(keys, values, timestamps, origins)`` of a store's changelog records in
        one batch (``values`` may be an ``Encoded``, ``origins`` a function giving them:
        see ``BatchRun.changelog``), when the store logs through the task's context
        (``log``) and the engine only appends to the changelog's log; ``None`` otherwise.
        ``staged``: the records go there as one block per append, ``(topic, sort keys,
        partition, keys, values, timestamps)``, for ``run_partitioned`` to merge with the
        other tasks' (``places``: each consumed record's sort key)."""
        topic = task.changelog_topics.get(store_name)
        if log != task.context.log_change or topic is None or not self.port.appends_only(
                topic) or (task.id.partition != 0 and not self.partitioned):
            return None
        port, partition = self.port, task.id.partition

        def append(keys: list[bytes], values: list[bytes] | Encoded, timestamps: list[int],
                   origins: list[int] | Callable[[], list[int]]) -> None:
            if not timestamps:
                return
            if values.__class__ is Encoded:  # a serde's bytes: as wide as it writes them
                values = self._known_column(values, values.serde)  # type: ignore[arg-type,union-attr]
            laid_out = self._laid_out.get(id(keys))
            if laid_out is not None and laid_out[0] is keys:  # a sink's too: laid out once
                keys = laid_out[1]  # type: ignore[assignment]
            if staged is not None and places is not None:
                staged.append((topic, list(map(places.__getitem__, origins() if callable(
                    origins) else origins)), partition, fields(keys), fields(values),
                    timestamps))
                return
            port.log(topic).extend_columns(keys, values, None, timestamps,
                                           [partition] * len(timestamps) if partition
                                           else None)

        return append

    def _consume(self, task: Any, stage: Stage) -> int:
        """Advance offsets (unless the engine gave the stage its own) and partition time and
        the processed count; the first offset."""
        topic, timestamps, partition = stage.topic, stage.timestamps, stage.partition
        if stage.offsets is not None:
            first = stage.offsets[0]
        else:
            offsets = self.port.offsets
            tp = (topic, partition)
            first = offsets[tp]
            offsets[tp] = first + len(timestamps)
        if timestamps:
            latest = max(timestamps)
            queue = task.queue_for(topic, partition)
            if latest > queue.partition_time:
                queue.partition_time = latest
        task.metrics.processed += len(timestamps)
        return first

    @staticmethod
    def _advance_stream_time(task: Any, stages: list[Stage]) -> None:
        """Stream time after the chunk, and each consumed record's lateness as the record path
        takes them: an input row, then what it looped back. The chain's stateless operators
        keep timestamps, so a looped-back record is exactly as late as its input row."""
        group, metrics = task.partition_group, task.metrics
        timestamps = stages[0].timestamps
        if timestamps[0] >= group.stream_time and all(map(le, timestamps,
                                                          islice(timestamps, 1, None))):
            group.stream_time = timestamps[-1]  # in order (the usual case): none is late
            return
        # stream time once each input row is taken, and how far behind it each row was
        after = list(accumulate(timestamps, max, initial=group.stream_time))[1:]
        late = list(map(sub, after, timestamps))
        total, highest = sum(late), max(late)
        if highest:
            for stage in stages[1:]:
                looped = list(map(late.__getitem__, stage.input_row))
                total += sum(looped)
        metrics.lateness_sum += total
        if highest > metrics.lateness_max:
            metrics.lateness_max = highest
        if after[-1] > group.stream_time:
            group.stream_time = after[-1]

    def _apply(self, task: Any, stages: list[Stage], row_count: int,
               later: list[tuple[int, Callable[[], None]]] | None = None,
               outputs: list[ordered.Output] | None = None) -> None:
        """Phase two: offsets, clocks, held writes, logs (``outputs``), commits, the
        context; ``later``: the deferred actions are left there for the caller to merge
        with other tasks' (in one order) instead, and the caller appends the logs."""
        context = task.context
        commits = 0
        last: tuple[str, int, Record] | None = None
        self._advance_stream_time(task, stages)
        for n, stage in enumerate(stages):
            consumed = len(stage.timestamps)
            if not consumed:
                continue
            first = self._consume(task, stage)
            if stage.run is None:  # (a task's share of a stage: nothing held or deferred)
                stage.first_offset = first
            else:
                stage.run.apply(context, first, later)
            commits += consumed
            # the record path processes an input row, then what it looped back
            if n == 0 or stage.input_row[-1] == row_count - 1:
                index = consumed - 1
                last = (stage.topic, stage.offset_of(index), stage.record(index))
        if outputs is not None:
            self._append(outputs)
        # the record path commits after every record; with no record cache that is a no-op
        if self._commits_each:
            task.commit_times(commits if task.cached_stores else 1)
        if last is not None:
            context.topic, context.partition, context.offset, context.record = last[0], \
                stages[0].partition, last[1], last[2]
        context.current = None


def _parts(plans: list[Plan], columns: tuple[list[Any], ...],
           groups: list[tuple[Any, list[int]]], objects: Written | None
           ) -> list[tuple[tuple[list[Any] | None, list[Any] | None], tuple[Any, ...]]]:
    """Each group's source objects known without decoding (``readable``: copies of the
    engine's objects, all made before any user function runs, as each decode happens before
    its record) and its rows' columns (a field column only where its source decodes it; a
    column of nothing but ``None`` not picked). Where every task's source has the same serde
    classes (one sub-topology's tasks), the objects are read back once over the whole chunk,
    in memory order, and then picked: reading each task's every n-th object back missed the
    CPU cache at each (W1 on 4 partitions: twice the time of one pass)."""
    count = len(columns[3])
    empty = [not column or (column[0] is None and column.count(None) == count)
             for column in columns]
    kinds = {(type(plan.source.key_serde), type(plan.source.value_serde)) for plan in plans}
    whole = readable(plans[0], objects, columns[:2]) if len(kinds) == 1 else None
    found = []
    for plan, (_, places) in zip(plans, groups, strict=True):
        if whole is None:
            known = readable(plan, objects, (picked(columns[0], places),
                                             picked(columns[1], places)), places)
        else:
            known = tuple(None if objects is None else objects if len(places) == count
                          else picked(objects, places) for objects in whole)
        found.append((known, tuple(
            None if n < 2 and known[n] is not None else [None] * len(places) if none
            else column if len(places) == count else picked(column, places)
            for n, (column, none) in enumerate(zip(columns, empty, strict=True)))))
    return found  # type: ignore[return-value]


def _read_back(serdes: list[Any], written: list[Any]) -> type | None:
    """The serde class whose reader takes back the objects ``written`` (by sinks with
    ``serdes``) as they are, or ``None``: where every sink has one built-in serde class whose
    round trip gives an equal object of its class (``round_trips``: the objects all of that
    class), a source of the same class would decode each field to an equal object; the
    executor then hands it the objects and decodes nothing (as ``_prepare``'s loop does)."""
    kinds = set(map(type, serdes))
    if len(kinds) != 1 or not round_trips(serdes[0], serdes[0], written):
        return None
    return kinds.pop()  # type: ignore[no-any-return]

