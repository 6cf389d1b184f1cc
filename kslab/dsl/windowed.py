"""Windowed grouped streams: ``TimeWindowedKStream`` (time and sliding windows), sessions, cogroups.

``KGroupedStream.windowed_by`` returns one of these; ``count`` / ``reduce`` / ``aggregate`` add a
window aggregation processor with a timestamped window store (a session store for sessions) and
return a ``KTable`` keyed by ``Windowed(key, Window(start, end))``. ``emit_strategy`` chooses
when results are forwarded (KIP-825). Invariant: names and store retention follow Java's
``TimeWindowedKStreamImpl`` family: retention defaults to size + grace (sliding: 2 x time
difference + grace; sessions: gap + grace) and may not be smaller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kslab.dsl._aggregates import count_adder, count_initializer
from kslab.dsl._graph import ProcessorGraphNode
from kslab.dsl._naming import or_generate, resolve_materialized, resolve_name, suffix_or_generate
from kslab.dsl._processors import require_callable, require_not_none
from kslab.dsl._session_aggregates import SessionWindowAggregateSupplier
from kslab.dsl._sliding_aggregates import SlidingWindowAggregateSupplier
from kslab.dsl._stores import MaterializedInternal
from kslab.dsl._window_aggregates import (
    TimeWindowAggregateSupplier,
    merger_for,
    reducer_aggregator,
)
from kslab.dsl.config import Materialized, Named, internal
from kslab.dsl.windows import (
    EmitStrategy,
    SessionWindows,
    SlidingWindows,
    TimeWindows,
    UnlimitedWindows,
    WindowSpecError,
)
from kslab.errors import TopologyError
from kslab.serdes import Long, SessionWindowed, TimeWindowed
from kslab.state import Stores
from kslab.topology.display import mimebundle

__all__ = ["SessionWindowedKStream", "TimeWindowedKStream", "WindowedCogroupedKStream"]

AGGREGATE_NAME = "KSTREAM-AGGREGATE-"
REDUCE_NAME = "KSTREAM-REDUCE-"


def _split(named: Any, materialized: Any) -> tuple[Any, Any]:
    if isinstance(named, Materialized | str) and not isinstance(named, Named) and \
            materialized is None:
        return None, named
    return named, materialized


def _count_merger(key: Any, one: int, two: int) -> int:
    return one + two


def window_store_factory(mat: MaterializedInternal, windows: Any,
                         emit_on_close: bool = False) -> Callable[[], Any]:
    """The store builder maker of a windowed aggregation (Java's ``WindowStoreMaterializer``).

    With ``emit_on_close`` a default RocksDB store scans by time first (Java's time-ordered
    stores, with the key-first index for sliding windows) and sliding and session stores are
    never cached, as Java's materializers do.
    """
    session = isinstance(windows, SessionWindows)
    if isinstance(windows, SlidingWindows):
        size, minimum = windows.diff_ms, 2 * windows.diff_ms
    elif session:
        size, minimum = 0, windows.gap_ms
    else:
        size, minimum = windows.size_ms, windows.size_ms
    minimum += windows.grace_ms
    retention = getattr(mat, "retention", None)
    retention = minimum if retention is None else retention
    if retention < minimum:
        if session:
            msg = (
                f"The retention period of the session store {mat.store_name} must be no "
                "smaller than the session inactivity gap plus the grace period. Got gap=["
                f"{windows.gap_ms}], grace=[{windows.grace_ms}], retention=[{retention}]"
            )
        else:
            msg = (
                f"The retention period of the window store {mat.store_name} must be no smaller "
                f"than its window size plus the grace period. Got size=[{size}], grace=["
                f"{windows.grace_ms}], retention=[{retention}]"
            )
        raise WindowSpecError(msg)  # Java's IllegalArgumentException

    def build() -> Any:
        supplier = mat.supplier
        store_type = mat.store_type or getattr(mat.builder, "default_store_type", None)
        name = mat.store_name
        if session:
            if supplier is None:
                supplier = Stores.in_memory_session_store(name, retention) \
                    if store_type == "in_memory" else Stores.persistent_session_store(name,
                                                                                     retention)
            builder = Stores.session_store_builder(supplier, mat.key_serde, mat.value_serde)
        else:
            if supplier is None:
                factory = Stores.in_memory_window_store if store_type == "in_memory" else \
                    Stores.persistent_timestamped_window_store
                supplier = factory(name, retention, size, False)
            builder = Stores.timestamped_window_store_builder(supplier, mat.key_serde,
                                                              mat.value_serde)
        if emit_on_close and mat.supplier is None and supplier.persistent:
            supplier.time_ordered = True
            # Java's BuiltInDslStoreSuppliers: the key-first index for sliding windows only
            supplier.has_index = isinstance(windows, SlidingWindows)
        if mat.logging:
            builder.with_logging_enabled(mat.log_config)
        else:
            builder.with_logging_disabled()
        if mat.caching and not (emit_on_close and not isinstance(windows, TimeWindows)):
            builder.with_caching_enabled()
        if mat.restore_listener is not None:
            builder.with_restore_listener(mat.restore_listener)
        return builder

    return build


class _Windowed:
    """What time, sliding and session windowed streams share: materialize, then add a node."""

    def __init__(self, grouped: Any, windows: Any) -> None:
        self.grouped = grouped
        self.builder = grouped.builder
        self.windows = windows
        self.key_serde = grouped.key_serde
        self.value_serde = grouped.value_serde
        self.emit = EmitStrategy.on_window_update()

    def emit_strategy(self, emit_strategy: EmitStrategy) -> Any:
        """Choose when results are forwarded: ``EmitStrategy.on_window_update()`` (the default)
        or ``EmitStrategy.on_window_close()`` (each window's final value once). Returns self."""
        if not isinstance(emit_strategy, EmitStrategy):
            msg = (f"emit_strategy() got {emit_strategy!r}; pass EmitStrategy.on_window_close() "
                   "or EmitStrategy.on_window_update()")
            raise TopologyError(msg)
        if emit_strategy.closes and isinstance(self.windows, UnlimitedWindows):
            msg = "ON_WINDOW_CLOSE emit strategy cannot be used for UnlimitedWindows"
            raise WindowSpecError(msg)  # Java's IllegalArgumentException
        self.emit = emit_strategy
        return self

    def _materialize(self, materialized: Any, op: str, prefix: str, value_serde: Any,
                     burn: bool = False) -> MaterializedInternal:
        m = resolve_materialized(materialized, op)
        if m is None:
            m = Materialized.with_(self.key_serde, value_serde)
        elif burn and m.store_name is None:  # Java burns a store name in count(materialized)
            self.builder.new_store_name(AGGREGATE_NAME)
        mat = self.builder.materialize(m, prefix)
        mat.retention = internal(m).retention  # type: ignore[attr-defined]
        mat.key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        if mat.value_serde is None:
            mat.value_serde = value_serde
        return mat

    def _supplier(self, mat: MaterializedInternal, initializer: Any, aggregator: Any,
                  merger: Any = None) -> Any:
        close = self.emit.closes
        if isinstance(self.windows, SessionWindows):
            return SessionWindowAggregateSupplier(mat.store_name, self.windows, initializer,
                                                  aggregator, merger, close)
        if isinstance(self.windows, SlidingWindows):
            return SlidingWindowAggregateSupplier(mat.store_name, self.windows, initializer,
                                                  aggregator, None, close)
        return TimeWindowAggregateSupplier(mat.store_name, self.windows, initializer, aggregator,
                                           None, close)

    def _windowed_serde(self, key_serde: Any) -> Any:
        if key_serde is None:
            return None
        if isinstance(self.windows, SessionWindows):
            return SessionWindowed(key_serde)
        return TimeWindowed(key_serde, self.windows.size())

    def _build(self, node_name: str, supplier: Any, mat: MaterializedInternal) -> Any:
        from kslab.dsl.ktable import KTable

        parent, sources = self.grouped.repartition_parent(mat.store_name)
        node = ProcessorGraphNode(node_name, supplier,
                                  store_factory=window_store_factory(mat, self.windows,
                                                                     self.emit.closes))
        self.builder.add_node(parent, node)
        table = KTable(self.builder, node_name, self._windowed_serde(mat.key_serde),
                       mat.value_serde, sources, mat.queryable_store_name, supplier, node)
        table.windows = self.windows  # type: ignore[attr-defined]
        return table

    def count(self, named: Any = None, materialized: Any = None, *,
              name: str | None = None) -> Any:
        """The number of records per key and window."""
        named, materialized = _split(named, materialized)
        # Java burns a store name here for time and session windows, not for sliding ones
        burn = not isinstance(self.windows, SlidingWindows)
        mat = self._materialize(materialized, "count", AGGREGATE_NAME, Long(), burn=burn)
        node_name = or_generate(self.builder, resolve_name(named, name, "count"), AGGREGATE_NAME)
        return self._build(node_name, self._supplier(mat, count_initializer, count_adder,
                                                     _count_merger), mat)

    def reduce(self, reducer: Callable[[Any, Any], Any], named: Any = None,
               materialized: Any = None, *, name: str | None = None) -> Any:
        """Combine the values of each key and window with ``reducer(aggregate, value)``."""
        require_callable(reducer, "reducer", "reduce")
        named, materialized = _split(named, materialized)
        mat = self._materialize(materialized, "reduce", REDUCE_NAME, self.value_serde)
        node_name = or_generate(self.builder, resolve_name(named, name, "reduce"), REDUCE_NAME)
        aggregator = reducer_aggregator(reducer)
        return self._build(node_name, self._supplier(mat, _none, aggregator,
                                                     merger_for(aggregator)), mat)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph with this node highlighted."""
        return mimebundle(self, include, exclude)


def _none() -> None:
    return None


class TimeWindowedKStream(_Windowed):
    """A grouped stream windowed by ``TimeWindows``, ``UnlimitedWindows`` or ``SlidingWindows``."""

    def aggregate(self, initializer: Callable[[], Any],
                  aggregator: Callable[[Any, Any, Any], Any], named: Any = None,
                  materialized: Any = None, *, name: str | None = None) -> Any:
        """Fold each key's values per window with ``aggregator(key, value, aggregate)``."""
        require_callable(initializer, "initializer", "aggregate")
        require_callable(aggregator, "aggregator", "aggregate")
        named, materialized = _split(named, materialized)
        mat = self._materialize(materialized, "aggregate", AGGREGATE_NAME, None)
        node_name = or_generate(self.builder, resolve_name(named, name, "aggregate"),
                                AGGREGATE_NAME)
        return self._build(node_name, self._supplier(mat, initializer, aggregator), mat)

    def __repr__(self) -> str:
        return f"<kslab.TimeWindowedKStream {self.grouped.name} {self.windows!r}>"


class SessionWindowedKStream(_Windowed):
    """A grouped stream windowed by ``SessionWindows``."""

    def aggregate(self, initializer: Callable[[], Any],
                  aggregator: Callable[[Any, Any, Any], Any],
                  session_merger: Callable[[Any, Any, Any], Any], named: Any = None,
                  materialized: Any = None, *, name: str | None = None) -> Any:
        """Fold values per session; ``session_merger(key, agg1, agg2)`` joins merged sessions."""
        require_callable(initializer, "initializer", "aggregate")
        require_callable(aggregator, "aggregator", "aggregate")
        require_callable(session_merger, "session_merger", "aggregate")
        named, materialized = _split(named, materialized)
        mat = self._materialize(materialized, "aggregate", AGGREGATE_NAME, None)
        node_name = or_generate(self.builder, resolve_name(named, name, "aggregate"),
                                AGGREGATE_NAME)
        return self._build(node_name, self._supplier(mat, initializer, aggregator,
                                                     session_merger), mat)

    def __repr__(self) -> str:
        return f"<kslab.SessionWindowedKStream {self.grouped.name} {self.windows!r}>"


def windowed_by(grouped: Any, windows: Any) -> Any:
    """``KGroupedStream.windowed_by``: the windowed stream for ``windows``."""
    require_not_none(windows, "windows", "windowed_by")  # Java's NullPointerException
    if isinstance(windows, SessionWindows):
        return SessionWindowedKStream(grouped, windows)
    if isinstance(windows, TimeWindows | SlidingWindows | UnlimitedWindows):
        return TimeWindowedKStream(grouped, windows)
    msg = (
        f"windowed_by() got {windows!r}; pass TimeWindows, SlidingWindows, SessionWindows or "
        "UnlimitedWindows, e.g. TimeWindows.of_size_with_no_grace(60_000)"
    )
    raise TopologyError(msg)


class WindowedCogroupedKStream:
    """``CogroupedKStream.windowed_by``: co-grouped streams aggregated per window."""

    def __init__(self, cogrouped: Any, windows: Any) -> None:
        require_not_none(windows, "windows", "windowed_by")
        if not isinstance(windows, TimeWindows | SlidingWindows | SessionWindows |
                          UnlimitedWindows):
            msg = f"windowed_by() got {windows!r}; pass TimeWindows, SlidingWindows, " \
                  "SessionWindows or UnlimitedWindows"
            raise TopologyError(msg)
        self.cogrouped = cogrouped
        self.windows = windows

    def aggregate(self, initializer: Callable[[], Any], *args: Any, named: Any = None,
                  materialized: Any = None, name: str | None = None) -> Any:
        """Aggregate every co-grouped stream per window (sessions also take a merger)."""
        from kslab.dsl.cogrouped import AGGREGATE_NAME as COGROUP_AGG
        from kslab.dsl.cogrouped import MERGE_NAME, PassThroughSupplier
        from kslab.dsl.ktable import KTable

        require_callable(initializer, "initializer", "aggregate")
        rest = list(args)
        merger = None
        if isinstance(self.windows, SessionWindows):
            if rest and rest[0] is None:  # Java: NullPointerException "sessionMerger can't be null"
                require_callable(None, "sessionMerger", "aggregate")
            if not rest or not callable(rest[0]):
                msg = "aggregate() of session-windowed cogroups needs a session_merger"
                raise TopologyError(msg)
            merger = rest.pop(0)
        if rest:
            named, materialized = _split(rest[0], rest[1] if len(rest) > 1 else materialized)
        named, materialized = _split(named, materialized)
        cg = self.cogrouped
        first = next(iter(cg.aggregators))
        helper = _Windowed(first, self.windows)
        b = cg.builder
        mat = helper._materialize(materialized, "aggregate", COGROUP_AGG, None)
        user = resolve_name(named, name, "aggregate")
        cg.repartition_inputs(mat.store_name)
        processors, suppliers = [], []
        for index, (grouped, aggregator) in enumerate(cg.aggregators.items()):
            supplier = helper._supplier(mat, initializer, aggregator, merger)
            node_name = suffix_or_generate(b, user, f"-cogroup-agg-{index}", COGROUP_AGG)
            if index == 0:
                node = ProcessorGraphNode(node_name, supplier,
                                          store_factory=window_store_factory(mat, self.windows))
            else:
                node = ProcessorGraphNode(node_name, supplier, store_names=[mat.store_name])
            b.add_node(cg.parent_of(grouped), node)
            processors.append(node)
            suppliers.append(supplier)
        merge_name = suffix_or_generate(b, user, "-cogroup-merge", MERGE_NAME)
        passthrough = PassThroughSupplier(suppliers, mat.store_name)
        passthrough.view = suppliers[0].view  # type: ignore[method-assign]
        merge = ProcessorGraphNode(merge_name, passthrough)
        b.add_node(processors, merge)
        table = KTable(b, merge_name, helper._windowed_serde(mat.key_serde), mat.value_serde,
                       {merge_name}, mat.queryable_store_name, passthrough, merge)
        table.windows = self.windows  # type: ignore[attr-defined]
        return table

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph with this node highlighted."""
        return mimebundle(self, include, exclude)
