"""Which notebook cells become the app, with kslab's own magics rewritten to plain Python.

Selection: every code cell, minus cells tagged ``skip-export`` or whose first line is
``# kslab: skip``; when any cell is tagged ``export``, only those (a ``topology`` tag selects
its cell too). Invariant: an exported cell holds only plain Python. kslab's magics are
display or lab commands, so they are dropped (left as a comment); any other magic, shell
escape or help query raises ``ExportError`` naming the cell.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from kslab.export._errors import ExportError

__all__ = ["ExportCell", "describe_cell", "select_cells"]

SKIP_TAG = "skip-export"
EXPORT_TAG = "export"
TOPOLOGY_TAG = "topology"
_SKIP_LINE = re.compile(r"#\s*kslab:\s*skip\b", re.IGNORECASE)
_IPYTHON_CALLS = {"run_line_magic", "run_cell_magic", "system", "getoutput"}
_KSLAB_MAGICS = {"kslab", "load_ext", "reload_ext"}


@dataclass(frozen=True)
class ExportCell:
    """One exported code cell: its 1-based position in the notebook and its plain source."""

    number: int
    source: str
    tags: tuple[str, ...]
    first_line: str

    @property
    def is_topology(self) -> bool:
        """Whether the author tagged this cell as the one that completes the topology."""
        return TOPOLOGY_TAG in self.tags


def select_cells(nb: Any) -> list[ExportCell]:
    """The cells of ``nb`` (an nbformat notebook) that are exported, in order, rewritten."""
    code = [(n, cell) for n, cell in enumerate(nb.cells, 1) if cell.cell_type == "code"]
    chosen = [(n, cell) for n, cell in code if not _skipped(cell)]
    if any(EXPORT_TAG in _tags(cell) for _, cell in chosen):
        chosen = [(n, cell) for n, cell in chosen
                  if EXPORT_TAG in _tags(cell) or TOPOLOGY_TAG in _tags(cell)]
    cells = []
    for number, cell in chosen:
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        cells.append(ExportCell(number, _plain_python(source, number), _tags(cell),
                                _first_line(source)))
    return [cell for cell in cells if cell.source.strip()]


def describe_cell(number: int, first_line: str) -> str:
    """``cell 7 (`!pip install x`)``: how messages name a cell."""
    return f"cell {number} (`{first_line}`)" if first_line else f"cell {number}"


def _tags(cell: Any) -> tuple[str, ...]:
    return tuple(cell.get("metadata", {}).get("tags", []) or [])


def _skipped(cell: Any) -> bool:
    source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
    return SKIP_TAG in _tags(cell) or bool(_SKIP_LINE.match(_first_line(source)))


def _first_line(source: str) -> str:
    return next((line.strip() for line in source.splitlines() if line.strip()), "")


def _plain_python(source: str, number: int) -> str:
    """``source`` with kslab's magics commented out; other IPython syntax is refused."""
    from IPython.core.inputtransformer2 import TransformerManager

    where = describe_cell(number, _first_line(source))
    try:
        transformed = TransformerManager().transform_cell(source)
        tree = ast.parse(transformed)
    except SyntaxError as exc:
        msg = f"{where} is not valid Python: {exc.msg} (line {exc.lineno}); fix it in the notebook"
        raise ExportError(msg, number) from None
    lines = transformed.splitlines()
    statements = _statements(tree)
    inside = {id(n) for statement in statements for n in ast.walk(statement)}
    for node in ast.walk(tree):
        magic = _ipython_call(node)
        if magic is not None and (id(node) not in inside or not _is_kslab_magic(*magic)):
            msg = (f"{where} uses `{_as_typed(*magic)}`, which plain Python cannot run; the "
                   f"exported app only runs Python. Move it to a cell tagged '{SKIP_TAG}' (or "
                   "start that cell with `# kslab: skip`)")
            raise ExportError(msg, number)
    for statement in statements:
        magic = _magic_of(statement)
        if magic is None:
            continue
        kind, name, text = magic
        first = statement.lineno - 1
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        lines[first] = f"{indent}pass  # {_as_typed(kind, name, text)} (notebook only)"
        for extra in range(first + 1, statement.end_lineno or first + 1):
            lines[extra] = ""
    return "\n".join(lines).rstrip() + "\n"


def _statements(tree: ast.AST) -> list[ast.stmt]:
    """Every statement that contains an IPython call, innermost first-level statement each."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND) and any(
                _ipython_call(n) is not None for n in ast.walk(node)):
            found.append(node)
    return found


_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef, ast.AsyncFor, ast.AsyncWith, ast.Match)


def _ipython_call(node: ast.AST) -> tuple[str, str, str] | None:
    """``(method, magic name, text)`` when ``node`` is ``get_ipython().<method>(...)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in _IPYTHON_CALLS and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "get_ipython"):
        return None
    args = [a.value if isinstance(a, ast.Constant) else "..." for a in node.args]
    method = node.func.attr
    if method in ("system", "getoutput"):
        return method, "", str(args[0]) if args else ""
    name = str(args[0]) if args else ""
    text = str(args[-1]) if method == "run_line_magic" and len(args) > 1 else (
        str(args[1]) if len(args) > 1 else "")
    return method, name, text


def _is_kslab_magic(kind: str, name: str, text: str) -> bool:
    """``%kslab ...``, or ``%load_ext``/``%reload_ext`` of kslab or one of its modules."""
    if kind != "run_line_magic" or name not in _KSLAB_MAGICS:
        return False
    return name == "kslab" or text.split(".")[0].strip() == "kslab"


def _magic_of(statement: ast.stmt) -> tuple[str, str, str] | None:
    return next((m for n in ast.walk(statement) if (m := _ipython_call(n)) is not None), None)


def _as_typed(kind: str, name: str, text: str) -> str:
    """The magic as the user typed it: ``%kslab describe b``, ``!ls``, ``%%bash``."""
    if kind in ("system", "getoutput"):
        return f"!{text}"
    if kind == "run_cell_magic":
        return f"%%{name} {text}".rstrip()
    return f"%{name} {text}".rstrip()
