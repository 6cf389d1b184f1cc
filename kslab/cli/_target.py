"""Resolve ``FILE_OR_MODULE[:VAR]`` to the topology it names.

VAR may be a ``Topology``, a ``StreamsBuilder`` or a zero-argument callable returning either.
Invariant: every way a target can be wrong (no such file or module, no such name, a name of the
wrong type, a syntax error) raises ``CliError`` with one line naming it and what the module
does offer; only an unexpected exception raised by the user's own code shows its traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from kslab.cli._common import FAILED, CliError
from kslab.dsl import StreamsBuilder
from kslab.errors import KslabError
from kslab.topology.topology import Topology

__all__ = ["CONVENTION", "Target", "load_target", "user_code"]

T = TypeVar("T")

CONVENTION = "build_topology"  # the function used when VAR is left out and no topology is bound


@dataclass(frozen=True)
class Target:
    """A resolved target: the topology or builder, and where it came from."""

    obj: Topology | StreamsBuilder
    module: str
    var: str

    def topology(self, config: dict[str, Any] | None = None) -> Topology:
        """The built topology (a builder is built with ``config``, for its optimizations)."""
        if isinstance(self.obj, Topology):
            return self.obj
        builder = self.obj
        return user_code(f"building {self.module}:{self.var}", lambda: builder.build(config or {}))


def load_target(spec: str) -> Target:
    """Import the file or module of ``spec`` and resolve its VAR.

    Without VAR: the module's only Topology or StreamsBuilder, else its ``build_topology``.
    """
    where, _, var = spec.rpartition(":") if _has_var(spec) else (spec, "", "")
    if not where:
        msg = f"no file or module in {spec!r}; write FILE.py:VAR or package.module:VAR"
        raise CliError(msg)
    module = user_code(f"importing {where}", lambda: _import(where))
    if not var:
        var = _only_candidate(module, where)
    label = f"{where}:{var}"
    if not hasattr(module, var):
        msg = f"{where} has no {var!r}; {_offer(module)}"
        raise CliError(msg)
    value = getattr(module, var)
    if isinstance(value, Topology | StreamsBuilder):
        return Target(value, where, var)
    if callable(value) and not isinstance(value, type):
        _check_no_arguments(value, label)
        built = user_code(f"calling {label}()", value)
        if isinstance(built, Topology | StreamsBuilder):
            return Target(built, where, var)
        msg = (f"{label}() returned {_kind(built)}, not a ks.Topology or ks.StreamsBuilder; "
               f"return builder.build() or the builder")
        raise CliError(msg)
    msg = (f"{label} is {_kind(value)}, not a ks.Topology, a ks.StreamsBuilder or a function "
           f"returning one; {_offer(module)}")
    raise CliError(msg)


def user_code(what: str, action: Callable[[], T]) -> T:
    """Run ``action`` (the user's code); its failure becomes a ``CliError`` naming ``what``.

    A syntax error or a kslab error (whose message names the node or store) is one line; any
    other exception prints its traceback first, since the fix is in the user's code.
    """
    try:
        return action()
    except CliError:
        raise
    except SyntaxError as exc:
        msg = f"{what}: {exc.filename}, line {exc.lineno}: SyntaxError: {exc.msg}"
        raise CliError(msg) from None
    except KslabError as exc:
        msg = f"{what}: {exc}"
        raise CliError(msg) from None
    except Exception as exc:
        traceback.print_exc()
        msg = f"{what} raised {type(exc).__name__}: {exc} (traceback above)"
        raise CliError(msg, FAILED) from None


def _has_var(spec: str) -> bool:
    # a colon after a Windows drive letter is not a VAR separator
    _, colon, tail = spec.rpartition(":")
    return bool(colon) and "/" not in tail and "\\" not in tail


def _import(where: str) -> ModuleType:
    path = Path(where)
    if where.endswith(".py") or "/" in where or path.is_file():
        if not path.is_file():
            msg = f"no such file: {where}"
            raise CliError(msg)
        return _import_file(path.resolve())
    if str(Path.cwd()) not in sys.path:  # as `python -m`: modules in the current directory
        sys.path.insert(0, str(Path.cwd()))
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (where == exc.name or where.startswith(exc.name + ".")):
            msg = f"no module named {where!r} (nor a file {where}); check the name and sys.path"
            raise CliError(msg) from None
        raise


def _import_file(path: Path) -> ModuleType:
    # the file's folder goes on sys.path so it can import its neighbours (app.py -> topology.py)
    sys.path.insert(0, str(path.parent))
    name = path.stem if path.stem.isidentifier() else "kslab_target"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        msg = f"{path} cannot be imported as Python"
        raise CliError(msg)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def _candidates(module: ModuleType) -> list[str]:
    """Names in ``module`` that hold a topology or builder, or functions defined there."""
    objects, functions = [], []
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        if isinstance(value, Topology | StreamsBuilder):
            objects.append(f"{name} ({type(value).__name__})")
        elif inspect.isfunction(value) and value.__module__ == module.__name__ \
                and _takes_no_arguments(value):
            functions.append(f"{name}() (function)")
    return objects + functions


def _only_candidate(module: ModuleType, where: str) -> str:
    names = [name for name, value in vars(module).items()
             if not name.startswith("_") and isinstance(value, Topology | StreamsBuilder)]
    if len(names) == 1:
        return names[0]
    if not names and callable(getattr(module, CONVENTION, None)):
        return CONVENTION  # what `kslab export` writes: topology.py / app.py
    msg = f"name the topology in {where}: write {where}:VAR; {_offer(module)}"
    raise CliError(msg)


def _offer(module: ModuleType) -> str:
    found = _candidates(module)
    if not found:
        return "it defines no Topology, StreamsBuilder or zero-argument function"
    return f"it defines {', '.join(found)}"


def _takes_no_arguments(function: Any) -> bool:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in signature.parameters.values())


def _check_no_arguments(function: Any, label: str) -> None:
    if not _takes_no_arguments(function):
        msg = (f"{label} is a function that needs arguments; kslab calls it with none, so give "
               f"its parameters defaults or name a topology")
        raise CliError(msg)


def _kind(value: object) -> str:
    kind = type(value)
    if value is None:
        return "None"
    name = kind.__qualname__ if kind.__module__ == "builtins" \
        else f"{kind.__module__}.{kind.__qualname__}"
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
