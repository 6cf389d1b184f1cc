"""The files of an exported app besides ``topology.py``, written from ``templates/``.

Invariant: every file is generated from the notebook and what running it recorded; nothing
here reads the output directory, so exporting again over it gives the same files.
"""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import json
import re
import string
import sys
from pathlib import Path
from typing import Any

__all__ = ["app_files", "imported_modules", "pinned_requirements", "test_files"]

TEMPLATES = Path(__file__).parent / "templates"
_REQUIREMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?")
_LOCAL_KEYS = {"application.id", "bootstrap.servers", "state.dir"}  # the deployment's own


def app_files(notebook: str, variable: str, cells: list[int], imports: list[str],
              describe: str | None, sessions: list[dict[str, Any]],
              source_topics: list[str], local: list[str] = ()) -> dict[str, str]:
    """``app.py``, ``config.toml``, ``requirements.txt``, ``Dockerfile`` and ``README.md``.

    ``local``: the notebook folder's modules the app ships (``pkg/`` for a package)."""
    stem = Path(notebook).stem
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"^\d+[-_ ]*", "", stem).lower()).strip("-") \
        or "kslab-app"
    fields = {
        "notebook": notebook, "image": slug, "variable": variable,
        "title": slug.replace("-", " ").capitalize(),
        "cells": ", ".join(map(str, cells)),
        "python_version": f"{sys.version_info.major}.{sys.version_info.minor}",
        "application_id": json.dumps(slug),
        "describe": describe or "(run `python app.py --describe`)\n",
        "source_topics": ", ".join(f"`{t}`" for t in source_topics) or "(none)",
        "extra": _extra_config(sessions),
        "tests_summary": _tests_summary(sessions),
        "copy_local": "".join(f"COPY {name} ./{name}\n" for name in local),
    }
    return {
        "app.py": _render("app.py.tmpl", fields),
        "config.toml": _render("config.toml.tmpl", fields),
        "requirements.txt": pinned_requirements(imports),
        "Dockerfile": _render("Dockerfile.tmpl", fields),
        "README.md": _render("README.md.tmpl", fields),
        "wheels/.gitkeep": "",
    }


def test_files(notebook: str, describe: str | None,
               sessions: list[dict[str, Any]]) -> dict[str, str]:
    """``tests/test_topology.py`` and its fixtures: ``describe.txt``, one JSON per session."""
    files = {"tests/test_topology.py": _render("test_topology.py.tmpl", {"notebook": notebook})}
    if describe is not None:
        files["tests/fixtures/describe.txt"] = describe
    for number, session in enumerate(sessions, 1):
        files[f"tests/fixtures/session-{number:02d}.json"] = _session_json(session)
    return files


def pinned_requirements(imports: list[str]) -> str:
    """kslab with its runtime dependencies, and what the cells import, at installed versions."""
    extras_of: dict[str, str] = {}  # canonical name -> "[extras]" or ""
    for requirement in metadata.requires("kslab") or []:
        spec, _, marker = requirement.partition(";")
        if marker and 'extra == "kafka"' not in marker:
            continue
        match = _REQUIREMENT.match(spec.strip())
        if match:
            extras_of[_canonical(match.group(1))] = match.group(2) or ""
    for module in imported_modules(imports):
        for dist in metadata.packages_distributions().get(module, []):
            extras_of.setdefault(_canonical(dist), "")
    extras_of.pop("kslab", None)
    extras_of.setdefault("pytest", "")  # for tests/
    lines = [
        "# Pinned to the versions the notebook was exported with "
        f"(Python {sys.version.split()[0]}).",
        f"kslab[kafka]=={metadata.version('kslab')}",
    ]
    lines += [f"{name}{extras}=={metadata.version(name)}"
              for name, extras in sorted(extras_of.items())]
    return "\n".join(lines) + "\n"


def imported_modules(imports: list[str]) -> list[str]:
    """Top-level modules of the cells' import statements, minus the standard library."""
    found = []
    for text in imports:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                found += [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.append(node.module.split(".")[0])
    return [m for m in dict.fromkeys(found)
            if m not in sys.stdlib_module_names and m != "kslab"]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _extra_config(sessions: list[dict[str, Any]]) -> str:
    """Properties the notebook's drivers set that change what the topology does."""
    config = sessions[0]["config"] if sessions else {}
    extra = {k: v for k, v in config.items() if k not in _LOCAL_KEYS and v is not None}
    if not extra:
        return ""
    lines = ["# as in the notebook's TopologyTestDriver"]
    lines += [f"{json.dumps(key)} = {json.dumps(value)}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def _tests_summary(sessions: list[dict[str, Any]]) -> str:
    if not sessions:
        return ("The notebook ran no TopologyTestDriver on this topology, so the tests only "
                "check that `describe()` is the notebook's.")
    records = sum(1 for s in sessions for step in s["steps"] if "topic" in step)
    return (f"They replay the notebook's {len(sessions)} driver session(s) ({records} input "
            "records) on the exported topology and assert every output record, and that "
            "`describe()` is the notebook's.")


def _session_json(session: dict[str, Any]) -> str:
    """One record per line, so a fixture reads (and diffs) line by line."""
    head = {k: session[k] for k in ("driver", "config", "initial_wall_clock_time",
                                    "partitions") if k in session}
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append('  "steps": [')
    lines.append(",\n".join(f"    {json.dumps(step)}" for step in session["steps"]))
    lines.append("  ],")
    lines.append('  "outputs": {')
    topics = []
    for topic, records in session["outputs"].items():
        body = ",\n".join(f"      {json.dumps(r)}" for r in records)
        topics.append(f"    {json.dumps(topic)}: [\n{body}\n    ]" if records
                      else f"    {json.dumps(topic)}: []")
    lines.append(",\n".join(topics))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _render(name: str, fields: dict[str, str]) -> str:
    return string.Template((TEMPLATES / name).read_text()).substitute(fields)
