"""The JDK collection orders that Kafka's describe() text depends on, reproduced for byte identity.

Kafka prints a source's topics and a processor's stores in ``java.util.HashSet`` order, walks the
nodes of a sub-topology in ``HashMap`` order while it sizes them, and prints predecessors and
successors in the in-order walk of a ``java.util.TreeSet`` whose sort keys change while it is
filled. Invariant: every function here yields exactly the order the JDK 17 collection iterates
in (string hashes, table growth, red-black rebalancing), so nothing else needs to know about Java.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

__all__ = ["TreeSetOrder", "copy_capacity", "hash_set_order", "java_string_hash", "utf16_key"]

T = TypeVar("T")

_TREEIFY_THRESHOLD = 8  # a bin this long grows the table instead, while the table is small
_MIN_TREEIFY_CAPACITY = 64


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` over UTF-16 code units, as an unsigned 32-bit int."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def utf16_key(text: str) -> bytes:
    """A sort key that orders strings as Java's ``String.compareTo`` does (by UTF-16 unit)."""
    return text.encode("utf-16-be")


def copy_capacity(size: int) -> int:
    """Initial capacity JDK 17's ``new HashSet<>(collection)`` asks for, given its size."""
    return max(int(size / 0.75) + 1, 16)


def hash_set_order(items: Iterable[str], initial_capacity: int = 16) -> list[str]:
    """The iteration order of a ``HashSet<String>`` filled with ``items`` in the order given.

    Within a bucket Java keeps insertion order (resizes split buckets stably), so the order is
    (bucket index in the final table, insertion index). Bins treeified in tables of 64 or more
    (nine colliding names) are not modelled.
    """
    capacity = _table_size_for(initial_capacity)
    keys: list[str] = []
    spread: list[int] = []
    seen: set[str] = set()
    bins: dict[int, int] = {}
    for key in items:
        if key in seen:
            continue
        seen.add(key)
        h = java_string_hash(key)
        keys.append(key)
        spread.append(h ^ (h >> 16))
        index = spread[-1] & (capacity - 1)
        bins[index] = bins.get(index, 0) + 1
        if bins[index] > _TREEIFY_THRESHOLD and capacity < _MIN_TREEIFY_CAPACITY:
            capacity *= 2
            bins = _bin_sizes(spread, capacity)
        if len(keys) > capacity * 3 // 4:
            capacity *= 2
            bins = _bin_sizes(spread, capacity)
    mask = capacity - 1
    order = sorted(range(len(keys)), key=lambda i: (spread[i] & mask, i))
    return [keys[i] for i in order]


def _table_size_for(capacity: int) -> int:
    size = 1
    while size < capacity:
        size *= 2
    return size


def _bin_sizes(spread: list[int], capacity: int) -> dict[int, int]:
    bins: dict[int, int] = {}
    for h in spread:
        bins[h & (capacity - 1)] = bins.get(h & (capacity - 1), 0) + 1
    return bins


class _Entry(Generic[T]):
    __slots__ = ("key", "left", "parent", "red", "right")

    def __init__(self, key: T, parent: _Entry[T] | None) -> None:
        self.key = key
        self.parent = parent
        self.left: _Entry[T] | None = None
        self.right: _Entry[T] | None = None
        self.red = False


class TreeSetOrder(Generic[T]):
    """A ``java.util.TreeSet``'s red-black insertion and in-order walk, for a changing comparator.

    When the comparator's answers change after an element was inserted (Kafka's node sizes grow
    while the sets fill), the walk depends on the exact tree shape, so the rebalancing is Java's.
    """

    def __init__(self, compare: Callable[[T, T], int]) -> None:
        self._compare = compare
        self._root: _Entry[T] | None = None

    def add(self, key: T) -> bool:
        """Insert ``key`` unless the search path meets an equal element; True when inserted."""
        node = self._root
        if node is None:
            self._root = _Entry(key, None)
            return True
        while True:
            cmp = self._compare(key, node.key)
            if cmp == 0:
                return False
            child = node.left if cmp < 0 else node.right
            if child is None:
                entry = _Entry(key, node)
                if cmp < 0:
                    node.left = entry
                else:
                    node.right = entry
                self._rebalance(entry)
                return True
            node = child

    def __iter__(self) -> Iterator[T]:
        stack: list[_Entry[T]] = []
        node = self._root
        while stack or node is not None:
            while node is not None:
                stack.append(node)
                node = node.left
            node = stack.pop()
            yield node.key
            node = node.right

    def _rebalance(self, x: _Entry[T]) -> None:
        # java.util.TreeMap.fixAfterInsertion; a missing node counts as black.
        x.red = True
        while x is not self._root and x.parent is not None and x.parent.red:
            parent = x.parent
            grand = parent.parent
            if grand is None:
                break
            if parent is grand.left:
                uncle = grand.right
                if uncle is not None and uncle.red:
                    parent.red, uncle.red, grand.red = False, False, True
                    x = grand
                    continue
                if x is parent.right:
                    x = parent
                    self._rotate_left(x)
                self._recolor_and_rotate(x, self._rotate_right)
            else:
                uncle = grand.left
                if uncle is not None and uncle.red:
                    parent.red, uncle.red, grand.red = False, False, True
                    x = grand
                    continue
                if x is parent.left:
                    x = parent
                    self._rotate_right(x)
                self._recolor_and_rotate(x, self._rotate_left)
        assert self._root is not None
        self._root.red = False

    @staticmethod
    def _recolor_and_rotate(x: _Entry[T], rotate: Callable[[_Entry[T]], None]) -> None:
        parent = x.parent
        assert parent is not None and parent.parent is not None
        parent.red = False
        parent.parent.red = True
        rotate(parent.parent)

    def _rotate_left(self, p: _Entry[T]) -> None:
        r = p.right
        assert r is not None
        p.right = r.left
        if r.left is not None:
            r.left.parent = p
        self._replace_child(p, r)
        r.left = p
        p.parent = r

    def _rotate_right(self, p: _Entry[T]) -> None:
        left = p.left
        assert left is not None
        p.left = left.right
        if left.right is not None:
            left.right.parent = p
        self._replace_child(p, left)
        left.right = p
        p.parent = left

    def _replace_child(self, old: _Entry[T], new: _Entry[T]) -> None:
        new.parent = old.parent
        if old.parent is None:
            self._root = new
        elif old.parent.left is old:
            old.parent.left = new
        else:
            old.parent.right = new
