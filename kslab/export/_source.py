"""The exported ``topology.py``: the notebook's cells inside ``build_topology()``.

The topology is the value of one top-level variable: the one named by the caller, else the
last name bound in a cell tagged ``topology``, else the last name bound to something that
makes a topology (``StreamsBuilder(...)``, ``Topology(...)`` and calls chained on them, or
``....build(...)``). Cells after the one that binds it are how the notebook *uses* the
topology (driving, promoting) and are left out. Invariant: the cells run in their notebook
order inside one function, so later cells see earlier names exactly as in the notebook;
only top-level imports move to the module head.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from kslab.export._cells import ExportCell, describe_cell
from kslab.export._errors import ExportError
from kslab.export._scrub import SECRET_HELPER, Secret, strip_samples, strip_secrets

__all__ = ["TopologySource", "render_topology"]

_BUILT, _BUILDER = "built", "builder"
_INDENT = "    "
_NOTEBOOK_ONLY = "(notebook only)"
_SECRET_FUNCTION = [
    f"def {SECRET_HELPER}(variable: str) -> str:",
    '    """A credential the notebook held inline, read from the environment (see README.md)."""',
    "    value = _os.environ.get(variable)",
    "    if value is None:",
    '        _warnings.warn(f"{variable} is not set; the credential it stands for is empty",',
    "                       stacklevel=2)",
    '        return ""',
    "    return value",
    "",
    "",
]


@dataclass
class TopologySource:
    """``topology.py``'s text, the variable it returns and which cells it holds."""

    variable: str
    cells: list[ExportCell]
    left_out: list[ExportCell]
    text: str = ""
    imports: list[str] = field(default_factory=list)  # the cells' imports, moved to the top
    line_map: list[tuple[int, int, int]] = field(default_factory=list)  # (first, last, cell)
    sample_cells: list[int] = field(default_factory=list)  # cells whose sample data was cut
    secrets: list[Secret] = field(default_factory=list)  # literal credentials, now variables

    def cell_at(self, line: int) -> int | None:
        """The notebook cell number that generated line ``line`` of ``topology.py``."""
        return next((cell for first, last, cell in self.line_map if first <= line <= last), None)


def render_topology(cells: list[ExportCell], notebook: str,
                    variable: str | None = None) -> TopologySource:
    """Pick the topology variable, cut the cells after it and render ``topology.py``."""
    if not cells:
        msg = (f"{notebook} has no code cell to export (all are tagged skip-export, or the "
               "cells tagged 'export' are empty); tag the cells that build the topology")
        raise ExportError(msg)
    trees = [_parse(cell) for cell in cells]
    name, last = _find_variable(cells, trees, variable, notebook)
    kept, sampled = strip_samples(cells[: last + 1])
    kept, secrets = strip_secrets(kept)
    trees = [_parse(cell) for cell in kept]
    source = TopologySource(name, kept, cells[last + 1:], sample_cells=sampled,
                            secrets=secrets)
    imports: list[str] = []
    body: list[tuple[int, list[str]]] = []
    top_level = {name for tree in trees[: last + 1] for name in _top_level_names(tree)}
    for cell, tree in zip(source.cells, trees, strict=False):
        body.append((cell.number, _cell_body(cell, tree, imports, top_level)))
    used = {node.id for tree in trees[: last + 1] for node in ast.walk(tree)
            if isinstance(node, ast.Name)}
    imports = [text for text in imports if _binds(text) & used]  # unused: notebook-only
    source.imports = imports
    source.text = _module(source, notebook, imports, body)
    return source


def _parse(cell: ExportCell) -> ast.Module:
    try:
        return ast.parse(cell.source)
    except SyntaxError as exc:  # the cell was checked already; a rewrite must not break it
        msg = f"{describe_cell(cell.number, cell.first_line)} does not parse: {exc.msg}"
        raise ExportError(msg, cell.number) from None


def _find_variable(cells: list[ExportCell], trees: list[ast.Module], variable: str | None,
                   notebook: str) -> tuple[str, int]:
    """``(name, index of the cell that last binds it)``."""
    if variable is not None:
        for index in range(len(cells) - 1, -1, -1):
            if variable in [n for n, _ in _bindings(trees[index])]:
                return variable, index
        msg = (f"no exported cell of {notebook} binds `{variable}` at top level; pick a "
               "variable assigned in a cell (e.g. topology = builder.build())")
        raise ExportError(msg)
    tagged = [i for i, cell in enumerate(cells) if cell.is_topology]
    if tagged:
        index = tagged[-1]
        bound = _bindings(trees[index])
        makers = [n for n, makes in bound if makes]
        if makers or bound:
            return (makers or [n for n, _ in bound])[-1], index
        cell = cells[index]
        msg = (f"{describe_cell(cell.number, cell.first_line)} is tagged 'topology' but binds "
               "no variable; end it with e.g. `topology = builder.build()`")
        raise ExportError(msg, cell.number)
    for wanted in (_BUILT, _BUILDER):  # a built topology is a finished one: it comes first
        for index in range(len(cells) - 1, -1, -1):
            makers = [n for n, makes in _bindings(trees[index]) if makes == wanted]
            if makers:
                return makers[-1], index
    msg = (f"no exported cell of {notebook} binds a topology: assign one at top level, e.g. "
           "`topology = builder.build()` or `builder = ks.StreamsBuilder()`, tag the cell that "
           "completes it 'topology', or name the variable (--var NAME)")
    raise ExportError(msg)


def _bindings(tree: ast.Module) -> list[tuple[str, str | None]]:
    """Top-level ``(name, _BUILT | _BUILDER | None)`` pairs in order: what each name holds."""
    out: list[tuple[str, str | None]] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                out.append((target.id, _makes_topology(value)))
            elif isinstance(target, ast.Tuple | ast.List):
                out.extend((e.id, None) for e in target.elts if isinstance(e, ast.Name))
    return out


def _makes_topology(value: ast.AST) -> str | None:
    """``_BUILT`` for ``Topology(...)`` or ``....build(...)`` (and calls chained on them),
    ``_BUILDER`` for ``StreamsBuilder(...)``, else ``None``."""
    node = value
    while isinstance(node, ast.Call | ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in ("Topology", "build"):
                return _BUILT
            if called == "StreamsBuilder":
                return _BUILDER
            node = func
        else:
            node = node.value
    return None


def _top_level_names(tree: ast.Module) -> set[str]:
    """Names a cell binds at top level: in ``topology.py`` they are ``build_topology``'s."""
    names = {name for name, _ in _bindings(tree)}
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
    return names


def _cell_body(cell: ExportCell, tree: ast.Module, imports: list[str],
               top_level: set[str]) -> list[str]:
    """The cell's lines for the function body: imports hoisted, bare display names dropped,
    ``global`` of a notebook variable made ``nonlocal`` (it lives in ``build_topology`` now)."""
    lines = cell.source.splitlines()
    drop: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global) and node not in tree.body and \
                set(node.names) <= top_level:
            row = node.lineno - 1
            lines[row] = lines[row].replace("global", "nonlocal", 1)
    for statement in tree.body:
        span = range(statement.lineno - 1, statement.end_lineno or statement.lineno)
        if isinstance(statement, ast.Import | ast.ImportFrom):
            if not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__"):
                text = ast.get_source_segment(cell.source, statement) or ""
                if text not in imports:
                    imports.append(text)
            drop.update(span)
        elif isinstance(statement, ast.Expr) and isinstance(
                statement.value, ast.Name | ast.Attribute):
            drop.update(span)  # `counts` at the end of a cell only displays it
        elif isinstance(statement, ast.Pass) and lines[span[0]].endswith(_NOTEBOOK_ONLY):
            lines[span[0]] = lines[span[0]].replace("pass  # ", "# ", 1)  # a dropped magic
    inside_strings = _string_continuations(tree)
    out: list[str] = []
    for number, line in enumerate(lines):
        if number in inside_strings:
            out.append(line)  # part of a string: kept exactly
        elif number in drop or (not line.strip() and out and not out[-1].strip()):
            continue  # a dropped statement, or a second blank line in a row
        else:
            out.append(_INDENT + line if line.strip() else "")
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return out


def _binds(import_text: str) -> set[str]:
    """The names an import statement binds."""
    statement = ast.parse(import_text).body[0]
    assert isinstance(statement, ast.Import | ast.ImportFrom)
    return {alias.asname or alias.name.split(".")[0] for alias in statement.names}


def _string_continuations(tree: ast.Module) -> set[int]:
    """0-based lines that continue a multi-line string: indenting them would change it."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant | ast.JoinedStr) and node.end_lineno and \
                node.end_lineno > node.lineno:
            lines.update(range(node.lineno, node.end_lineno))
    return lines


def _module(source: TopologySource, notebook: str, imports: list[str],
            body: list[tuple[int, list[str]]]) -> str:
    numbers = ", ".join(str(cell.number) for cell in source.cells)
    cells = "cell" if len(source.cells) == 1 else "cells"
    head = [
        f'"""The topology of {notebook}, exported by `kslab export`.',
        "",
        f"`build_topology(config)` runs {cells} {numbers} of the notebook in order and",
        f"returns `{source.variable}` as a `ks.Topology` (a builder is built with `config`);",
        "the module attribute `topology` is one built with no config. Export the notebook",
        "again after changing it, or edit this file and own it from here.",
        '"""',
        "",
        *imports,
        *(["import os as _os", "import warnings as _warnings", ""] if source.secrets else []),
        "import kslab as _kslab",
        "",
        '__all__ = ["build_topology"]',
        "",
        "",
        "def build_topology(config: dict | None = None) -> _kslab.Topology:",
        f'    """The notebook\'s `{source.variable}` as a topology, built afresh on every call."""',
    ]
    lines = list(head)
    for number, cell_lines in body:
        if not cell_lines:
            continue
        lines.append(f"    # -- notebook cell {number} " + "-" * (70 - len(str(number))))
        first = len(lines) + 1
        lines.extend(cell_lines)
        source.line_map.append((first, len(lines), number))
    lines += [
        f"    return _as_topology({source.variable}, config)",
        "",
        "",
        "def _as_topology(obj: object, config: dict | None) -> _kslab.Topology:",
        '    """A `Topology` as is; a `StreamsBuilder` (or a stream or table of one) built."""',
        "    if isinstance(obj, _kslab.Topology):",
        "        return obj",
        "    builder = obj if isinstance(obj, _kslab.StreamsBuilder) else getattr(obj, "
        '"builder", None)',
        "    if isinstance(builder, _kslab.StreamsBuilder):",
        "        return builder.build(config)",
        f'    msg = f"`{source.variable}` is a {{type(obj).__name__}}, not a Topology or '
        'StreamsBuilder"',
        "    raise TypeError(msg)",
        "",
        "",
        *(_SECRET_FUNCTION if source.secrets else []),
        "def __getattr__(name: str) -> object:",
        '    """`topology`: the topology built with no config, made on first use."""',
        '    if name == "topology":',
        "        return build_topology()",
        '    msg = f"module {__name__!r} has no attribute {name!r}"',
        "    raise AttributeError(msg)",
        "",
    ]
    return "\n".join(lines)
