"""No module reads another module's private members (issue 20).

A private member is an attribute whose name starts with one underscore (``obj._name``; dunders
are Python's), used as an attribute or by its name as a string (``getattr(obj, "_name")``,
``hasattr``, ``setattr``, ``object.__getattribute__``). Outside ``self``, ``cls`` and
``super()``, a module may use such a name only where the rule below says it is its own;
anything else another module needs has a public, documented name on the class that owns it
(a property or a method), or the rule moves next to its data.

The rule, in one place (``allowed`` below): ``obj._name`` is allowed in a module when

- a class of that module owns ``_name``: defines it in its body (a method, a class attribute,
  a ``__slots__`` entry) or assigns ``self._name``/``cls._name`` in its methods, or one of the
  kslab classes it derives from does (a store module's helpers read the stores the module
  defines, plumbing included, as the class itself could through ``self``). Names are matched,
  not types: a read of another object's member of the same name passes unseen, which is why
  what several modules share is public;
- it is one of namedtuple's public methods and fields (``_replace``, ``_fields``...);
- it is a third-party or standard-library name whose owner made it underscored and public
  (``THIRD_PARTY``).

What is left is listed in ``ALLOWLIST`` with its reason, and the list is empty. The same holds
for names imported by ``from kslab.x import _name``: a private module is imported by its package
(``from kslab.dsl import _joins``), a private name is not taken from another module.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import kslab

ROOT = Path(kslab.__file__).parent

# namedtuple's API: underscored so they never clash with a field name, public by its docs
NAMEDTUPLE = frozenset({"_replace", "_fields", "_asdict", "_make", "_field_defaults"})

# (receiver as written, attribute): public names of other projects that start with "_"
THIRD_PARTY = {
    ("KafkaError", "_PARTITION_EOF"): "confluent-kafka's documented end-of-partition code",
    ("KafkaError", "_AUTO_OFFSET_RESET"): "confluent-kafka's documented code for an offset out "
                                          "of range under auto.offset.reset=error",
    ("sys", "_getframe"): "the standard library's documented frame access",
    ("df", "_jdf"): "pyspark's DataFrame handle on its JVM twin, the only way to one",
}

# (module path under kslab/, attribute): a cross-module read kept on purpose, with the reason
ALLOWLIST: dict[tuple[str, str], str] = {}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _tree(module: str) -> ast.Module | None:
    base = ROOT.parent / module.replace(".", "/")
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return ast.parse(path.read_text())
    return None


def _imports(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """Each name a module imports from kslab: its source module and name there."""
    return _imports_of(tree)


@cache
def _imports_of(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """``_imports``, once per tree: the class walk asks for each base of each class."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kslab"):
            for alias in node.names:
                found[alias.asname or alias.name] = (node.module, alias.name)
    return found


def _class_names(cls: ast.ClassDef) -> set[str]:
    """The members a class defines itself: its body's names and its methods' ``self._x``."""
    names = set()
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else \
                [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names.add(target.id)
                    if target.id == "__slots__" and statement.value is not None:
                        names.update(c.value for c in ast.walk(statement.value)
                                     if isinstance(c, ast.Constant) and isinstance(c.value, str))
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            names.add(node.attr)
    return names


@cache
def _owned_by_class(module: str, name: str, depth: int = 0) -> frozenset[str]:
    """What class ``name`` of ``module`` owns, with what its kslab bases own."""
    tree = _tree(module)
    if tree is None or depth > 20:
        return frozenset()
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    if name not in classes:  # re-exported: follow the import
        source = _imports(tree).get(name)
        return _owned_by_class(*source, depth + 1) if source else frozenset()
    cls = classes[name]
    names = _class_names(cls)
    imported = _imports(tree)
    for base in cls.bases:
        if isinstance(base, ast.Name):
            if base.id in classes:
                names |= _owned_by_class(module, base.id, depth + 1)
            elif base.id in imported:
                names |= _owned_by_class(*imported[base.id], depth + 1)
    return frozenset(names)


def _owned(module: str, tree: ast.Module) -> set[str]:
    """Every private name a module's classes own (see the module docstring)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            names |= _class_names(node)
            if node in tree.body:
                names |= _owned_by_class(module, node.name)
    return names


_BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr", "object.__getattribute__",
                      "object.__setattr__"})


def _reads(tree: ast.Module) -> list[ast.Attribute]:
    """Every ``obj._name`` of a module: attributes, and the calls naming one by a string
    (as the attribute they stand for)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.append(node)
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and \
                ast.unparse(node.func) in _BY_NAME and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            found.append(ast.copy_location(
                ast.Attribute(node.args[0], node.args[1].value, ast.Load()), node))
    return [node for node in found
            if node.attr.startswith("_") and not node.attr.startswith("__")]


def allowed(module: str, owned: set[str], node: ast.Attribute) -> bool:
    """The one rule: whether ``node`` (``obj._name``) may appear in ``module``."""
    receiver = node.value
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        return True
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and \
            receiver.func.id == "super":
        return True
    if node.attr in owned or node.attr in NAMEDTUPLE:
        return True
    if (ast.unparse(receiver), node.attr) in THIRD_PARTY:
        return True
    return (module, node.attr) in ALLOWLIST


def private_reads() -> list[str]:
    """Every ``obj._name`` in kslab/ the rule does not allow, as ``path:line: text``."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        tree = _tree(module)
        owned = _owned(module, tree)
        for node in _reads(tree):
            if not allowed(module, owned, node):
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: "
                             f"{ast.unparse(node)}")
    return found


def _is_module(package: str, name: str) -> bool:
    base = ROOT.parent / package.replace(".", "/") / name
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def private_imports() -> list[str]:
    """Every ``from kslab.x import _name`` in kslab/ that takes another module's private name
    (importing a private *module*, ``from kslab.dsl import _joins``, is how a package is used)."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(_tree(_module_name(path))):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.startswith("kslab"):
                for alias in node.names:
                    name = alias.name
                    if name.startswith("_") and not name.startswith("__") and \
                            not _is_module(node.module, name):
                        found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: "
                                     f"from {node.module} import {name}")
    return found


def test_no_module_reads_another_modules_private_members():
    assert private_reads() == []


def test_no_module_imports_another_modules_private_names():
    assert private_imports() == []


def test_the_allowlist_is_needed_and_explained():
    for (module, attr), reason in ALLOWLIST.items():
        assert reason.strip(), (module, attr)
        assert _tree(module) is not None, module


def test_the_rule_sees_a_cross_module_read_and_allows_its_own():
    tree = ast.parse(
        "class Store:\n"
        "    def __init__(self):\n"
        "        self._log = None\n"
        "    def same(self, other):\n"
        "        return other._log\n"
        "def foreign(driver):\n"
        "    return driver._collector, driver._log, point._replace(x=1), sys._getframe(0)\n"
    )
    owned = _owned("kslab.example", tree)
    reads = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)
             and node.attr.startswith("_") and not node.attr.startswith("__")]
    verdicts = {ast.unparse(node): allowed("kslab.example", owned, node) for node in reads}
    assert verdicts == {"self._log": True, "other._log": True, "driver._collector": False,
                        "driver._log": True, "point._replace": True, "sys._getframe": True}
