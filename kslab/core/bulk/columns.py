"""Serialized columns of a bulk chunk: fields laid out once for every log that appends them."""

from __future__ import annotations

from array import array
from itertools import accumulate, islice, repeat
from operator import add, itemgetter, le
from operator import is_ as operator_is
from typing import Any, NamedTuple

from kslab.serdes._base import JoinedFields, fixed_struct

__all__ = ["ByteColumn", "LogBatch", "Merges", "fixed_width", "merged", "picked", "sort_order"]


class ByteColumn:
    """The serialized keys or values (``bytes``, ``None`` for a null) of a run of records, laid
    out once however many logs append them: a store's key and value bytes go to its changelog
    and to a sink's topic, a repartition's words are its keys and its values. ``width``: every field
    is that many bytes (a fixed-width serde's, see ``fixed_width``), so no length is measured."""

    __slots__ = ("_layout", "_width", "dictionaries", "fields", "read_back")

    def __init__(self, fields: list[Any], width: int | None = None,
                 dictionaries: list[tuple[int, list[bytes], list[int]]] | None = None,
                 read_back: tuple[type, list[Any]] | None = None) -> None:
        self.fields = fields
        self._layout: tuple[bytes, Any, int, int] | None = None
        self._width = width
        # runs of fields drawn from a few distinct ones (an aggregation's keys): (where the run
        # starts in the column, the distinct fields, each field's index among them), so a
        # log can read them back without slicing each (RecordLog's key dictionaries)
        self.dictionaries = dictionaries
        # (a serde class, what its deserialize returns for each field): fresh objects no
        # other code holds, made as the fields were written (a sink's ``Json`` values,
        # ``Json.read_back_column``), which the one log that appends the column may hand its
        # reader instead of decoding the fields (``RecordLog``'s read-back runs)
        self.read_back = read_back

    @property
    def width(self) -> int | None:
        """The width every field was declared to have (``fixed_width``), or ``None``."""
        return self._width

    def layout(self) -> tuple[bytes, Any, int, int] | None:
        """``(the fields back to back, each field's length, shortest and longest field)``, all
        computed in C (the lengths of a long column in a numpy array: no Python int per
        field; ``None`` for a column of ``width``); ``None`` when a field is ``None`` (or
        there are none)."""
        layout = self._layout
        if layout is None and self.fields:
            fields = self.fields
            if fields.__class__ is JoinedFields:  # laid out as they were cut
                lengths = fields.lengths  # type: ignore[attr-defined]
                layout = self._layout = (fields.joined(), lengths,  # type: ignore[attr-defined]
                                         int(lengths.min()), int(lengths.max()))
                return layout
            count = len(fields)
            try:  # len(None) raises: no layout
                width = self._width
                if width is not None:
                    joined = b"".join(fields)
                    if len(joined) == width * count:
                        layout = self._layout = (joined, None, width, width)
                        return layout
                if count >= _NUMPY_FROM:
                    lengths = _numpy().fromiter(map(len, fields), _numpy().int64, count)
                    shortest, longest = int(lengths.min()), int(lengths.max())
                else:
                    lengths = list(map(len, fields))
                    shortest, longest = min(lengths), max(lengths)
            except TypeError:
                return None
            layout = self._layout = (b"".join(fields), lengths, shortest, longest)
        return layout

    def extend_ends(self, ends: array, position: int) -> None:
        """Append each field's end offset, counted from ``position`` (where the first field
        starts), to ``ends`` (an ``array("q")``); the column has a ``layout``."""
        _, lengths, width, _ = self.layout()  # type: ignore[misc]
        if lengths is None:  # every field ``width`` bytes
            ends.extend(range(position + width, position + width * len(self.fields) + 1, width))
        elif lengths.__class__ is list:
            offsets = accumulate(lengths, initial=position)
            next(offsets)  # the position itself
            ends.extend(offsets)
        else:  # native int64, the array's own layout: one copy
            offsets = lengths.cumsum()
            offsets += position
            ends.frombytes(offsets.tobytes())


def fixed_width(serde: Any) -> int | None:
    """The width of every field a built-in fixed-width serde writes, else ``None``."""
    found = fixed_struct(serde)
    return None if found is None else found.size  # type: ignore[no-any-return]


_NUMPY_FROM = 64  # columns at least this long lay their lengths out with numpy
_NP: Any = None


def _numpy() -> Any:
    """numpy, imported at the first long column (importing kslab does not need it)."""
    global _NP
    if _NP is None:
        import numpy

        _NP = numpy
    return _NP


class LogBatch(NamedTuple):
    """Records for one topic's log, as columns (partition 0): what ``extend_columns`` takes."""

    keys: ByteColumn | list[Any]
    values: ByteColumn | list[Any]
    headers: list[Any] | None  # None: no record has headers
    timestamps: list[int]

    @classmethod
    def of_rows(cls, rows: list[tuple[Any, ...]]) -> LogBatch:
        """The batch of ``(key, value, headers, timestamp, partition 0)`` rows."""
        if not rows:
            return cls([], [], None, [])
        keys, values, headers, timestamps, _ = map(list, zip(*rows, strict=True))
        return cls(keys, values, headers, timestamps)


def picked(column: list[Any], indexes: list[int]) -> list[Any]:
    """The items of ``column`` at ``indexes``, in that order, gathered in one C call (a
    column put in another order: merged tasks' outputs, a reader's share of a chunk)."""
    if len(indexes) == 1:
        return [column[indexes[0]]]
    return list(itemgetter(*indexes)(column)) if indexes else []


def merged(columns: list[Any], order: list[int] | None) -> ByteColumn | list[Any]:
    """The fields of ``columns`` (``ByteColumn``s or lists) one after another, put in
    ``order`` (indexes into that concatenation; ``None``: as they are), as one column that
    keeps what the parts declared: a width they all share (no length measured per field when
    it is laid out) and, where every part is one key dictionary over all its fields, one
    dictionary over the merged fields (a log then reads the distinct keys back once,
    ``ByteColumn.dictionaries``), and the read-back objects where every part has them of
    one serde class (``ByteColumn.read_back``). Plain lists where no part is a
    ``ByteColumn``."""
    fields: list[Any] = []
    for column in columns:
        fields += column.fields if column.__class__ is ByteColumn else column
    if order is not None:
        fields = picked(fields, order)
    parts = [column for column in columns if column.__class__ is ByteColumn]
    if not parts:
        return fields
    widths = {column.width for column in columns if column.__class__ is ByteColumn}
    width = widths.pop() if len(parts) == len(columns) and len(widths) == 1 else None
    dictionaries = None
    if len(parts) == len(columns) and all(
            column.dictionaries is not None and len(column.dictionaries) == 1
            and column.dictionaries[0][0] == 0
            and len(column.dictionaries[0][2]) == len(column.fields) for column in parts):
        distinct: list[bytes] = []
        ids: list[int] = []
        for column in parts:
            _, words, their_ids = column.dictionaries[0]  # type: ignore[index]
            ids += their_ids if not distinct else map(add, their_ids, repeat(len(distinct)))
            distinct += words
        dictionaries = [(0, distinct, ids if order is None else picked(ids, order))]
    return ByteColumn(fields, width, dictionaries, _read_back(columns, order))


def _read_back(columns: list[Any], order: list[int] | None) -> tuple[type, list[Any]] | None:
    """``merged``'s read-back objects: the parts' one after another, put in ``order``, where
    every part is a ``ByteColumn`` with objects of one serde class; else ``None``."""
    found = [column.read_back if column.__class__ is ByteColumn else None
             for column in columns]
    if None in found or len({kind for kind, _ in found}) != 1:  # type: ignore[misc]
        return None
    objects: list[Any] = []
    for _, part in found:  # type: ignore[misc]
        objects += part
    return found[0][0], objects if order is None else picked(objects, order)  # type: ignore[index]


def sort_order(sort_keys: list[Any]) -> list[int] | None:
    """The stable order of ``sort_keys`` as indexes (``None``: they are in order already):
    int keys sorted in numpy (a merge of a few runs, no Python key call per item), others
    by ``sorted``."""
    if all(map(le, sort_keys, islice(sort_keys, 1, None))):
        return None
    count = len(sort_keys)
    if count >= _NUMPY_FROM and sort_keys[0].__class__ is int:
        np = _numpy()
        try:
            keys = np.fromiter(sort_keys, np.int64, count)
        except (TypeError, ValueError, OverflowError):
            pass
        else:
            return np.argsort(keys, kind="stable").tolist()  # type: ignore[no-any-return]
    return sorted(range(count), key=sort_keys.__getitem__)


class Merges:
    """What one chunk's merges of several tasks' records share, so each is worked out once:
    the order of equal lists of sort keys (a sink's records and its store's changelog records
    descend from the same consumed records) and the merged column of the same parts put in
    the same order (a repartition's keys that are also its values, a store's key bytes that
    go to a sink's topic and to the changelog: one column, laid out once for every log)."""

    __slots__ = ("_columns", "_orders")

    def __init__(self) -> None:
        self._orders: list[tuple[list[Any], list[int] | None]] = []
        # (id of each part's fields, id of the order) -> (the parts' fields, order, column)
        self._columns: dict[tuple[int, ...], tuple[list[Any], Any, Any]] = {}

    def seed(self, sort_keys: list[Any], order: list[int] | None) -> None:
        """Take ``order`` as ``sort_order(sort_keys)`` (the stable order of ``sort_keys``,
        ``None`` where they are in order, worked out by the caller: the sort keys of the
        readers' records of a repartition topic, which their sinks and changelogs merge by
        when each sends one record per record read)."""
        self._orders.append((sort_keys, order))

    def order(self, sort_keys: list[Any]) -> list[int] | None:
        """``sort_order(sort_keys)``, the same list for equal sort keys."""
        for keys, order in self._orders:
            if len(keys) == len(sort_keys) and keys == sort_keys:
                return order
        order = sort_order(sort_keys)
        self._orders.append((sort_keys, order))
        return order

    def column(self, columns: list[Any], order: list[int] | None) -> ByteColumn | list[Any]:
        """``merged(columns, order)``, the same column for the same parts (their fields the
        same lists) in the same order."""
        parts = [column.fields if column.__class__ is ByteColumn else column
                 for column in columns]
        key = (*map(id, parts), id(order))
        found = self._columns.get(key)
        if found is not None and found[1] is order and all(
                map(operator_is, found[0], parts)):
            return found[2]  # type: ignore[no-any-return]
        column = merged(columns, order)
        self._columns[key] = (parts, order, column)
        return column
