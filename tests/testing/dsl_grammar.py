"""The grammar of random DSL programs (``programs``, a hypothesis strategy) that the
differential test of the driver's batch path runs (``test_batch_differential``).

A program is drawn as a list of ``dsl_programs.Op``\\ s over variables whose types the draft
tracks (stream or table, String or windowed keys, codec or Long values), so that every
program is valid: serdes given wherever a topic is written, joins only with the co-partitioned
table of topic ``tbl`` (or the global table of ``gtbl``), ``reduce`` only over codec values,
``group_by_key`` / ``to_table`` / joins only on String keys. User functions come from small
families of lambdas (``dsl_programs`` describes their helpers); about one in seven raises for
one value of ``n``. Half the programs are bulk-shaped: chains of the bulk path's operators
ending in a sink or a (windowed) count, half of those with a table source, a ``to_table`` or a
stream-table or stream-globaltable join (and table operators) in between, or a ``to_table``
grouped by a table ``group_by`` and aggregated (count, reduce or aggregate with a
subtractor), a ``to_table`` joined with the table of ``tbl`` (a table-table join), a
(windowed) count behind a ``suppress``, or trees of them (a
stream read by two operators, ``split`` into branches merged back or not, ``peek``, a
``foreach`` or ``print`` or a sink on the side, two sinks to one topic, topic extractors, an
aggregation on one branch); the others use the whole grammar, every unused stream ending in a
sink (maybe to a topic another sink writes), a topic extractor, a ``foreach`` or a ``print``,
every unused table in ``to_stream().to(...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from tests.testing.dsl_programs import Fn, Mat, Op, Program, Win

__all__ = ["programs"]


# -- the grammar: user function families ------------------------------------------------------

def _fns(at: int | None, *sources: st.SearchStrategy[str]) -> st.SearchStrategy[Fn]:
    """``Fn``\\ s of these sources; about one in seven raises for one value of ``n``."""
    booms = st.integers(0, 99).map(lambda i: (i - 85) % 10 if i >= 85 else None)
    return st.builds(Fn, st.one_of(*sources), st.just(at), booms)


def _mod(source: str, low: int = 2, high: int = 4) -> st.SearchStrategy[str]:
    """``source`` with ``{m}`` drawn from ``low..high``."""
    return st.integers(low, high).map(lambda m: source.format(m=m))


PREDICATES = _fns(1, st.builds("lambda k, v: v is not None and n(v) % {} == {}".format,
                               st.integers(2, 4), st.integers(0, 1)),
                  st.sampled_from(["lambda k, v: k is not None and key(k) < 'k2'",
                                   "lambda k, v: s(v) != ''",
                                   "lambda k, v: k is None or v is None"]))
VALUE_MAPPERS = _fns(0, _mod("lambda v: None if v is None else mk(n(v) + {m}, s(v))", 1, 3),
                     _mod("lambda v: None if v is None or n(v) % {m} == 0 "
                          "else mk(n(v), s(v) + '!')", 2, 3),
                     st.sampled_from(["lambda v: mk(-1 if v is None else n(v), s(v)[::-1])",
                                      "lambda v: mk(len(s(v)), s(v) + s(v))",
                                      "lambda v: grow(v)"]))
VALUE_MAPPERS_WITH_KEY = _fns(1, st.sampled_from([
    "lambda k, v: None if v is None else mk(n(v), (key(k) or '-') + s(v))",
    "lambda k, v: mk(len(key(k) or ''), s(v))"]))
FLAT_VALUES = _fns(0, _mod("lambda v: [] if v is None else "
                           "[mk(n(v) + i, s(v)) for i in range(n(v) % {m})]"),
                   st.just("lambda v: [mk(len(w), w) for w in s(v).split()]"))
FLAT_VALUES_WITH_KEY = _fns(1, st.just(
    "lambda k, v: [] if k is None else [mk(n(v) or 0, key(k)), mk(1, s(v))]"))
KEY_SELECTORS = _fns(1, _mod("lambda k, v: None if v is None else 'k' + str(n(v) % {m})"),
                     st.sampled_from(["lambda k, v: key(k)", "lambda k, v: s(v)[:1] or None",
                                      "lambda k, v: 'k0'"]))
KV_MAPPERS = _fns(1, _mod("lambda k, v: (None if v is None else 'k' + str(n(v) % {m}), "
                          "None if v is None else mk(n(v) + 1, s(v)))"),
                  st.sampled_from(["lambda k, v: (s(v)[:1] or None, "
                                   "mk(len(key(k) or ''), key(k) or ''))",
                                   "lambda k, v: (key(k), mk(n(v) or 0, s(v)))"]))
FLAT_KV = _fns(1, _mod("lambda k, v: [] if v is None else [('k' + str((n(v) + i) % {m}), "
                       "mk(n(v) + i, s(v))) for i in range(n(v) % 3)]"),
               st.just("lambda k, v: [(w, mk(n(v) or 0, w)) for w in s(v).split()]"))
JOINERS = _fns(0, st.sampled_from([
    "lambda v, tv: mk((n(v) or 0) + (n(tv) or 0), (s(v) + '|' + s(tv))[:40])",
    "lambda v, tv: None if tv is None else mk(n(tv), s(v))"]))
GLOBAL_KEYS = _fns(1, _mod("lambda k, v: None if v is None else 'g' + str(n(v) % {m})"),
                   st.just("lambda k, v: None if k is None else 'g' + key(k)[-1:]"))
REDUCERS = _fns(1, st.sampled_from(["lambda a, b: mk(n(a) + n(b), s(b))",
                                    "lambda a, b: a if n(a) >= n(b) else b",
                                    "lambda a, b: None if n(a) + n(b) > 12 "
                                    "else mk(n(a) + n(b), s(b))",
                                    "lambda a, b: bump(a, n(b), s(b))"]))  # (in place)
AGGREGATORS = _fns(1, st.sampled_from([
    "lambda k, v, a: mk(n(a) + (n(v) or 0), (s(a) + s(v))[-12:])",
    "lambda k, v, a: mk(n(a) + 1, key(k) or '')",
    "lambda k, v, a: None if n(a) + (n(v) or 0) > 12 else mk(n(a) + (n(v) or 0), s(v))",
    "lambda k, v, a: bump(a, n(v) or 0, s(v))"]))  # (in place, as Python users write them)
INITIALIZER = Fn("lambda: mk(0, '')")
SUBTRACTORS = _fns(1, st.sampled_from(["lambda a, b: mk(n(a) - n(b), s(a))",
                                       "lambda a, b: None if n(a) == n(b) else a",
                                       "lambda a, b: bump(a, -(n(b) or 0), '')"]))
AGG_SUBTRACTORS = _fns(1, st.sampled_from([
    "lambda k, v, a: mk(n(a) - (n(v) or 0), s(a))",
    "lambda k, v, a: mk(n(a) - 1, key(k) or '')",
    "lambda k, v, a: bump(a, -(n(v) or 0), '')"]))
WINDOWS = st.builds(lambda size, grace, hop, close: Win(size, grace, hop and size // hop, close),
                    st.sampled_from([1000, 100, 50, 30]), st.sampled_from([0, 20, 200]),
                    st.sampled_from([None, None, 2, 5]), st.sampled_from([False, False, True]))
SESSIONS = st.builds(lambda gap, grace, close: Win(gap, grace, None, close, session=True),
                     st.sampled_from([10, 50, 300]), st.sampled_from([0, 20, 200]),
                     st.sampled_from([False, False, False, True]))
SLIDING = st.builds(lambda diff, grace, close: Win(diff, grace, None, close, sliding=True),
                    st.sampled_from([10, 50, 300]), st.sampled_from([0, 20, 200]),
                    st.sampled_from([False, False, False, True]))
# emitting every update, for a record cache's evictions (``"merging windows"``)
MERGING = st.one_of(SESSIONS, SLIDING).map(lambda win: replace(win, on_close=False))
MERGERS = _fns(1, st.sampled_from(["lambda k, a, b: mk(n(a) + n(b), (s(a) + s(b))[-12:])",
                                   "lambda k, a, b: b if n(b) > n(a) else a",
                                   "lambda k, a, b: bump(a, n(b), s(b))"]))

STREAM_OPS = ["filter", "filter_not", "map_values", "flat_map_values", "map", "flat_map",
              "select_key", "peek", "foreach", "print", "split", "merge", "repartition", "to",
              "to_extractor", "group", "group", "to_table", "join", "gjoin", "sjoin"]
TABLE_OPS = ["filter", "filter_not", "map_values", "to_stream", "tgroup", "suppress", "tjoin"]
# a suppress: until_window_closes on a windowed table (else until_time_limit of a wait), its
# buffer unbounded or bounded (records or bytes), its changelog on or off
SUPPRESS = st.tuples(st.sampled_from([0, 25, 120]),
                     st.sampled_from([None, None, ("records", 2), ("bytes", 400)]),
                     st.booleans())
LINEAR_OPS = ["filter", "map_values", "flat_map_values", "select_key", "filter_not",
              "repartition"]  # the bulk path's stateless operators (and a repartition)
LINEAR_TABLE_OPS = ["filter", "filter_not", "map_values"]
# what a linear program is around its chain of LINEAR_OPS: the chain alone, a table source,
# a to_table, or a stream-table or stream-globaltable join (each with its table operators)
SHAPES = ["chain", "chain", "chain", "chain", "table", "to_table", "join", "gjoin", "tgroup",
          "tgroup", "sjoin", "sjoin", "tjoin", "tjoin"]  # "tgroup": a to_table's rows grouped
# by a table group_by and aggregated; "sjoin": a windowed stream-stream join with the stream
# of topic "sj"; "tjoin": a to_table's rows joined with the table of "tbl" (a table-table
# join: inner, left or outer, its result materialized or not)
# a stream-stream join: inner / left / outer, JoinWindows (before, after, grace), the join
# stores' type (None: the builder's, RocksDB) and changelogs on or off
STREAM_JOINS = st.tuples(st.sampled_from(["join", "left_join", "outer_join"]),
                         st.sampled_from([0, 30, 100]), st.sampled_from([0, 20, 100]),
                         st.sampled_from([0, 20, 200]),
                         st.sampled_from([None, "in_memory", "rocks_db"]), st.booleans())
TREE_OPS = ["filter", "map_values", "flat_map_values", "map", "flat_map", "select_key",
            "peek", "peek", "split", "split", "tee", "tee", "tee", "side", "side"]  # "tee" a
# second operator reading the stream, "side" a foreach, print or sink reading it
SIDE_OPS = ["filter", "map_values", "flat_map_values", "peek", "select_key"]
ENDS = ["to", "to_shared", "to_shared", "to_extractor", "foreach", "print"]


# -- the grammar: programs ------------------------------------------------------------------

@dataclass
class _Var:
    """A variable of the program being drawn: a stream or a table, its key serde (``S`` or
    ``W<size>``, windowed) and value serde (``V`` or ``L``, a count)."""

    name: str
    table: bool
    key: str = "S"
    value: str = "V"
    joinable: bool = False  # a table of topic "tbl": co-partitioned with the input streams
    used: bool = False


class _Draft:
    """A program being drawn: its ops and variables."""

    def __init__(self, draw: Callable[..., Any], codec: str, linear: bool,
                 tree: bool = False) -> None:
        self.draw = draw
        self.linear = linear
        self.tree = tree  # a bulk-shaped tree: its open streams end in any of ENDS
        self.written: list[str] = []  # the fixed topics sinks write
        self.program = Program(codec)
        self.vars: list[_Var] = []
        self.serial = 0
        self.has_global = False
        self.base_table: _Var | None = None
        self.sj_stream: str | None = None  # the stream of "sj" stream-stream joins read

    def new(self, table: bool, key: str = "S", value: str = "V",
            joinable: bool = False) -> _Var:
        """A fresh variable."""
        var = _Var(f"{'t' if table else 's'}{self.serial}", table, key, value, joinable)
        self.serial += 1
        self.vars.append(var)
        return var

    def emit(self, kind: str, src: list[_Var], args: list[Any], *outs: _Var) -> Any:
        """Append one op reading ``src`` and defining ``outs``; the (first) output."""
        for var in src:
            var.used = True
        self.program.ops.append(Op(kind, tuple(o.name for o in outs),
                                   tuple(var.name for var in src), tuple(args)))
        return outs[0] if outs else None

    def mat(self) -> Mat:
        """A ``Materialized`` of a fresh store name (or none), drawn."""
        d = self.draw
        return Mat(d(st.sampled_from([f"store-{self.serial}", None])),
                   d(st.sampled_from([True, False])),
                   d(st.sampled_from(["in_memory", "persistent"])),
                   d(st.sampled_from([True, False])))

    def table_mat(self, x: _Var, value: str) -> list[Any]:
        """A table operator's ``Materialized`` (with its key and value serdes), for one in
        three over String keys; else none."""
        if not x.table or x.key != "S" or self.draw(st.integers(0, 2)):
            return []
        return [self.mat(), x.key, value]

    def source(self, topic: str) -> _Var:
        """A stream of ``topic``."""
        return self.emit("stream", [], [topic], self.new(False))

    def op(self, x: _Var, kind: str) -> _Var | None:
        """Apply ``kind`` to ``x`` (``filter`` where ``kind`` does not fit ``x``)."""
        d = self.draw
        same = (x.table, x.key, x.value, x.joinable)
        if kind in ("filter", "filter_not"):
            return self.emit(kind, [x], [d(PREDICATES), *self.table_mat(x, x.value)],
                             self.new(*same))
        if kind in ("map_values", "flat_map_values"):
            with_key = not x.table and d(st.booleans())
            family = {("map_values", False): VALUE_MAPPERS,
                      ("map_values", True): VALUE_MAPPERS_WITH_KEY,
                      ("flat_map_values", False): FLAT_VALUES,
                      ("flat_map_values", True): FLAT_VALUES_WITH_KEY}[kind, with_key]
            if x.table and kind == "flat_map_values":
                return self.op(x, "filter")
            return self.emit(kind, [x], [d(family), with_key, *self.table_mat(x, "V")],
                             self.new(x.table, x.key, "V", x.joinable))
        if kind in ("map", "flat_map", "select_key"):
            family = {"map": KV_MAPPERS, "flat_map": FLAT_KV, "select_key": KEY_SELECTORS}[kind]
            value = x.value if kind == "select_key" else "V"
            return self.emit(kind, [x], [d(family)], self.new(False, "S", value))
        if kind in ("peek", "foreach", "print"):
            out = [self.new(*same)] if kind == "peek" else []
            return self.emit(kind, [x], [f"{kind}-{x.name}"], *out)
        if kind == "to_stream":
            return self.emit(kind, [x], [], self.new(False, x.key, x.value))
        if kind == "suppress":
            if not x.table:
                return self.op(x, "filter")
            wait, bound, logging = d(SUPPRESS)
            final = x.key != "S" and d(st.integers(0, 3)) > 0
            if final and d(st.integers(0, 3)) > 0:  # (a bounded final buffer shuts down)
                bound = None
            return self.emit(kind, [x], [final, wait, bound, logging],
                             self.new(True, x.key, x.value))
        if kind == "to_shared" and self.written:
            return self.emit("to", [x], [d(st.sampled_from(self.written)), x.key, x.value])
        if kind in ("to", "to_extractor", "to_shared"):
            topic = f"out-{self.serial}"
            self.serial += 1
            if kind != "to_extractor":
                self.written.append(topic)
                kind = "to"
            target = topic if kind == "to" else d(_fns(1, st.just(
                f"lambda k, v, ctx: '{topic}-' + ('odd' if (n(v) or 0) % 2 else 'even')"),
                st.just(f"lambda k, v, ctx: '{topic}-p' + str(ctx.partition) + "
                        "('-odd' if ctx.offset % 2 else '-even')")))  # (its record's context)
            return self.emit(kind, [x], [target, x.key, x.value])
        if kind == "repartition":
            return self.emit(kind, [x], [x.key, x.value], self.new(*same))
        return self._structural(x, kind)

    def _structural(self, x: _Var, kind: str) -> _Var | None:
        """split, merge, group, to_table and the joins."""
        d = self.draw
        if kind == "split":
            predicates = d(st.lists(PREDICATES, min_size=1, max_size=2))
            default = len(predicates) == 1 or d(st.booleans())
            outs = [self.new(False, x.key, x.value) for _ in range(len(predicates) + default)]
            self.emit(kind, [x], [tuple(predicates), default], *outs)
            if d(st.booleans()):  # two branches merged back
                return self.emit("merge", outs[:2], [], self.new(False, x.key, x.value))
            return outs[-1]
        if kind == "merge":
            partners = [v for v in self.vars if not v.table and v is not x
                        and (v.key, v.value) == (x.key, x.value)]
            if (x.key, x.value) == ("S", "V") and "in2" not in self.program.topics() \
                    and (not partners or d(st.booleans())):
                partners = [self.source("in2")]
            if not partners:
                return self.op(x, "filter")
            other = d(st.sampled_from(partners))
            return self.emit(kind, [x, other], [], self.new(False, x.key, x.value))
        if kind == "group":
            return self.group(x, None)
        if kind == "sjoin":
            if x.key != "S":
                return self.op(x, "filter")
            other = next((v for v in self.vars if v.name == self.sj_stream), None)
            if other is None:
                other = self.source("sj")
                self.sj_stream = other.name
            return self.emit("sjoin", [x, other], [d(JOINERS), x.value, *d(STREAM_JOINS)],
                             self.new(False, "S", "V"))
        if kind == "tgroup":
            return self.table_group(x, None)
        if kind == "tjoin":
            if not x.table or x.key != "S":
                return self.op(x, "filter")
            if self.base_table is None:
                self.base_table = self.emit("table", [], ["tbl", self.mat()],
                                            self.new(True, joinable=True))
            partners = [v for v in self.vars if v.joinable and v is not x]
            if not partners:
                return self.op(x, "filter")
            table = d(st.sampled_from(partners))
            return self.emit("tjoin", [x, table], [
                d(JOINERS), d(st.sampled_from(["join", "left_join", "outer_join"])),
                d(st.sampled_from([None, self.mat()]))], self.new(True, "S", "V"))
        if kind in ("to_table", "join"):
            if x.key != "S":
                return self.op(x, "filter")
            if kind == "to_table":
                return self.emit(kind, [x], [self.mat(), x.value], self.new(True, "S", x.value))
            if self.base_table is None:
                self.base_table = self.emit("table", [], ["tbl", self.mat()],
                                            self.new(True, joinable=True))
            table = d(st.sampled_from([v for v in self.vars if v.joinable]))
            return self.emit("join", [x, table], [d(JOINERS), d(st.booleans()), x.value,
                                                  table.value], self.new(False, "S", "V"))
        if not self.has_global:
            self.has_global = True
            self.emit("global", [], ["gtbl"], _Var("g", True))
        return self.emit("gjoin", [x, _Var("g", True)],
                         [d(GLOBAL_KEYS), d(JOINERS), d(st.booleans())],
                         self.new(False, x.key, "V"))

    def group(self, x: _Var, agg: str | None, windowed: bool | None = None,
              windows: st.SearchStrategy[Win] | None = None, cached: bool = False) -> _Var:
        """group_by / group_by_key, maybe windowed_by (by ``windows`` where given), and an
        aggregation (``cached``: its store's record cache on)."""
        d = self.draw
        by_key = x.key == "S" and d(st.booleans())
        selector = None if by_key else d(KEY_SELECTORS)
        win = d(st.one_of(WINDOWS, SESSIONS, SLIDING) if windows is None else windows) if (
            d(st.booleans()) if windowed is None else windowed) else None
        if agg is None:
            aggs = ["count", "aggregate"] + (["reduce"] if x.value == "V" else [])
            agg = d(st.sampled_from(aggs))
        fns = {"count": (), "reduce": (d(REDUCERS),),
               "aggregate": (INITIALIZER, d(AGGREGATORS))}[agg]
        if agg == "aggregate" and win is not None and win.session:
            fns = (*fns, d(MERGERS))
        value = "L" if agg == "count" else "V"
        mat = self.mat()
        args = [selector, x.value, win, agg, fns, replace(mat, cache=True) if cached else mat,
                value]
        key = "S" if win is None else "SW" if win.session else f"W{win.size}"
        return self.emit("group", [x], args, self.new(True, key, value))

    def table_group(self, x: _Var, agg: str | None) -> _Var:
        """A table's ``group_by`` (its selector a key-value mapper: rows with a ``None``
        key dropped) and ``count``, ``reduce`` or ``aggregate`` with a subtractor."""
        d = self.draw
        selector = d(KV_MAPPERS)
        if agg is None:
            agg = d(st.sampled_from(["count", "reduce", "aggregate"]))
        fns = {"count": (), "reduce": (d(REDUCERS), d(SUBTRACTORS)),
               "aggregate": (INITIALIZER, d(AGGREGATORS), d(AGG_SUBTRACTORS))}[agg]
        value = "L" if agg == "count" else "V"
        return self.emit("tgroup", [x], [selector, agg, fns, self.mat(), value],
                         self.new(True, "S", value))

    def close(self) -> None:
        """End every unused stream in a sink (or a foreach), every unused table in a
        ``to_stream`` and a sink."""
        d = self.draw
        for var in list(self.vars):
            if var.used:
                continue
            if var.table:
                var = self.op(var, "to_stream")  # type: ignore[assignment]
            ends = ["to"] if self.linear and not self.tree else ["to", *ENDS]
            self.op(var, d(st.sampled_from(ends)))


def _linear(draft: _Draft, x: _Var, shape: str) -> None:
    """A linear program of ``shape`` (``SHAPES``) over the stream ``x``: chains of the bulk
    path's operators ending in a sink or a (windowed) count, with a table (``tbl``, its
    table operators and ``to_stream``), a ``to_table`` and its table operators, or a join
    of the (filtered, mapped) table or of the global table (``gtbl``) in between."""
    d = draft.draw

    def chain(x: _Var, most: int) -> _Var:
        for _ in range(d(st.integers(0, most))):
            x = draft.op(x, d(st.sampled_from(LINEAR_OPS)))  # type: ignore[assignment]
        return x

    def table_ops(t: _Var) -> _Var:
        for _ in range(d(st.integers(0, 2))):
            t = draft.op(t, d(st.sampled_from(LINEAR_TABLE_OPS)))  # type: ignore[assignment]
        return t

    x = chain(x, 4 if shape == "chain" else 2)
    if shape == "merging windows":  # (close() ends the aggregate's table in a sink)
        draft.group(x, None, True, MERGING, cached=True)
        return
    if shape == "tgroup":  # (close() ends the aggregate's table in to_stream().to(...))
        draft.table_group(table_ops(draft.op(x, "to_table")), None)  # type: ignore[arg-type]
        return
    if shape in ("table", "join", "tjoin"):  # the table of "tbl", maybe filtered and mapped
        draft.base_table = draft.emit("table", [], ["tbl", draft.mat()],
                                      draft.new(True, joinable=True))
        table_ops(draft.base_table)
    if shape in ("to_table", "tjoin"):
        t = table_ops(draft.op(x, "to_table"))  # type: ignore[arg-type]
        if shape == "tjoin":
            t = table_ops(draft.op(t, "tjoin"))  # type: ignore[arg-type]
        x = chain(draft.op(t, "to_stream"), 2)  # type: ignore[arg-type]
    elif shape in ("join", "gjoin", "sjoin"):
        x = chain(draft.op(x, shape), 2)  # type: ignore[arg-type]
    ends = ["count", "windowed", "to", "windowed"] if shape == "chain" else ["to", "to", "to",
                                                                           "count"]
    end = d(st.sampled_from(ends))
    if end != "to":
        counts = draft.group(x, "count", end == "windowed")
        if d(st.integers(0, 3)) == 0:  # (close() ends it in to_stream().to(...))
            draft.op(counts, "suppress")


@st.composite
def programs(draw: Callable[..., Any], linear: bool | None = None,
             shape: str | None = None) -> Program:
    """A random DSL program: ``linear`` (else half of them) bulk-shaped, a chain of the bulk
    path's operators or (half of those) a tree of them, ending in a sink or a (windowed)
    count; the others anything the grammar makes. ``shape``: a linear one of that shape
    (``SHAPES``), ``"stateless"``: a tree of them ending in sinks, topic extractors and
    actions only (no store: on several partitions, one stage over all tasks' rows), or
    ``"merging windows"``: a chain ending in a session or sliding-window count, reduce or
    aggregate emitting every update, its record cache on."""
    if linear is None:
        linear = shape is not None or draw(st.sampled_from([True, False]))
    codec = draw(st.sampled_from(["str", "json", "user"]))
    tree = shape == "stateless" or (linear and shape is None and draw(st.booleans()))
    draft = _Draft(draw, codec, linear, tree)
    x: _Var | None = draft.source("in")
    if tree:
        for _ in range(draw(st.integers(1, 4))):
            kind = draw(st.sampled_from(TREE_OPS))
            if kind == "tee":  # a second operator reading x, ended in close()
                draft.op(x, draw(st.sampled_from(SIDE_OPS)))  # type: ignore[arg-type]
            elif kind == "side":
                draft.op(x, draw(st.sampled_from(ENDS)))  # type: ignore[arg-type]
            else:
                x = draft.op(x, kind)  # type: ignore[arg-type]
        end = "to" if shape == "stateless" else draw(st.sampled_from(
            ["count", "windowed", "to", "to"]))
        if end != "to":
            counts = draft.group(x, "count", end == "windowed")  # type: ignore[arg-type]
            if draw(st.integers(0, 3)) == 0:
                draft.op(counts, "suppress")
    elif linear:
        _linear(draft, x, shape or draw(st.sampled_from(SHAPES)))  # type: ignore[arg-type]
    else:
        for _ in range(draw(st.integers(1, 6))):
            open_vars = [v for v in reversed(draft.vars) if not v.used]
            pool = open_vars if open_vars and draw(st.integers(0, 9)) < 9 else draft.vars
            x = draw(st.sampled_from(pool))
            draft.op(x, draw(st.sampled_from(TABLE_OPS if x.table else STREAM_OPS)))
    draft.close()
    return draft.program
