"""The wheel of the kslab that runs the export, bundled in the app's ``wheels/``.

No package index has every kslab build, so an exported ``requirements.txt`` that only pinned
``kslab==<version>`` would not install on a fresh machine. The exporter builds a wheel of its
own source (the checkout ``kslab`` is imported from: the folder above the package that holds a
``pyproject.toml`` naming ``kslab``) with ``pip wheel --no-deps``, in a scratch copy so the
checkout gets no ``build/`` folder. A build takes 3-10 s, so wheels are cached by a hash of
the sources (``$XDG_CACHE_HOME/kslab/export-wheels``): exporting again with unchanged sources
copies the cached file. Invariant: the bundled wheel is built from exactly the files the
exporter imported kslab from.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import kslab
from kslab.export._errors import ExportError

__all__ = ["kslab_wheel", "source_root"]

_PROJECT_FILES = ("pyproject.toml", "README.md", "LICENSE")


def source_root() -> Path | None:
    """The kslab checkout this interpreter imports kslab from, or ``None`` (an installed wheel)."""
    root = Path(kslab.__file__).resolve().parent.parent
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        name = tomllib.loads(pyproject.read_text()).get("project", {}).get("name")
    except tomllib.TOMLDecodeError:
        return None
    return root if name == "kslab" else None


def kslab_wheel() -> Path:
    """The wheel of kslab's source, built now or found in the cache (do not write to it)."""
    root = source_root()
    if root is None:
        msg = (f"kslab is imported from {Path(kslab.__file__).parent}, which is not a source "
               "checkout (no pyproject.toml naming kslab above it), so export cannot build the "
               "kslab wheel the app's image installs; export from a kslab checkout "
               "(pip install -e .), or without the wheel (--no-kslab-wheel, "
               "bundle_kslab=False) when your package index has this kslab")
        raise ExportError(msg)
    files = _sources(root)
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    cache = _cache_dir() / digest.hexdigest()[:24]
    wheels = sorted(cache.glob("kslab-*.whl")) if cache.is_dir() else []
    return wheels[0] if wheels else _build(root, files, cache)


def _sources(root: Path) -> list[Path]:
    """The files a wheel of ``root`` is made of: project metadata and the package's files."""
    found = [root / name for name in _PROJECT_FILES if (root / name).is_file()]
    found += sorted(p for p in (root / "kslab").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    return found


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kslab" / "export-wheels"


def _build(root: Path, files: list[Path], cache: Path) -> Path:
    """``pip wheel --no-deps`` of a scratch copy of ``files``; the wheel, moved into ``cache``."""
    with tempfile.TemporaryDirectory(prefix="kslab-wheel-") as scratch:
        source = Path(scratch, "src")
        for path in files:
            copy = source / path.relative_to(root)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, copy)
        out = Path(scratch, "out")
        base = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out)]
        # without build isolation when the interpreter has a setuptools that builds wheels
        # (seconds); else pip fetches the build backend pyproject.toml names from the index
        done = subprocess.run([*base, "--no-build-isolation", str(source)],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            done = subprocess.run([*base, str(source)], capture_output=True, text=True,
                                  timeout=600)
        built = sorted(out.glob("kslab-*.whl"))
        if done.returncode != 0 or not built:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            msg = (f"could not build the kslab wheel the app bundles from {root}: pip wheel "
                   f"said {last}")
            raise ExportError(msg)
        cache.mkdir(parents=True, exist_ok=True)
        partial = cache / (built[0].name + ".partial")
        shutil.copy2(built[0], partial)
        final = cache / built[0].name
        os.replace(partial, final)  # atomic: a concurrent export never copies half a wheel
        return final
