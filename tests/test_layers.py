"""kslab's layers: every module imports only from its own layer or a lower one.

The layers, from the bottom (the rule lives in ``LAYERS`` and ``PACKAGES`` below, nowhere else):

    foundation   records, errors, config, serdes, sensors
    contracts    topology, processor, state
    dsl | core   siblings that never import each other: the DSL lowers to a topology, the
                 core runs any topology
    engines      testing, runtime, spark: the core and below, never the DSL, never each other
    front ends   notebook, export, cli, widgets and the ``kslab`` package itself (its
                 ``__init__`` gathers the public API from every layer); its ``__version__``
                 alone is in the foundation

Every ``import`` and ``from ... import`` anywhere in a module counts: at the top, inside
functions (lazy imports), and under ``if TYPE_CHECKING:``. A type-only edge still tells a reader
that the lower layer knows the higher one, and a forward reference can always be avoided with a
Protocol in the lower layer or a string annotation; so no edge is excused for being type-only.
``importlib.import_module("kslab....")`` with a literal name counts as an import too.

Within a layer, modules import each other freely, except in the layers marked ``isolated``,
where each package stands alone; below the front ends, two packages of one layer never import
each other both ways (the config and the serdes once did), so every package has a place in an
order. Import cycles inside one package (mutually referring handles, ``TYPE_CHECKING``
annotations) are the package's own business.

No edge is excepted: the last ones (the bulk path's imports of DSL classes) went with issue 19,
when the core started asking a processor for its batch form instead of looking at its class.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import kslab

ROOT = Path(kslab.__file__).parent


@dataclass(frozen=True)
class Layer:
    """One layer: its rank (higher imports lower) and whether its packages stand alone."""

    name: str
    rank: int
    isolated: bool = False


FOUNDATION = Layer("foundation", 0)
CONTRACTS = Layer("contracts", 1)
DSL = Layer("dsl", 2)
CORE = Layer("core", 2)
ENGINES = Layer("engines", 3, isolated=True)
FRONT_ENDS = Layer("front ends", 4)

LAYERS = (FOUNDATION, CONTRACTS, DSL, CORE, ENGINES, FRONT_ENDS)

# The one table: each top-level name of the package, and its layer.
PACKAGES: dict[str, Layer] = {
    "kslab.records": FOUNDATION,
    "kslab.errors": FOUNDATION,
    "kslab.config": FOUNDATION,
    "kslab.serdes": FOUNDATION,
    "kslab.sensors": FOUNDATION,
    "kslab.topology": CONTRACTS,
    "kslab.processor": CONTRACTS,
    "kslab.state": CONTRACTS,
    "kslab.dsl": DSL,
    "kslab.core": CORE,
    "kslab.testing": ENGINES,
    "kslab.runtime": ENGINES,
    "kslab.spark": ENGINES,
    "kslab.notebook": FRONT_ENDS,
    "kslab.export": FRONT_ENDS,
    "kslab.cli": FRONT_ENDS,
    "kslab.widgets": FRONT_ENDS,
    "kslab": FRONT_ENDS,
    # the one name of the root any layer may read: Spark's worker check compares versions
    "kslab.__version__": FOUNDATION,
}

@dataclass(frozen=True)
class Edge:
    """One import: ``source`` imports ``target`` at ``line``."""

    source: str
    target: str
    line: int

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line})"


def module_names() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__``)."""
    names = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("kslab", *path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


MODULES = module_names()


def package_of(module: str, path: Path) -> str:
    """The package a module's relative imports start from."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imported(node: ast.AST, module: str, path: Path) -> list[str]:
    """The kslab modules one node imports (none when it is not an import of kslab)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = package_of(module, path).split(".")
            anchor = anchor[: len(anchor) - node.level + 1]
            base = ".".join([*anchor, base] if base else anchor)
        # ``from kslab import serdes`` imports the module kslab.serdes, not the package kslab;
        # ``from kslab import __version__`` reads a name the table places on its own.
        names = [f"{base}.{alias.name}" for alias in node.names]
        known = [name for name in names if name in MODULES or name in PACKAGES]
        return known if len(known) == len(names) else [base, *known]
    if (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


@cache
def edges() -> tuple[Edge, ...]:
    """Every import of a kslab module by a kslab module, anywhere in its file."""
    found = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for target in imported(node, module, path):
                if target == "kslab" or target.startswith("kslab."):
                    found.append(Edge(module, target, node.lineno))
    return tuple(sorted(found, key=lambda edge: (edge.source, edge.line, edge.target)))


def top_package(module: str) -> str:
    """The entry of ``PACKAGES`` a module belongs to (its longest matching prefix)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in PACKAGES:
            return name
    msg = f"module '{module}' is in no layer; add its package to PACKAGES in tests/test_layers.py"
    raise AssertionError(msg)


def allowed(source: str, target: str) -> bool:
    """Whether the layers let ``source`` import ``target``."""
    source_package, target_package = top_package(source), top_package(target)
    if source_package == target_package:
        return True
    low, high = PACKAGES[target_package], PACKAGES[source_package]
    if low.rank != high.rank:
        return low.rank < high.rank
    return low is high and not low.isolated


def forbidden() -> list[Edge]:
    """Every edge the layers forbid."""
    return [edge for edge in edges() if not allowed(edge.source, edge.target)]


def describe(edge: Edge) -> str:
    source, target = top_package(edge.source), top_package(edge.target)
    return f"{edge} [{PACKAGES[source].name} {source} imports {PACKAGES[target].name} {target}]"


def test_every_module_has_a_layer():
    for module in MODULES:
        assert PACKAGES[top_package(module)] in LAYERS


def test_modules_import_only_their_own_layer_or_below():
    bad = forbidden()
    assert not bad, "imports against the layers:\n" + "\n".join(map(describe, bad))


def package_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of a package graph: each package that reaches itself, with the way back."""
    cycles = []
    for start in sorted(graph):
        paths = [[start]]
        seen = set()
        while paths:
            path = paths.pop()
            for target in sorted(graph.get(path[-1], ())):
                if target == start:
                    cycles.append([*path, start])
                elif target not in seen:
                    seen.add(target)
                    paths.append([*path, target])
    return cycles


def test_packages_below_the_front_ends_import_each_other_one_way():
    graph: dict[str, set[str]] = {}
    for edge in edges():
        source, target = top_package(edge.source), top_package(edge.target)
        if source != target and PACKAGES[source] is not FRONT_ENDS:
            graph.setdefault(source, set()).add(target)
    cycles = [" -> ".join(cycle) for cycle in package_cycles(graph)]
    assert not cycles, "packages that import each other:\n" + "\n".join(cycles)


def test_the_walk_sees_lazy_type_only_and_relative_imports():
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import _aggregates\n"
        "from ..core import task\n"
        "if TYPE_CHECKING:\n"
        "    from kslab.testing.driver import TopologyTestDriver\n"
        "def draw():\n"
        "    import kslab.notebook.display\n"
        "    importlib.import_module('kslab.runtime')\n"
    )
    path = ROOT / "dsl" / "kstream.py"
    found = {
        target
        for node in ast.walk(ast.parse(source))
        for target in imported(node, "kslab.dsl.kstream", path)
    }
    assert {
        "kslab.dsl._aggregates",
        "kslab.core.task",
        "kslab.testing.driver",
        "kslab.notebook.display",
        "kslab.runtime",
    } <= found
    assert imported(ast.parse("from kslab import __version__").body[0], "kslab.spark._workers",
                    ROOT / "spark" / "_workers.py") == ["kslab.__version__"]
    assert imported(ast.parse("from kslab import Topology").body[0], "kslab.spark._workers",
                    ROOT / "spark" / "_workers.py") == ["kslab"]
    assert not allowed("kslab.dsl.kstream", "kslab.core.task")
    assert not allowed("kslab.runtime._iq", "kslab.testing.driver")
    assert allowed("kslab.spark._plan", "kslab.core.topic_plan")
    assert allowed("kslab.notebook.display", "kslab.dsl.kstream")
