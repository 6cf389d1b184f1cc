"""The exception tree drawn in ``kslab.errors``' docstring names every exception class kslab
defines, each under its actual first base, so a reader can trust it.

kslab's exceptions are found by importing every module of the package and walking
``BaseException``'s subclasses for those whose ``__module__`` is kslab's (nested classes
included). An entry of the tree is a ``├── Name`` or ``└── Name`` line (its depth is where the
connector starts) with the lines under it that have no connector; its parent is the entry one
level up, and the root is Python's ``Exception``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass

import kslab
import kslab.errors

ENTRY = re.compile(r"^(?P<guides>(?:│   |    )*)[├└]── (?P<name>\w+)\b(?P<text>.*)$")
INDENT = 4  # the docstring's tree is indented by four spaces
ROOT = "Exception"


@dataclass
class Entry:
    name: str
    parent: str
    text: str = ""


def kslab_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class defined in a kslab module, by name."""
    for module in pkgutil.walk_packages(kslab.__path__, "kslab."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: dict[str, type[BaseException]] = {}
    stack: list[type[BaseException]] = [BaseException]
    seen: set[type[BaseException]] = set()
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        stack.extend(cls.__subclasses__())
        if cls.__module__ == "kslab" or cls.__module__.startswith("kslab."):
            other = found.setdefault(cls.__name__, cls)
            assert other is cls, (f"two exception classes named {cls.__name__} "
                                  f"({other.__module__}, {cls.__module__}); the tree names "
                                  "classes by name, so rename one")
    return found


def drawn_tree() -> dict[str, Entry]:
    """The entries of the tree in ``kslab.errors.__doc__``, by name."""
    lines = kslab.errors.__doc__.splitlines()
    root_line = " " * INDENT + ROOT
    assert root_line in lines, f"the tree's root line {root_line.strip()!r} is missing"
    block = lines[lines.index(root_line) + 1:]
    block = block[:block.index("")] if "" in block else block
    entries: dict[str, Entry] = {}
    path: list[str] = [ROOT]  # path[d] is the last entry seen at depth d
    current: Entry | None = None
    for line in block:
        assert line.startswith(" " * INDENT), f"tree line not indented: {line!r}"
        match = ENTRY.match(line[INDENT:])
        if match is None:  # a continuation of the entry above
            assert current is not None, f"text before the first entry: {line!r}"
            current.text += " " + line.strip(" │")
            continue
        depth = len(match["guides"]) // 4 + 1
        assert depth <= len(path), f"{match['name']} is indented past its parent: {line!r}"
        del path[depth:]
        current = Entry(match["name"], path[depth - 1], match["text"].strip())
        assert current.name not in entries, f"{current.name} is drawn twice"
        entries[current.name] = current
        path.append(current.name)
    return entries


def test_the_tree_names_every_exception_class_under_its_base():
    classes = kslab_exceptions()
    tree = drawn_tree()
    assert "KslabError" in classes and "ExportError" in classes  # the walk reaches subpackages
    missing = sorted(set(classes) - set(tree))
    assert not missing, f"add to kslab/errors.py's docstring tree: {missing}"
    stale = sorted(set(tree) - set(classes))
    assert not stale, f"the tree names classes kslab no longer defines: {stale}"
    for name, cls in classes.items():
        entry = tree[name]
        first, *others = cls.__bases__
        assert entry.parent == first.__name__, (
            f"{name} is drawn under {entry.parent}; its first base is {first.__name__}")
        for base in others:
            assert "also" in entry.text and re.search(rf"\b{base.__name__}\b", entry.text), (
                f"{name}'s entry should say it is also a {base.__name__}: {entry.text!r}")
        if cls.__module__ != "kslab.errors":
            assert cls.__module__ in entry.text, (
                f"{name}'s entry should name its module {cls.__module__}: {entry.text!r}")


def test_the_parser_reads_depth_parents_and_continuations():
    tree = drawn_tree()
    assert tree["KslabError"].parent == ROOT
    assert tree["SerdeError"].parent == "KslabError"
    assert tree["DeserializationError"].parent == "_RecordSerdeError"
    assert tree["CliError"].parent == ROOT
    assert "kslab.cli._common" in tree["CliError"].text  # read from its second line
