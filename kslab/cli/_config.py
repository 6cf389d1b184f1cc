"""Kafka Streams config for ``kslab run``: a TOML file, environment variables, command-line flags.

The file's keys are Kafka Streams property names, written flat (``"commit.interval.ms" = 100``)
or as TOML tables (``[consumer]`` then ``"session.timeout.ms" = 6000``); both flatten to dotted
names (the ``config.toml`` that ``kslab export`` writes is such a file). A ``[streams]`` table,
when present, is the root. A value written ``{ env = "NAME" }`` (how an exported app's
credentials are written) is the environment variable NAME; an unset one is an error.
Invariant: later sources win — the file, then environment variables
``KSLAB_<PROPERTY>`` (``KSLAB_BOOTSTRAP_SERVERS``, ``KSLAB_COMMIT_INTERVAL_MS``; only names of
Kafka Streams properties count, so ``KSLAB_BROKER_PORT`` is not one), then flags.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kslab.cli._common import CliError

__all__ = ["DEV_SETTINGS", "ENV_PREFIX", "EnvRef", "env_overrides", "load_config",
           "parse_setting", "read_toml"]

DEV_SETTINGS = {  # one local broker: a group join takes ~3 s with these, ~25 s with defaults
    "consumer.session.timeout.ms": 6000,
    "consumer.heartbeat.interval.ms": 500,
    "commit.interval.ms": 100,
}
ENV_PREFIX = "KSLAB_"  # KSLAB_<PROPERTY>, upper case, dots as underscores: as exported apps read


def read_toml(path: Path) -> dict[str, Any]:
    """The flattened properties of a TOML config file; a one-line error when it is bad."""
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        msg = f"no such config file: {path}"
        raise CliError(msg) from None
    except tomllib.TOMLDecodeError as exc:
        msg = f"config file {path} is not valid TOML: {exc}"
        raise CliError(msg) from None
    root = data.get("streams", data) if isinstance(data.get("streams"), dict) else data
    return dict(_flatten(root))


def load_config(file: Path | None, flags: Mapping[str, Any],
                environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """File, then environment, then the flags that were given (``None`` flags are skipped)."""
    props = read_toml(file) if file is not None else {}
    env = os.environ if environ is None else environ
    missing = [f"{value.name} (for {key})" for key, value in props.items()
               if isinstance(value, EnvRef) and value.name not in env]
    if missing:
        msg = f"config file {file} reads credentials from the environment: set {', '.join(missing)}"
        raise CliError(msg)
    props = {key: env[value.name] if isinstance(value, EnvRef) else value
             for key, value in props.items()}
    props.update(env_overrides(env))
    props.update({name: value for name, value in flags.items() if value is not None})
    return props


def env_overrides(environ: Mapping[str, str]) -> dict[str, str]:
    """The ``KSLAB_<PROPERTY>`` variables that name a Kafka Streams property, by property."""
    from kslab.config import StreamsConfig
    from kslab.errors import KslabError

    found = {}
    for var, value in environ.items():
        if var.startswith(ENV_PREFIX) and value:
            key = var.removeprefix(ENV_PREFIX).lower().replace("_", ".")
            try:
                StreamsConfig({key: None})
            except KslabError:
                continue
            found[key] = value
    return found


def parse_setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` from ``--set``; integers become ints so numeric properties validate."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        msg = f"--set expects KEY=VALUE (e.g. commit.interval.ms=100); got {text!r}"
        raise CliError(msg)
    value = value.strip()
    return key.strip(), int(value) if value.lstrip("-").isdigit() else value


class EnvRef(str):
    """A config value written ``{ env = "NAME" }``: the environment variable NAME."""

    @property
    def name(self) -> str:
        """The variable's name."""
        return str(self)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and list(value) == ["env"] and isinstance(value["env"], str):
            items.append((name, EnvRef(value["env"])))
        elif isinstance(value, dict):
            items.extend(_flatten(value, f"{name}."))
        else:
            items.append((name, value))
    return items
