"""What the notebook's cells hold that production code must not: sample data and secrets.

Sample data: ``sample=`` of ``builder.stream``/``table``/``global_table`` only feeds the lab's
previews (it is never part of the topology), so the argument is cut, and so are the top-level
statements that only computed it (``lines = pd.DataFrame(...)``, the ``rng`` behind it, a bare
``clicks.head(12)`` that displayed it). A statement stays when anything left reads a name it
binds. Secrets: a string literal given to a credential (a dict entry or subscript whose key
:func:`is_secret_key` names one, a keyword argument or variable one of whose words is
``password``, ``secret`` or ``token``) is replaced by ``_kslab_secret("KSLAB_...")``, which
reads the environment. Invariant: only whole top-level statements and literal spans are
edited; every other character of a cell is kept as the notebook has it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from kslab.export._cells import ExportCell

__all__ = ["SECRET_HELPER", "Secret", "credential_lines", "env_var", "is_secret_key",
           "is_secret_name", "split_secrets", "strip_samples", "strip_secrets"]

CREDENTIAL_KEYS = ("sasl.password", "sasl.jaas.config", "ssl.key.password",
                   "ssl.keystore.password", "basic.auth.user.info",
                   "sasl.oauthbearer.client.secret")
_CREDENTIAL_WORDS = ("password", "secret", "token")
_SAMPLE_TAKERS = {"stream", "table", "global_table"}  # StreamsBuilder's methods with sample=
SECRET_HELPER = "_kslab_secret"


@dataclass(frozen=True)
class Secret:
    """A credential export left out: its key, the variable that now holds it, where it was."""

    key: str
    variable: str
    where: str  # "cell 4", "driver session 1's config"


def is_secret_key(key: str) -> bool:
    """Whether a config key names a credential: one of ``CREDENTIAL_KEYS`` (a client prefix
    such as ``consumer.`` allowed) or any key containing ``password``, ``secret`` or ``token``."""
    lowered = key.lower()
    return any(lowered == name or lowered.endswith("." + name) for name in CREDENTIAL_KEYS) \
        or any(word in lowered for word in _CREDENTIAL_WORDS)


def is_secret_name(name: str) -> bool:
    """Whether a Python name (a variable, a keyword argument) names a credential: one of its
    words is ``password``, ``secret`` or ``token`` (``api_token``, ``clientSecret``; not
    ``tokenizer``, whose value is no secret)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_")
    return any(word in _CREDENTIAL_WORDS for word in words)


def env_var(key: str) -> str:
    """The environment variable a credential is read from: ``KSLAB_SASL_PASSWORD``."""
    return "KSLAB_" + re.sub(r"[^A-Z0-9]+", "_", key.upper()).strip("_")


def split_secrets(config: dict[str, object], where: str) -> tuple[dict[str, object],
                                                                  list[Secret]]:
    """``config`` without its credential keys, and what was taken out."""
    kept = {k: v for k, v in config.items() if not is_secret_key(k)}
    gone = [Secret(k, env_var(k), where) for k in config if is_secret_key(k)]
    return kept, gone


def strip_samples(cells: list[ExportCell]) -> tuple[list[ExportCell], list[int]]:
    """The cells without sample data, and the numbers of the cells that had some."""
    roots: set[str] = set()
    edited = []
    touched: set[int] = set()
    for cell in cells:
        edits = []
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in _SAMPLE_TAKERS:
                edits += [_cut_keyword(node, kw) for kw in node.keywords if kw.arg == "sample"]
                roots |= {n.id for kw in node.keywords if kw.arg == "sample"
                          for n in ast.walk(kw.value) if isinstance(n, ast.Name)}
        if edits:
            touched.add(cell.number)
        edited.append(replace(cell, source=_apply(cell.source, edits)) if edits else cell)
    if not touched:
        return cells, []
    statements = [(i, s) for i, cell in enumerate(edited) for s in ast.parse(cell.source).body]
    dead = _sample_only(statements, roots)
    out = []
    for index, cell in enumerate(edited):
        rows = {row for i, s in statements if i == index and id(s) in dead
                for row in _rows(s)}
        rows -= {row for i, s in statements if i == index and id(s) not in dead
                 for row in _rows(s)}  # `a = 1; b = a` on one line: the line stays
        if rows:
            touched.add(cell.number)
            lines = cell.source.splitlines()
            cell = replace(cell, source="\n".join(
                line for n, line in enumerate(lines) if n not in rows) + "\n")
        out.append(cell)
    return out, sorted(touched)


def strip_secrets(cells: list[ExportCell]) -> tuple[list[ExportCell], list[Secret]]:
    """The cells with every literal credential replaced by ``_kslab_secret("KSLAB_...")``."""
    found: list[Secret] = []
    out = []
    for cell in cells:
        edits = []
        for key, value in _credential_literals(ast.parse(cell.source)):
            variable = env_var(key)
            edits.append((_span(value), f'{SECRET_HELPER}("{variable}")'))
            found.append(Secret(key, variable, f"cell {cell.number}"))
        out.append(replace(cell, source=_apply(cell.source, edits)) if edits else cell)
    return out, found


def credential_lines(source: str) -> list[tuple[str, int]]:
    """``(key, line)`` of each literal credential in a module's source (none if it does not
    parse: the build that follows reports that)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [(key, value.lineno) for key, value in _credential_literals(tree)]


def _credential_literals(tree: ast.Module) -> list[tuple[str, ast.expr]]:
    """``(key, literal)`` for each string literal given to something that names a credential."""
    found = []
    for node in ast.walk(tree):
        pairs: list[tuple[object, ast.expr]] = []
        if isinstance(node, ast.Dict):
            pairs = [(k.value, v) for k, v in zip(node.keys, node.values, strict=True)
                     if isinstance(k, ast.Constant)]
        elif isinstance(node, ast.Call):
            found += [(kw.arg, kw.value) for kw in node.keywords
                      if kw.arg and is_secret_name(kw.arg) and _is_literal_text(kw.value)]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and is_secret_name(target.id) and \
                        _is_literal_text(node.value):
                    found.append((target.id, node.value))
                elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                    pairs.append((target.slice.value, node.value))
        found += [(key, value) for key, value in pairs
                  if isinstance(key, str) and is_secret_key(key) and _is_literal_text(value)]
    return sorted(found, key=lambda pair: _span(pair[1]))  # in the order the cell has them


def _is_literal_text(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str | bytes) and bool(value.value)
    return isinstance(value, ast.JoinedStr) and any(
        isinstance(part, ast.Constant) and part.value for part in value.values)


def _sample_only(statements: list[tuple[int, ast.stmt]], roots: set[str]) -> set[int]:
    """ids of the top-level statements that only compute (or show) the sample data."""
    binds = {id(s): _binds(s) for _, s in statements}
    loads = {id(s): {n.id for n in ast.walk(s) if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Load)} for _, s in statements}
    simple = [s for _, s in statements if isinstance(s, ast.Assign | ast.AnnAssign | ast.AugAssign)]
    wanted, dead = set(roots), set()
    grew = True
    while grew:  # the backward slice of the sample= arguments
        grew = False
        for s in simple:
            if id(s) not in dead and binds[id(s)] & wanted:
                dead.add(id(s))
                wanted |= loads[id(s)]
                grew = True
    sliced = {name for s in simple if id(s) in dead for name in binds[id(s)]}
    others = {name for _, s in statements if id(s) not in dead for name in binds[id(s)]}
    for _, s in statements:  # a bare expression of sample names only displayed them
        if isinstance(s, ast.Expr) and loads[id(s)] & sliced and \
                not loads[id(s)] & (others - sliced):
            dead.add(id(s))
    shrank = True
    while shrank:  # a statement something else still reads stays
        shrank = False
        live = {name for _, s in statements if id(s) not in dead for name in loads[id(s)]}
        for s in simple:
            if id(s) in dead and binds[id(s)] & live:
                dead.discard(id(s))
                shrank = True
    return dead


def _binds(statement: ast.stmt) -> set[str]:
    """Top-level names a statement binds (or changes in place: ``df["x"] = ...``)."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        targets = [statement.target]
    else:
        return {n.id for n in ast.walk(statement)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | (
            {statement.name} if isinstance(statement, ast.FunctionDef | ast.ClassDef |
                                           ast.AsyncFunctionDef) else set())
    names = set()
    for target in targets:
        base = target
        while isinstance(base, ast.Subscript | ast.Attribute | ast.Starred):
            base = base.value
        names |= {n.id for n in ast.walk(base) if isinstance(n, ast.Name)}
    return names


def _rows(statement: ast.stmt) -> range:
    return range(statement.lineno - 1, statement.end_lineno or statement.lineno)


def _cut_keyword(call: ast.Call, keyword: ast.keyword) -> tuple[tuple[int, int, int, int], str]:
    """The edit that removes ``keyword`` (with the comma before it) from ``call``."""
    arguments = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    at = arguments.index(keyword)
    _, _, end_row, end_col = _span(keyword)
    if at > 0:
        before = arguments[at - 1]
        return (before.end_lineno or before.lineno, before.end_col_offset or 0,
                end_row, end_col), ""
    if len(arguments) > 1:
        after = arguments[1]
        return (keyword.lineno, keyword.col_offset, after.lineno, after.col_offset), ""
    return _span(keyword), ""


def _span(node: ast.expr | ast.keyword) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno or node.lineno,
            node.end_col_offset or 0)


def _apply(source: str, edits: list[tuple[tuple[int, int, int, int], str]]) -> str:
    """``source`` with each span (1-based rows, UTF-8 byte columns) replaced, last first."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(row: int, col: int) -> int:
        line = lines[row - 1]
        return starts[row - 1] + len(line.encode()[:col].decode(errors="replace"))

    text = source
    for (row, col, end_row, end_col), new in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[: offset(row, col)] + new + text[offset(end_row, end_col):]
    return text
