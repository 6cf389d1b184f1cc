"""Install the kslab kernelspec and JupyterLab settings overrides under a prefix (a venv).

``python extensions/install.py [--prefix DIR]`` writes
``DIR/share/jupyter/kernels/kslab/kernel.json`` (this Python, loading ``--ext=kslab.notebook``) and
``DIR/share/jupyter/lab/settings/overrides.d/kslab.json``. Jupyter finds both when it runs
from that prefix, or when ``JUPYTER_PATH`` names ``DIR/share/jupyter``. Invariant: installing
twice gives the same files; nothing outside ``DIR`` is touched.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def install(prefix: Path, python: str = sys.executable) -> list[Path]:
    """Write the kernelspec and the settings overrides under ``prefix``; return the files."""
    share = prefix / "share" / "jupyter"
    kernel_dir = share / "kernels" / "kslab"
    kernel_dir.mkdir(parents=True, exist_ok=True)
    spec = (HERE / "kernels" / "kslab" / "kernel.json").read_text()
    kernel = kernel_dir / "kernel.json"
    kernel.write_text(spec.replace("@PYTHON@", python))
    overrides = share / "lab" / "settings" / "overrides.d"
    overrides.mkdir(parents=True, exist_ok=True)
    settings = overrides / "kslab.json"
    shutil.copyfile(HERE / "lab" / "overrides.d" / "kslab.json", settings)
    return [kernel, settings]


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--prefix`` (default: this Python's prefix)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix))
    args = parser.parse_args(argv)
    for path in install(args.prefix.resolve()):
        print(f"kslab: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
