"""``KStream``: a record stream and its operators, each lowered to one Processor API node.

Every method validates its arguments, takes a name from Kafka's rules, wraps a processor in a
graph node, attaches it to this stream's node and returns a new handle; nothing runs until the
topology is built and driven. Invariant: a stream whose key may have changed since its last
repartition carries ``repartition_required``; the next stateful operator inserts the repartition.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kslab.dsl import _processors as p
from kslab.dsl._graph import GraphNode, ProcessorGraphNode, SinkGraphNode, TableProcessorNode
from kslab.dsl._naming import or_generate, resolve_config, resolve_materialized, resolve_name
from kslab.dsl._optimize import new_repartition_node
from kslab.dsl.config import Branched, Grouped, Named, Printed, Produced, Repartitioned, internal
from kslab.errors import TopologyError
from kslab.topology._nodes import check_supplier
from kslab.topology.display import mimebundle

__all__ = ["BranchedKStream", "KStream"]

_check = p.require_callable


class KStream:
    """A stream of records; build it with ``StreamsBuilder.stream`` and chain operators.

    >>> import kslab as ks
    >>> builder = ks.StreamsBuilder()
    >>> builder.stream("in").map_values(str.upper).to("out")
    >>> with ks.TopologyTestDriver(builder.build()) as driver:
    ...     driver.create_input_topic("in").pipe_input("k", "hello")
    ...     driver.create_output_topic("out").read_key_value()
    KeyValue(key='k', value='HELLO')
    """

    def __init__(self, builder: Any, name: str, key_serde: Any, value_serde: Any,
                 source_nodes: set[str], repartition_required: bool, node: GraphNode) -> None:
        self.builder = builder
        self.name = name
        self.key_serde = key_serde
        self.value_serde = value_serde
        self.source_nodes = source_nodes
        self.repartition_required = repartition_required
        self.node = node
        self._join_repartition: GraphNode | None = None

    def _child(self, node: GraphNode, *, key_serde: Any = None, value_serde: Any = None,
               keep_key: bool = True, keep_value: bool = True,
               repartition: bool | None = None) -> KStream:
        self.builder.add_node(self.node, node)
        return KStream(
            self.builder, node.name,
            self.key_serde if keep_key else key_serde,
            self.value_serde if keep_value else value_serde,
            self.source_nodes,
            self.repartition_required if repartition is None else repartition,
            node,
        )

    # -- stateless ------------------------------------------------------------------------------

    def filter(self, predicate: Callable[[Any, Any], bool], named: Any = None, *,
               name: str | None = None) -> KStream:
        """Keep records for which ``predicate(key, value)`` holds. Stateless.

        >>> import kslab as ks
        >>> b = ks.StreamsBuilder()
        >>> b.stream("in").filter(lambda k, v: v > 1).to("out")
        >>> with ks.TopologyTestDriver(b.build()) as driver:
        ...     driver.create_input_topic("in").pipe_key_value_list([("a", 1), ("b", 2)])
        ...     driver.create_output_topic("out").read_key_values_to_list()
        [KeyValue(key='b', value=2)]
        """
        _check(predicate, "predicate", "filter")
        node_name = or_generate(self.builder, resolve_name(named, name, "filter"),
                                "KSTREAM-FILTER-")
        return self._child(ProcessorGraphNode(node_name, p.Supplier(p.Filter, predicate, False)))

    def filter_not(self, predicate: Callable[[Any, Any], bool], named: Any = None, *,
                   name: str | None = None) -> KStream:
        """Drop records for which ``predicate(key, value)`` holds. Stateless."""
        _check(predicate, "predicate", "filter_not")
        node_name = or_generate(self.builder, resolve_name(named, name, "filter_not"),
                                "KSTREAM-FILTER-")
        return self._child(ProcessorGraphNode(node_name, p.Supplier(p.Filter, predicate, True)))

    def select_key(self, selector: Callable[[Any, Any], Any], named: Any = None, *,
                   name: str | None = None) -> KStream:
        """Give each record the key ``selector(key, value)``. Stateless, key-changing."""
        _check(selector, "mapper", "select_key")
        node = self._select_key_node(selector, resolve_name(named, name, "select_key"))
        return self._child(node, keep_key=False, repartition=True)

    def _select_key_node(self, selector: Callable[[Any, Any], Any],
                         name: str | None) -> ProcessorGraphNode:
        node_name = or_generate(self.builder, name, "KSTREAM-KEY-SELECT-")
        node = ProcessorGraphNode(node_name, p.Supplier(p.SelectKey, selector))
        node.key_changing = True
        return node

    def map(self, mapper: Callable[[Any, Any], Any], named: Any = None, *,
            name: str | None = None) -> KStream:
        """Turn each record into ``mapper(key, value) -> (new_key, new_value)``. Key-changing."""
        _check(mapper, "mapper", "map")
        node_name = or_generate(self.builder, resolve_name(named, name, "map"), "KSTREAM-MAP-")
        node = ProcessorGraphNode(node_name, p.Supplier(p.Map, mapper))
        node.key_changing = True
        return self._child(node, keep_key=False, keep_value=False, repartition=True)

    def map_values(self, mapper: Callable[..., Any], named: Any = None, *,
                   name: str | None = None, with_key: bool = False) -> KStream:
        """New values from ``mapper(value)`` (``mapper(key, value)`` with ``with_key``)."""
        _check(mapper, "valueMapperWithKey" if with_key else "valueMapper", "map_values")
        node_name = or_generate(self.builder, resolve_name(named, name, "map_values"),
                                "KSTREAM-MAPVALUES-")
        node = ProcessorGraphNode(node_name, p.Supplier(p.MapValues, mapper, with_key))
        node.value_changing = True
        return self._child(node, keep_value=False)

    def flat_map(self, mapper: Callable[[Any, Any], Iterable[Any]], named: Any = None, *,
                 name: str | None = None) -> KStream:
        """Zero or more ``(key, value)`` pairs per record. Key-changing."""
        _check(mapper, "mapper", "flat_map")
        node_name = or_generate(self.builder, resolve_name(named, name, "flat_map"),
                                "KSTREAM-FLATMAP-")
        node = ProcessorGraphNode(node_name, p.Supplier(p.FlatMap, mapper))
        node.key_changing = True
        return self._child(node, keep_key=False, keep_value=False, repartition=True)

    def flat_map_values(self, mapper: Callable[..., Iterable[Any]], named: Any = None, *,
                        name: str | None = None, with_key: bool = False) -> KStream:
        """Zero or more values per record, each under the record's key. Stateless."""
        _check(mapper, "valueMapper", "flat_map_values")
        node_name = or_generate(self.builder, resolve_name(named, name, "flat_map_values"),
                                "KSTREAM-FLATMAPVALUES-")
        node = ProcessorGraphNode(node_name, p.Supplier(p.FlatMapValues, mapper, with_key))
        node.value_changing = True
        return self._child(node, keep_value=False)

    def peek(self, action: Callable[[Any, Any], None], named: Any = None, *,
             name: str | None = None) -> KStream:
        """Call ``action(key, value)`` for each record and pass it on unchanged."""
        _check(action, "action", "peek")
        node_name = or_generate(self.builder, resolve_name(named, name, "peek"), "KSTREAM-PEEK-")
        return self._child(ProcessorGraphNode(node_name, p.Supplier(p.Peek, action)))

    def foreach(self, action: Callable[[Any, Any], None], named: Any = None, *,
                name: str | None = None) -> None:
        """Call ``action(key, value)`` for each record. Terminal."""
        _check(action, "action", "foreach")
        node_name = or_generate(self.builder, resolve_name(named, name, "foreach"),
                                "KSTREAM-FOREACH-")
        self.builder.add_node(self.node, ProcessorGraphNode(node_name,
                                                            p.Supplier(p.Foreach, action)))

    def print_(self, printed: Printed | None = None, *, label: str | None = None,
               name: str | None = None) -> None:
        """Print ``[label]: key, value`` per record (stdout, or ``Printed.to_file``). Terminal."""
        if isinstance(printed, str):  # print_("label")
            printed, label = None, printed
        printed = printed if printed is not None else Printed.to_sys_out()
        if label is not None:
            printed = printed.with_label(label)
        shown = internal(printed)
        node_name = or_generate(self.builder, name or shown.name, "KSTREAM-PRINTER-")
        supplier = p.Supplier(p.Print, shown.label or self.name, shown.path, shown.mapper)
        self.builder.add_node(self.node, ProcessorGraphNode(node_name, supplier))

    def merge(self, other: KStream, named: Any = None, *, name: str | None = None) -> KStream:
        """One stream with the records of both, in arrival order."""
        p.require_not_none(other, "stream", "merge")
        if not isinstance(other, KStream):
            msg = f"merge() got {other!r}; pass a KStream"
            raise TopologyError(msg)
        node_name = or_generate(self.builder, resolve_name(named, name, "merge"),
                                "KSTREAM-MERGE-")
        node = ProcessorGraphNode(node_name, p.Supplier(p.PassThrough))
        node.merge_node = True
        self.builder.add_node([self.node, other.node], node)
        return KStream(self.builder, node_name, None, None,
                       self.source_nodes | other.source_nodes,
                       self.repartition_required or other.repartition_required, node)

    def split(self, named: Any = None, *, name: str | None = None) -> BranchedKStream:
        """Route each record to the first branch whose predicate holds.

        >>> import kslab as ks
        >>> b = ks.StreamsBuilder()
        >>> branches = (b.stream("in").split(ks.Named.as_("n-"))
        ...             .branch(lambda k, v: v < 0, ks.Branched.as_("neg"))
        ...             .default_branch(ks.Branched.as_("rest")))
        >>> sorted(branches)
        ['n-neg', 'n-rest']
        """
        return BranchedKStream(self, resolve_name(named, name, "split"))

    # -- sinks and repartitioning ---------------------------------------------------------------

    def to(self, topic: str | Callable[..., str], produced: Produced | None = None, *,
           key_serde: Any = None, value_serde: Any = None, partitioner: Any = None,
           name: str | None = None) -> None:
        """Write to ``topic``, or to ``topic(key, value, record_context)``. Terminal."""
        p.require_not_none(topic, "topic", "to")
        if not (isinstance(topic, str) and topic) and not callable(topic):
            msg = f"to() got topic={topic!r}; pass a topic name or a topic extractor function"
            raise TopologyError(msg)
        produced = resolve_config(Produced, produced, "to", key_serde=key_serde,
                                  value_serde=value_serde, partitioner=partitioner, name=name)
        out = internal(produced)
        node_name = or_generate(self.builder, out.name, "KSTREAM-SINK-")
        node = SinkGraphNode(
            node_name, topic,
            out.key_serde if out.key_serde is not None else self.key_serde,
            out.value_serde if out.value_serde is not None else self.value_serde,
            out.partitioner,
        )
        self.builder.add_node(self.node, node)

    def repartition(self, repartitioned: Repartitioned | None = None, *,
                    key_serde: Any = None, value_serde: Any = None, name: str | None = None,
                    number_of_partitions: int | None = None) -> KStream:
        """Write to ``<application.id>-<name>-repartition`` and read it back (by the new key)."""
        r = internal(resolve_config(Repartitioned, repartitioned, "repartition",
                                    key_serde=key_serde, value_serde=value_serde, name=name,
                                    partitions=number_of_partitions))
        prefix = r.name if r.name is not None else self.builder.new_processor_name(
            "KSTREAM-REPARTITION-")
        value_serde = r.value_serde if r.value_serde is not None else self.value_serde
        key_serde = r.key_serde if r.key_serde is not None else self.key_serde
        node = new_repartition_node(self.builder, r.key_serde, value_serde, prefix,
                                    partitioner=r.partitioner, partitions=r.partitions,
                                    optimizable=False)
        self.builder.add_node(self.node, node)
        return KStream(self.builder, node.name, key_serde, value_serde, {node.name}, False, node)

    def repartition_for_join(self, prefix: str, key_serde: Any, value_serde: Any) -> KStream:
        """The stream repartitioned through ``<prefix>-repartition`` before a join (Java's
        ``repartitionForJoin``): made once per prefix and reused by later joins."""
        key_serde = key_serde if key_serde is not None else self.key_serde
        value_serde = value_serde if value_serde is not None else self.value_serde
        node = new_repartition_node(self.builder, key_serde, value_serde, prefix)
        if self._join_repartition is None or self.name != prefix:
            self._join_repartition = node
            self.builder.add_node(self.node, node)
        target = self._join_repartition
        return KStream(self.builder, node.name, key_serde, value_serde, {node.name}, False,
                       target)

    def to_table(self, named: Any = None, materialized: Any = None, *,
                 name: str | None = None) -> Any:
        """The latest value per key as a ``KTable`` (repartitioned first if the key changed)."""
        from kslab.dsl._stores import store_factory
        from kslab.dsl._table_processors import TableSource
        from kslab.dsl.config import Materialized
        from kslab.dsl.ktable import KTable

        if isinstance(named, Materialized) and materialized is None:
            named, materialized = None, named
        node_name = or_generate(self.builder, resolve_name(named, name, "to_table"),
                                "KSTREAM-TOTABLE-")
        m = resolve_materialized(materialized, "to_table")
        if m is None:
            m = Materialized.with_(self.key_serde, self.value_serde)
        mat = self.builder.materialize(m, "KSTREAM-TOTABLE-")
        key_serde = mat.key_serde if mat.key_serde is not None else self.key_serde
        value_serde = mat.value_serde if mat.value_serde is not None else self.value_serde
        mat.key_serde, mat.value_serde = key_serde, value_serde
        parent, sources = self.node, self.source_nodes
        if self.repartition_required:
            parent = new_repartition_node(self.builder, key_serde, value_serde, node_name)
            self.builder.add_node(self.node, parent)
            sources = {parent.name}
        supplier = TableSource(mat.store_name, mat.queryable_store_name)
        node = TableProcessorNode(node_name, supplier, store_factory=store_factory(mat))
        self.builder.add_node(parent, node)
        return KTable(self.builder, node_name, key_serde, value_serde, sources,
                      mat.queryable_store_name, supplier, node)

    # -- grouping -------------------------------------------------------------------------------

    def group_by_key(self, grouped: Grouped | None = None, *, key_serde: Any = None,
                     value_serde: Any = None, name: str | None = None) -> Any:
        """Group by the current key (repartitioned before aggregating if the key changed)."""
        from kslab.dsl.grouped import KGroupedStream

        if grouped is None:
            grouped = Grouped.with_(self.key_serde, self.value_serde)
        g = resolve_config(Grouped, grouped, "group_by_key", key_serde=key_serde,
                           value_serde=value_serde, name=name)
        return KGroupedStream(self.builder, self.name, self.source_nodes, g,
                              self.repartition_required, self.node)

    def group_by(self, selector: Callable[[Any, Any], Any], grouped: Grouped | None = None, *,
                 key_serde: Any = None, value_serde: Any = None,
                 name: str | None = None) -> Any:
        """Group by ``selector(key, value)``; the aggregation after it repartitions first.

        Key-changing: the aggregation reads ``<application.id>-<name>-repartition``, named after
        the ``Grouped`` name or the aggregation's store, and records with a ``None`` key are
        dropped before it.

        >>> import kslab as ks
        >>> b = ks.StreamsBuilder()
        >>> b.stream("in").group_by(lambda k, v: v).count().to_stream().to("out")
        >>> with ks.TopologyTestDriver(b.build()) as driver:
        ...     driver.create_input_topic("in").pipe_value_list(["x", "y", "x"])
        ...     driver.create_output_topic("out").read_key_values_to_list()
        [KeyValue(key='x', value=1), KeyValue(key='y', value=1), KeyValue(key='x', value=2)]
        """
        from kslab.dsl.grouped import KGroupedStream

        _check(selector, "keySelector", "group_by")
        if grouped is None:
            grouped = Grouped.with_(None, self.value_serde)
        g = resolve_config(Grouped, grouped, "group_by", key_serde=key_serde,
                           value_serde=value_serde, name=name)
        node = self._select_key_node(selector, internal(g).name)
        self.builder.add_node(self.node, node)
        return KGroupedStream(self.builder, node.name, self.source_nodes, g, True, node)

    # -- joins ----------------------------------------------------------------------------------

    def join(self, other: Any, *args: Any, **kwargs: Any) -> KStream:
        """Inner join with a ``KTable`` (or a ``GlobalKTable`` and a key selector)."""
        return self._join(other, args, kwargs, left=False, op="join")

    def left_join(self, other: Any, *args: Any, **kwargs: Any) -> KStream:
        """Left join with a ``KTable`` (or a ``GlobalKTable`` and a key selector).

        >>> import kslab as ks
        >>> b = ks.StreamsBuilder()
        >>> users = b.global_table("users")
        >>> (b.stream("orders").left_join(users, lambda k, order: order["user"],
        ...                               lambda order, user: (order["id"], user)).to("out"))
        >>> with ks.TopologyTestDriver(b.build()) as driver:
        ...     driver.create_input_topic("users").pipe_input("u1", "Ann")
        ...     orders = driver.create_input_topic("orders")
        ...     orders.pipe_input("o1", {"id": 1, "user": "u1"})
        ...     orders.pipe_input("o2", {"id": 2, "user": "u2"})
        ...     driver.create_output_topic("out").read_values_to_list()
        [[1, 'Ann'], [2, None]]
        """
        return self._join(other, args, kwargs, left=True, op="left_join")

    def outer_join(self, other: Any, *args: Any, **kwargs: Any) -> KStream:
        """Windowed outer join with another stream: ``outer_join(other, joiner, JoinWindows)``."""
        p.require_not_none(other, "otherStream", "outer_join")
        if not isinstance(other, KStream):
            msg = f"outer_join() needs another KStream and JoinWindows, got {other!r}"
            raise TopologyError(msg)
        return self._join(other, args, kwargs, left=True, op="outer_join")

    def _join(self, other: Any, args: tuple[Any, ...], kwargs: dict[str, Any], *, left: bool,
              op: str) -> KStream:
        from kslab.dsl import _joins
        from kslab.dsl.ktable import GlobalKTable, KTable

        _check_join_arguments(other, args, kwargs, op)
        if isinstance(other, GlobalKTable):
            return _joins.stream_global_join(self, other, *args, left=left, op=op, **kwargs)
        if isinstance(other, KTable):
            return _joins.stream_table_join(self, other, *args, left=left, op=op, **kwargs)
        if isinstance(other, KStream):
            from kslab.dsl._stream_joins import stream_stream_join

            return stream_stream_join(self, other, *args, op=op, left_outer=left,
                                      right_outer=op == "outer_join", **kwargs)
        msg = f"{op}() got {other!r}; pass a KTable, or a GlobalKTable and a key selector"
        raise TopologyError(msg)

    # -- processor API ---------------------------------------------------------------------------

    def process(self, supplier: Callable[[], Any], *store_names: str, named: Any = None,
                name: str | None = None) -> KStream:
        """Run a ``Processor`` from ``supplier`` with access to ``store_names``. Key-changing."""
        return self._process(supplier, store_names, resolve_name(named, name, "process"),
                             fixed_key=False)

    def process_values(self, supplier: Callable[[], Any], *store_names: str, named: Any = None,
                       name: str | None = None) -> KStream:
        """Run a ``FixedKeyProcessor``: it may change values, never keys."""
        return self._process(supplier, store_names, resolve_name(named, name, "process_values"),
                             fixed_key=True)

    def _process(self, supplier: Callable[[], Any], store_names: tuple[Any, ...],
                 name: str | None, *, fixed_key: bool) -> KStream:
        op = "process_values" if fixed_key else "process"
        _check(supplier, "processorSupplier", op)
        check_supplier(supplier, f"{op}()")
        if store_names and isinstance(store_names[0], Named):  # process(supplier, named, ...)
            name = resolve_name(store_names[0], name, op)
            store_names = store_names[1:]
        for store in store_names:
            p.require_not_none(store, "stateStoreNames", op)
            if not isinstance(store, str) or not store:
                msg = f"{op}() got store name {store!r}; pass store names as str"
                raise TopologyError(msg)
        if name is None:
            name = self.builder.new_processor_name(
                "KSTREAM-PROCESSVALUES-" if fixed_key else "KSTREAM-PROCESSOR-")
        node = ProcessorGraphNode(name, supplier, fixed_key=fixed_key, store_names=store_names)
        if fixed_key:
            return self._child(node, keep_value=False)
        return self._child(node, keep_key=False, keep_value=False, repartition=True)

    def __repr__(self) -> str:
        return f"<kslab.KStream {self.name}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the graph with this node highlighted, and a live preview."""
        return mimebundle(self, include, exclude)


def _check_join_arguments(other: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                          op: str) -> None:
    """Java's null checks of a join, in Java's order and words ("joiner can't be null")."""
    from kslab.dsl.ktable import GlobalKTable, KTable
    from kslab.dsl.windows import JoinWindows

    if isinstance(other, KStream):
        params = ("joiner", "windows")
    elif isinstance(other, KTable):
        params = ("joiner",)
    elif isinstance(other, GlobalKTable):
        params = ("keySelector", "joiner")
    elif other is None:  # name the argument as the Java overload the other arguments pick
        if any(isinstance(arg, JoinWindows) for arg in (*args, *kwargs.values())):
            what = "otherStream"
        elif len(args) > 1 and callable(args[1]):
            what = "globalTable"
        else:
            what = "table"
        p.require_not_none(None, what, op)
    else:
        return
    keywords = {"joiner": "joiner", "windows": "windows", "keySelector": "key_selector"}
    for index, param in enumerate(params):
        value = args[index] if index < len(args) else kwargs.get(keywords[param])
        p.require_not_none(value, param, op)


class BranchedKStream:
    """The result of ``split()``: add branches, then ``default_branch`` or ``no_default_branch``.

    Branch names are the split's name followed by the branch's name or its 1-based number
    (``0`` for the default branch), as in Java.
    """

    def __init__(self, source: KStream, name: str | None) -> None:
        self._source = source
        self._predicates: list[Callable[[Any, Any], bool]] = []
        self._children: list[str] = []
        self._outputs: dict[str, KStream] = {}
        self.name = or_generate(source.builder, name, "KSTREAM-BRANCH-")
        self._node = ProcessorGraphNode(
            self.name, p.Supplier(p.Branch, self._predicates, self._children)
        )
        source.builder.add_node(source.node, self._node)

    def branch(self, predicate: Callable[[Any, Any], bool],
               branched: Branched | None = None) -> BranchedKStream:
        """Records for which ``predicate(key, value)`` holds (and no earlier one) go here."""
        _check(predicate, "predicate", "branch")
        self._predicates.append(predicate)
        self._create(branched, len(self._predicates))
        return self

    def default_branch(self, branched: Branched | None = None) -> dict[str, KStream]:
        """Records no predicate matched go to a last branch; returns the branches by name."""
        self._create(branched, 0)
        return self._outputs

    def no_default_branch(self) -> dict[str, KStream]:
        """Drop records no predicate matched; returns the branches by name."""
        return self._outputs

    def _create(self, branched: Branched | None, index: int) -> None:
        b = internal(branched if branched is not None else Branched())
        child_name = self.name + (b.name if b.name is not None else str(index))
        self._children.append(child_name)
        src = self._source
        src.builder.new_processor_name(child_name)
        node = ProcessorGraphNode(child_name, p.Supplier(p.PassThrough))
        src.builder.add_node(self._node, node)
        branch = KStream(src.builder, child_name, src.key_serde, src.value_serde,
                         src.source_nodes, src.repartition_required, node)
        if b.function is not None:
            result = b.function(branch)
            if result is not None:
                self._outputs[child_name] = result
        elif b.consumer is not None:
            b.consumer(branch)
        else:
            self._outputs[child_name] = branch

    def __repr__(self) -> str:
        return f"<kslab.BranchedKStream {self.name}: {len(self._children)} branches>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter display: the topology graph with the split highlighted."""
        return mimebundle(self, include, exclude)


