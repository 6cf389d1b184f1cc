"""Fixtures for the CLI tests: the installed ``kslab`` script run as a subprocess, a broker."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KSLAB = Path(sys.executable).parent / "kslab"
TARGETS = "tests/cli/cli_targets.py"


def kslab(*args: str, timeout: float = 60, env: dict[str, str] | None = None,
          cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the console script with ``args`` from the repository root; capture its output."""
    if not KSLAB.exists():
        pytest.fail(f"no {KSLAB}: run `pip install -e .` so the console script exists")
    return subprocess.run([str(KSLAB), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=env if env is not None else clean_env(), check=False)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without kslab's own variables (a lab's broker must not leak in)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KSLAB_")}
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def cli_broker() -> Iterator[str]:
    """A LocalBroker for the CLI tests; yields its bootstrap servers."""
    from kslab.runtime import LocalBroker

    with LocalBroker() as broker:
        yield broker.bootstrap_servers
