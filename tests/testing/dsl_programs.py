"""Kafka Streams DSL programs as data, for the differential test of the driver's batch path
(``test_batch_differential``; ``dsl_grammar`` draws them at random).

A ``Program`` is a list of ``Op``\\ s over named variables (``s3`` a stream, ``t4`` a table,
``g`` the global table); ``str(program)`` prints it as the Python that ``Program.build`` runs,
so a failing example reads as a program. User functions are ``Fn``\\ s: lambda source evaluated
over helpers that take whatever the grammar makes (``None``, a count, a windowed key, a value
of the program's codec), so every function handles ``None`` keys and values:

- ``n(v)``, ``s(v)``: a value's number and text (``n(None)`` is ``None``, ``s(None)`` is ``""``);
- ``key(k)``: a key as text (a windowed key as ``"<key>@<window start>"``);
- ``mk(n, s)``: a value of the codec, ``{"n": n, "s": s}`` (``json``, and ``user``: a user's
  JSON serde made with ``serdes.from_functions``) or ``"n:s"`` (``str``);
- ``grow(v)``: ``v`` changed in place and returned (a dict's ``n`` plus one, and an item
  appended to a list nested at ``v["o"]["l"]``): a record's value must be its own object,
  as a decoded one is, not the piped object or another record's;
- ``bump(a, by, s)``: an aggregate changed in place as Python users write aggregators (a
  dict's ``n`` plus ``by`` and its text ``s`` appended, the last 12 characters kept) and
  returned; a ``"n:s"`` value (immutable) made anew: each aggregate a user function gets must
  be its own object, as a decoded one is, not one an earlier update forwarded or a store holds.

``raising_at(b, fn)`` is ``fn`` raising ``ValueError`` when the value it gets has ``n == b``.
``record("label")`` appends each ``(key, value)`` a ``peek`` / ``foreach`` sees to
``calls["label"]``, and ``("label", key, value)`` to ``calls[ALL]``: every action's calls in
the order they were made. ``S``, ``L`` and ``V`` are the String, Long and codec serdes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import kslab as ks
from kslab import serdes

__all__ = ["ALL", "Calls", "Fn", "Mat", "Op", "Program", "Win", "codec_serde", "maker"]

Calls = dict[str, list[tuple[Any, ...]]]
ALL = "(every action, in call order)"


# -- the helpers user functions are written with ---------------------------------------------

def num(v: Any) -> int | None:
    """A value's number: a count itself, ``v["n"]``, the ``n`` of ``"n:s"`` (0 if none)."""
    if v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, dict):
        found = v.get("n", 0)
        return found if isinstance(found, int) else 0
    head = str(v).partition(":")[0]
    return int(head) if head.lstrip("-").isdigit() else 0


def text(v: Any) -> str:
    """A value's text: ``v["s"]``, the ``s`` of ``"n:s"``, else ``""``."""
    if isinstance(v, dict):
        found = v.get("s", "")
        return found if isinstance(found, str) else ""
    if isinstance(v, str):
        return v.partition(":")[2]
    return ""


def grow(v: Any) -> Any:
    """``v`` changed in place (a dict's ``n`` plus one, an item appended to the list at
    ``v["o"]["l"]`` if there is one) and returned; other values as they are."""
    if isinstance(v, dict):
        v["n"] = (num(v) or 0) + 1
        inner = v.get("o")
        if isinstance(inner, dict) and isinstance(inner.get("l"), list):
            inner["l"].append(len(inner["l"]))
    return v


def bump(a: Any, by: int, more: str) -> Any:
    """``a`` changed in place (a dict's ``n`` plus ``by``, ``more`` appended to its ``s``, the
    last 12 characters kept) and returned; another value (``"n:s"``) made anew."""
    if isinstance(a, dict):
        a["n"] = (num(a) or 0) + by
        a["s"] = (text(a) + more)[-12:]
        return a
    return f"{(num(a) or 0) + by}:{(text(a) + more)[-12:]}"


def keytext(k: Any) -> str | None:
    """A key as text; a windowed key as ``"<key>@<window start>"``."""
    if k is None:
        return None
    if isinstance(k, ks.Windowed):
        return f"{k.key}@{k.window.start}"
    return str(k)


def maker(codec: str) -> Callable[[int, str], Any]:
    """``mk(n, s)`` of ``codec``: a dict for ``json`` and ``user``, ``"n:s"`` for ``str``."""
    if codec in ("json", "user"):
        return lambda n, s: {"n": n, "s": s}
    return lambda n, s: f"{n}:{s}"


def codec_serde(codec: str) -> Any:
    """The value serde of ``codec``: ``user`` is JSON written as a user writes a serde of
    their own (the standard library's ``json``, keys sorted), which the batch path calls once
    per field as the record path does."""
    if codec == "user":
        return serdes.from_functions(_user_dumps, json.loads)
    return serdes.Json() if codec == "json" else serdes.String()


def _user_dumps(value: Any) -> bytes:
    """A user serde's serializer: sorted-key JSON (bytes other than the ``Json`` serde's)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def recorder(calls: Calls, label: str) -> Callable[[Any, Any], None]:
    """A peek / foreach action appending each ``(key, value)`` to ``calls[label]`` and
    ``(label, key, value)`` to ``calls[ALL]`` (the order across every action)."""
    seen = calls.setdefault(label, [])
    every = calls.setdefault(ALL, [])

    def record(k: Any, v: Any) -> None:
        copied = copy.deepcopy(v)
        seen.append((k, copied))
        every.append((label, k, copied))

    return record


# -- the spec -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fn:
    """A user function: its lambda source; ``boom``, when set, makes it raise ``ValueError`` for
    an argument ``at`` (the value it is given) whose ``n`` equals ``boom``."""

    text: str
    at: int | None = None
    boom: int | None = None

    def __repr__(self) -> str:
        return self.text if self.boom is None else f"raising_at({self.boom}, {self.text})"

    def bind(self, codec: str) -> Callable[..., Any]:
        """The function itself, for a program of ``codec``."""
        helpers = {"n": num, "s": text, "key": keytext, "mk": maker(codec), "grow": grow,
                   "bump": bump}
        fn = eval(self.text, helpers)  # the printed source is what runs
        boom, at = self.boom, self.at
        if boom is None or at is None:
            return fn  # type: ignore[no-any-return]

        def raising(*args: Any) -> Any:
            if num(args[at]) == boom:
                raise ValueError(f"user function raised at n == {boom}")
            return fn(*args)

        return raising


@dataclass(frozen=True)
class Mat:
    """A ``Materialized``: store name (``None``: ``Materialized.with_``), record cache,
    ``"in_memory"`` or ``"persistent"`` (RocksDB, the default) and changelog on or off."""

    name: str | None
    cache: bool = True
    store: str = "persistent"
    logging: bool = True

    def render(self, key: str, value: str) -> str:
        """The Python that builds it with serdes ``key`` and ``value``."""
        out = (f'Materialized.as_("{self.name}").with_key_serde({_serde_text(key)})'
               f".with_value_serde({_serde_text(value)})" if self.name
               else f"Materialized.with_({_serde_text(key)}, {_serde_text(value)})")
        if self.store == "in_memory":
            out += '.with_store_type("in_memory")'
        if not self.cache:
            out += ".with_caching_disabled()"
        if not self.logging:
            out += ".with_logging_disabled()"
        return out

    def build(self, key: Any, value: Any) -> Any:
        """The ``Materialized`` object."""
        mat = (ks.Materialized.as_(self.name).with_key_serde(key).with_value_serde(value)
               if self.name else ks.Materialized.with_(key, value))
        if self.store == "in_memory":
            mat = mat.with_store_type("in_memory")
        if not self.cache:
            mat = mat.with_caching_disabled()
        if not self.logging:
            mat = mat.with_logging_disabled()
        return mat


@dataclass(frozen=True)
class Win:
    """``TimeWindows`` of ``size`` with ``grace`` (0: no grace), hopping by ``advance`` when
    set, emitting on window close when ``on_close``."""

    size: int
    grace: int = 0
    advance: int | None = None
    on_close: bool = False
    session: bool = False  # SessionWindows with an inactivity gap of ``size`` instead
    sliding: bool = False  # SlidingWindows with a time difference of ``size`` instead

    def __repr__(self) -> str:
        if self.sliding:
            return (f"SlidingWindows.of_time_difference_and_grace({self.size}, {self.grace})"
                    if self.grace else
                    f"SlidingWindows.of_time_difference_with_no_grace({self.size})")
        if self.session:
            return (f"SessionWindows.of_inactivity_gap_and_grace({self.size}, {self.grace})"
                    if self.grace else
                    f"SessionWindows.of_inactivity_gap_with_no_grace({self.size})")
        out = (f"TimeWindows.of_size_and_grace({self.size}, {self.grace})" if self.grace
               else f"TimeWindows.of_size_with_no_grace({self.size})")
        return out if self.advance is None else f"{out}.advance_by({self.advance})"

    def build(self) -> Any:
        """The ``TimeWindows`` (or ``SessionWindows``, ``SlidingWindows``) object."""
        if self.sliding:
            return (ks.SlidingWindows.of_time_difference_and_grace(self.size, self.grace)
                    if self.grace else ks.SlidingWindows.of_time_difference_with_no_grace(
                        self.size))
        if self.session:
            return (ks.SessionWindows.of_inactivity_gap_and_grace(self.size, self.grace)
                    if self.grace else ks.SessionWindows.of_inactivity_gap_with_no_grace(
                        self.size))
        out = (ks.TimeWindows.of_size_and_grace(self.size, self.grace) if self.grace
               else ks.TimeWindows.of_size_with_no_grace(self.size))
        return out if self.advance is None else out.advance_by(self.advance)


@dataclass(frozen=True)
class Op:
    """One statement: ``dst = src[0].<kind>(..., args)`` (see ``Program.render_op``)."""

    kind: str
    dst: tuple[str, ...]
    src: tuple[str, ...] = ()
    args: tuple[Any, ...] = ()


def _serde_text(name: str) -> str:
    """A serde name of the spec (``S``, ``L``, ``V``, ``W<size>``) as the program prints it."""
    if name == "SW":
        return "SessionWindowed(S)"
    return f"TimeWindowed(S, {name[1:]})" if name.startswith("W") else name


@dataclass
class Program:
    """A DSL program over values of ``codec`` (``"json"``, ``"user"`` or ``"str"``)."""

    codec: str
    ops: list[Op] = field(default_factory=list)

    def topics(self) -> list[str]:
        """The topics it reads, in the order it subscribes to them."""
        return [op.args[0] for op in self.ops if op.kind in ("stream", "table", "global")]

    def __repr__(self) -> str:
        shown = {"json": "Json()", "user": "from_functions(json dumps, json loads)"}
        lines = [f"# codec {self.codec}: V = {shown.get(self.codec, 'String()')}"]
        lines += [self.render_op(op) for op in self.ops]
        return "\n".join(lines)

    def render_op(self, op: Op) -> str:
        """One statement as Python."""
        a = op.args
        x = op.src[0] if op.src else "builder"
        lhs = f"{', '.join(op.dst)} = " if op.dst else ""
        kind = op.kind
        if kind in ("stream", "table", "global"):
            method = {"stream": "stream", "table": "table", "global": "global_table"}[kind]
            extra = f", {a[1].render('S', 'V')}" if kind == "table" else ""
            call = f'builder.{method}("{a[0]}", Consumed.with_(S, V){extra})'
        elif kind in ("map_values", "flat_map_values"):
            mat = f", {a[2].render(a[3], a[4])}" if len(a) > 2 else ""
            call = f"{x}.{kind}({a[0]!r}{mat}{', with_key=True' if a[1] else ''})"
        elif kind in ("peek", "foreach"):
            call = f'{x}.{kind}(record("{a[0]}"))'
        elif kind == "print":
            call = f'{x}.print_(Printed.to_sys_out().with_label("{a[0]}"))'
        elif kind == "split":
            branches = "".join(f".branch({p!r})" for p in a[0])
            end = ".default_branch()" if a[1] else ".no_default_branch()"
            call = f"{x}.split(){branches}{end}.values()"
        elif kind == "merge":
            call = f"{x}.merge({op.src[1]})"
        elif kind == "repartition":
            call = f"{x}.repartition(Repartitioned.with_({_serde_text(a[0])}, {a[1]}))"
        elif kind == "to":
            call = f'{x}.to("{a[0]}", Produced.with_({_serde_text(a[1])}, {a[2]}))'
        elif kind == "to_extractor":
            call = f"{x}.to({a[0]!r}, Produced.with_({_serde_text(a[1])}, {a[2]}))"
        elif kind == "group":
            call = self._render_group(x, *a)
        elif kind == "tgroup":
            given = "".join(f"{fn!r}, " for fn in a[2])
            call = (f"{x}.group_by({a[0]!r}, Grouped.with_(S, V)).{a[1]}({given}"
                    f"{a[3].render('S', a[4])})")
        elif kind == "to_table":
            call = f"{x}.to_table({a[0].render('S', a[1])})"
        elif kind == "to_stream":
            call = f"{x}.to_stream()"
        elif kind == "join":
            call = (f"{x}.{'left_join' if a[1] else 'join'}({op.src[1]}, {a[0]!r}, "
                    f"Joined.with_(S, {a[2]}, {a[3]}))")
        elif kind == "gjoin":
            call = f"{x}.{'left_join' if a[2] else 'join'}(g, {a[0]!r}, {a[1]!r})"
        elif kind == "sjoin":
            stores = f".with_dsl_store_suppliers({a[6]!r})" if a[6] else ""
            logs = "" if a[7] else ".with_logging_disabled()"
            call = (f"{x}.{a[2]}({op.src[1]}, {a[0]!r}, JoinWindows.of_time_difference_and_"
                    f"grace({a[4]}, {a[5]}).before({a[3]}), StreamJoined.with_(S, {a[1]}, V)"
                    f"{stores}{logs})")
        elif kind == "suppress":
            call = f"{x}.suppress({_suppressed_text(*a)})"
        elif kind == "tjoin":
            mat = "" if a[2] is None else f", {a[2].render('S', 'V')}"
            call = f"{x}.{a[1]}({op.src[1]}, {a[0]!r}{mat})"
        elif kind in ("filter", "filter_not") and len(a) > 1:  # a table's, materialized
            call = f"{x}.{kind}({a[0]!r}, {a[1].render(a[2], a[3])})"
        else:  # filter, filter_not, map, flat_map, select_key
            call = f"{x}.{kind}({a[0]!r})"
        return lhs + call

    @staticmethod
    def _render_group(x: str, selector: Fn | None, value: str, win: Win | None, agg: str,
                      fns: tuple[Fn, ...], mat: Mat, agg_value: str) -> str:
        grouped = f"Grouped.with_(S, {value})"
        out = (f"{x}.group_by({selector!r}, {grouped})" if selector is not None
               else f"{x}.group_by_key({grouped})")
        if win is not None:
            out += f".windowed_by({win!r})"
            if win.on_close:
                out += ".emit_strategy(EmitStrategy.on_window_close())"
        given = "".join(f"{fn!r}, " for fn in fns)
        return out + f".{agg}({given}{mat.render('S', agg_value)})"

    def build(self, calls: Calls) -> ks.Topology:
        """The topology; ``peek`` / ``foreach`` append what they see to ``calls``."""
        builder = ks.StreamsBuilder()
        found: dict[str, Any] = {}
        codec = self.codec
        sd = {"S": serdes.String(), "L": serdes.Long(), "V": codec_serde(codec)}

        def serde(name: str) -> Any:
            if name == "SW":
                return serdes.SessionWindowed(serdes.String())
            if name.startswith("W"):
                return serdes.TimeWindowed(serdes.String(), int(name[1:]))
            return sd[name]

        for op in self.ops:
            a = op.args
            x = found.get(op.src[0]) if op.src else None
            kind = op.kind
            consumed = ks.Consumed.with_(sd["S"], sd["V"])
            out: Any
            if kind == "stream":
                out = builder.stream(a[0], consumed)
            elif kind == "table":
                out = builder.table(a[0], consumed, a[1].build(sd["S"], sd["V"]))
            elif kind == "global":
                out = builder.global_table(a[0], consumed)
            elif kind in ("map_values", "flat_map_values"):
                mat = a[2].build(serde(a[3]), serde(a[4])) if len(a) > 2 else None
                out = getattr(x, kind)(a[0].bind(codec), with_key=a[1], **(
                    {"materialized": mat} if mat is not None else {}))
            elif kind in ("peek", "foreach"):
                out = getattr(x, kind)(recorder(calls, a[0]))
            elif kind == "print":
                out = x.print_(ks.Printed.to_sys_out().with_label(a[0]))
            elif kind == "split":
                branched = x.split()
                for predicate in a[0]:
                    branched = branched.branch(predicate.bind(codec))
                out = list((branched.default_branch() if a[1]
                            else branched.no_default_branch()).values())
            elif kind == "merge":
                out = x.merge(found[op.src[1]])
            elif kind == "repartition":
                out = x.repartition(ks.Repartitioned.with_(serde(a[0]), serde(a[1])))
            elif kind == "to":
                out = x.to(a[0], ks.Produced.with_(serde(a[1]), serde(a[2])))
            elif kind == "to_extractor":
                out = x.to(a[0].bind(codec), ks.Produced.with_(serde(a[1]), serde(a[2])))
            elif kind == "group":
                out = _build_group(x, codec, serde, *a)
            elif kind == "tgroup":
                grouped = x.group_by(a[0].bind(codec), ks.Grouped.with_(sd["S"], sd["V"]))
                out = getattr(grouped, a[1])(*(fn.bind(codec) for fn in a[2]),
                                             a[3].build(sd["S"], serde(a[4])))
            elif kind == "to_table":
                out = x.to_table(a[0].build(sd["S"], serde(a[1])))
            elif kind == "to_stream":
                out = x.to_stream()
            elif kind == "join":
                method = x.left_join if a[1] else x.join
                out = method(found[op.src[1]], a[0].bind(codec),
                             ks.Joined.with_(sd["S"], serde(a[2]), serde(a[3])))
            elif kind == "gjoin":
                method = x.left_join if a[2] else x.join
                out = method(found["g"], a[0].bind(codec), a[1].bind(codec))
            elif kind == "sjoin":
                out = _build_stream_join(x, found[op.src[1]], codec, serde, *a)
            elif kind == "suppress":
                out = x.suppress(_suppressed(*a))
            elif kind == "tjoin":
                out = getattr(x, a[1])(found[op.src[1]], a[0].bind(codec), *(
                    [] if a[2] is None else [a[2].build(sd["S"], sd["V"])]))
            elif kind in ("filter", "filter_not") and len(a) > 1:  # a table's, materialized
                out = getattr(x, kind)(a[0].bind(codec), a[1].build(serde(a[2]), serde(a[3])))
            else:
                out = getattr(x, kind)(a[0].bind(codec))
            if len(op.dst) == 1:
                found[op.dst[0]] = out
            elif op.dst:
                found.update(zip(op.dst, out, strict=True))
        return builder.build()


def _suppressed(final: bool, wait: int, bound: tuple[str, int] | None, logging: bool) -> Any:
    """``Suppressed.until_window_closes`` or ``until_time_limit(wait)``, its buffer bounded
    (``("records" | "bytes", n)``, emitting early when full; a final one shuts down) or not,
    its changelog on or off."""
    buffer = ks.BufferConfig.unbounded() if bound is None else (
        ks.BufferConfig.max_records(bound[1]) if bound[0] == "records"
        else ks.BufferConfig.max_bytes(bound[1]))
    if not logging:
        buffer = buffer.with_logging_disabled()
    return (ks.Suppressed.until_window_closes(buffer) if final
            else ks.Suppressed.until_time_limit(wait, buffer))


def _suppressed_text(final: bool, wait: int, bound: tuple[str, int] | None,
                     logging: bool) -> str:
    """``_suppressed``'s argument as Python."""
    buffer = "BufferConfig.unbounded()" if bound is None else f"BufferConfig.max_{bound[0]}" \
        f"({bound[1]})"
    buffer += "" if logging else ".with_logging_disabled()"
    return (f"Suppressed.until_window_closes({buffer})" if final
            else f"Suppressed.until_time_limit({wait}, {buffer})")


def _build_stream_join(x: Any, other: Any, codec: str, serde: Callable[[str], Any],
                       joiner: Fn, value: str, kind: str, before: int, after: int, grace: int,
                       stores: str | None, logging: bool) -> Any:
    """``x.join / left_join / outer_join(other, joiner, JoinWindows, StreamJoined)``."""
    windows = ks.JoinWindows.of_time_difference_and_grace(after, grace).before(before)
    joined = ks.StreamJoined.with_(serde("S"), serde(value), serde("V"))
    if stores:
        joined = joined.with_dsl_store_suppliers(stores)
    if not logging:
        joined = joined.with_logging_disabled()
    return getattr(x, kind)(other, joiner.bind(codec), windows, joined)


def _build_group(x: Any, codec: str, serde: Callable[[str], Any], selector: Fn | None,
                 value: str, win: Win | None, agg: str, fns: tuple[Fn, ...], mat: Mat,
                 agg_value: str) -> Any:
    """``group_by`` / ``group_by_key``, ``windowed_by``, then the aggregation."""
    grouped = ks.Grouped.with_(serde("S"), serde(value))
    out = (x.group_by(selector.bind(codec), grouped) if selector is not None
           else x.group_by_key(grouped))
    if win is not None:
        out = out.windowed_by(win.build())
        if win.on_close:
            out = out.emit_strategy(ks.EmitStrategy.on_window_close())
    bound = [fn.bind(codec) for fn in fns]
    return getattr(out, agg)(*bound, mat.build(serde("S"), serde(agg_value)))
